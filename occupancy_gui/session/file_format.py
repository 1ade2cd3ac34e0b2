"""The session file's format: its versions, keys and value ranges, what a file holds, and the error a bad one is.

Shared by the writer and the entry points (``session_file``) and the strict reader (``session_file_reader``); the
schema itself is described in ``session_file``'s docstring.  Version 1 is NVIDIA's; version 2 added AMD devices and
their inputs.  A file is written as the lowest version that holds it, and one newer than ``FORMAT_VERSION`` is
refused, never guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import fields
from ..engine import CacheConfig
from ..fields import AMD, NVIDIA
from .inputs import INPUT_RANGES, Inputs

FORMAT_KEY = "occupancy_session"
FORMAT_VERSION = 2
"""The newest format this program reads; 2 added AMD devices and their inputs."""
AMD_VERSION = 2
"""The first version that holds an AMD device."""
VENDOR_INPUTS = {vendor: tuple(f.name for f in fields.for_vendor(vendor)) for vendor in fields.VENDORS}
"""The input keys a file holds for a device of each vendor, in the table's order."""

CACHE_NAMES = {CacheConfig(i): name for i, name in enumerate(fields.CACHE_NAMES)}
TOP_KEYS = (FORMAT_KEY, "device", "inputs", "import", "compare")
VALUE_RANGES: dict[str, tuple[int, int]] = {
    name: INPUT_RANGES[name] for name in VENDOR_INPUTS[NVIDIA] if fields.FIELD[name].kind != fields.CACHE
}
"""Every NVIDIA number's range (carveout's -1..100 included); a cache preference is read by name."""
AMD_VALUE_RANGES: dict[str, tuple[int, int]] = {
    name: INPUT_RANGES[name] for name in VENDOR_INPUTS[AMD] if name in INPUT_RANGES
}
"""Every AMD number's range (a mode and a minimum-maximum are read by their kind)."""
MAX_DEVICE_NAME = 256
"""Longest device name looked up (profile names are far shorter); a longer one is refused unread."""


class SessionFileError(ValueError):
    """A session file that cannot be used: ``path:line: field: message`` on one line."""

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        self.path, self.line, self.field = str(path), line, field
        self.message = " ".join(str(message).split())
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {field}: {self.message}" if field else f"{where}: {self.message}")


@dataclass(frozen=True)
class SessionState:
    """What a session file holds.

    ``source`` is ``(imported file path, selected kernel name)``; ``pinned`` the inputs of
    comparison A; ``vendor`` and ``pinned_vendor`` whose devices those are (which inputs apply).
    """

    inputs: Inputs
    source: tuple[str, str] | None = None
    pinned: Inputs | None = None
    vendor: str = NVIDIA
    pinned_vendor: str = NVIDIA
