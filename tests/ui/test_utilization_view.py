"""The Utilization dock: the engine's split of each resource, worded, drawn as bars, kept up to date."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from occupancy_gui.ui.analysis.utilization_model import BAR_COLUMN, FRACTIONS_ROLE, UtilizationModel
from tests.ui.flush import settle
from tests.ui.text_fit import cut_texts

SIZES = ((1024, 700), (1400, 900), (1920, 1080))


def show_utilization(qtbot, window):
    dock = window.utilization_dock
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: dock.view().isVisible(), timeout=1000)
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty(), timeout=1000)  # in front of its tab group
    view = dock.view()
    qtbot.waitUntil(lambda: not view.table.viewport().visibleRegion().isEmpty(), timeout=1000)  # laid out
    return view


def rows(model) -> list[tuple[str, ...]]:
    return [tuple(model.index(r, c).data() or "" for c in range(model.columnCount())) for r in range(model.rowCount())]


def test_registered_as_an_analysis_dock(window):
    dock = window.utilization_dock
    assert dock.objectName() == "utilization_dock" and dock.windowTitle() == "Utilization"
    assert dock.toggleViewAction() in window.analysis_menu.actions()
    assert not dock.isVisibleTo(window)  # closed until asked for: built on first show


def test_seed_example_in_words(qtbot, window):
    """sm_100, 256 threads, 64 registers, 24 KiB static: the figures of the engine test, in the window's units."""
    view = show_utilization(qtbot, window)
    assert rows(view.model) == [
        ("Block slots", "", "4 blocks (12.5 %)", "28 blocks (87.5 %)", "0", "32 blocks", "1 block"),
        ("Warps", "", "32 warps (50 %)", "32 warps (50 %)", "0", "64 warps", "8 warps"),
        ("★ Registers", "", "65,536 registers (100 %)", "0", "0", "65,536 registers", "16,384 registers"),
        ("Shared memory", "", "100 KiB (43.9 %)", "125 KiB (54.8 %)", "3 KiB (1.3 %)", "228 KiB", "25 KiB"),
        ("Block barriers", "", "4 barriers (6.2 %)", "60 barriers (93.8 %)", "0", "64 barriers", "1 barrier"),
    ]
    assert "4 resident blocks" in view.caption.text() and "registers" in view.caption.text()
    registers = view.model.index(2, 0)
    assert registers.data(Qt.ItemDataRole.FontRole).bold() and registers.data(Qt.ItemDataRole.BackgroundRole)
    smem_tip = view.model.index(3, 2).data(Qt.ItemDataRole.ToolTipRole)
    assert "233,472 bytes" in smem_tip and "3,072 bytes" in smem_tip and "⌊233472 / 25600⌋" in smem_tip


def test_bars_are_the_shares(qtbot, window):
    view = show_utilization(qtbot, window)
    for row in range(view.model.rowCount()):
        fractions = view.model.index(row, BAR_COLUMN).data(FRACTIONS_ROLE)
        assert sum(fractions) == pytest.approx(1.0) and min(fractions) >= 0
    assert view.model.index(1, BAR_COLUMN).data(FRACTIONS_ROLE) == (0.5, 0.5, 0.0)
    view.table.viewport().grab()  # the delegate paints without error


def test_follows_the_session_and_emits_only_on_change(qtbot, window):
    view = show_utilization(qtbot, window)
    changes: list[tuple[int, int]] = []
    view.model.dataChanged.connect(lambda a, b: changes.append((a.row(), b.row())))
    view.model.set_result(window.session.result)
    assert changes == []  # the same result: nothing to tell
    window.session.replace(registers=32)  # 8 blocks: warps and registers tie
    settle(qtbot, window)
    assert changes and [r[0] for r in rows(view.model)][:3] == ["Block slots", "★ Warps", "★ Registers"]
    assert rows(view.model)[2][2:4] == ("65,536 registers (100 %)", "0")


def test_nothing_fits_and_no_result(qtbot, window, monkeypatch):
    view = show_utilization(qtbot, window)
    window.session.replace(threads=1024, registers=128)  # 131,072 registers per block > 65,536
    settle(qtbot, window)
    assert "No block fits" in view.caption.text() and "registers per block" in view.caption.text()
    registers = rows(view.model)[2]
    assert registers[0] == "Registers" and not view.model.is_binding(2)  # no ★ where nothing resides (as the table)
    assert registers[2:5] == ("0", "0", "65,536 registers (100 %)")
    assert "Not even one block fits" in view.model.index(2, 0).data(Qt.ItemDataRole.ToolTipRole)
    # A query the engine refuses (an unknown architecture, say) leaves the session with an error, no result.
    monkeypatch.setattr(window.session, "result", None)
    monkeypatch.setattr(window.session, "error", "compute capability 4.0 is unknown to the occupancy model")
    view.refresh()
    assert view.model.rowCount() == 0
    assert view.caption.text().startswith("<b>No figures:</b> compute capability 4.0 is unknown")


def test_model_contract(qtmodeltester, session):
    model = UtilizationModel()
    model.set_result(session.result)
    qtmodeltester.check(model)
    model.set_result(None)
    assert model.rowCount() == 0
    qtmodeltester.check(model)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_text_fits(qtbot, window, size):
    window.resize(*size)
    view = show_utilization(qtbot, window)
    settle(qtbot, window)
    assert cut_texts(view) == []


def test_the_fit_check_sees_a_cut(qtbot, window):
    """The measurement above can fail: a column made too narrow for its text is reported."""
    view = show_utilization(qtbot, window)
    view.table.horizontalHeader().resizeSection(2, 30)
    assert any("cell (2, 2)" in cut for cut in cut_texts(view.table))
