"""Whether compiled code can run on a device: the CUDA binary-compatibility rules, by target name.

Pure Python (no Qt).  A cubin's figures describe the code the GPU will run, so viewing an sm_90
kernel on a CC 11.0 device computes a launch that could never happen; the window says so and lists
the devices that can run it.  The rules (CUDA C++ Programming Guide, "Binary Compatibility" and the
CUDA 12.9 family-specific targets):

- ``sm_XY`` SASS runs on compute capability X.Z for Z >= Y (same major, equal or higher minor);
- ``sm_XYa`` (architecture-specific) runs only on exactly X.Y;
- ``sm_XYf`` (family-specific) runs on the family's later members: same major, minor >= Y;
- ``compute_XY`` PTX can be JIT-compiled for any X.Y or later (``compute_XYa`` only for X.Y).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .profiles import Catalog

_TARGET = re.compile(r"^(sm|compute)_(\d+?)(\d)([af]?)$")


@dataclass(frozen=True)
class Target:
    """A compilation target: ``sm_90a`` is SASS for CC 9.0, architecture-specific."""

    ptx: bool
    major: int
    minor: int
    suffix: str  # "", "a" or "f"

    @property
    def name(self) -> str:
        return f"{'compute' if self.ptx else 'sm'}_{self.major}{self.minor}{self.suffix}"

    def runs_on(self, cc: tuple[int, int]) -> bool:
        """Whether code for this target runs on a device of compute capability ``cc``."""
        if self.suffix == "a":
            return cc == (self.major, self.minor)
        if self.ptx:
            return cc >= (self.major, self.minor)
        return cc[0] == self.major and cc[1] >= self.minor

    def rule(self) -> str:
        """The rule in words, for the message."""
        cc = f"{self.major}.{self.minor}"
        if self.suffix == "a":
            return f"{self.name} code runs only on compute capability {cc} exactly"
        if self.ptx:
            return f"{self.name} PTX can be JIT-compiled for compute capability {cc} and later"
        kind = "family-specific code" if self.suffix == "f" else "SASS"
        return f"{self.name} {kind} runs on compute capability {self.major}.x with x ≥ {self.minor}"


def parse_target(arch: str) -> Target | None:
    """``"sm_90a"`` -> Target; ``None`` for anything that is not a CUDA target name."""
    match = _TARGET.match(arch.strip())
    if not match:
        return None
    kind, major, minor, suffix = match.groups()
    return Target(kind == "compute", int(major), int(minor), suffix)


def devices_that_run(target: Target, catalog: Catalog) -> list[str]:
    """Names of the catalog's profiles this target runs on: named GPUs first, then the CC profiles."""
    fits = [p for p in catalog.profiles if target.runs_on(p.compute_capability)]
    return [p.name for p in fits if p.kind != "compute_capability"] + [
        p.name for p in fits if p.kind == "compute_capability"
    ]


def mismatch_message(arch: str, cc: tuple[int, int], catalog: Catalog | None = None, shown: int = 4) -> str | None:
    """A plain sentence when code for ``arch`` cannot run on a CC ``cc`` device (``None`` when it can)."""
    target = parse_target(arch)
    if target is None or target.runs_on(cc):
        return None
    text = f"⚠ This kernel cannot run on the selected device (CC {cc[0]}.{cc[1]}): {target.rule()}."
    if catalog is not None:
        names = devices_that_run(target, catalog)
        if names:
            more = f" and {len(names) - shown} more" if len(names) > shown else ""
            text += f" It runs on: {', '.join(names[:shown])}{more}."
        else:
            text += " No device in the catalog runs it."
    return text
