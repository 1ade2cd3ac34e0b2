"""The Qt-free view-model of the window: the session and its files.

- ``model``: :class:`Session` — the current inputs, the last result and its curves, change notification, undo/redo;
- ``inputs``: the :class:`Inputs` record (from the field table), its ranges, defaults and checks;
- ``history``: the undo/redo history with gestures;
- ``file``, ``file_reader``, ``file_format``: ``.occsession`` files (versions 1 and 2), written atomically and read
  strictly.

The package's face is :class:`Session` and the inputs' names below; session files are used as
``from occupancy_gui.session import file``.
"""

from __future__ import annotations

from .model import (
    AMD_ONLY_FIELDS,
    DEFAULT_DEVICE,
    DEFAULT_INPUTS,
    HISTORY_LIMIT,
    INPUT_FIELDS,
    INPUT_RANGES,
    KIB,
    MAX_BLOCK_BARRIERS,
    OPTIONAL_FIELDS,
    InputRefused,
    Inputs,
    NotForVendor,
    Session,
    function_attributes,
    input_problem,
    meet_kernel_limits,
)

__all__ = [
    "AMD_ONLY_FIELDS",
    "DEFAULT_DEVICE",
    "DEFAULT_INPUTS",
    "HISTORY_LIMIT",
    "INPUT_FIELDS",
    "INPUT_RANGES",
    "KIB",
    "MAX_BLOCK_BARRIERS",
    "OPTIONAL_FIELDS",
    "InputRefused",
    "Inputs",
    "NotForVendor",
    "Session",
    "function_attributes",
    "input_problem",
    "meet_kernel_limits",
]
