"""The catalog: every profile resolved, checked against the others, and findable by name.

Bundled profiles ship with the program, so a bad one is a bug and stops loading.  User profiles are
the user's business: a bad one is reported in ``Catalog.errors`` and skipped, and the rest load.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from ..engine import DeviceProperties
from . import schema as S
from .errors import ProfileError

if TYPE_CHECKING:
    from .loader import RawProfile

PROFILE_DIR_ENV = "OCCUPANCY_GUI_PROFILE_DIR"
PROFILE_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class DeviceProfile:
    """A resolved profile: what the engine needs, and where every number comes from."""

    name: str
    kind: str
    title: str
    compute_capability: tuple[int, int]
    architecture: str
    segment: str | None
    aliases: tuple[str, ...]
    sm_count: int | None
    path: str
    values: dict[str, int] = field(hash=False)
    sources: dict[str, str] = field(hash=False)
    info: dict[str, Any] = field(hash=False)
    user: bool = False
    notes: str | None = None

    @property
    def cc_string(self) -> str:
        return f"{self.compute_capability[0]}.{self.compute_capability[1]}"

    def device_properties(self) -> DeviceProperties:
        """The engine's ``cudaOccDeviceProp``; a capability without a GPU counts as one SM."""
        return DeviceProperties(
            compute_major=self.compute_capability[0],
            compute_minor=self.compute_capability[1],
            num_sms=self.sm_count if self.sm_count is not None else 1,
            **{name: self.values[name] for name in S.LIMIT_NAMES},
        )


def lookup_keys(profile: DeviceProfile) -> list[str]:
    """Every case-folded spelling that finds ``profile``: name, aliases, and sm_90 / sm90 / 90 / 9.0."""
    keys = [profile.name, *profile.aliases]
    if profile.kind == "compute_capability":
        major, minor = profile.compute_capability
        keys += [f"sm{major}{minor}", f"{major}{minor}", f"{major}.{minor}"]
    return [k.strip().casefold() for k in keys]


def profile_files(directory: Path) -> list[Path]:
    """Profile files directly in ``directory``, in a stable order."""
    return sorted(p for p in directory.iterdir() if p.suffix in PROFILE_SUFFIXES and p.is_file())


class Catalog:
    """All loaded profiles; ``get`` finds one by name, alias or compute-capability spelling."""

    def __init__(self, profiles: Iterable[DeviceProfile], errors: Iterable[ProfileError] = ()) -> None:
        self.profiles: list[DeviceProfile] = list(profiles)
        self.errors: list[ProfileError] = list(errors)
        self._index: dict[str, DeviceProfile] = {}
        for profile in self.profiles:
            for key in lookup_keys(profile):
                self._index.setdefault(key, profile)

    @classmethod
    def load(cls, dirs: Sequence[Path], user_dirs: Sequence[Path] = ()) -> Catalog:
        """Load bundled ``dirs`` (any error raises) and then ``user_dirs`` (errors are collected)."""
        builder = _Resolver()
        from .loader import load_profile  # noqa: PLC0415 - lazy: YAML only when the catalog is parsed, not cached

        bundled: list[RawProfile] = []
        for directory in dirs:
            bundled += [load_profile(path) for path in profile_files(Path(directory))]
        builder.add(bundled, user=False, errors=None)
        errors: list[ProfileError] = []
        user_raw: list[RawProfile] = []
        for directory in user_dirs:
            directory = Path(directory)
            if not directory.is_dir():
                continue
            for path in profile_files(directory):
                try:
                    user_raw.append(load_profile(path))
                except ProfileError as exc:
                    errors.append(exc)
        builder.add(user_raw, user=True, errors=errors)
        return cls(builder.ordered(), errors)

    def get(self, name: str) -> DeviceProfile:
        """The profile called ``name`` (case-insensitive; aliases and sm_90 / sm90 / 90 / 9.0 work too)."""
        key = str(name).strip().casefold()
        found = self._index.get(key)
        if found is not None:
            return found
        spellings = {k: p for p in self.profiles for k in [p.name, *p.aliases]}
        close = difflib.get_close_matches(str(name), list(spellings), n=5, cutoff=0.5)
        close += [k for k in difflib.get_close_matches(key, list(self._index), n=5, cutoff=0.5) if k not in close]
        hint = f"; did you mean: {', '.join(dict.fromkeys(close[:5]))}?" if close else ""
        shown = str(name) if len(str(name)) <= 60 else str(name)[:59] + "…"  # a stranger's name may be huge
        raise KeyError(f"no device profile named {shown!r}{hint}")

    def resolve(self, raw: RawProfile) -> DeviceProfile:
        """Resolve a profile that is not part of the catalog (a batch query's inline device) against
        the catalog's compute-capability profiles, with the same checks as a file."""
        builder = _Resolver()
        builder.cc = {p.name.casefold(): p for p in self.profiles if p.kind == "compute_capability"}
        return builder.resolve(raw, user=True)

    def names(self) -> list[str]:
        return [p.name for p in self.profiles]

    def __len__(self) -> int:
        return len(self.profiles)

    def __iter__(self) -> Iterator[DeviceProfile]:
        return iter(self.profiles)


