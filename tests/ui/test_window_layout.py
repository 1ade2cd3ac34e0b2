"""The window at small sizes with every dock open, docks coming to the front, the remembered
arrangement, and headless screenshots of any arrangement."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QSettings
from PySide6.QtGui import QImage

from occupancy_gui.ui.calculator.constraint_model import BLOCKS_COLUMN
from occupancy_gui.ui.calculator.plots.plot_area import GRID, MARGINS, MIN_PLOT_HEIGHT, SINGLE, arrangement_for
from occupancy_gui.ui.support.window_layout import docks_by_name, parse_docks, show_docks
from tests.ui.flush import settle

SIZES = [(1024, 700), (1400, 900), (1920, 1080)]
ANSWER_MARGIN = 40
"""Pixels a 1024×700 window with every dock open can lose before any minimum binds (the answer, the
plot, a dock): about two rows of the constraint table, so that a taller font or one more row does
not clip the answer.  It had 5 to 7 before the bottom docks' minimums were trimmed."""


def arrange(qtbot, window, size, docks):
    window.resize(*size)
    show_docks(window, parse_docks(docks, window))
    for _ in range(3):
        settle(qtbot, window)
        qtbot.wait(10)


def visible_in_window(window, widget) -> bool:
    """The widget is shown and lies wholly inside the window."""
    if not widget.isVisible() or widget.width() <= 0 or widget.height() <= 0:
        return False
    top_left = widget.mapTo(window, QPoint(0, 0))
    return (
        top_left.x() >= 0
        and top_left.y() >= 0
        and top_left.x() + widget.width() <= window.width()
        and top_left.y() + widget.height() <= window.height()
    )


@pytest.mark.parametrize("size", [*SIZES, (1024, 700 - ANSWER_MARGIN)])
@pytest.mark.parametrize("docks", ["all", "none"])
def test_the_answer_stays_in_sight_and_plots_readable(qtbot, window, size, docks):
    arrange(qtbot, window, size, docks)
    assert (window.width(), window.height()) == size  # no dock's minimum forces a bigger window
    summary = window.summary
    for widget in (summary.occupancy, summary.counts, summary.limited_by):
        assert visible_in_window(window, widget), widget
    assert not summary.counts.cut_short and not summary.limited_by.cut_short
    assert "Limited by" in summary.limited_by.text() and "block" in summary.counts.text()
    table = window.table
    assert visible_in_window(window, table)
    column_right = table.columnViewportPosition(BLOCKS_COLUMN) + table.columnWidth(BLOCKS_COLUMN)
    assert table.columnViewportPosition(BLOCKS_COLUMN) >= 0 and column_right <= table.viewport().width()
    rows = table.model().rowCount()
    assert table.rowViewportPosition(rows - 1) + table.rowHeight(rows - 1) <= table.viewport().height()
    area = window.plot_area
    assert visible_in_window(window, area)
    shown = [p.plot.layout for p in window.plots.plots.values() if p.plot.layout.isVisible()]
    assert shown and all(cell.geometry().height() >= MIN_PLOT_HEIGHT - 1 for cell in shown), [
        c.geometry().height() for c in shown
    ]
    assert len(shown) == (1 if area.arrangement == SINGLE else 4)
    assert area.tabs.isVisible() == (area.arrangement == SINGLE)


@pytest.mark.parametrize("docks", ["all", "none"])
def test_the_smallest_window_keeps_a_margin_before_the_answer_is_clipped(qtbot, window, docks):
    arrange(qtbot, window, (1024, 700), docks)
    spare = window.height() - window.minimumSizeHint().height()
    assert spare >= ANSWER_MARGIN, spare
    # The answer itself has its whole height: its fixed-height parts are not squeezed.
    table = window.table
    rows = table.model().rowCount()
    assert table.height() == table.fitting_height() and table.viewport().height() >= table.rowViewportPosition(
        rows - 1
    ) + table.rowHeight(rows - 1)
    assert window.summary.height() >= window.summary.minimumSizeHint().height()


def test_small_window_with_docks_shows_one_plot_and_tabs_switch_it(qtbot, window):
    arrange(qtbot, window, (1024, 700), "all")
    area = window.plot_area
    assert area.arrangement == SINGLE
    area.tabs.setCurrentIndex(1)
    visible = [k for k, p in window.plots.plots.items() if p.plot.layout.isVisible()]
    assert visible == ["registers"]
    arrange(qtbot, window, (1920, 1080), "none")
    assert area.arrangement == GRID and all(p.plot.layout.isVisible() for p in window.plots.plots.values())


def test_one_plot_at_a_time_is_a_choice_too(qtbot, window):
    arrange(qtbot, window, (1920, 1080), "none")
    window.one_plot_action.setChecked(True)
    assert window.plot_area.arrangement == SINGLE and window.plot_area.tabs.isVisible()
    window.one_plot_action.setChecked(False)
    assert window.plot_area.arrangement == GRID


def test_arrangement_rules():
    assert arrangement_for(800, 2 * MIN_PLOT_HEIGHT + MARGINS, False) == GRID
    assert arrangement_for(800, 2 * MIN_PLOT_HEIGHT + MARGINS - 1, False) == SINGLE
    assert arrangement_for(1200, MIN_PLOT_HEIGHT + MARGINS, False) == "row"
    assert arrangement_for(600, MIN_PLOT_HEIGHT + MARGINS, False) == SINGLE
    assert arrangement_for(2000, 2000, True) == SINGLE


def test_a_newly_opened_dock_comes_to_the_front(qtbot, window):
    arrange(qtbot, window, (1400, 900), "none")
    docks = docks_by_name(window)
    docks["advisor"].toggleViewAction().trigger()
    settle(qtbot, window)
    docks["heatmap"].toggleViewAction().trigger()  # tabbed with the advisor: it must not open behind it
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not docks["heatmap"].visibleRegion().isEmpty(), timeout=2000)
    assert docks["advisor"].visibleRegion().isEmpty()


def test_the_window_remembers_its_arrangement(qtbot, session, tmp_path):
    from occupancy_gui.ui.app import close_without_asking
    from occupancy_gui.ui.main_window import MainWindow

    settings = QSettings(str(tmp_path / "layout.ini"), QSettings.Format.IniFormat)
    first = MainWindow(session, settings)
    qtbot.addWidget(first)
    first.show()
    show_docks(first, parse_docks("heatmap,compare", first))
    first.one_plot_action.setChecked(True)
    settle(qtbot, first)
    close_without_asking(first)
    second = MainWindow(session, settings)
    qtbot.addWidget(second)
    second.show()
    settle(qtbot, second)
    open_now = {name for name, d in docks_by_name(second).items() if d.isVisible()}
    assert open_now == {"heatmap", "compare"} and second.one_plot_action.isChecked()
    close_without_asking(second)


def test_screenshot_renders_any_size_and_arrangement(qtbot, tmp_path, monkeypatch):
    from occupancy_gui.ui import app

    out = tmp_path / "shot.png"
    assert app.main(["--screenshot", str(out), "--size", "1024x700", "--docks", "advisor,kernel_table"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1024, 700)  # device pixel ratio 1 offscreen
    assert app.main(["--screenshot", str(out), "--docks", "nonsense"]) == 2


def test_bad_size_is_one_line(capsys):
    from occupancy_gui.ui import app

    assert app.main(["--screenshot", "x.png", "--size", "big"]) == 2
    assert "expected WIDTHxHEIGHT" in capsys.readouterr().err
