"""Build and drive the C++ harness that answers queries with NVIDIA's ``cuda_occupancy.h``.

The header comes from the pinned ``nvidia-cuda-runtime`` wheel (a test extra); it is never copied
into this repository.  The compiled harness is cached under ``tests/harness/_build`` keyed by the
header's and the harness source's hashes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from occupancy_gui.engine.types import DeviceProperties

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "occ_harness.cpp"
BUILD_DIR = HERE / "_build"
PINNED_RUNTIME = "13.5.37"

DEVICE_FIELDS = (
    "compute_major",
    "compute_minor",
    "max_threads_per_block",
    "max_threads_per_multiprocessor",
    "regs_per_block",
    "regs_per_multiprocessor",
    "warp_size",
    "shared_mem_per_block",
    "shared_mem_per_multiprocessor",
    "num_sms",
    "shared_mem_per_block_optin",
    "reserved_shared_mem_per_block",
)
KERNEL_FIELDS = (
    "num_regs",
    "shared_size_bytes",
    "func_max_threads_per_block",
    "partitioned_gc_config",
    "shmem_limit_config",
    "max_dynamic_smem",
    "num_block_barriers",
    "virtual_resource_count",
    "cache_config",
    "carveout",
)
RESULT_FIELDS = (
    "status",
    "active_blocks",
    "limiting_factors",
    "block_limit_regs",
    "block_limit_shared_mem",
    "block_limit_warps",
    "block_limit_blocks",
    "block_limit_barriers",
    "block_limit_virtual",
    "allocated_registers_per_block",
    "allocated_shared_mem_per_block",
    "partitioned_gc_config",
)


class HarnessUnavailable(RuntimeError):
    """The reference header or a C++ compiler is missing: the differential tests cannot run."""


def find_header() -> Path:
    """Locate ``cuda_occupancy.h`` inside the installed nvidia-cuda-runtime wheel."""
    spec = importlib.util.find_spec("nvidia")
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        for candidate in sorted(Path(root).glob("cu*/include/cuda_occupancy.h")):
            return candidate
    raise HarnessUnavailable(
        f"cuda_occupancy.h not found: install the test extras (nvidia-cuda-runtime=={PINNED_RUNTIME})"
    )


def header_version(header: Path) -> str:
    """The ``__CUDA_OCC_MAJOR__.__CUDA_OCC_MINOR__`` the header declares."""
    text = header.read_text(errors="replace")
    major = re.search(r"#define __CUDA_OCC_MAJOR__ (\d+)", text)
    minor = re.search(r"#define __CUDA_OCC_MINOR__ (\d+)", text)
    return f"{major.group(1) if major else '?'}.{minor.group(1) if minor else '?'}"


def build_harness() -> Path:
    """Compile the harness against the wheel's header (cached); return the executable's path."""
    header = find_header()
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if not compiler:
        raise HarnessUnavailable("no C++ compiler found (install g++)")
    digest = hashlib.sha256(header.read_bytes() + SOURCE.read_bytes()).hexdigest()[:16]
    exe = BUILD_DIR / f"occ_harness-{digest}"
    if exe.exists():
        return exe
    BUILD_DIR.mkdir(exist_ok=True)
    tmp = exe.with_suffix(".tmp")
    cmd = [compiler, "-O2", "-std=c++17", "-I", str(header.parent), str(SOURCE), "-o", str(tmp)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise HarnessUnavailable(f"harness failed to compile: {' '.join(cmd)}\n{proc.stderr}")
    tmp.replace(exe)
    return exe


@dataclass
class Reference:
    """A compiled harness; each call answers a whole array of queries for one device."""

    exe: Path
    last_loop_ns: int = 0

    @classmethod
    def build(cls) -> Reference:
        return cls(build_harness())

    def _run(self, mode: str, device: DeviceProperties, queries: np.ndarray, width: int) -> np.ndarray:
        with tempfile.TemporaryDirectory() as tmp:
            dev, qf, out = (Path(tmp) / n for n in ("device", "queries", "out"))
            np.array([getattr(device, f) for f in DEVICE_FIELDS], dtype="<i8").tofile(dev)
            np.ascontiguousarray(queries, dtype="<i8").tofile(qf)
            proc = subprocess.run([str(self.exe), mode, str(dev), str(qf), str(out)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"harness {mode} failed: {proc.stderr}")
            match = re.search(r"loop_ns (\d+)", proc.stderr)
            self.last_loop_ns = int(match.group(1)) if match else 0
            return np.fromfile(out, dtype="<i8").reshape(-1, width)

    def occupancy(
        self, device: DeviceProperties, kernel: np.ndarray, block_size: np.ndarray, dynamic_smem: np.ndarray
    ) -> dict[str, np.ndarray]:
        """``cudaOccMaxActiveBlocksPerMultiprocessor`` per row; ``kernel`` is (n, 10) in KERNEL_FIELDS order."""
        q = np.column_stack([kernel, block_size, dynamic_smem])
        out = self._run("occ", device, q, len(RESULT_FIELDS))
        return {name: out[:, i] for i, name in enumerate(RESULT_FIELDS)}

    def potential_block_size(self, device: DeviceProperties, kernel: np.ndarray, smem_terms: np.ndarray) -> np.ndarray:
        """(status, minGridSize, blockSize) per row; ``smem_terms`` is (n, 3): const, per thread, per warp."""
        return self._run("potential", device, np.column_stack([kernel, smem_terms]), 3)

    def available_dynamic_smem(
        self, device: DeviceProperties, kernel: np.ndarray, num_blocks: np.ndarray, block_size: np.ndarray
    ) -> np.ndarray:
        """(status, bytes) per row; bytes is the header's size_t reinterpreted as int64."""
        return self._run("avail", device, np.column_stack([kernel, num_blocks, block_size]), 2)
