"""Edit → Undo / Redo of input edits, driven by the history the Qt-free session keeps.

The standard keys (Ctrl+Z, Ctrl+Shift+Z / Ctrl+Y) reach these actions even while a spin box has
the focus: its line edit's own text undo would otherwise take them (see :class:`HistoryKeys`).  A
slider drag and a wheel burst are one step each (:func:`gesture_for_wheel`, the kernel panel's
slider), because the session merges the changes of an open gesture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSlider, QWidget

    from ...session import Session
    from ..support.window_api import WindowApi

WHEEL_BURST_MS = 500
"""Wheel events closer together than this are one undo step."""


class HistoryKeys(QObject):
    """An event filter that keeps a line edit from claiming the Undo / Redo shortcuts."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        history_key = isinstance(event, QKeyEvent) and (
            event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo)
        )
        # Filtered, not accepted: the window's shortcut fires instead of the line edit's text undo.
        return event.type() == QEvent.Type.ShortcutOverride and history_key


class WheelGesture(QObject):
    """An event filter making a burst of wheel events on the watched widgets one undo step."""

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(WHEEL_BURST_MS)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.open = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Wheel:
            if not self.open:
                self.session.begin_gesture()
                self.open = True
            self.timer.start()
        return False

    def _on_timer_timeout(self) -> None:
        if self.open:
            self.open = False
            self.session.end_gesture()


class HistoryActions(QObject):
    """The Undo and Redo actions, enabled as the session's history allows."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.frame)
        self.window, self.session = window, window.session
        self.undo_action = QAction("&Undo", window.frame)
        self.undo_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
        self.undo_action.setToolTip("Undo the last input edit")
        self.undo_action.triggered.connect(self._on_undo_triggered)
        self.redo_action = QAction("&Redo", window.frame)
        self.redo_action.setShortcuts(
            QKeySequence.keyBindings(QKeySequence.StandardKey.Redo) + [QKeySequence("Ctrl+Y")]
        )
        self.redo_action.setToolTip("Redo the input edit last undone")
        self.redo_action.triggered.connect(self._on_redo_triggered)
        actions = window.edit_menu.actions()
        first = actions[0] if actions else None
        if first is None:
            window.edit_menu.addActions([self.undo_action, self.redo_action])
        else:
            window.edit_menu.insertActions(first, [self.undo_action, self.redo_action])
            window.edit_menu.insertSeparator(first)
        # Straight from the session, not the (deferred) bridge: Ctrl+Z right after an edit must find Undo enabled.
        self._unsubscribe = self.session.subscribe(self._on_session_changed)
        self.keys = HistoryKeys(self)
        self.wheel = WheelGesture(self.session, self)
        self._update()

    def watch(self, widget: QObject, *, wheel: bool = True) -> None:
        """Let Undo / Redo through ``widget`` (a line edit) and merge its wheel bursts into one step."""
        widget.installEventFilter(self.keys)
        if wheel:
            widget.installEventFilter(self.wheel)

    def watch_inputs(self, root: QWidget, threads_slider: QSlider) -> None:
        """Every input box under ``root`` passes the keys on (and a wheel burst is one step); a drag of
        ``threads_slider`` is one step.  Called again for inputs made later (the AMD kernel panel)."""
        from PySide6.QtWidgets import QAbstractSpinBox, QComboBox  # noqa: PLC0415 - with the window, not at import

        for box in root.findChildren(QAbstractSpinBox):
            line = box.lineEdit()
            if line is not None:
                self.watch(line)
            self.watch(box, wheel=True)
        for combo in root.findChildren(QComboBox):
            editor = combo.lineEdit()
            if editor is not None:
                self.watch(editor, wheel=False)
        threads_slider.sliderPressed.connect(self.session.begin_gesture)
        threads_slider.sliderReleased.connect(self.session.end_gesture)
        self.watch(threads_slider)

    def _on_undo_triggered(self) -> None:
        self.wheel._on_timer_timeout()  # a burst in progress ends here
        if self.session.undo():
            self.window.bridge.flush()

    def _on_redo_triggered(self) -> None:
        if self.session.redo():
            self.window.bridge.flush()

    def _on_session_changed(self, _changed: frozenset[str]) -> None:
        try:
            self._update()
        except RuntimeError:  # the window (and these actions) are gone; the session lives on
            self._unsubscribe()

    def _update(self) -> None:
        self.undo_action.setEnabled(self.session.can_undo)
        self.redo_action.setEnabled(self.session.can_redo)


def install_history_actions(window: WindowApi, threads_slider: QSlider) -> HistoryActions:
    """Edit → Undo / Redo for ``window``; every input box passes the keys on, and a drag of
    ``threads_slider`` is one step."""
    history = HistoryActions(window)
    history.watch_inputs(window.frame, threads_slider)
    return history
