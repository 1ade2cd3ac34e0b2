"""The kernel filter box: a new text's scan runs in steps between events, a key drops a scan under way,
and the rows shown are always those of the text in the box."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QObject

from occupancy_gui.kernel_table import FilterMasks
from occupancy_gui.ui.kernels.kernel_table_model import NAME, NAME_ROLE
from occupancy_gui.ui.support import idle_steps
from occupancy_gui.ui.support.idle_steps import IdleSteps

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"
TIMEOUT = 15000


def _turn() -> None:
    """One pass of the event loop (a zero-interval timer fires once per pass)."""
    QCoreApplication.processEvents()


def test_idle_steps_run_a_budget_a_turn_and_stop_drops_them(qtbot, monkeypatch) -> None:
    owner = QObject()
    runner = IdleSteps(owner)
    monkeypatch.setattr(idle_steps, "BUDGET_S", 0.0)  # one step a turn
    ran: list[int] = []
    done: list[str] = []

    def steps(name: str, n: int):
        for i in range(n):
            ran.append(i)
            yield i

    runner.run(steps("a", 5), lambda: done.append("a"))
    assert ran == [] and runner.busy  # nothing before the event loop runs
    _turn()
    assert ran == [0]
    _turn()
    assert ran == [0, 1] and not done
    runner.run(steps("b", 2), lambda: done.append("b"))  # replaces the first: its done never comes
    qtbot.waitUntil(lambda: not runner.busy, timeout=TIMEOUT)
    assert done == ["b"] and ran == [0, 1, 0, 1]
    runner.run(steps("c", 3), lambda: done.append("c"))
    _turn()
    runner.stop()
    for _ in range(5):
        _turn()
    assert done == ["b"] and not runner.busy


def _shown(panel) -> set[str]:
    proxy = panel.proxy
    return {proxy.index(r, NAME).data(NAME_ROLE) for r in range(proxy.rowCount())}


def _expected(panel, text: str) -> set[str]:
    table = panel.model.table
    folded = text.casefold()
    return {table.names[i] for i in range(len(table)) if table.is_kernel[i] and folded in table.haystack[i]}


def _start_scan(panel, text: str) -> None:
    """Type ``text`` and let the scan start: a turn for the debounce (0 ms on a small table), one for a step."""
    panel.filter_edit.setText(text)
    _turn()
    _turn()
    assert panel.filter_edit.scan.busy


@pytest.fixture
def stepped(qtbot, window, monkeypatch):
    """The window's dock with a 20-kernel table, scanned 2 rows a step and a step a turn."""
    monkeypatch.setattr(FilterMasks, "STEP_ROWS", 2)
    monkeypatch.setattr(idle_steps, "BUDGET_S", 0.0)
    panel = window.import_panel
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(GEN / "a_ptxas_v.log")
    return panel


def test_typing_scans_between_events_and_shows_the_rows_when_done(qtbot, stepped) -> None:
    panel = stepped
    everything = _shown(panel)
    _start_scan(panel, "named")
    assert panel.model.filter_text == ""  # scanning: the rows not yet changed
    assert _shown(panel) == everything
    qtbot.waitUntil(lambda: panel.model.filter_text == "named", timeout=TIMEOUT)
    assert not panel.filter_edit.scan.busy
    assert _shown(panel) == _expected(panel, "named") and len(_shown(panel)) == 1


def test_a_key_during_a_scan_drops_it(qtbot, stepped) -> None:
    panel = stepped
    _start_scan(panel, "named")
    panel.filter_edit.setText("ILi128")  # before "named"'s scan is done
    qtbot.waitUntil(lambda: panel.model.filter_text == "ili128", timeout=TIMEOUT)
    assert "named" not in panel.model._masks.masks  # dropped half-way: nothing remembered
    assert _shown(panel) == _expected(panel, "ILi128") and panel.count_label.text() == "20 kernels, 5 shown"
    panel.filter_edit.setText("")
    qtbot.waitUntil(lambda: panel.proxy.rowCount() == 20, timeout=TIMEOUT)


