"""The Qt face of :class:`occupancy_gui.session.Session`: one ``resultChanged`` per event-loop turn."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from ..session import Session


class SessionBridge(QObject):
    """Re-emits session notifications as a Qt signal, coalesced.

    A wheel burst or a batch load notifies the session's subscribers several times within one turn
    of the event loop; the bridge collects the changed input names and emits ``resultChanged`` once,
    from a single-shot zero timer.
    """

    resultChanged = Signal(frozenset)
    """Emitted with the names of the inputs that changed since the last emission."""

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._changed: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._unsubscribe = session.subscribe(self._on_session_changed)

    def _on_session_changed(self, changed: frozenset[str]) -> None:
        self._changed |= changed
        if not self._timer.isActive():
            self._timer.start()

    def _on_timer_timeout(self) -> None:
        changed, self._changed = frozenset(self._changed), set()
        if changed:
            self.resultChanged.emit(changed)

    def flush(self) -> None:
        """Emit now if an emission is pending (tests and the screenshot path use it)."""
        if self._timer.isActive():
            self._timer.stop()
            self._on_timer_timeout()

    def detach(self) -> None:
        """Stop listening to the session (the window calls it when it closes)."""
        self._timer.stop()
        self._unsubscribe()
