"""Help that teaches: the tour (pointing at the real widgets), the first-launch offer, the terms page and tooltips."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtGui import QImage

from occupancy_gui.ui.help.help_menu import TOUR_OFFERED_KEY
from occupancy_gui.ui.support.terms import TERMS, TERMS_BY_KEY
from tests.ui.flush import settle
from tests.ui.text_fit import cut_texts

SIZES = ((1024, 700), (1400, 900), (1920, 1080))


def test_help_menu_entries(window):
    texts = [a.text() for a in window.help_menu.actions()]
    assert texts[:2] == ["Take the &tour", "Occupancy &terms"] and texts[-1] == "&About"
    assert window.help.terms_action.shortcut().toString() == "F1"


def test_tests_and_plain_windows_never_show_the_tour(qtbot, window):
    assert window.help.tour is None
    assert window.help.offer_tour_once() is False  # a window that saves nothing offers nothing
    qtbot.wait(5)
    assert window.help.tour is None


def test_offered_once_and_remembered(qtbot, session, catalog):
    from occupancy_gui.session import Session
    from occupancy_gui.ui.main_window import MainWindow

    settings = QSettings()
    first = MainWindow(session, settings)
    qtbot.addWidget(first)
    first.show()
    assert first.help.offer_tour_once() is True
    qtbot.waitUntil(lambda: first.help.tour is not None and first.help.tour.isVisible(), timeout=1000)
    tour = first.help.tour
    assert tour.steps[0].key == "welcome" and tour.bubble.title.text() == "New here?"
    assert (tour.bubble.next.text(), tour.bubble.close_button.text()) == ("Start the tour", "Not now")
    assert settings.value(TOUR_OFFERED_KEY) in (True, "true")
    qtbot.mouseClick(tour.bubble.close_button, Qt.MouseButton.LeftButton)
    assert not tour.isVisible()
    first.close()
    second = MainWindow(Session(catalog, device="sm_90"), QSettings())
    qtbot.addWidget(second)
    assert second.help.offer_tour_once() is False
    second.close()


def _inside(inner: QRect, outer: QRect) -> bool:
    return outer.contains(inner)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_step_points_at_a_visible_target_and_reads_whole(qtbot, window, size):
    window.resize(*size)
    settle(qtbot, window)
    tour = window.help.start_tour()
    assert tour.isVisible() and tour.geometry() == window.rect()
    keys = []
    for index in range(len(tour.steps)):
        assert tour.index == index
        step = tour.steps[index]
        keys.append(step.key)
        assert tour.target is not None and not tour.target.isEmpty(), step.key
        assert _inside(tour.bubble.geometry(), window.rect()), step.key
        assert cut_texts(tour.bubble) == [], step.key
        assert tour.bubble.counter.text() == f"{index + 1} of {len(tour.steps)}"
        qtbot.mouseClick(tour.bubble.next, Qt.MouseButton.LeftButton)
    assert keys == ["inputs", "answer", "table", "plots", "docks", "import", "help"]
    assert not tour.isVisible()  # "Done" on the last step closes it


def test_targets_are_the_real_widgets(qtbot, window):
    tour = window.help.start_tour()
    assert tour.target == QRect(window.inputs_scroll.mapTo(window, QPoint(0, 0)), window.inputs_scroll.size())
    tour.show_step(2)
    assert tour.target == QRect(window.table.mapTo(window, QPoint(0, 0)), window.table.size())
    assert not tour.bubble.geometry().intersects(tour.target)  # there is room beside the table
    tour.show_step(4)
    bar = window.menuBar()
    analysis = bar.actionGeometry(window.analysis_menu.menuAction()).translated(bar.mapTo(window, QPoint(0, 0)))
    assert tour.target == analysis


def test_keys_and_back(qtbot, window):
    tour = window.help.start_tour(3)
    assert tour.index == 3 and tour.bubble.back.isEnabled()
    qtbot.keyClick(tour, Qt.Key.Key_Left)
    assert tour.index == 2
    qtbot.keyClick(tour, Qt.Key.Key_Right)
    assert tour.index == 3
    qtbot.keyClick(tour, Qt.Key.Key_Escape)
    assert not tour.isVisible()
    tour = window.help.start_tour(0)
    assert not tour.bubble.back.isEnabled()


def test_the_tour_follows_a_resize_and_an_open_dock(qtbot, window):
    tour = window.help.start_tour(3)  # the plots
    before = tour.target
    window.utilization_dock.show()
    window.resize(1024, 700)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: tour.target != before, timeout=1000)
    assert tour.geometry() == window.rect() and _inside(tour.bubble.geometry(), window.rect())


def test_terms_page(qtbot, window):
    window.help.terms_action.trigger()
    dialog = window.help.terms_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.browser.toPlainText()
    for term in TERMS:
        assert term.title in text
    for needed in (
        "first-pass estimate",
        "binding limit",
        "carveout",
        "barriers",
        "1 KiB",
        "__launch_bounds__",
        "required block size",
        "min blocks per SM",
        "achieved occupancy",
        "wave",
    ):
        assert needed.casefold() in text.casefold(), needed
    dialog.show_term("utilization")
    assert dialog.browser.verticalScrollBar().value() > 0
    with pytest.raises(KeyError, match="unknown term"):
        dialog.show_term("nonsense")
    dialog.close()


def test_tooltips_explain_in_plain_words(window):
    summary = window.summary
    assert TERMS_BY_KEY["binding"].tip in summary.limited_by.tip
    assert TERMS_BY_KEY["estimate"].tip in summary.estimate.tip
    assert TERMS_BY_KEY["occupancy"].tip in summary.occupancy.toolTip()
    assert TERMS_BY_KEY["carveout"].tip in window.device_panel.carveout.toolTip()
    model = window.table_model
    assert TERMS_BY_KEY["binding"].tip in model.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    rows = {model.row(r).limit.value: r for r in range(model.rowCount())}
    smem_tip = model.data(model.index(rows["shared_memory"], 0), Qt.ItemDataRole.ToolTipRole)
    assert TERMS_BY_KEY["reserved"].tip in smem_tip  # sm_100 reserves 1 KiB per block
    barrier_tip = model.data(model.index(rows["barriers"], 0), Qt.ItemDataRole.ToolTipRole)
    assert TERMS_BY_KEY["barriers"].tip in barrier_tip


def test_screenshot_shows_a_tour_step_only_when_asked(qapp, tmp_path, capsys):
    from occupancy_gui.__main__ import main

    argv = ["--device", "sm_100", "--threads", "256", "--registers", "64", "--size", "1024x700"]
    plain, toured = tmp_path / "plain.png", tmp_path / "tour.png"
    assert main([*argv, "--screenshot", str(plain)]) == 0, capsys.readouterr().err
    assert main([*argv, "--screenshot", str(toured), "--tour", "1"]) == 0, capsys.readouterr().err
    a, b = QImage(str(plain)), QImage(str(toured))

    def lightness(image: QImage) -> float:  # the plots' corner, far from step 1's target (the inputs)
        points = [(x, y) for x in range(700, 1000, 20) for y in range(500, 680, 20)]
        return sum(image.pixelColor(x, y).lightnessF() for x, y in points) / len(points)

    assert lightness(b) < lightness(a) - 0.15  # dimmed around the step's target


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_on_an_amd_device_the_tour_points_at_amds_card_and_table_and_says_amds_words(qtbot, window, size):
    from tests.ui.test_amd_window import choose_device

    window.resize(*size)
    choose_device(qtbot, window, "MI300X")
    tour = window.help.start_tour()
    steps = {step.key: step for step in tour.steps}
    assert "VGPRs" in steps["inputs"].text and "registers per thread" not in steps["inputs"].text
    assert "HIP runtime" in steps["answer"].text and "compiler model" in steps["answer"].text
    for index, (key, widget) in enumerate((("answer", window.amd.summary), ("table", window.amd.table)), start=1):
        tour.show_step(index)
        assert tour.steps[index].key == key and widget.isVisible()
        assert tour.target == QRect(widget.mapTo(window, QPoint(0, 0)), widget.size()), key
        assert cut_texts(tour.bubble) == [], key
    tour.close_tour()
    choose_device(qtbot, window, "sm_90")
    tour = window.help.start_tour()
    tour.show_step(1)
    assert tour.target == QRect(window.summary.mapTo(window, QPoint(0, 0)), window.summary.size())
    assert "SM" in tour.steps[1].text
