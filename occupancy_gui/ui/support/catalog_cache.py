"""A start-up cache of the device catalog: the parsed profiles as JSON, keyed by the files' stamps.

Reading the ~90 bundled profiles takes ~130 ms even now that the YAML comes from libyaml's events
(validation and inheritance are Python); from this cache ~11 ms (``tests/benchmarks/bench_yaml.py``,
a busy 2-core machine), so it still saves the largest part of a cold start after Qt itself.  The
cache holds the resolved profiles (plain data, no pickle) and is used only when every profile file,
the profile code and the program version are exactly as when it was written; anything else (a new,
edited or removed file, a user profile with an error) loads from the YAML as usual.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

from ... import __version__
from ...profiles import Catalog, DeviceProfile
from ...profiles.catalog import PROFILE_SUFFIXES

CACHE_NAME = "device-catalog.json"
_TUPLE_FIELDS = frozenset(f.name for f in dataclasses.fields(DeviceProfile) if str(f.type).startswith("tuple"))


def _stamps(directory: Path) -> list[tuple[str, int, int]]:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return []
    return [
        (e.name, e.stat().st_size, e.stat().st_mtime_ns)
        for e in entries
        if e.name.endswith(PROFILE_SUFFIXES) and e.is_file()
    ]


def fingerprint(bundled: Path, user: Path) -> str:
    """What the cached catalog depends on: every profile file, the profile code, the version."""
    code_dir = Path(sys.modules[DeviceProfile.__module__].__file__ or ".").parent
    parts: list[Any] = [
        __version__,
        sorted(_TUPLE_FIELDS),
        [f.name for f in dataclasses.fields(DeviceProfile)],
        str(bundled),
        _stamps(bundled),
        str(user),
        _stamps(user),
        [(p.name, p.stat().st_mtime_ns) for p in sorted(code_dir.glob("*.py"))],
    ]
    return json.dumps(parts)


def _decode(data: dict[str, Any]) -> DeviceProfile:
    fields: dict[str, Any] = {k: tuple(v) if k in _TUPLE_FIELDS and v is not None else v for k, v in data.items()}
    return DeviceProfile(**fields)


def load_catalog(bundled: Path, user: Path, cache_file: Path | None) -> Catalog:
    """``Catalog.load([bundled], [user])``, from ``cache_file`` when it is current."""
    key = fingerprint(bundled, user) if cache_file is not None else ""
    if cache_file is not None:
        try:
            data = json.loads(cache_file.read_text(encoding="utf-8"))
            if data.get("key") == key:
                return Catalog([_decode(p) for p in data["profiles"]])
        except (OSError, ValueError, TypeError, KeyError):
            pass  # no cache, an old one or a damaged one: load from the files
    catalog = Catalog.load([bundled], [user])
    if cache_file is not None and not catalog.errors:
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache_file.with_suffix(".tmp")
            payload = {"key": key, "profiles": [dataclasses.asdict(p) for p in catalog.profiles]}
            tmp.write_text(json.dumps(payload), encoding="utf-8")
            tmp.replace(cache_file)
        except (OSError, TypeError, ValueError):
            pass  # a cache we cannot write only costs start-up time
    return catalog
