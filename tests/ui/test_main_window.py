"""The whole window: the worked example, edits flowing through, the banner, plots, menus, settings."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF, QSettings
from PySide6.QtGui import QGuiApplication

from occupancy_gui.engine import Limit
from occupancy_gui.ui.calculator.plots.step_plot import WARPS
from occupancy_gui.ui.main_window import MainWindow


def settle(qtbot, window):
    window.bridge.flush()
    qtbot.wait(1)


def test_seed_example(window):
    summary = window.summary
    assert summary.occupancy.text() == "50 %"
    assert "<b>4</b> blocks" in summary.counts.text() and "<b>32</b> warps" in summary.counts.text()
    assert "registers" in summary.limited_by.text()
    assert "4 blocks, 50 %" in summary.estimate.text()
    assert not window.summary.banner.isVisible()
    binding = [
        window.table_model.row(r).limit
        for r in range(window.table_model.rowCount())
        if window.table_model.is_binding(r)
    ]
    assert binding == [Limit.REGISTERS]


def test_fewer_registers_moves_binding_and_curves(qtbot, window, results):
    threads_plot = window.plots.plots["threads"]
    x_before, y_before = (a.copy() for a in threads_plot.drawn_steps())
    count = window.session.recompute_count
    window.kernel_panel.spins["registers"].setValue(32)
    qtbot.waitUntil(lambda: len(results) == 1, timeout=1000)
    qtbot.wait(5)
    assert results == [frozenset({"registers"})] and window.session.recompute_count == count + 1
    assert window.summary.occupancy.text() == "100 %"
    assert "warps / threads per SM + registers" in window.summary.limited_by.text()
    binding = {
        window.table_model.row(r).limit
        for r in range(window.table_model.rowCount())
        if window.table_model.is_binding(r)
    }
    assert binding == {Limit.WARPS, Limit.REGISTERS}
    curve = window.session.curves["threads"]
    assert_drawn_matches_engine(threads_plot, curve)
    x_after, y_after = threads_plot.drawn_steps()
    assert len(x_after) == len(y_after) + 1
    assert not (len(y_after) == len(y_before) and np.array_equal(y_after, y_before))
    registers_plot = window.plots.plots["registers"]
    assert registers_plot.current_line.value() == 32
    assert registers_plot.current_point.pos().y() == 100.0
    assert_drawn_matches_engine(registers_plot, window.session.curves["registers"])


def assert_drawn_matches_engine(plot, curve, values=None):
    """Every sample of the engine's curve has the same value on the drawn (merged) step curve."""
    values = curve.occupancy * 100 if values is None else values
    x = curve.x / plot.scale
    drawn = np.array([plot.drawn_value_at(v) for v in x])
    assert np.allclose(drawn, values)
    edges, _y = plot.drawn_steps()
    assert edges[0] == curve.edges[0] / plot.scale and edges[-1] == curve.edges[-1] / plot.scale


def test_zero_blocks_shows_banner(qtbot, window):
    window.kernel_panel.spins["threads"].setValue(1025)
    settle(qtbot, window)
    banner = window.summary.banner
    assert banner.isVisible()
    assert "1025 threads per block > 1024 allowed" in banner.body.text()
    assert window.summary.occupancy.text() == "0 %"
    window.kernel_panel.spins["threads"].setValue(256)
    settle(qtbot, window)
    assert not banner.isVisible()


def test_every_reason_listed(qtbot, window):
    with window.session.batch():
        window.session.replace(threads=1025, registers=300)
    settle(qtbot, window)
    text = window.summary.banner.body.text()
    assert "1025 threads" in text and "300 registers per thread" in text
    assert text.count("•") >= 2


def test_engine_error_shows_banner(qtbot, window):
    window.session.replace(carveout=150)
    settle(qtbot, window)
    assert window.summary.banner.isVisible() and "carveout" in window.summary.banner.body.text()
    assert window.table_model.rowCount() == 0


def test_cliffs_marked(window):
    plot = window.plots.plots["threads"]
    above, below = window.session.curves["threads"].cliff_above(), window.session.curves["threads"].cliff_below()
    assert plot.cliff_above.textItem.toPlainText() == f"→ {above.active_blocks} blocks"
    assert plot.cliff_below.textItem.toPlainText() == f"{below.active_blocks} blocks ←"
    assert sorted(m.pos().x() for m in plot.cliff_markers) == sorted([above.x, below.x])


