"""Shared test setup: offscreen Qt, no user profile directory, and a small device catalog.

Nothing here imports Qt, so the Qt-less CI job (engine, profiles, importers, session) can load it;
the Qt fixtures (isolated QSettings, windows) live in ``tests/ui/conftest.py``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Before any Qt import: render offscreen unless the developer asked for a real display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never read the developer's own profiles: point the user profile directory at an empty place.
os.environ.setdefault("OCCUPANCY_GUI_PROFILE_DIR", str(Path(tempfile.gettempdir()) / "occupancy-gui-tests-no-profiles"))
# Nor the developer's import cache: each test session gets an empty one, removed at exit.
if "OCCUPANCY_GUI_CACHE_DIR" not in os.environ:
    os.environ["OCCUPANCY_GUI_CACHE_DIR"] = _cache_dir = tempfile.mkdtemp(prefix="occupancy-gui-tests-cache-")
    atexit.register(shutil.rmtree, _cache_dir, ignore_errors=True)

LIMITS = (
    "warp_size",
    "max_threads_per_block",
    "max_threads_per_multiprocessor",
    "regs_per_block",
    "regs_per_multiprocessor",
    "shared_mem_per_block",
    "shared_mem_per_multiprocessor",
    "shared_mem_per_block_optin",
    "reserved_shared_mem_per_block",
)

FAKE_CCS: dict[tuple[int, int], tuple[str, tuple[int, ...]]] = {
    (3, 5): ("Kepler", (32, 1024, 2048, 65536, 65536, 49152, 49152, 49152, 0)),
    (8, 6): ("Ampere", (32, 1024, 1536, 65536, 65536, 49152, 102400, 101376, 1024)),
    (9, 0): ("Hopper", (32, 1024, 2048, 65536, 65536, 49152, 233472, 232448, 1024)),
    # The Programming Guide's illustrative CC 10.0 device of the worked example.
    (10, 0): ("Blackwell", (32, 1024, 2048, 65536, 65536, 49152, 233472, 232448, 1024)),
}


def _profile(
    name: str,
    kind: str,
    cc: tuple[int, int],
    arch: str,
    values: tuple[int, ...],
    *,
    sm_count: int | None = None,
    aliases: tuple[str, ...] = (),
    user: bool = False,
):
    from occupancy_gui.profiles import DeviceProfile

    return DeviceProfile(
        name=name,
        kind=kind,
        title=f"{arch} {name}",
        compute_capability=cc,
        architecture=arch,
        segment=None if kind == "compute_capability" else "datacenter",
        aliases=aliases,
        sm_count=sm_count,
        path=f"<test>/{name}.yaml",
        values=dict(zip(LIMITS, values)),
        sources={f: f"test source for {f}" for f in LIMITS},
        info={},
        user=user,
    )


def make_fake_catalog():
    """Four compute capabilities, one named GPU and one user profile; no files involved."""
    from occupancy_gui.profiles import Catalog

    profiles = [_profile(f"sm_{a}{b}", "compute_capability", (a, b), arch, v) for (a, b), (arch, v) in FAKE_CCS.items()]
    profiles.append(
        _profile("H100 SXM5", "gpu", (9, 0), "Hopper", FAKE_CCS[(9, 0)][1], sm_count=132, aliases=("H100",))
    )
    profiles.append(_profile("My Card", "gpu", (8, 6), "Ampere", FAKE_CCS[(8, 6)][1], sm_count=10, user=True))
    return Catalog(profiles)


@pytest.fixture
def catalog():
    return make_fake_catalog()


@pytest.fixture(scope="session")
def bundled_catalog():
    """The NVIDIA profiles shipped in device_profiles/ (the real ones, beside the fake ``catalog``)."""
    from occupancy_gui.paths import data_dir
    from occupancy_gui.profiles import Catalog

    return Catalog.load([data_dir("device_profiles")])


@pytest.fixture(scope="session")
def reference():
    """The C++ harness built against the wheel's cuda_occupancy.h; failing to build is a test failure."""
    from tests.harness.reference import Reference

    return Reference.build()


@pytest.fixture(scope="session")
def cuda_bin() -> Path:
    """The bin folder of the pinned CUDA 13.5 nvcc/ptxas wheels (fetched into the test cache)."""
    from tests.helpers import toolchains

    return toolchains.nvcc13_bin()


SEED_EXAMPLE = dict(device="sm_100", threads=256, registers=64, static_smem=24 * 1024)
"""The Programming Guide's worked example: 4 blocks of 256 threads, 50 %, limited by registers."""


@pytest.fixture
def session(catalog):
    """A session on the test catalog holding the worked example (the one fixture of the concept)."""
    from occupancy_gui.session import Session

    return Session(catalog, **SEED_EXAMPLE)


@pytest.fixture(autouse=True)
def _workers_exec(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes start as fresh interpreters in every test run in this process, whichever tests ran
    before (one that imports numpy adds a thread, and with it the choice between forking and a fresh
    interpreter would depend on the order): ``tests/test_child_process.py`` forks them in processes of
    its own, single-threaded as the command line is."""
    from occupancy_gui._process import child_process

    monkeypatch.setattr(child_process, "single_threaded", lambda: False)