class _Resolver:
    """Turns raw profiles into resolved ones, enforcing inheritance and unique names across files."""

    def __init__(self) -> None:
        self.cc: dict[str, DeviceProfile] = {}
        self.keys: dict[str, str] = {}  # lookup key -> path that claimed it
        self.bundled: list[DeviceProfile] = []
        self.user: list[DeviceProfile] = []

    def add(self, raws: list[RawProfile], *, user: bool, errors: list[ProfileError] | None) -> None:
        ccs = [r for r in raws if r.kind == "compute_capability"]
        gpus = [r for r in raws if r.kind == "gpu"]
        for raw in [*ccs, *gpus]:
            try:
                profile = self.resolve(raw, user)
                self.claim(raw, profile)
            except ProfileError as exc:
                if errors is None:
                    raise
                errors.append(exc)
                continue
            if profile.kind == "compute_capability":
                self.cc[profile.name.casefold()] = profile
            (self.user if user else self.bundled).append(profile)

    def resolve(self, raw: RawProfile, user: bool) -> DeviceProfile:
        values = {k: int(s.value) for k, s in raw.limits.items()}
        sources = {k: s.source for k, s in raw.limits.items()}
        common: dict[str, Any] = dict(
            name=raw.name,
            kind=raw.kind,
            architecture=raw.architecture,
            segment=raw.segment,
            aliases=raw.aliases,
            path=raw.path,
            info={k: s.value for k, s in raw.info.items()},
            user=user,
            notes=raw.notes,
        )
        if raw.kind == "compute_capability":
            assert raw.compute_capability is not None and raw.title is not None
            return DeviceProfile(
                title=raw.title,
                compute_capability=raw.compute_capability,
                sm_count=None,
                values=values,
                sources=sources,
                **common,
            )
        parent = self.parent(raw)
        merged = {**parent.values, **values}
        for fld, message in S.relation_errors(merged):
            culprit = fld if fld in raw.limits else next((f for f in S.LIMIT_NAMES if f in raw.limits), None)
            line = raw.limits[culprit].line if culprit else raw.lines.get("inherits")
            raise ProfileError(raw.path, line, f"limits.{fld}", f"{message} (after inheriting {parent.name})")
        assert raw.sm_count is not None
        merged_sources = {**{k: f"{v} (inherited from {parent.name})" for k, v in parent.sources.items()}, **sources}
        merged_sources["sm_count"] = raw.sm_count.source
        return DeviceProfile(
            title=raw.title or raw.name,
            compute_capability=parent.compute_capability,
            sm_count=int(raw.sm_count.value),
            values=merged,
            sources=merged_sources,
            **common,
        )

    def parent(self, raw: RawProfile) -> DeviceProfile:
        assert raw.inherits is not None
        line = raw.lines.get("inherits")
        target = self.cc.get(raw.inherits.casefold())
        if target is not None:
            return target
        if any(p.name.casefold() == raw.inherits.casefold() for p in [*self.bundled, *self.user]):
            raise ProfileError(
                raw.path,
                line,
                "inherits",
                f"{raw.inherits!r} is a gpu profile; a gpu may only inherit a compute_capability profile",
            )
        close = difflib.get_close_matches(raw.inherits, [p.name for p in self.cc.values()], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ProfileError(raw.path, line, "inherits", f"unknown compute_capability profile {raw.inherits!r}{hint}")

    def claim(self, raw: RawProfile, profile: DeviceProfile) -> None:
        """Reserve every lookup key of ``profile``; a key already taken is a duplicate name or alias."""
        keys = lookup_keys(profile)
        labels = ["name", *[f"aliases[{i}]" for i in range(len(profile.aliases))]]
        line_keys = ["name", *[f"aliases.{i}" for i in range(len(profile.aliases))]]
        mine: set[str] = set()
        for index, key in enumerate(keys):
            owner = self.keys.get(key) or ("this file" if key in mine else None)
            mine.add(key)
            if owner is not None:
                label = labels[index] if index < len(labels) else "compute_capability"
                line = raw.lines.get(line_keys[index] if index < len(line_keys) else "compute_capability")
                raise ProfileError(
                    raw.path,
                    line,
                    label,
                    f"{key!r} is already used by {owner}; names and aliases must be unique (case-insensitive)",
                )
        for key in keys:
            self.keys[key] = raw.path

    def ordered(self) -> list[DeviceProfile]:
        def order(group: list[DeviceProfile]) -> list[DeviceProfile]:
            ccs = sorted((p for p in group if p.kind == "compute_capability"), key=lambda p: p.compute_capability)
            gpus = sorted(
                (p for p in group if p.kind == "gpu"),
                key=lambda p: (p.compute_capability, p.architecture.casefold(), p.name.casefold()),
            )
            return ccs + gpus

        return order(self.bundled) + order(self.user)


def user_profile_dir() -> Path:
    """Where the user's own profiles live; ``OCCUPANCY_GUI_PROFILE_DIR`` overrides (tests use it)."""
    override = os.environ.get(PROFILE_DIR_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("occupancy_gui")) / "profiles"


def default_catalog(bundled_dir: Path) -> Catalog:
    """The bundled profiles in ``bundled_dir`` plus the user's profile directory.

    Callers pass ``occupancy_gui.paths.data_dir("device_profiles")``: the import-linter "Layers"
    contract makes ``profiles`` and ``paths`` independent siblings, so this package may not import
    ``paths`` itself.
    """
    return Catalog.load([Path(bundled_dir)], [user_profile_dir()])