def test_one_convention_for_counts(qtbot, window):
    """'1 block', '1 warp', never '1 blocks' (a cliff label read "1 blocks ←")."""
    window.session.replace(threads=32, registers=255, static_smem=0)
    settle(qtbot, window)
    warps_row = next(r for r in range(window.table_model.rowCount()) if window.table_model.row(r).limit == Limit.WARPS)
    assert window.table_model.display_text(warps_row, 3) == "1 warp"
    assert window.table_model.display_text(warps_row, 2) == "32 threads"
    window.session.replace(threads=512, registers=64)  # 2 blocks; one thread more leaves 1
    settle(qtbot, window)
    labels = [t.textItem.toPlainText() for p in window.plots.plots.values() for t in (p.cliff_above, p.cliff_below)]
    assert not any(label.startswith(("1 blocks", "→ 1 blocks")) for label in labels)
    assert any(label in ("1 block ←", "→ 1 block") for label in labels), labels


def assert_labels_placed(plot, where: str) -> None:
    """The cliff labels of ``plot``: inside the plot area, apart, clear of the current point and of any "cannot
    launch" region, each on its own side of the point it names ("→ N" right of it, "N ←" left of it)."""
    vb = plot.plot.getViewBox()
    area = QRectF(0, 0, vb.width(), vb.height()).adjusted(-0.5, -0.5, 0.5, 0.5)
    rects = plot.label_rects()
    obstacles = plot.obstacles()
    for name, rect in rects.items():
        assert area.contains(rect), (where, name, rect, area)
        assert not any(rect.intersects(o) for o in obstacles), (where, name, rect, obstacles)
        marker = plot.cliff_markers[0 if name == "above" else 1]
        px, _py = plot._to_pixels(marker.pos().x(), marker.pos().y())
        if name == "above":
            assert rect.left() >= px - 0.5, (where, name, rect, px)
        else:
            assert rect.right() <= px + 0.5, (where, name, rect, px)
    if len(rects) == 2:
        assert not rects["above"].intersects(rects["below"]), where


@pytest.mark.parametrize("size", [(1400, 520), (1400, 1000), (1024, 700), (900, 600)])
def test_cliff_labels_stay_inside_the_plot_apart_and_beside_their_points(qtbot, window, size):
    """Near 100 % in a short plot a label goes below its point; labels never cover one another, the current point
    or a "cannot launch" region, and each stays on the side of the point it names (it used to flip sides)."""
    window.resize(*size)
    cases = [
        dict(device="sm_90", threads=256, registers=32, static_smem=0),
        dict(device="sm_100", threads=256, registers=64, static_smem=24 * 1024),
        dict(device="sm_86", threads=96, registers=40, static_smem=4096),
        dict(device="sm_90", threads=128, registers=8, static_smem=0, max_threads_per_block=128),
        dict(device="sm_90", threads=1024, registers=16, static_smem=0),
        dict(device="sm_100", threads=32, registers=255, static_smem=40 * 1024),
        dict(device="sm_90", threads=64, registers=32, static_smem=0, required_block_size=64),
        dict(device="H100 SXM5", threads=256, registers=80, static_smem=8448, max_threads_per_block=256),
    ]
    for case in cases:
        window.session.replace(max_threads_per_block=None, required_block_size=None)
        window.session.replace(**case)
        settle(qtbot, window)
        qtbot.wait(10)
        for name, plot in window.plots.plots.items():
            if plot.plot.getViewBox().isVisible() and plot.plot.getViewBox().width() > 0:
                assert_labels_placed(plot, f"{name} {case} {size}")
        window.session.replace(min_blocks_per_sm=3)  # moves no cliff: the labels keep their places (and hiding)
        settle(qtbot, window)
        for name, plot in window.plots.plots.items():
            if plot.plot.getViewBox().isVisible() and plot.plot.getViewBox().width() > 0:
                assert_labels_placed(plot, f"{name} {case} {size}, again")
        window.session.replace(min_blocks_per_sm=None)


def test_no_label_for_the_step_into_cannot_launch(qtbot, window):
    """At a launch bound the step to 0 blocks is the shaded region's, which says why: no "→ 0 blocks" on top."""
    window.session.replace(device="sm_90", threads=128, registers=8, static_smem=0, max_threads_per_block=128)
    settle(qtbot, window)
    plot = window.plots.plots["threads"]
    assert plot.cannot_launch.isVisible() and not plot.cliff_above.isVisible()


