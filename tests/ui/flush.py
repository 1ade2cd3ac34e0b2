"""Deliver a session change and everything that follows it, for tests that check views right after."""

from __future__ import annotations


def flush_all(window) -> None:
    """The bridge's coalesced signal, then every view that follows the main results a turn later."""
    from occupancy_gui.ui.support.deferred import DeferredUpdate

    window.bridge.flush()
    for follower in window.findChildren(DeferredUpdate):
        follower.flush()


def settle(qtbot, window) -> None:
    """``flush_all`` and one turn of the event loop."""
    flush_all(window)
    qtbot.wait(1)
