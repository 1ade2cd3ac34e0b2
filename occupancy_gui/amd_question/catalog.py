"""AMD device profiles for the session and the command line: the bundled catalog, read once on first need, and a
lookup of a name among NVIDIA's profiles first and AMD's after, as ``occupancy calc --device`` does."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..paths import data_dir
from ..profiles import ProfileError

if TYPE_CHECKING:
    from ..profiles import AmdCatalog, AmdProfile, Catalog, DeviceProfile


@functools.cache
def bundled_catalog() -> AmdCatalog:
    """The bundled AMD profiles, read once (a broken bundled file is a ``ProfileError``)."""
    from ..profiles import AmdCatalog  # noqa: PLC0415 - lazy: an NVIDIA device needs neither the AMD engine nor its files

    return AmdCatalog.from_profile_root(data_dir("device_profiles"))


def find_device(
    name: str, catalog: Catalog, amd: Callable[[], AmdCatalog] = bundled_catalog
) -> DeviceProfile | AmdProfile:
    """The NVIDIA profile called ``name``, else the AMD one (``amd()`` is called only then); ``KeyError`` (one
    line, the closest names of both vendors) if neither."""
    try:
        return catalog.get(name)
    except KeyError as nvidia_miss:
        try:
            amd_profiles = amd()
        except ProfileError:
            raise nvidia_miss from None
        try:
            return amd_profiles.get(name)
        except KeyError:
            pass
    spellings = [n for p in catalog.profiles for n in (p.name, *p.aliases)]
    spellings += [n for p in amd_profiles for n in p.lookup_names()]
    close = difflib.get_close_matches(str(name), spellings, n=5, cutoff=0.5)
    shown = str(name) if len(str(name)) <= 60 else str(name)[:59] + "…"  # a stranger's name may be huge
    raise KeyError(f"no device profile named {shown!r}" + (f"; did you mean: {', '.join(close)}?" if close else ""))
