"""The one switch of the cyclic garbage collector: counted, so overlapping imports cannot undo each other."""

from __future__ import annotations

import gc
import threading

from occupancy_gui._process.collector import collection_paused


def test_overlapping_pauses_end_with_the_last_one() -> None:
    assert gc.isenabled()
    first, second = collection_paused(), collection_paused(keep_frozen=True)
    inside = threading.Event()
    release = threading.Event()

    def other_thread() -> None:
        with second:
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=other_thread)
    with first:
        worker.start()
        assert inside.wait(5)
    assert not gc.isenabled()  # the other import still runs: the first one's exit must not switch it back on
    frozen_before = gc.get_freeze_count()
    release.set()
    worker.join(5)
    try:
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen_before  # one of them asked for the survivors to stay frozen
    finally:
        gc.unfreeze()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
