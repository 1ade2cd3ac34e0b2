from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
GEN = DATA / "gen"
HAND = DATA / "handwritten"


def find_cuobjdump() -> str | None:
    """``cuobjdump`` from PATH or from the pinned ``nvidia-cuda-cuobjdump`` wheel of this Python."""
    found = shutil.which("cuobjdump")
    if found:
        return found
    for entry in sys.path:
        candidate = Path(entry) / "nvidia" / "cu13" / "bin" / "cuobjdump"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@pytest.fixture
def gen() -> Path:
    return GEN


@pytest.fixture
def hand() -> Path:
    return HAND
