"""Coalesced updates: the one helper that collects change notifications and delivers them once.

The session bridge delivers the main results with no delay (one emission per event-loop turn).

The summary, constraint table and step curves repaint in the event-loop turn of an edit; the
analysis views (advisor, heat maps, waves, compare, the kernel table's occupancy column) recompute
a little later, in one call for a whole burst of edits, so typing or dragging the slider never waits
for them.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

FOLLOW_MS = 25
"""Long enough for the edit's own repaint to go first; short enough to feel immediate."""


class DeferredUpdate(QObject):
    """Collect session changes and hand them to ``callback`` once, ``FOLLOW_MS`` after the last."""

    def __init__(self, callback: Callable[[frozenset[str]], None], parent: QObject, delay_ms: int = FOLLOW_MS) -> None:
        super().__init__(parent)
        self._callback = callback
        self._changed: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self.flush)

    def schedule(self, changed: frozenset[str]) -> None:
        """Remember what changed; (re)start the countdown."""
        self._changed |= changed
        self._timer.start()

    def flush(self) -> None:
        """Deliver the pending changes now (also used by tests and before exports)."""
        self._timer.stop()
        if self._changed:
            changed, self._changed = frozenset(self._changed), set()
            self._callback(changed)

    def cancel(self) -> None:
        """Drop the pending changes (the owner is going away)."""
        self._timer.stop()
        self._changed.clear()

    @property
    def pending(self) -> bool:
        return bool(self._changed)
