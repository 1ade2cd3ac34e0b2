"""The AMD catalog: every target and product resolved, cross-checked, and findable by any spelling.

A product is found by AMD's product name (``AMD Instinct MI300X``), by the short forms people type
(``MI300X``, ``RX 7900 XTX``, ``W7900``, ``Radeon 780M``), and a bare target by its name (``gfx942``).
Lookups ignore case and runs of spaces.  The NVIDIA catalog is not touched: AMD files live in
``device_profiles/amd/`` and are read only by this module.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.amd import AmdDevice, AmdTarget
from .amd_loader import RawAmdProfile, load_amd_profile
from .amd_schema import TARGET_FIELD_NAMES
from .errors import ProfileError

AMD_SUBDIR = "amd"
PROFILE_SUFFIXES = (".yaml", ".yml")


def lookup_key(name: str) -> str:
    """The form names are compared in: case-folded, spaces collapsed."""
    return " ".join(str(name).split()).casefold()


@dataclass(frozen=True)
class AmdProfile:
    """A resolved AMD profile: a bare target (no CU count) or a product on a target."""

    name: str
    kind: str
    title: str
    architecture: str
    target: AmdTarget
    aliases: tuple[str, ...]
    path: str
    compute_units: int | None = None
    hip_multiprocessor_count: int | None = None
    segment: str | None = None
    notes: str | None = None
    sources: dict[str, str] = field(default_factory=dict, hash=False)

    def device(self, wgp_mode: bool | None = None) -> AmdDevice:
        """The engine's device: the target and, for a product, its CUs (WGP mode as the driver sets it)."""
        return AmdDevice(self.target, self.compute_units, wgp_mode, self.name)

    def lookup_names(self) -> list[str]:
        return [self.name, *self.aliases]


def profile_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix in PROFILE_SUFFIXES and p.is_file())


def _target(raw: RawAmdProfile) -> AmdTarget:
    values = {k: raw.limits[k].value for k in TARGET_FIELD_NAMES}
    return AmdTarget(name=raw.name, **values)


class AmdCatalog:
    """All AMD profiles; ``get`` finds one by product name, alias or target name."""

    def __init__(self, profiles: Iterable[AmdProfile]) -> None:
        self.profiles: list[AmdProfile] = list(profiles)
        self._index: dict[str, AmdProfile] = {}
        for profile in self.profiles:
            for key in profile.lookup_names():
                self._index.setdefault(lookup_key(key), profile)

    @classmethod
    def load(cls, dirs: Sequence[Path]) -> AmdCatalog:
        """Load every AMD profile in ``dirs`` (each an ``amd/`` folder); any error raises ``ProfileError``."""
        raws = [load_amd_profile(p) for d in dirs for p in profile_files(Path(d))]
        return cls(_resolve(raws))

    @classmethod
    def from_profile_root(cls, root: Path) -> AmdCatalog:
        """The bundled AMD catalog under a ``device_profiles`` folder (``paths.data_dir("device_profiles")``)."""
        return cls.load([Path(root) / AMD_SUBDIR])

    def get(self, name: str) -> AmdProfile:
        """The profile called ``name`` (case and spacing ignored); KeyError with close matches otherwise."""
        found = self._index.get(lookup_key(name))
        if found is not None:
            return found
        names = [n for p in self.profiles for n in p.lookup_names()]
        close = difflib.get_close_matches(str(name), names, n=5, cutoff=0.5)
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        shown = str(name) if len(str(name)) <= 60 else str(name)[:59] + "…"
        raise KeyError(f"no AMD device profile named {shown!r}{hint}")

    def targets(self) -> list[AmdProfile]:
        return [p for p in self.profiles if p.kind == "amd_target"]

    def gpus(self) -> list[AmdProfile]:
        return [p for p in self.profiles if p.kind == "amd_gpu"]

    def names(self) -> list[str]:
        return [p.name for p in self.profiles]

    def __len__(self) -> int:
        return len(self.profiles)

    def __iter__(self) -> Iterator[AmdProfile]:
        return iter(self.profiles)


def _resolve(raws: list[RawAmdProfile]) -> list[AmdProfile]:
    targets: dict[str, AmdProfile] = {}
    claimed: dict[str, str] = {}

    def claim(raw: RawAmdProfile, profile: AmdProfile) -> None:
        labels = ["name", *[f"aliases[{i}]" for i in range(len(profile.aliases))]]
        line_keys = ["name", *[f"aliases.{i}" for i in range(len(profile.aliases))]]
        for label, line_key, name in zip(labels, line_keys, profile.lookup_names()):
            key = lookup_key(name)
            if key in claimed:
                raise ProfileError(
                    raw.path,
                    raw.lines.get(line_key),
                    label,
                    f"{name!r} is already used by {claimed[key]}; names and aliases must be unique",
                )
            claimed[key] = raw.path

    for raw in (r for r in raws if r.kind == "amd_target"):
        assert raw.title is not None and raw.architecture is not None
        profile = AmdProfile(
            raw.name,
            raw.kind,
            raw.title,
            raw.architecture,
            _target(raw),
            raw.aliases,
            raw.path,
            notes=raw.notes,
            sources={k: s.source for k, s in raw.limits.items()},
        )
        claim(raw, profile)
        targets[raw.name] = profile
    gpus: list[AmdProfile] = []
    for raw in (r for r in raws if r.kind == "amd_gpu"):
        assert raw.target is not None and raw.compute_units is not None and raw.hip_multiprocessor_count is not None
        parent = targets.get(raw.target)
        if parent is None:
            close = difflib.get_close_matches(raw.target, list(targets), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ProfileError(raw.path, raw.lines.get("target"), "target", f"unknown amd_target {raw.target!r}{hint}")
        cus, reported = int(raw.compute_units.value), int(raw.hip_multiprocessor_count.value)
        expected = AmdDevice(parent.target, cus).multiprocessor_count
        if reported != expected:
            rule = "CUs / 2 (WGP mode)" if parent.target.has_wgp else "the CU count"
            raise ProfileError(
                raw.path,
                raw.hip_multiprocessor_count.line,
                "hip_multiprocessor_count",
                f"{reported} is not what HIP reports for {cus} CUs on {raw.target}: {rule} = {expected}",
            )
        sources = {
            **parent.sources,
            "compute_units": raw.compute_units.source,
            "hip_multiprocessor_count": raw.hip_multiprocessor_count.source,
        }
        profile = AmdProfile(
            raw.name,
            raw.kind,
            raw.title or raw.name,
            parent.architecture,
            parent.target,
            raw.aliases,
            raw.path,
            cus,
            reported,
            raw.segment,
            raw.notes,
            sources,
        )
        claim(raw, profile)
        gpus.append(profile)
    ordered_targets = sorted(targets.values(), key=lambda p: p.target.gfx_version)
    return ordered_targets + sorted(gpus, key=lambda p: (p.target.gfx_version, p.name.casefold()))