def test_shared_memory_plot_in_kib(window):
    plot = window.plots.plots["shared_memory"]
    assert_drawn_matches_engine(plot, window.session.curves["shared_memory"])
    assert plot.current_line.value() == 24.0
    assert plot.plot.getAxis("bottom").labelText == "shared memory per block (KiB)"
    assert not plot.plot.getAxis("left").autoSIPrefix


def test_barrier_plot_only_from_cc9(qtbot, window):
    plot = window.plots.plots["barriers"]
    assert plot.curve.isVisible() and not plot.message.isVisible()
    window.session.replace(device="sm_86")
    settle(qtbot, window)
    assert not plot.curve.isVisible() and plot.message.isVisible()
    assert "9.0" in plot.message.textItem.toPlainText()


def test_plot_items_created_once(qtbot, window):
    scene = window.plots.scene()
    items = set(scene.items())
    view_items = {key: list(p.plot.getViewBox().addedItems) for key, p in window.plots.plots.items()}
    for change in (
        dict(threads=64),
        dict(threads=1025),
        dict(device="sm_86"),
        dict(registers=200),
        dict(device="sm_100", threads=128),
    ):
        window.session.replace(**change)
        settle(qtbot, window)
    assert set(scene.items()) == items
    assert {key: list(p.plot.getViewBox().addedItems) for key, p in window.plots.plots.items()} == view_items


def test_percent_warps_toggle(qtbot, window):
    plot = window.plots.plots["threads"]
    window.warps_action.trigger()
    assert window.plots.mode == WARPS
    curve = window.session.curves["threads"]
    assert_drawn_matches_engine(plot, curve, curve.active_warps)
    assert plot.plot.getViewBox().viewRange()[1][1] >= 64
    window.percent_action.trigger()
    assert plot.drawn_steps()[1].max() <= 100


def test_hover_text(qtbot, window):
    plot = window.plots.plots["registers"]
    scene_pos = plot.plot.getViewBox().mapViewToScene(QPointF(64, 50))
    window.plots._on_scene_mouse_moved(scene_pos)
    assert plot.hover_text.isVisible()
    text = plot.hover_text.textItem.toPlainText()
    assert "64 registers" in text and "4 blocks" in text and "50 % occupancy" in text
    window.plots._on_scene_mouse_moved(QPointF(-100, -100))
    assert not plot.hover_text.isVisible()


def test_copy_table(qtbot, window):
    window.copy_action.trigger()
    text = QGuiApplication.clipboard().text()
    assert text.startswith("Limit\t") and "★ Registers" in text


def test_shortcuts_and_menus(window):
    assert window.quit_action.shortcut().toString() == "Ctrl+Q"
    assert window.copy_action.shortcut().toString() == "Ctrl+Shift+C"
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&View", "A&nalysis", "&Help"]


def test_about_dialog(qtbot, window):
    from occupancy_gui import REFERENCE_HEADER, __version__

    window.about_action.trigger()
    dialog = window.about_dialog
    text = dialog.browser.toPlainText()
    assert __version__ in text and REFERENCE_HEADER in text and "first-pass estimate" in text
    dialog.close()


def test_device_change_updates_everything(qtbot, window):
    panel = window.device_panel
    panel.selector.activated.emit(panel.selector.index_of_name("H100 SXM5"))
    settle(qtbot, window)
    assert window.windowTitle().startswith("H100 SXM5")
    assert window.session.device.num_sms == 132


def test_settings_round_trip(qtbot, session, catalog):
    settings = QSettings()
    first = MainWindow(session, settings)
    qtbot.addWidget(first)
    first.show()
    session.replace(threads=384, registers=48, max_dynamic_smem=64 * 1024)
    first.set_plot_mode(WARPS)
    first.close()
    from occupancy_gui.ui.support.settings import load_inputs

    saved = load_inputs(QSettings(), catalog)
    assert saved["threads"] == 384 and saved["registers"] == 48 and saved["max_dynamic_smem"] == 64 * 1024
    assert saved["device"] == "sm_100"
    from occupancy_gui.session import Session

    second = MainWindow(Session(catalog, **saved), QSettings())
    qtbot.addWidget(second)
    assert second.plots.mode == WARPS and second.kernel_panel.spins["threads"].value() == 384
    second.close()


