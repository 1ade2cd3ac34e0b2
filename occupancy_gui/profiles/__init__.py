"""Device profiles: per-GPU and per-compute-capability limits, each value with its public source.

The engine takes a ``DeviceProperties``; this package is where those numbers come from.  Profiles are
YAML files (``device_profiles/`` in the distribution, plus a user directory), validated strictly so a
typo is reported with its file and line instead of silently changing an occupancy result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .catalog import PROFILE_DIR_ENV, Catalog, DeviceProfile, default_catalog, user_profile_dir
from .errors import ProfileError
from .schema import INFO_FIELDS, LIMIT_FIELDS, LIMIT_NAMES, SCHEMA_VERSION, Field

__all__ = [
    "AmdCatalog",
    "AmdProfile",
    "PROFILE_DIR_ENV",
    "Catalog",
    "DeviceProfile",
    "Field",
    "INFO_FIELDS",
    "LIMIT_FIELDS",
    "LIMIT_NAMES",
    "ProfileError",
    "RawProfile",
    "SCHEMA_VERSION",
    "Sourced",
    "default_catalog",
    "load_amd_profile",
    "load_profile",
    "parse_amd_profile",
    "parse_profile",
    "user_profile_dir",
]

if TYPE_CHECKING:  # loaded lazily by __getattr__ below
    from .amd_catalog import AmdCatalog, AmdProfile
    from .amd_loader import load_amd_profile, parse_amd_profile
    from .loader import RawProfile, Sourced, load_profile, parse_profile


def __getattr__(name: str) -> object:
    """The YAML loader is imported on first use: a catalog read from the GUI's cache needs no YAML."""
    if name in ("RawProfile", "Sourced", "load_profile", "parse_profile"):
        from . import loader  # noqa: PLC0415 - lazy: a catalog read from the cache needs no YAML

        return getattr(loader, name)
    if name in ("AmdCatalog", "AmdProfile", "load_amd_profile", "parse_amd_profile"):
        from . import amd_catalog, amd_loader  # noqa: PLC0415 - lazy: AMD profiles are read only when asked for

        return getattr(amd_catalog if name.startswith("Amd") else amd_loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
