"""The cyclic garbage collector held off while imports make their records: the one owner of that switch.

A big log or library makes 10^5 small objects, all alive and none in a cycle: collector passes over
the growing record table cost more than the parse.  The collector is process-wide and imports may
overlap (the window's pool threads, a CLI in a library user's process), so pauses are counted: the
first to enter switches it off, the last to leave decides what becomes of the survivors and switches
it back on, only if it was on.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pause:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.was_enabled = False
        self.keep_frozen = False

    def enter(self, keep_frozen: bool) -> None:
        with self.lock:
            if self.users == 0:
                self.was_enabled, self.keep_frozen = gc.isenabled(), False
                gc.disable()
            self.users += 1
            self.keep_frozen |= keep_frozen

    def leave(self) -> None:
        with self.lock:
            self.users -= 1
            if self.users:
                return
            if self.keep_frozen:
                gc.freeze()
            elif self.was_enabled:
                _age_young_objects()
            if self.was_enabled:
                gc.enable()


_PAUSE = _Pause()


@contextmanager
def collection_paused(*, keep_frozen: bool = False) -> Iterator[None]:
    """No cyclic collection inside; safe to nest and to overlap across threads.

    ``keep_frozen``: at the end, leave every survivor frozen (``gc.freeze``: out of the collector's
    sight for good, as CPython recommends for long-lived data).  The window asks this for big files:
    a full collection over half a million fresh records held the GIL, and so stopped the GUI thread,
    for 100-250 ms in ``bench_responsiveness.py``; reference counting still frees the records when
    the table is replaced.  Otherwise the survivors are only aged (see :func:`_age_young_objects`).
    """
    _PAUSE.enter(keep_frozen)
    try:
        yield
    finally:
        _PAUSE.leave()


def _age_young_objects() -> None:
    """Move every object the collector tracks to its oldest generation, without a pass over them.

    Made while the collector was off, the records of a big log (two tracked objects each, all
    alive) fill its youngest generation, which it would traverse at its next allocation, then
    again as the middle one: 50-70 ms for the 138,000 records of a 200 MiB log, at the start of
    whatever the application does next.  ``gc.freeze()`` and ``unfreeze()`` move the lot to the
    oldest generation at no cost (other young objects go with them: they wait for the next full
    collection).  Where an application has frozen objects of its own, unfreezing would release
    them, so then nothing is done."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