def test_keyboard_only_tab_order(window):
    from PySide6.QtCore import Qt as _Qt

    spins = window.kernel_panel.spins
    start = widget = window.device_panel.selector
    chain = []
    for _ in range(2000):  # every widget in the window, in Tab order, until the chain comes round
        widget = widget.nextInFocusChain()
        if widget is start:
            break
        if widget.focusPolicy() & _Qt.FocusPolicy.TabFocus and widget.isVisibleTo(window):
            chain.append(widget)
    order = [spins[n] for n in ("threads", "registers", "static_smem", "dynamic_smem", "barriers")]
    positions = [chain.index(spin) for spin in order]
    assert positions == sorted(positions)
    assert chain.index(window.device_panel.carveout) < positions[0]
    for name, label in window.kernel_panel.labels.items():
        assert "&" in label.text() and label.buddy() is spins[name]


def test_mnemonics_are_unique(window):
    """Alt+letter reaches each input (labels with buddies, group boxes, check boxes, menus) unambiguously."""
    import re

    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel

    texts = [a.text() for a in window.menuBar().actions()]
    texts += [w.text() for w in window.findChildren(QLabel) if w.buddy() is not None]
    texts += [w.title() for w in window.findChildren(QGroupBox)]
    texts += [w.text() for w in window.findChildren(QAbstractButton) if w.parent() is not window.toolbar]
    letters = [m.group(1).lower() for t in texts for m in [re.search(r"&([^&])", t)] if m]
    assert len(letters) >= 14
    assert len(letters) == len(set(letters)), sorted(letters)


@pytest.mark.parametrize("edit", ["spin", "typed", "slider", "device", "carveout", "checkbox"])
def test_each_kind_of_edit_is_one_recompute_and_one_emission(qtbot, window, results, edit):
    from PySide6.QtCore import Qt as _Qt

    kernel, device = window.kernel_panel, window.device_panel
    count = window.session.recompute_count
    if edit == "spin":
        kernel.spins["static_smem"].stepBy(1)
    elif edit == "typed":
        spin = kernel.spins["dynamic_smem"]
        spin.setFocus()
        spin.lineEdit().selectAll()
        qtbot.keyClicks(spin.lineEdit(), "2 KiB")
        qtbot.keyClick(spin.lineEdit(), _Qt.Key.Key_Return)
    elif edit == "slider":
        kernel.threads_slider.setValue(kernel.threads_slider.value() + 3)
    elif edit == "device":
        device.selector.activated.emit(device.selector.index_of_name("sm_90"))
    elif edit == "carveout":
        device.carveout.activated.emit(1)
    else:
        kernel.runtime_default.setChecked(False)
    qtbot.waitUntil(lambda: len(results) == 1, timeout=1000)
    qtbot.wait(20)
    assert len(results) == 1
    assert window.session.recompute_count == count + 1


def test_follows_a_dark_palette(qtbot, window, qapp):
    from PySide6.QtGui import QColor, QPalette

    from occupancy_gui.ui.support.qt_utils import is_dark

    old = qapp.palette()
    dark = QPalette(old)
    for role, colour in (
        (QPalette.ColorRole.Window, "#202124"),
        (QPalette.ColorRole.Base, "#181818"),
        (QPalette.ColorRole.WindowText, "#e8eaed"),
        (QPalette.ColorRole.Text, "#e8eaed"),
    ):
        dark.setColor(role, QColor(colour))
    try:
        qapp.setPalette(dark)
        qtbot.wait(1)
        assert is_dark()
        assert window.plots.backgroundBrush().color() == QColor("#181818")
        assert window.plots.plots["threads"].plot.getAxis("left").pen().color() == QColor("#e8eaed")
        error = window.kernel_panel.fields["threads"].error
        assert error.palette().color(QPalette.ColorRole.WindowText).lightness() > 128  # a light red on dark
    finally:
        qapp.setPalette(old)
        qtbot.wait(1)
    assert window.plots.backgroundBrush().color() == old.color(QPalette.ColorRole.Base)


def _tooltip_of(label) -> str:
    """The tooltip as a hover would show it (the event that asks for it)."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(label, QHelpEvent(QEvent.Type.ToolTip, QPoint(2, 2), label.mapToGlobal(QPoint(2, 2))))
    return label.toolTip()


def test_summary_lines_cut_short_show_whole_in_their_tooltip(qtbot, window):
    window.resize(1400, 900)
    settle(qtbot, window)
    counts, estimate = window.summary.counts, window.summary.estimate
    assert not counts.cut_short and _tooltip_of(counts) == ""
    assert _tooltip_of(estimate).startswith("First-pass estimate: min(")
    window.resize(700, 600)
    settle(qtbot, window)
    qtbot.wait(20)
    assert counts.cut_short
    assert _tooltip_of(counts) == counts.text().replace("<b>", "").replace("</b>", "")
    assert "threads per SM" in counts.toolTip()
