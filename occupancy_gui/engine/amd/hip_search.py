"""The HIP header's block-size search: ``hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags``.

Unlike ``hipOccupancyMaxPotentialBlockSize`` (one call, no search) this template in
``hip/hip_runtime_api.h`` (HIP 7.1, as the ``triton`` wheel ships it in
``backends/amd/include/hip/``) walks block sizes down from the limit in steps of the device's warp
size and keeps the first one that reaches the most resident threads:

* the limit is ``block_size_limit`` (0: none) capped by the kernel's ``maxThreadsPerBlock``
  (``hipFuncGetAttributes``: its max flat workgroup size), rounded up to the warp size;
* each candidate is ``min(limit, aligned candidate)``, its dynamic LDS ``f(candidate)``;
* blocks come from ``hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`` (the runtime rule, whose
  errors end the search);
* the walk stops early once resident threads equal ``maxThreadsPerMultiProcessor``;
* the grid is blocks × ``multiProcessorCount``, with no WGP adjustment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .hip_runtime import max_active_blocks
from .types import AmdDevice, AmdKernel


@dataclass(frozen=True)
class HipBlockSizeSearch:
    """The template's outputs: ``*block_size``, ``*min_grid_size`` (None without a CU count), and its status."""

    block_size: int
    blocks_per_multiprocessor: int
    min_grid_size: int | None
    error: str | None
    candidates: int
    """How many block sizes the loop evaluated before it ended."""


def hip_block_size_search(
    device: AmdDevice, kernel: AmdKernel, dynamic_lds: int | Callable[[int], int] = 0, block_size_limit: int = 0
) -> HipBlockSizeSearch:
    """Run the header template's loop for ``kernel`` on ``device``; ``dynamic_lds`` may depend on the block."""
    lds_of: Callable[[int], int] = dynamic_lds if callable(dynamic_lds) else (lambda _b: int(dynamic_lds))
    warp = device.warp_size
    func_max = kernel.flat_workgroup_sizes(device.target)[1]
    limit = func_max if block_size_limit == 0 else min(block_size_limit, func_max)
    limit_aligned = -(-limit // warp) * warp
    max_threads_per_cu = device.max_threads_per_multiprocessor
    best_threads = best_block = best_blocks = 0
    candidates = 0
    for aligned in range(limit_aligned, 0, -warp):
        block = min(limit, aligned)
        candidates += 1
        result = max_active_blocks(device, kernel, block, lds_of(block))
        if result.error is not None:
            return HipBlockSizeSearch(0, 0, None, result.error, candidates)
        threads = block * result.active_blocks
        if threads > best_threads:
            best_threads, best_block, best_blocks = threads, block, result.active_blocks
        if max_threads_per_cu == best_threads:
            break
    cus = device.multiprocessor_count
    return HipBlockSizeSearch(best_block, best_blocks, None if cus is None else best_blocks * cus, None, candidates)
