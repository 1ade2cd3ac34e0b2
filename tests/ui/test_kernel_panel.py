"""Kernel inputs: widget → session and session → widget, one recompute per edit, refusals shown."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from occupancy_gui.ui.calculator.kernel_panel import KernelPanel


@pytest.fixture
def panel(qtbot, session):
    widget = KernelPanel(session)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def commit_text(qtbot, spin, text):
    """Type ``text`` into ``spin`` like a user and press Enter."""
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)


@pytest.mark.parametrize(
    ("field", "value"),
    [("threads", 512), ("registers", 40), ("static_smem", 8192), ("dynamic_smem", 2048), ("barriers", 3)],
)
def test_widget_drives_session_with_one_recompute(panel, session, field, value):
    count = session.recompute_count
    panel.spins[field].setValue(value)
    assert getattr(session.inputs, field) == value
    assert session.recompute_count == count + 1


@pytest.mark.parametrize(
    ("field", "value", "text"),
    [
        ("threads", 96, "96"),
        ("registers", 17, "17"),
        ("static_smem", 3072, "3 KiB"),
        ("dynamic_smem", 1000, "1000 B"),
        ("barriers", 0, "0"),
    ],
)
def test_session_drives_widget_without_feedback(panel, session, field, value, text):
    session.replace(**{field: value})
    count = session.recompute_count
    panel.sync_from_session()
    assert panel.spins[field].value() == value
    assert panel.spins[field].text() == text
    assert session.recompute_count == count  # the blocked widget did not write back


def test_typing_kib_and_bytes(qtbot, panel, session):
    commit_text(qtbot, panel.spins["static_smem"], "24 KiB")
    assert session.inputs.static_smem == 24576
    commit_text(qtbot, panel.spins["static_smem"], "12288")
    assert session.inputs.static_smem == 12288
    assert panel.spins["static_smem"].text() == "12 KiB"


def test_typing_commits_once(qtbot, panel, session):
    count = session.recompute_count
    commit_text(qtbot, panel.spins["threads"], "640")  # keyboard tracking off: not 6, 64, 640
    assert session.inputs.threads == 640
    assert session.recompute_count == count + 1


def test_out_of_range_is_refused_out_loud(qtbot, panel, session):
    field = panel.fields["threads"]
    commit_text(qtbot, panel.spins["threads"], "0")
    assert session.inputs.threads == 256  # not clamped to 1, not changed at all
    assert field.error.isVisible() and "out of range" in field.error.text()
    commit_text(qtbot, panel.spins["registers"], "5000")
    assert session.inputs.registers == 64
    assert panel.fields["registers"].error.isVisible()
    commit_text(qtbot, panel.spins["threads"], "128")  # a good value clears the message
    assert session.inputs.threads == 128 and not field.error.isVisible()


def test_garbage_is_refused(qtbot, panel, session):
    commit_text(qtbot, panel.spins["static_smem"], "12 KiB")
    commit_text(qtbot, panel.spins["static_smem"], "1.3 K")  # not a whole byte count
    assert session.inputs.static_smem == 12 * 1024
    assert panel.fields["static_smem"].error.isVisible()


def test_arrow_and_wheel_steps_update(qtbot, panel, session):
    spin = panel.spins["registers"]
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert session.inputs.registers == 65
    spin.stepBy(-2)  # the wheel path
    assert session.inputs.registers == 63


def test_slider_steps_in_warps(panel, session):
    panel.threads_slider.setValue(4)  # dragging emits valueChanged while tracking
    assert session.inputs.threads == 128
    session.replace(threads=1000)
    panel.sync_from_session()
    assert panel.threads_slider.value() == 32 and session.inputs.threads == 1000


def test_max_dynamic_smem_runtime_default(panel, session):
    spin = panel.spins["max_dynamic_smem"]
    assert panel.runtime_default.isChecked() and not spin.isEnabled()
    assert spin.value() == 48 * 1024 - 24 * 1024  # shows the default in force
    panel.runtime_default.setChecked(False)
    assert session.inputs.max_dynamic_smem == 24 * 1024
    panel.sync_from_session()
    assert spin.isEnabled()
    spin.setValue(100 * 1024)
    assert session.inputs.max_dynamic_smem == 100 * 1024
    session.replace(max_dynamic_smem=None)
    panel.sync_from_session()
    assert panel.runtime_default.isChecked() and not spin.isEnabled()


def test_keyboard_tracking_off_and_tooltips(panel):
    for name, spin in panel.spins.items():
        assert not spin.keyboardTracking(), name
        assert spin.toolTip(), name
    assert panel.threads_slider.toolTip() and panel.runtime_default.toolTip()


def test_barrier_note_follows_device(panel, session):
    assert not panel.barrier_note.isVisibleTo(panel)
    session.replace(device="sm_86")
    panel.sync_from_session()
    assert panel.barrier_note.isVisibleTo(panel)


def test_real_wheel_event_steps(qtbot, panel, session):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    spin = panel.spins["barriers"]
    panel.show()
    spin.setFocus()  # the wheel steps the field that has the focus (see test_the_wheel_scrolls_past_fields...)
    qtbot.waitUntil(spin.hasFocus, timeout=3000)
    centre = QPointF(spin.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(spin.mapToGlobal(spin.rect().center())),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(spin, event)
    assert session.inputs.barriers == 2


def test_slider_drag_updates_live(qtbot, panel, session):
    slider = panel.threads_slider
    assert slider.hasTracking()
    slider.setSliderDown(True)  # the user holds the handle
    for warps in (5, 6, 7):
        slider.setSliderPosition(warps)
        assert session.inputs.threads == warps * 32
    slider.setSliderDown(False)


@pytest.mark.parametrize(
    ("field", "text", "says"),
    [
        ("threads", "-5", "'-5' is not a whole number"),
        ("registers", "abc", "'abc' is not a whole number"),
        ("static_smem", "abc", "'abc' is not a byte size"),
        ("dynamic_smem", "-1 KiB", "'-1 KiB' is not a byte size"),
        ("threads", "20000", "out of range (1 to 16384)"),
    ],
)
def test_typed_text_is_shown_as_typed_and_never_applied_as_another_number(qtbot, panel, session, field, text, says):
    """ "-5" threads used to become 5, "abc" in registers vanished and in shared memory left "b": every keystroke
    stays, the text is marked invalid with the reason while typed, and Enter applies nothing."""
    spin = panel.spins[field]
    before = session.inputs
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)
    assert spin.lineEdit().text() == text  # every character kept
    error = panel.fields[field].error
    assert spin.flagged and says in error.text() and not error.isHidden()
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert session.inputs == before  # not applied as any number
    assert says in error.text() and "the results keep" in error.text()
    assert not spin.flagged and spin.value() == getattr(before, field)
    commit_text(qtbot, spin, spin.textFromValue(getattr(before, field) + 1))
    assert error.isHidden()


def test_the_reason_under_a_field_is_shown_whole(qtbot, panel):
    """The error label gets the height its wrapped text needs (it was clipped top and bottom)."""
    panel.resize(300, 800)
    panel.show()
    qtbot.waitExposed(panel)
    commit_text(qtbot, panel.spins["static_smem"], "abc")
    error = panel.fields["static_smem"].error
    qtbot.waitUntil(error.isVisible, timeout=3000)
    qtbot.wait(100)  # the layout's deferred request
    needed = error.heightForWidth(error.width())
    assert error.height() >= needed, (error.height(), needed, error.text())
