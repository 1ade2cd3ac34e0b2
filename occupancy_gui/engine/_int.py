"""Integer helpers shared by the rule modules; they work on Python ints and numpy arrays alike."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


def divide_round_up(x: IntArray, y: IntArray | int) -> IntArray:
    """``__occDivideRoundUp``: ``(x + (y - 1)) / y`` with C's truncating division (x, y > 0 here)."""
    return (x + (y - 1)) // y


def round_up(x: IntArray, y: IntArray | int) -> IntArray:
    """``__occRoundUp``: ``y * __occDivideRoundUp(x, y)``."""
    return y * divide_round_up(x, y)


def as_int_array(value: object) -> IntArray:
    """Coerce an input to an int64 array so every rule computes in one integer width."""
    return np.asarray(value, dtype=np.int64)
