"""Undo/redo in the window (keys, slider drags, wheel bursts) and "Save changes?" before work is lost."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from occupancy_gui.ui.session_files.session_io import SessionIO
from tests.ui.test_kernel_panel import commit_text


def test_ctrl_z_undoes_a_typed_edit_even_with_the_focus_in_the_box(qtbot, window):
    spin = window.kernel_panel.spins["registers"]
    commit_text(qtbot, spin, "40")
    assert window.session.inputs.registers == 40 and window.history.undo_action.isEnabled()
    assert QApplication.focusWidget() is spin  # the box's line edit would take Ctrl+Z as text undo
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.session.inputs.registers == 64
    qtbot.waitUntil(lambda: spin.value() == 64, timeout=3000)
    qtbot.keyClick(
        spin.lineEdit(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
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
    spin.setFocus()  # the wheel edits the field that has the focus only
    qtbot.waitUntil(spin.hasFocus, timeout=3000)
    for _ in range(5):
        event = QWheelEvent(
            QPointF(5, 5),
            QPointF(spin.mapToGlobal(QPoint(5, 5))),
            QPoint(0, 0),
            QPoint(0, 120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
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
    monkeypatch.setattr(
        SessionIO, "ask_save_changes", lambda self, doing: unsaved_changes_discarded.append(doing) or "discard"
    )
    window.session.replace(registers=48)
    qtbot.waitUntil(lambda: io.modified, timeout=3000)
    window.close()
    assert not window.isVisible() and unsaved_changes_discarded == ["quitting"]


def _window_with_settings(qtbot, session):
    from PySide6.QtCore import QSettings

    from occupancy_gui.ui.main_window import MainWindow

    win = MainWindow(session, QSettings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_discarded_work_does_not_come_back(qtbot, session, catalog, unsaved_changes_discarded):
    """Discard at quit: the next start restores none of the discarded inputs (launch bound 256, min blocks 2)."""
    from PySide6.QtCore import QSettings

    from occupancy_gui.ui.support.settings import load_inputs

    win = _window_with_settings(qtbot, session)
    session.replace(threads=128, registers=40, max_threads_per_block=256, min_blocks_per_sm=2)
    qtbot.waitUntil(lambda: win.session_io.modified, timeout=3000)
    win.close()
    assert unsaved_changes_discarded == ["quitting"]
    assert load_inputs(QSettings(), catalog) == {}


def test_kernel_limits_are_not_remembered_without_their_kernel(qtbot, session, catalog):
    """A clean quit remembers the inputs for the next start, but not a kernel's own limits: the next start has
    no kernel loaded (earlier versions' saved limits are ignored too)."""
    from PySide6.QtCore import QSettings

    from occupancy_gui.ui.support.settings import load_inputs

    win = _window_with_settings(qtbot, session)
    session.replace(threads=128, registers=40, max_threads_per_block=256, min_blocks_per_sm=2)
    win.session_io.set_modified(False)  # as after a save
    win.close()
    saved = load_inputs(QSettings(), catalog)
    assert saved["threads"] == 128 and saved["registers"] == 40
    assert not {"max_threads_per_block", "required_block_size", "min_blocks_per_sm"} & saved.keys()
    old = QSettings()
    old.setValue("inputs/max_threads_per_block", 256)  # an earlier version's file
    assert "max_threads_per_block" not in load_inputs(old, catalog)


def test_new_session_keeps_no_kernel_chosen(qtbot, window, unsaved_changes_discarded):
    from tests.ui.test_import_panel import GEN, load

    panel = window.import_panel
    load(qtbot, panel, GEN / "a_sm80.cubin")
    assert panel.current_source()[1] and panel.view.selectionModel().hasSelection()
    window.session_io.new_action.trigger()
    assert panel.current_source()[1] == "" and not panel.view.selectionModel().hasSelection()
    assert window.kernel_panel.arch_note.isHidden()


def _wheel(widget, notches=1):
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(widget.rect().center())),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)
    return event


def test_the_wheel_scrolls_past_fields_without_the_focus(qtbot, window):
    """Scrolling the inputs panel over a field leaves its value alone (dynamic smem went 0 → 3 KiB); the field
    with the focus still steps with the wheel."""
    window.resize(1024, 700)
    qtbot.wait(50)
    panel = window.kernel_panel
    window.table.setFocus()  # the focus elsewhere: the pointer is only passing over the fields
    qtbot.waitUntil(window.table.hasFocus, timeout=3000)
    before = window.session.inputs
    for name in ("dynamic_smem", "registers", "threads"):
        _wheel(panel.spins[name], -1)
    _wheel(panel.threads_slider, -1)
    _wheel(window.device_panel.selector, -1)
    _wheel(window.device_panel.carveout, -1)
    assert window.session.inputs == before
    spin = panel.spins["dynamic_smem"]
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=3000)
    _wheel(spin, 1)
    assert window.session.inputs.dynamic_smem == 1024
