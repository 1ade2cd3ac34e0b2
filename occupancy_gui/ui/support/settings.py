"""Last inputs and window layout in QSettings.  User data is tolerant: a bad value is skipped."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings

from ... import fields
from ...engine import CacheConfig
from ...session import INPUT_FIELDS, OPTIONAL_FIELDS, Inputs

GROUP = "inputs"
WINDOW_OPTIONS = ("threads", "registers", "static_smem", "dynamic_smem")
"""The inputs ``occupancy-gui`` takes as command-line options (flags and help from the field table); with any of
them, an autosave is not restored over them."""
KERNEL_FIELDS = frozenset(fields.KERNEL_LIMITS)
"""A kernel's own limits: remembered with the kernel in a session file, never alone across starts (the next
start has no kernel loaded, and a bound without its kernel would limit every launch typed then)."""


def load_inputs(settings: QSettings, catalog: Any) -> dict[str, Any]:
    """The saved inputs that are still valid (a device no longer in the catalog is dropped)."""
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
                if name == "device":
                    out[name] = catalog.get(str(raw)).name
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
            settings.setValue(name, "none" if value is None else (int(value) if name == "cache_config" else value))
    finally:
        settings.endGroup()


def forget_inputs(settings: QSettings) -> None:
    """Remember no inputs: the next start shows the defaults (the user discarded the session at quit)."""
    settings.remove(GROUP)
