"""The calculator's inputs that a kernel record sets: its resources and, where it knows it, its launch.

One function for the window (selecting a kernel row) and the tests: a record that carries its launch
(a Triton kernel's ``NAME.json``, an Nsight Compute row) sets the block size and dynamic shared memory
too, and the shared-memory attributes its launcher sets, so the occupancy needs nothing typed.

Triton's launcher (``backends/nvidia/driver.c``), for ``shared`` above 48 KiB on a device whose opt-in
limit is higher, calls ``cuFuncSetCacheConfig(PREFER_SHARED)`` and sets
``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` to the opt-in limit minus the static shared memory.
(Triton 3.9 first tries CUDA 13's oversized-shared-memory mode, which ``cuda_occupancy.h`` does not
model; the legacy path is what the occupancy API can answer for.)
"""

from __future__ import annotations

from typing import Any

from .engine import CacheConfig, DeviceProperties
from .importers.records import KernelRecord

DEFAULT_DYNAMIC_LIMIT = 48 << 10
"""Dynamic shared memory a kernel may use without the opt-in attribute."""


def required_block_size(rec: KernelRecord) -> int | None:
    """The block size a record's ``.reqntid`` requires (x·y·z threads), or ``None``."""
    req = rec.req_threads
    return req[0] * max(req[1], 1) * max(req[2], 1) if req else None


def resource_changes(rec: KernelRecord) -> dict[str, Any]:
    """Registers, static shared memory, barriers (where known) and the kernel's own launch limits.

    The launch bound, the required block size and the minimum blocks per SM are set to the record's
    (``None`` where it has none), so that choosing another kernel clears the previous one's; threads
    go to the required size, else to the bound."""
    changes: dict[str, Any] = {"registers": rec.registers, "static_smem": rec.static_smem or 0}
    if rec.barriers is not None:
        changes["barriers"] = rec.barriers
    required = required_block_size(rec)
    changes.update(max_threads_per_block=rec.max_threads or None, required_block_size=required,
                   min_blocks_per_sm=rec.min_blocks or None)  # fmt: skip
    threads = required or rec.max_threads
    if threads:
        changes["threads"] = threads
    return changes


def launch_changes(rec: KernelRecord, device: DeviceProperties) -> dict[str, Any]:
    """The launch a record carries, as session inputs for ``device``; empty when it carries none."""
    if rec.block_size is None:
        return {}
    dynamic = rec.dynamic_smem or 0
    changes: dict[str, Any] = {"threads": rec.block_size, "dynamic_smem": dynamic,
                               "max_dynamic_smem": None, "cache_config": CacheConfig.PREFER_NONE}
    if dynamic > DEFAULT_DYNAMIC_LIMIT and device.shared_mem_per_block_optin > DEFAULT_DYNAMIC_LIMIT:
        changes["max_dynamic_smem"] = device.shared_mem_per_block_optin - rec.static_smem
        changes["cache_config"] = CacheConfig.PREFER_SHARED
    return changes


def record_inputs(rec: KernelRecord, device: DeviceProperties) -> dict[str, Any]:
    """Every input a record sets on ``device``: resources, then its launch (which wins on threads)."""
    return {**resource_changes(rec), **launch_changes(rec, device)}
