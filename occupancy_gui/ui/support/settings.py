"""Last inputs and window layout in QSettings.  User data is tolerant: a bad value is skipped."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings

from ... import fields
from ...device_choice import find_profile
from ...engine import CacheConfig
from ...session import INPUT_FIELDS, OPTIONAL_FIELDS, Inputs

GROUP = "inputs"
WINDOW_OPTIONS = ("threads", "registers", "static_smem", "dynamic_smem", "vgprs", "agprs", "sgprs", "lds")
"""The inputs ``occupancy-gui`` takes as command-line options (flags and help from the field table); with any of
them, an autosave is not restored over them."""
KERNEL_FIELDS = frozenset(fields.KERNEL_LIMITS) | {"max_flat_workgroup_size", "waves_per_eu"}
"""A kernel's own limits: remembered with the kernel in a session file, never alone across starts (the next
start has no kernel loaded, and a bound without its kernel would limit every launch typed then)."""


def _mode(raw: object) -> bool | None:
    text = str(raw).strip().casefold()
    if text in ("", "none"):
        return None
    if text not in ("true", "false"):
        raise ValueError(f"not a mode: {raw!r}")
    return text == "true"


def _min_max(raw: object) -> tuple[int, int | None] | None:
    text = str(raw).strip().casefold()
    if text in ("", "none"):
        return None
    low, _, high = text.partition(",")
    return int(low), int(high) if high else None


def _saved_text(value: object) -> object:
    """How an input is kept in the settings: ``none`` for ``None``, ``true``/``false`` for a mode, ``N,M``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value if v is not None)
    return value


def load_inputs(settings: QSettings, catalog: Any) -> dict[str, Any]:
    """The saved inputs that are still valid (a device no longer in either vendor's catalog is dropped)."""
    out: dict[str, Any] = {}
    settings.beginGroup(GROUP)
    try:
        for name in INPUT_FIELDS:
            if name in KERNEL_FIELDS:
                continue  # earlier versions remembered them
            raw = settings.value(name)
            if raw is None:
                continue
            try:
                kind = fields.FIELD[name].kind if name != "device" else None
                if name == "device":
                    out[name] = find_profile(str(raw), catalog).name
                elif kind == fields.MODE:
                    out[name] = _mode(raw)
                elif kind == fields.MIN_MAX:
                    out[name] = _min_max(raw)
                elif name in OPTIONAL_FIELDS:
                    out[name] = None if str(raw) in ("", "none", "None") else int(raw)
                elif name == "cache_config":
                    out[name] = CacheConfig(int(raw))
                else:
                    out[name] = int(raw)
            except (KeyError, ValueError, TypeError):
                continue
    finally:
        settings.endGroup()
    return out


def save_inputs(settings: QSettings, inputs: Inputs) -> None:
    """Remember the inputs for the next start (all but the kernel's own limits)."""
    settings.beginGroup(GROUP)
    try:
        for name in INPUT_FIELDS:
            if name in KERNEL_FIELDS:
                settings.remove(name)
                continue
            value = getattr(inputs, name)
            settings.setValue(name, int(value) if name == "cache_config" else _saved_text(value))
    finally:
        settings.endGroup()


def forget_inputs(settings: QSettings) -> None:
    """Remember no inputs: the next start shows the defaults (the user discarded the session at quit)."""
    settings.remove(GROUP)
