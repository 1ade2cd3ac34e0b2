"""The Qt face of :class:`occupancy_gui.session.Session`: one ``resultChanged`` per event-loop turn."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from ...session import Session
from .deferred import DeferredUpdate


class SessionBridge(QObject):
    """Re-emits session notifications as a Qt signal, coalesced.

    A wheel burst or a batch load notifies the session's subscribers several times within one turn
    of the event loop; the bridge collects the changed input names and emits ``resultChanged`` once,
    from a zero-delay :class:`DeferredUpdate`.
    """

    resultChanged = Signal(frozenset)
    """Emitted with the names of the inputs that changed since the last emission."""

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._pending = DeferredUpdate(self.resultChanged.emit, self, delay_ms=0)
        self._unsubscribe = session.subscribe(self._pending.schedule)

    def flush(self) -> None:
        """Emit now if an emission is pending (tests and the screenshot path use it)."""
        self._pending.flush()

    def detach(self) -> None:
        """Stop listening to the session (the window calls it when it closes)."""
        self._pending.cancel()
        self._unsubscribe()
