"""``cudaOccMaxPotentialOccupancyBlockSize``: the block size the runtime's heuristic suggests.

The header tries block sizes from the largest allowed down in warp steps, keeps the first that
maximises resident threads, stops early once the SM is full, and suggests enough blocks to fill every
SM once.  Dynamic shared memory may be a constant or depend on the block size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .domain import check_domain, domain_inputs
from .errors import OccupancyError
from .launch import Launch, build_query
from .occupancy import max_active_blocks
from .types import DeviceProperties, DeviceState, FunctionAttributes, OccError
from .warps import launchable, max_block_size


@dataclass(frozen=True)
class DynamicSmem:
    """Dynamic shared memory as a function of block size: ``bytes + per_thread·T + per_warp·⌈T/32⌉``."""

    bytes: int = 0
    per_thread: int = 0
    per_warp: int = 0

    def __call__(self, block_size: int) -> int:
        return self.bytes + self.per_thread * block_size + self.per_warp * -(-block_size // 32)


@dataclass(frozen=True)
class BlockSizeSuggestion:
    """The header's answer, plus every block size it tried so a user sees the ties."""

    block_size: int
    min_grid_size: int
    blocks_per_sm: int
    tried: tuple[tuple[int, int], ...]
    """(block size, active blocks per SM) for each size tried, in the header's order."""


def candidate_block_sizes(device: DeviceProperties, func: FunctionAttributes) -> list[int]:
    """Block sizes in the order the header tries them: the limit, then down in warp-size steps.

    A kernel with a required block size (``.reqntid``) has one candidate, that size, where it can
    launch at all (the header, given ``maxThreadsPerBlock = reqntid``, would also try smaller ones).
    """
    limit = int(max_block_size(device, func.max_threads_per_block))
    aligned = -(-limit // device.warp_size) * device.warp_size
    sizes = [min(limit, size) for size in range(aligned, 0, -device.warp_size)]
    if func.reqntid > 0:
        sizes = [func.reqntid] if launchable(device, func.reqntid, func.max_threads_per_block, func.reqntid) else []
    return sizes


def max_potential_block_size(
    device: DeviceProperties,
    func: FunctionAttributes,
    dynamic_smem: Callable[[int], int] | int = 0,
    state: DeviceState | None = None,
) -> BlockSizeSuggestion:
    """The block size with the most resident threads per SM, and the grid that fills the GPU once."""
    state = state or DeviceState()
    if func.max_threads_per_block <= 0 or func.num_regs < 0:
        raise OccupancyError(OccError.INVALID_INPUT, "the kernel's max threads and registers must be valid")
    sizes = candidate_block_sizes(device, func)
    if not sizes:
        raise OccupancyError(
            OccError.INVALID_INPUT,
            f"the kernel's required block size (.reqntid) of {func.reqntid} threads is above "
            f"{int(max_block_size(device, func.max_threads_per_block))}: it cannot launch",
        )
    smem = [dynamic_smem(s) if callable(dynamic_smem) else dynamic_smem for s in sizes]
    for size, dynamic in zip(sizes, smem):  # Python ints: an absurd figure is refused, never overflowed
        check_domain(domain_inputs(func, state, Launch(size, dynamic)), bounds_only=True)
    result = max_active_blocks(device, build_query(device, func, state, np.asarray(sizes), np.asarray(smem)))
    best_size = best_blocks = best_threads = 0
    tried = []
    for i, size in enumerate(sizes):
        if result.status[i] != OccError.SUCCESS:
            raise OccupancyError(OccError(int(result.status[i])), f"block size {size}: the occupancy query failed")
        blocks = int(result.active_blocks[i])
        tried.append((size, blocks))
        if size * blocks > best_threads:
            best_size, best_blocks, best_threads = size, blocks, size * blocks
        if best_threads == device.max_threads_per_multiprocessor:
            break
    return BlockSizeSuggestion(best_size, best_blocks * device.num_sms, best_blocks, tuple(tried))