def test_set_filter_is_at_once_and_drops_a_scan(qtbot, stepped) -> None:
    panel = stepped
    _start_scan(panel, "named")
    panel.set_filter("ILi128")
    assert not panel.filter_edit.scan.busy and panel.model.filter_text == "ili128"
    assert _shown(panel) == _expected(panel, "ILi128")
    for _ in range(30):
        _turn()
    assert panel.model.filter_text == "ili128"  # the dropped scan's done never came


def test_a_new_table_during_a_scan_is_scanned_anew(qtbot, stepped, monkeypatch) -> None:
    """A scan under way when a new table is shown read the old table: it is dropped and the new one's run."""
    panel = stepped
    real = panel.model.filter_steps
    asked: list[str] = []

    def first_never_ends(text: str):
        asked.append(text)
        steps = real(text)
        return itertools.chain(steps, itertools.repeat(0)) if len(asked) == 1 else steps

    monkeypatch.setattr(panel.model, "filter_steps", first_never_ends)
    _start_scan(panel, "named")
    old_masks = panel.model._masks
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(GEN / "a_ptxas_v.log")  # the same kernels, a new table
    qtbot.waitUntil(lambda: panel.model.filter_text == "named", timeout=TIMEOUT)
    assert asked == ["named", "named"] and panel.model._masks is not old_masks
    assert "named" in panel.model._masks.masks and _shown(panel) == _expected(panel, "named")


def test_a_table_read_while_a_filter_shows_is_scanned_on_the_import_thread(qtbot, stepped, monkeypatch) -> None:
    """A file read again (a rebuilt log, say) while a filter is shown: its rows for that filter are found on
    the import's pool thread, and showing the new table scans nothing on the GUI thread."""
    panel = stepped
    panel.set_filter("NAMED")
    scans: list[tuple[str, bool]] = []
    real = FilterMasks.steps

    def recorded(self: FilterMasks, needle: str):
        scans.append((needle, threading.current_thread() is threading.main_thread()))
        return real(self, needle)

    monkeypatch.setattr(FilterMasks, "steps", recorded)
    old = panel.model.table
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(GEN / "a_ptxas_v.log")
    assert panel.model.table is not old and scans == [("named", False)]
    assert _shown(panel) == _expected(panel, "named") and panel.filter_edit.text() == "NAMED"


def test_find_is_the_first_of_the_name_preferring_the_arch(qtbot) -> None:
    """``find`` (a kernel named by a session, a reload or the command line) equals a scan of the names of the
    table shown, prefers the arch, and answers ``None`` for a name the table lacks."""
    from occupancy_gui.importers.records import KernelRecord
    from occupancy_gui.kernel_table import KernelTable
    from occupancy_gui.ui.kernels.kernel_table_model import KernelTableModel

    def table(names_archs):
        return KernelTable.from_records("x", [KernelRecord(name=n, arch=a, registers=8) for n, a in names_archs])

    model = KernelTableModel()
    model.set_table(table([("_Z1av", "sm_80"), ("_Z1bv", "sm_80"), ("_Z1av", "sm_90"), ("_Z1av", "sm_90")]))
    assert model.find("_Z1av") == 0 and model.find("_Z1av", "sm_90") == 2 and model.find("_Z1av", "sm_75") == 0
    assert model.find("_Z1bv", "sm_90") == 1 and model.find("_Z1cv") is None and model.find("_Z1av", "sm_90") == 2
    model.set_table(table([("_Z1av", "sm_90"), ("_Z1bv", "sm_90")]))  # the last answer, 2, is no row here
    assert model.find("_Z1av", "sm_90") == 0 and model.find("_Z1bv", "sm_90") == 1
    model.set_table(None)
    assert model.find("_Z1av") is None
