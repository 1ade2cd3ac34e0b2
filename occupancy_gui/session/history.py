"""The session's undo/redo history: the inputs before each step, and gestures that merge steps.

Pure Python (no Qt), generic over what a step holds (the session keeps its ``Inputs``).  The history only stores;
the session decides when a change is a step (not while it applies an undo, nor for a reloaded catalog) and how to
go back to a stored state.
"""

from __future__ import annotations

from typing import Generic, TypeVar

HISTORY_LIMIT = 500
"""Undo steps kept; the oldest go first (an input edit is a few hundred bytes)."""

State = TypeVar("State")


class History(Generic[State]):
    """Undo and redo stacks of states, at most ``limit`` undo steps, with nesting gestures.

    A gesture (a slider drag, a wheel burst) makes every change until it closes one step: the first change records
    where it began, the others record nothing.  Going back or forward closes any open gesture.
    """

    def __init__(self, limit: int = HISTORY_LIMIT) -> None:
        self._limit = limit
        self._undo: list[State] = []
        self._redo: list[State] = []
        self._gesture_depth = 0
        self._gesture_recorded = False

    def record(self, before: State) -> None:
        """A change from ``before``: a new undo step (or the open gesture's), and no redo any more."""
        if self._gesture_depth and self._gesture_recorded:
            return  # the open gesture's step already holds where it began
        self._gesture_recorded = self._gesture_depth > 0
        self._undo.append(before)
        del self._undo[: -self._limit]
        self._redo.clear()

    def begin_gesture(self) -> None:
        """Open a gesture; gestures nest and the outermost one closes the step."""
        if self._gesture_depth == 0:
            self._gesture_recorded = False
        self._gesture_depth += 1

    def end_gesture(self) -> None:
        self._gesture_depth = max(0, self._gesture_depth - 1)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self, current: State) -> State | None:
        """The state one step back (``current`` becomes the next redo), or ``None`` where there is none."""
        return self._step(self._undo, self._redo, current)

    def redo(self, current: State) -> State | None:
        """The state one step forward (``current`` becomes the next undo), or ``None`` where there is none."""
        return self._step(self._redo, self._undo, current)

    def clear(self) -> None:
        """Forget every step."""
        self._undo.clear()
        self._redo.clear()

    def _step(self, source: list[State], target: list[State], current: State) -> State | None:
        if not source:
            return None
        state = source.pop()
        target.append(current)
        self._gesture_depth = 0
        return state
