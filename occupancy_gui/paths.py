"""Where the bundled data lives: one function for a source checkout, a wheel, an editable install
and a frozen (PyInstaller) bundle alike.

The mandated top-level ``resources/`` and ``device_profiles/`` sit outside the package in a checkout;
a wheel carries them as ``occupancy_gui/_data/<name>`` (the wheel target in pyproject.toml), a frozen bundle under
``sys._MEIPASS``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_DATA_DIRS = ("resources", "device_profiles")


def data_dir(name: str) -> Path:
    """Return the directory of bundled data ``name`` ("resources" or "device_profiles")."""
    if name not in _DATA_DIRS:
        raise ValueError(f"unknown data directory {name!r}; known: {', '.join(_DATA_DIRS)}")
    candidates = []
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        candidates.append(Path(frozen_root) / name)
    candidates.append(_PACKAGE_DIR / "_data" / name)
    candidates.append(_PACKAGE_DIR.parent / name)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bundled {name}/ not found; looked in: {', '.join(map(str, candidates))}")


def resource_path(relative: str) -> Path:
    """Return the path of one bundled resource file, failing loudly if it is missing."""
    path = data_dir("resources") / relative
    if not path.is_file():
        raise FileNotFoundError(f"bundled resource {relative!r} not found at {path}")
    return path
