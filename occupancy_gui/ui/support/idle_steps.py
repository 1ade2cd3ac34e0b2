"""Work the GUI thread does between events: a generator's steps, a few milliseconds at a time.

For work that must happen on the GUI thread (it reads what the widgets show) and is too long for one
event-loop turn: the kernel filter's first scan of a new text over libtorch_cuda's 143,409 names took
73-119 ms in one call, a stall typing feels.  Run as steps, each turn runs steps for at most
:data:`BUDGET_S` and then lets the window paint and take keys; a key that changes the text drops the
scan (:meth:`IdleSteps.stop`) before a new one starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, QTimer

BUDGET_S = 0.008
"""Steps run per event-loop turn until this much time has gone (the last step may overrun it by one
step's time)."""


class IdleSteps(QObject):
    """Runs one generator at a time, step by step in event-loop turns, then calls its ``done``."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._steps: Iterator[object] | None = None
        self._done: Callable[[], None] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(0)  # the next turn, after the events waiting now
        self._timer.timeout.connect(self._on_timer_timeout)

    @property
    def busy(self) -> bool:
        return self._steps is not None

    def run(self, steps: Iterator[object], done: Callable[[], None]) -> None:
        """Drop whatever runs now and run ``steps``; ``done()`` once they are exhausted."""
        self.stop()
        self._steps, self._done = steps, done
        self._timer.start()

    def stop(self) -> None:
        """Drop the running steps without calling their ``done``."""
        self._timer.stop()
        self._steps = self._done = None

    def _on_timer_timeout(self) -> None:
        steps, done = self._steps, self._done
        if steps is None or done is None:
            return
        deadline = time.perf_counter() + BUDGET_S
        for _ in steps:
            if time.perf_counter() >= deadline:
                return  # the timer fires again next turn
        self.stop()
        done()
