"""An AMD import's rows listed while it reads (``ui.kernels.import_stream``): batches shown before the import ends,
Cancel mid-stream restoring the previous table, a row chosen among the first rows kept, a filter typed meanwhile
applied to each batch.

The reader is the real one (``importers.amd.reader.read_amd``) over the committed ``gfx942.co``, whose batches
come from a stand-in ``iter_batches`` that the test releases one at a time: copies of the code object's records
under new names, so that the rows of each batch are known.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from occupancy_gui.ui.kernels import import_stream
from occupancy_gui.ui.kernels.kernel_table_model import NAME_ROLE
from tests.ui.flush import settle

ROOT = Path(__file__).resolve().parents[2]
CODE_OBJECT = ROOT / "tests" / "data" / "importers" / "amd" / "gfx942.co"
PTXAS_LOG = ROOT / "tests" / "data" / "importers" / "gen" / "b_resource_usage.log"
TIMEOUT = 20000


class Gated:
    """Stand-in for ``iter_batches``: batch ``k`` is yielded once the test calls :meth:`release`."""

    def __init__(self, batches: list[list]) -> None:
        self.batches = batches
        self.gates = [threading.Event() for _ in batches]
        self.done = threading.Event()

    def __call__(self, path, kind, walk):
        for batch, gate in zip(self.batches, self.gates):
            while not gate.wait(0.01):
                walk.step(0)  # Cancel is heard while waiting
            walk.step(0)
            yield batch
        self.done.set()

    def release(self, k: int) -> None:
        self.gates[k].set()

    def release_all(self) -> None:
        for gate in self.gates:
            gate.set()


@pytest.fixture
def gated(monkeypatch):
    from occupancy_gui.importers.amd import reader

    base = reader.read_amd(CODE_OBJECT, reader.CODE_OBJECT).records
    kernels = [r for r in base if r.is_kernel]
    batches = [
        [dataclasses.replace(rec, name=f"{rec.name}_b{b}_{j}", demangled=None) for j in range(3) for rec in kernels]
        for b in range(3)
    ]
    gate = Gated(batches)
    monkeypatch.setattr(reader, "iter_batches", gate)
    monkeypatch.setattr(import_stream, "GROWTH", 1.0)  # a preview per batch
    monkeypatch.setattr(import_stream, "INTERVAL_S", 0.0)
    yield gate
    gate.release_all()


def names_shown(panel) -> list[str]:
    proxy = panel.proxy
    return [proxy.index(r, 0).data(NAME_ROLE) for r in range(proxy.rowCount())]


def wait_rows(qtbot, panel, count: int) -> None:
    qtbot.waitUntil(lambda: panel.model.rowCount() == count, timeout=TIMEOUT)


def test_rows_are_listed_batch_by_batch_before_the_import_ends(qtbot, window, gated):
    panel = window.import_panel
    finished = []
    panel.importFinished.connect(finished.append)
    per_batch = len(gated.batches[0])
    panel.load(CODE_OBJECT)
    gated.release(0)
    wait_rows(qtbot, panel, per_batch)
    assert not finished and panel._request is not None  # still reading
    assert names_shown(panel) == [r.name for r in gated.batches[0]]
    assert "so far" in window.statusBar().currentMessage()
    assert panel.count_label.text().startswith(f"{per_batch} kernels")
    gated.release(1)
    wait_rows(qtbot, panel, 2 * per_batch)
    assert not finished
    occupancy = panel.model.occupancy
    assert occupancy.size == 2 * per_batch and not all(o != o for o in occupancy)  # figures, not all NaN
    gated.release(2)
    qtbot.waitUntil(lambda: bool(finished), timeout=TIMEOUT)
    settle(qtbot, window)
    assert names_shown(panel) == [r.name for b in gated.batches for r in b]


def test_cancel_mid_stream_restores_the_previous_table_and_selection(qtbot, window, gated):
    panel = window.import_panel
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(PTXAS_LOG)
    settle(qtbot, window)
    before_table, before_rows = panel.model.table, names_shown(panel)
    panel.view.selectRow(1)
    settle(qtbot, window)
    chosen = panel._selected
    inputs = window.session.inputs
    panel.load(CODE_OBJECT)
    gated.release(0)
    qtbot.waitUntil(lambda: panel.model.table is not before_table, timeout=TIMEOUT)
    assert names_shown(panel) == [r.name for r in gated.batches[0]]
    with qtbot.waitSignal(panel.importCancelled, timeout=1000):
        panel.cancel()
    assert panel.model.table is before_table and names_shown(panel) == before_rows
    assert panel._selected == chosen
    assert panel.view.selectionModel().currentIndex().row() == 1
    assert window.session.inputs == inputs
    gated.release_all()
    panel.runner.wait(TIMEOUT)
    settle(qtbot, window)
    assert panel.model.table is before_table  # a preview queued before the cancel is not shown


def test_a_row_chosen_among_the_first_rows_stays_chosen(qtbot, window, gated):
    panel = window.import_panel
    panel.load(CODE_OBJECT)
    gated.release(0)
    wait_rows(qtbot, panel, len(gated.batches[0]))
    panel.view.selectRow(2)
    settle(qtbot, window)
    name = gated.batches[0][2].name
    assert panel._selected[0] == name
    inputs = window.session.inputs
    gated.release(1)
    wait_rows(qtbot, panel, 2 * len(gated.batches[0]))
    current = panel.view.selectionModel().currentIndex()
    assert current.data(NAME_ROLE) == name
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        gated.release(2)
    settle(qtbot, window)
    assert panel.view.selectionModel().currentIndex().data(NAME_ROLE) == name
    assert panel._selected[0] == name
    assert window.session.inputs == inputs  # kept, not loaded a second time


def test_a_filter_typed_while_rows_arrive_applies_to_each_batch(qtbot, window, gated):
    panel = window.import_panel
    panel.load(CODE_OBJECT)
    gated.release(0)
    wait_rows(qtbot, panel, len(gated.batches[0]))
    panel.filter_edit.set_text_now("_1")  # the second copy of each kernel in every batch
    settle(qtbot, window)
    wanted = [r.name for r in gated.batches[0] if "_1" in r.name.casefold()]
    assert names_shown(panel) == wanted and wanted
    gated.release(1)
    wanted += [r.name for r in gated.batches[1] if "_1" in r.name.casefold()]
    qtbot.waitUntil(lambda: names_shown(panel) == wanted, timeout=TIMEOUT)
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        gated.release(2)
    settle(qtbot, window)
    assert names_shown(panel) == wanted + [r.name for r in gated.batches[2] if "_1" in r.name.casefold()]
