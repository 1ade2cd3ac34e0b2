"""Undo/redo in the window (keys, slider drags, wheel bursts) and "Save changes?" before work is lost."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from occupancy_gui.ui.session_io import SessionIO
from tests.ui.test_kernel_panel import commit_text


def test_ctrl_z_undoes_a_typed_edit_even_with_the_focus_in_the_box(qtbot, window):
    spin = window.kernel_panel.spins["registers"]
    commit_text(qtbot, spin, "40")
    assert window.session.inputs.registers == 40 and window.history.undo_action.isEnabled()
    assert QApplication.focusWidget() is spin  # the box's line edit would take Ctrl+Z as text undo
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.session.inputs.registers == 64
    qtbot.waitUntil(lambda: spin.value() == 64, timeout=3000)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.session.inputs.registers == 40
    qtbot.waitUntil(lambda: spin.value() == 40 and not window.history.redo_action.isEnabled(), timeout=3000)


def test_a_slider_drag_is_one_step(qtbot, window):
    slider = window.kernel_panel.threads_slider
    slider.sliderPressed.emit()
    for warps in (9, 10, 11, 12):
        slider.setValue(warps)
    slider.sliderReleased.emit()
    assert window.session.inputs.threads == 384
    window.history.undo_action.trigger()
    assert window.session.inputs.threads == 256 and not window.session.can_undo


def test_a_wheel_burst_is_one_step(qtbot, window):
    spin = window.kernel_panel.spins["registers"]
    for _ in range(5):
        event = QWheelEvent(QPointF(5, 5), QPointF(spin.mapToGlobal(QPoint(5, 5))), QPoint(0, 0), QPoint(0, 120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                            False)  # fmt: skip
        QApplication.sendEvent(spin, event)
    assert window.session.inputs.registers == 69
    qtbot.waitUntil(lambda: not window.history.wheel.open, timeout=3000)
    window.history.undo_action.trigger()
    assert window.session.inputs.registers == 64 and not window.session.can_undo


def test_new_open_and_quit_ask_before_losing_changes(qtbot, window, monkeypatch, tmp_path, unsaved_changes_discarded):
    io = window.session_io
    io.new_action.trigger()
    assert unsaved_changes_discarded == []  # nothing modified: nothing asked
    window.session.replace(registers=40)
    qtbot.waitUntil(lambda: io.modified, timeout=3000)
    monkeypatch.setattr(SessionIO, "ask_save_changes", lambda self, doing: "cancel")
    io.new_action.trigger()
    assert window.session.inputs.registers == 40 and io.modified  # cancelled: the work is still there
    window.close()
    assert window.isVisible()  # Quit cancelled too
    saved = tmp_path / "kept.occsession"
    monkeypatch.setattr(SessionIO, "ask_save_changes", lambda self, doing: "save")
    io.path = saved
    io.new_action.trigger()
    assert saved.is_file() and "registers: 40" in saved.read_text()  # saved, then the new session
    assert window.session.inputs.registers != 40 and not io.modified
    monkeypatch.setattr(SessionIO, "ask_save_changes", lambda self, doing: unsaved_changes_discarded.append(doing) or "discard")
    window.session.replace(registers=48)
    qtbot.waitUntil(lambda: io.modified, timeout=3000)
    window.close()
    assert not window.isVisible() and unsaved_changes_discarded == ["quitting"]
