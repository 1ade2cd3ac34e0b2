"""The AMD catalog for the engine tests, and LLVM run once per session as the compiler model's oracle."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from occupancy_gui.paths import data_dir
from occupancy_gui.profiles.amd_catalog import AmdCatalog
from tests.helpers import toolchains

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def amd_catalog() -> AmdCatalog:
    return AmdCatalog.from_profile_root(data_dir("device_profiles"))


def triton_version() -> str:
    """The installed Triton, or a skip where the pinned wheel does not exist (it is Linux x86_64 only)."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        pytest.skip("triton==3.9.0 (the LLVM oracle) has wheels for Linux x86_64 only")
    return importlib.metadata.version("triton")


def run_oracle(jobs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Compile ``jobs`` in a child process (``llvm_oracle.py``); results are cached in the test cache,
    keyed by the jobs, the Triton version and the oracle's own source."""
    version = triton_version()
    blob = json.dumps(jobs, sort_keys=True)
    sources = "".join((HERE / name).read_text() for name in ("llvm_oracle.py", "triton_kernels.py"))
    key = hashlib.sha256((blob + version + sources).encode()).hexdigest()[:32]
    cache = toolchains.CACHE / "amd-llvm-oracle"
    out = cache / f"{key}.json"
    if not out.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        job_file = cache / f"{key}.jobs.json"
        job_file.write_text(blob)
        env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1", "TRITON_CACHE_DIR": str(cache / "triton")}
        done = subprocess.run(
            [sys.executable, str(HERE / "llvm_oracle.py"), str(job_file), str(out) + ".tmp"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        os.replace(str(out) + ".tmp", out)
        job_file.unlink()
    results: list[list[dict[str, Any]]] = json.loads(out.read_text())
    return results
