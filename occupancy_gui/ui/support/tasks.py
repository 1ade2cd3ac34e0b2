"""Background work for the window: run a function on a pool thread, deliver its outcome by signal.

Reading a 500 MB build log or a library of thousands of cubins takes seconds; the GUI thread must
keep painting meanwhile.  A :class:`TaskRunner` owns a private ``QThreadPool``; each task is a plain
function ``fn(cancelled, progress) -> value`` that never touches a widget.  Its outcome comes back
through a queued signal (the emitter lives in the GUI thread), and the runner waits for its threads
when the application quits or the owner goes away (STYLE.md pitfall 7: no thread left running).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal

ProgressFn = Callable[[int, int], None]
TaskFn = Callable[[Callable[[], bool], ProgressFn], Any]

PROGRESS_INTERVAL_S = 0.1
"""At most one progress signal per 100 ms: the GUI thread repaints a bar, not 10^4 of them.  Each
``QProgressBar.setValue`` repaints at once, and beside a busy import thread a repaint took up to ~50 ms:
at one signal per 30 ms, reopening libtorch_cuda (143,409 records) from the cache stalled the window
61-78 ms and its first open took 6.1-10.0 s; with no progress at all, 29 ms and 4.9-5.0 s; at one per
100 ms, 34-55 ms and 5.9-6.7 s (offscreen, 2-3 rounds each)."""


class _WhileAnyTask:
    """A process-wide setting held while at least one pool task needs it (tasks may overlap).

    ``apply()`` runs when the first task enters and returns what ``restore(saved)`` needs when the
    last one leaves.
    """

    def __init__(self, apply: Callable[[], Any], restore: Callable[[Any], None]) -> None:
        self._apply, self._restore = apply, restore
        self._lock = threading.Lock()
        self._saved: Any = None
        self.users = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self.users == 0:
                self._saved = self._apply()
            self.users += 1
        try:
            yield
        finally:
            with self._lock:
                self.users -= 1
                if self.users == 0:
                    self._restore(self._saved)


SHORT_SWITCH_INTERVAL_S = 0.0005


def _shorten_switch_interval() -> float:
    saved = sys.getswitchinterval()
    sys.setswitchinterval(min(saved, SHORT_SWITCH_INTERVAL_S))
    return saved


QUICK_HANDOFF = _WhileAnyTask(_shorten_switch_interval, sys.setswitchinterval)


def quick_gil_handoff() -> AbstractContextManager[None]:
    """While a pool thread runs Python, the GUI thread gets the GIL within 0.5 ms, not CPython's 5 ms.

    Every call Qt makes into Python (one table cell's data, one plot item's paint) must take the GIL
    from the busy reader thread; at the default interval a repaint of a few hundred such calls
    stalled the window for 50-70 ms in ``bench_responsiveness.py``.  The interval only matters while
    a thread waits for the GIL, so an idle window costs the reader nothing.
    """
    return QUICK_HANDOFF.held()


class TaskCancelled(Exception):
    """Raised by a task that stopped because it was asked to (its outcome: cancelled)."""


class TaskFailed(Exception):
    """Raised by a task for a failure the user caused (a bad file); its message is shown as is."""


@dataclass
class TaskOutcome:
    """What a task ended with: a value, a one-line error, or a cancellation."""

    task_id: int
    value: Any = None
    error: str | None = None
    cancelled: bool = False


class _Emitter(QObject):
    """Created in the GUI thread, emitted from the pool thread: Qt queues the calls to the runner."""

    progressed = Signal(int, int)  # task id, per mille
    finished = Signal(object)  # TaskOutcome


class _Task(QRunnable):
    def __init__(
        self,
        task_id: int,
        fn: TaskFn,
        emitter: _Emitter,
        expected: tuple[type[BaseException], ...],
        cancel_types: tuple[type[BaseException], ...],
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the runner keeps the Python object until the pool is done with it
        self.task_id = task_id
        self.fn = fn
        self.emitter = emitter
        self.expected: tuple[type[BaseException], ...] = (TaskFailed, *expected)
        self.cancel_types: tuple[type[BaseException], ...] = (TaskCancelled, *cancel_types)
        self.cancel_event = threading.Event()
        self._last_permille = -1
        self._last_emit = 0.0

    def _progress(self, done: int, total: int) -> None:
        permille = 1000 if total <= 0 else max(0, min(1000, done * 1000 // total))
        now = time.monotonic()
        if permille != self._last_permille and (now - self._last_emit >= PROGRESS_INTERVAL_S or permille == 1000):
            self._last_permille, self._last_emit = permille, now
            self.emitter.progressed.emit(self.task_id, permille)

    def run(self) -> None:
        outcome = TaskOutcome(self.task_id)
        try:
            with quick_gil_handoff():
                outcome.value = self.fn(self.cancel_event.is_set, self._progress)
        except self.cancel_types:
            outcome.cancelled = True
        except self.expected as exc:
            outcome.error = " ".join(str(exc).split())
        except Exception as exc:  # noqa: BLE001 - a worker must always report back; one line, no traceback
            outcome.error = f"unexpected error: {type(exc).__name__}: {' '.join(str(exc).split())}"
        if self.cancel_event.is_set():  # asked to stop: whatever came back is not wanted
            outcome.value, outcome.error, outcome.cancelled = None, None, True
        self.emitter.finished.emit(outcome)


class TaskRunner(QObject):
    """Runs tasks on a private thread pool; the latest task's outcome wins.

    ``finished(TaskOutcome)`` and ``progressed(task_id, permille)`` arrive in the GUI thread.
    Starting a task cancels the ones still running (their outcomes arrive as cancelled).
    """

    progressed = Signal(int, int)
    finished = Signal(object)

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        expected: tuple[type[BaseException], ...] = (ValueError, OSError),
        cancel_types: tuple[type[BaseException], ...] = (),
    ) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(2)  # a cancelled task may still be winding down beside the new one
        self.expected = expected
        self.cancel_types = cancel_types
        self._next_id = 0
        self._running: dict[int, _Task] = {}
        self._retired: list[_Task] = []
        self._reported: set[int] = set()  # ids cancel() reported whose threads have not yet ended
        self._emitter = _Emitter(self)
        self._emitter.progressed.connect(self._on_emitter_progressed)
        self._emitter.finished.connect(self._on_emitter_finished)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def start(self, fn: TaskFn) -> int:
        """Run ``fn(cancelled, progress)`` in the pool; returns the task id."""
        self.cancel_all()
        self._purge()
        self._next_id += 1
        task = _Task(self._next_id, fn, self._emitter, self.expected, self.cancel_types)
        self._running[task.task_id] = task
        self.pool.start(task)
        return task.task_id

    def cancel_all(self) -> None:
        """Ask every running task to stop; each outcome still arrives (cancelled) when its thread is done."""
        for task in self._running.values():
            task.cancel_event.set()

    def cancel(self) -> None:
        """The user's Cancel: every running task is asked to stop and reported cancelled now.

        A task hears its flag only at its next poll: a C call in progress (one image inflating, a
        library's records being stitched) may take a few hundred ms.  Whatever it then returns is
        unwanted, so the window need not wait for it: ``finished`` (cancelled) is emitted here, on the
        GUI thread, and the thread's own outcome is dropped when it comes (``shutdown`` and ``wait``
        still wait for the thread itself).
        """
        self.cancel_all()
        cancelled = list(self._running.values())
        self._running.clear()
        self._reported.update(task.task_id for task in cancelled)
        self._retired.extend(cancelled)
        for task in cancelled:
            self.finished.emit(TaskOutcome(task.task_id, cancelled=True))

    def wait(self, msecs: int = -1) -> bool:
        """Block until the pool is idle (``msecs`` -1: no limit); outcomes still arrive by signal."""
        return self.pool.waitForDone(msecs)

    def shutdown(self) -> None:
        """Cancel everything and wait for the threads (on quit, and when the owner closes)."""
        self.cancel_all()
        self.pool.waitForDone()
        self._purge()

    def _purge(self) -> None:
        # A finished task's thread may still be returning from run(): drop it only once the pool is idle.
        if self._retired and self.pool.activeThreadCount() == 0:
            self._retired.clear()

    def _on_emitter_progressed(self, task_id: int, permille: int) -> None:
        if task_id in self._running and not self._running[task_id].cancel_event.is_set():
            self.progressed.emit(task_id, permille)

    def _on_emitter_finished(self, outcome: TaskOutcome) -> None:
        task = self._running.pop(outcome.task_id, None)
        if outcome.task_id in self._reported:
            self._reported.discard(outcome.task_id)
            return  # cancelled by cancel(), which reported it already
        if task is not None:
            self._retired.append(task)
            if task.cancel_event.is_set():  # cancelled after it finished, before the result was shown
                outcome.value, outcome.error, outcome.cancelled = None, None, True
        self.finished.emit(outcome)
