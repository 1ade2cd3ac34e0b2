"""A field's value read against its row of the field table: its kind, range and choices, for either vendor.

The one reading of a typed value that the command line's AMD queries, the batch, the window's session and session
files share; a value the row refuses is :class:`AmdFieldError`, one line that starts with the field's name.  Kept
apart from ``amd_question`` (which maps the values onto the AMD engine) so that reading a saved value at start-up
loads no AMD rule.
"""

from __future__ import annotations

from typing import Any

from .fields import BYTES, COUNT, MIN_MAX, MODE, InputField

WavesPerEu = tuple[int, int | None]
"""``amdgpu_waves_per_eu(min[, max])``: the maximum is ``None`` where only the minimum is given."""


class AmdFieldError(ValueError):
    """A field value the table or the target refuses; the message starts with the field's name, on one line."""


def _int(f: InputField, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AmdFieldError(f"{f.name}: expected an integer, got {value!r}")
    if not f.low <= value <= f.high:
        raise AmdFieldError(f"{f.name}: expected {f.range_text}, got {value}")
    if f.choices and value not in f.choices:
        raise AmdFieldError(f"{f.name}: expected {' or '.join(map(str, f.choices))}, got {value}")
    return value


def _mode(f: InputField, value: object) -> bool:
    if not isinstance(value, bool):
        raise AmdFieldError(f"{f.name}: expected true, false or null (the device's default), got {value!r}")
    return value


def _min_max(f: InputField, value: object) -> WavesPerEu:
    """``N`` (the minimum) or ``[N, M]`` (minimum and maximum), as ``amdgpu_waves_per_eu(N[, M])``."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise AmdFieldError(f"{f.name}: expected N or [N, M] (minimum and maximum), got {value!r}")
        if value[1] is None and isinstance(value, tuple):  # the session's own form of a minimum alone
            return _int(f, value[0]), None
        low, high = _int(f, value[0]), _int(f, value[1])
        if low > high:
            raise AmdFieldError(f"{f.name}: the minimum {low} is above the maximum {high}")
        return low, high
    return _int(f, value), None


_READERS = {COUNT: _int, BYTES: _int, MODE: _mode, MIN_MAX: _min_max}


def read_value(f: InputField, value: object) -> Any:
    """One AMD field's value checked against its row of the table (``None`` is not read here)."""
    return _READERS[f.kind](f, value)
