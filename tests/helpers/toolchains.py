"""NVIDIA's compilers and libraries from their pip wheels, fetched at test time into a cache.

Nothing NVIDIA makes is committed to this repository: a test asks for a pinned wheel and gets the
folder it was unpacked into.  The cache is ``$OCCUPANCY_TEST_CACHE`` or ``~/.cache/occupancy_gui-tests``
and survives between runs; each wheel is unpacked once (a marker file says it is complete).

Where the registry cannot be reached the calling test is skipped, saying so; any other failure
(a wheel without the expected file, a compiler error) fails the test.

What the wheels hold, measured: ``nvidia-cuda-nvcc-cu11`` / ``-cu12`` carry ``ptxas`` and libnvvm
only (no ``nvcc`` driver, no ``nvlink``), so older toolkits are driven through ``ptxas`` on PTX;
``nvidia-cuda-nvcc`` 13.x is a whole ``nvcc`` (with ``nvidia-cuda-crt``, ``nvidia-nvvm`` and
``nvidia-cuda-runtime`` for its headers).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

CACHE = Path(os.environ.get("OCCUPANCY_TEST_CACHE") or Path.home() / ".cache" / "occupancy_gui-tests")

# ptxas of every toolkit line a user may have, newest patch of each that pip offers.
PTXAS_WHEELS = {
    "11.7": "nvidia-cuda-nvcc-cu11==11.7.99",
    "11.8": "nvidia-cuda-nvcc-cu11==11.8.89",
    "12.0": "nvidia-cuda-nvcc-cu12==12.0.140",
    "12.1": "nvidia-cuda-nvcc-cu12==12.1.105",
    "12.2": "nvidia-cuda-nvcc-cu12==12.2.140",
    "12.3": "nvidia-cuda-nvcc-cu12==12.3.107",
    "12.4": "nvidia-cuda-nvcc-cu12==12.4.131",
    "12.5": "nvidia-cuda-nvcc-cu12==12.5.82",
    "12.6": "nvidia-cuda-nvcc-cu12==12.6.85",
    "12.8": "nvidia-cuda-nvcc-cu12==12.8.93",
    "12.9": "nvidia-cuda-nvcc-cu12==12.9.86",
    "13.0": "nvidia-cuda-nvcc==13.0.88",
    "13.1": "nvidia-cuda-nvcc==13.1.115",
    "13.2": "nvidia-cuda-nvcc==13.2.86",
    "13.3": "nvidia-cuda-nvcc==13.3.73",
    "13.4": "nvidia-cuda-nvcc==13.4.92",
}
# The highest PTX ISA each ptxas accepts (PTX written by a newer nvcc is relabelled to it).
PTX_ISA = {
    "11.7": "7.7",
    "11.8": "7.8",
    "12.0": "8.0",
    "12.1": "8.1",
    "12.2": "8.2",
    "12.3": "8.3",
    "12.4": "8.4",
    "12.5": "8.5",
    "12.6": "8.5",
    "12.8": "8.7",
    "12.9": "8.8",
    "13.0": "9.0",
    "13.1": "9.1",
    "13.2": "9.2",
    "13.3": "9.3",
    "13.4": "9.4",
}
NVCC13 = (
    "nvidia-cuda-nvcc==13.5.37",
    "nvidia-cuda-crt==13.5.37",
    "nvidia-nvvm==13.5.37",
    "nvidia-cuda-runtime==13.5.37",
)
NVCC_TOOLKITS = {
    "13.5": NVCC13,
    "13.0": (
        "nvidia-cuda-nvcc==13.0.88",
        "nvidia-cuda-crt==13.0.88",
        "nvidia-nvvm==13.0.88",
        "nvidia-cuda-runtime==13.0.88",
    ),
    "13.2": (
        "nvidia-cuda-nvcc==13.2.86",
        "nvidia-cuda-crt==13.2.86",
        "nvidia-nvvm==13.2.86",
        "nvidia-cuda-runtime==13.2.86",
    ),
    "13.4": (
        "nvidia-cuda-nvcc==13.4.92",
        "nvidia-cuda-crt==13.4.92",
        "nvidia-nvvm==13.4.92",
        "nvidia-cuda-runtime==13.4.92",
    ),
}
"""Whole nvcc toolkits (driver, headers, libnvvm): the first and the latest 13.x line pip offers, and two
between (13.1 and 13.3 were checked by hand the same way: all equal)."""
CUOBJDUMP = "nvidia-cuda-cuobjdump==13.5.37"

# The five NVIDIA libraries of the exactness checks, in two releases: the newest the registry offers
# (the files issue #14 measured: libcurand 105 MB, libcublasLt 552 MB, ...) and an earlier one.  They
# differ where it matters to the reader: libcurand 10.4.5 keeps 1,747 LTO fatbins in .data, 10.4.0 none.
LIBRARY_RELEASES = {
    "newest": {
        "curand": "nvidia-curand==10.4.5.25",
        "cublas": "nvidia-cublas==13.10.0.20",
        "cufft": "nvidia-cufft==12.5.0.14",
        "cusparse": "nvidia-cusparse==12.9.4.2",
    },
    "earlier": {
        "curand": "nvidia-curand==10.4.0.35",
        "cublas": "nvidia-cublas==13.1.1.3",
        "cufft": "nvidia-cufft==12.0.0.61",
        "cusparse": "nvidia-cusparse==12.6.3.3",
    },
}
LIBRARY_FILES = {
    "curand": ("libcurand.so",),
    "cublas": ("libcublas.so", "libcublasLt.so"),
    "cufft": ("libcufft.so",),
    "cusparse": ("libcusparse.so",),
}
LIBRARIES = [
    ("curand", "libcurand.so"),
    ("cublas", "libcublas.so"),
    ("cublas", "libcublasLt.so"),
    ("cufft", "libcufft.so"),
    ("cusparse", "libcusparse.so"),
]
"""(wheel, file stem) of each library, smallest work first."""

_UNREACHABLE = re.compile(
    r"(Could not fetch URL|connection|Network is unreachable|Temporary failure in name "
    r"resolution|Max retries exceeded|timed out)",
    re.I,
)


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)


def wheel_tree(spec: str, platform: str | None = None) -> Path:
    """The folder a pinned wheel (``name==version``, no dependencies) is unpacked into; ``platform``
    (``"win_amd64"``): that platform's wheel instead of this machine's."""
    tree = CACHE / "trees" / (_slug(spec) + (f"-{platform}" if platform else ""))
    done = tree / ".complete"
    if done.exists():
        return tree
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist or two runs at once share the cache
        if done.exists():
            return tree
        download = CACHE / "download" / tree.name
        shutil.rmtree(download, ignore_errors=True)
        where = ["--only-binary=:all:", "--platform", platform] if platform else []
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", *where, "-d", str(download), spec],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            if _UNREACHABLE.search(proc.stderr):
                pytest.skip(f"the package registry is unreachable, {spec} not fetched")
            raise RuntimeError(f"pip download {spec} failed: {proc.stderr.strip().splitlines()[-1:]}")
        wheels = list(download.glob("*.whl"))
        if len(wheels) != 1:
            raise RuntimeError(f"pip download {spec} gave {len(wheels)} wheels")
        shutil.rmtree(tree, ignore_errors=True)
        with zipfile.ZipFile(wheels[0]) as zf:
            for info in zf.infolist():
                path = zf.extract(info, tree)
                mode = (info.external_attr >> 16) & 0o777
                if mode:
                    os.chmod(path, mode)
        shutil.rmtree(download, ignore_errors=True)
        done.write_text(spec)
    return tree


def wheel_file(spec: str) -> Path:
    """A pinned wheel itself (``name==version``, no dependencies), downloaded once and not unpacked: for a
    test that reads a few of its members (flashinfer-cubin: 458 MB of 15,970 cubins)."""
    folder = CACHE / "wheels" / _slug(spec)
    found = sorted(folder.glob("*.whl"))
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = sorted(folder.glob("*.whl"))
        if found:
            return found[0]
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(partial), spec],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            if _UNREACHABLE.search(proc.stderr):
                pytest.skip(f"the package registry is unreachable, {spec} not fetched")
            raise RuntimeError(f"pip download {spec} failed: {proc.stderr.strip().splitlines()[-1:]}")
        partial.rename(folder)
    return sorted(folder.glob("*.whl"))[0]


def _find(tree: Path, pattern: str) -> Path:
    found = sorted(tree.glob(pattern))
    if not found:
        raise RuntimeError(f"{tree.name}: no {pattern}")
    return found[0]


def ptxas(toolkit: str) -> Path:
    """``ptxas`` of one toolkit line (a key of :data:`PTXAS_WHEELS`, or "13.5")."""
    if toolkit == "13.5":
        return nvcc13_bin() / "ptxas"
    return _find(wheel_tree(PTXAS_WHEELS[toolkit]), "nvidia/*/bin/ptxas")


def nvcc13_bin(version: str = "13.5") -> Path:
    """The ``bin`` folder of a CUDA 13.x nvcc (a key of :data:`NVCC_TOOLKITS`), its headers and libnvvm
    laid out as one toolkit."""
    specs = NVCC_TOOLKITS[version]
    root = CACHE / f"cuda-{version}"
    if not (root / ".complete").exists():
        trees = [wheel_tree(spec) for spec in specs]
        shutil.rmtree(root, ignore_errors=True)
        for tree in trees:
            shutil.copytree(_find(tree, "nvidia/cu13"), root, dirs_exist_ok=True, symlinks=True)
        (root / ".complete").write_text("\n".join(specs))
    return root / "bin"


def cuobjdump() -> Path:
    return _find(wheel_tree(CUOBJDUMP), "nvidia/*/bin/cuobjdump")


def library(name: str, release: str = "newest") -> list[Path]:
    """The shared libraries of one NVIDIA library wheel (a key of :data:`LIBRARY_FILES`) of a release."""
    tree = wheel_tree(LIBRARY_RELEASES[release][name])
    return [_find(tree, f"nvidia/**/{stem}*") for stem in LIBRARY_FILES[name]]


def library_file(wheel: str, stem: str, release: str = "newest") -> Path:
    """One shared library of a wheel (``"cublas"``, ``"libcublasLt.so"``) of a release."""
    return next(p for p in library(wheel, release) if p.name.startswith(stem))


def library_cases() -> list[tuple[str, str, str]]:
    """(release, wheel, stem) of every library of every release, for ``parametrize``."""
    return [(release, wheel, stem) for release in LIBRARY_RELEASES for wheel, stem in LIBRARIES]


def library_case_id(case: tuple[str, str, str]) -> str:
    """``libcurand.so-10.4.5.25``: the file and its wheel's version."""
    release, wheel, stem = case
    return f"{stem}-{LIBRARY_RELEASES[release][wheel].split('==')[1]}"


def run(cmd: list[str | os.PathLike[str]], **kwargs) -> subprocess.CompletedProcess[str]:
    """A compiler run; its output is shown when it fails."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{proc.stderr[-4000:]}")
    return proc
