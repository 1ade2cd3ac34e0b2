"""The warp-slot limit: ``cudaOccMaxBlocksPerSMWarpsLimit``, and the largest block that can launch.

A block occupies whole warps (a partial warp still takes a warp slot); a block larger than the
device's ``maxThreadsPerBlock`` cannot launch at all, nor one larger than the kernel's own bound
(``cudaOccFuncAttributes.maxThreadsPerBlock``: ``__launch_bounds__``, ``.maxntid``), nor, for a kernel
with a required block size (PTX ``.reqntid``), a block of any other size.  ``launchable`` is the one
rule that decides it; every answer (calc, batch, curves, heat maps, advisor) goes through it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._int import IntArray, divide_round_up
from .types import DeviceProperties

BoolArray = npt.NDArray[np.bool_]


def max_block_size(device: DeviceProperties, func_max_threads_per_block: IntArray | int) -> IntArray:
    """``maxBlockSize`` of ``cudaOccMaxPotentialOccupancyBlockSize``: ``min(device, kernel)`` threads.

    The header limits its block-size search to this; the same bound decides whether a launch can
    happen at all (the runtime refuses a block above the kernel's ``maxThreadsPerBlock``), although
    ``cudaOccMaxActiveBlocksPerMultiprocessor`` itself checks only the device's bound.
    """
    return np.minimum(device.max_threads_per_block, np.asarray(func_max_threads_per_block, dtype=np.int64))


def reqntid_allows(block_size: IntArray | int, func_reqntid: IntArray | int) -> BoolArray:
    """Whether PTX ``.reqntid`` (the kernel's *required* number of threads per block) allows ``block_size``.

    ``.reqntid nx, ny, nz`` (cubin ``EIATTR_REQNTID``) tells the compiler the block will be exactly
    ``nx·ny·nz`` threads, and a launch with any other block size fails.  ``cuda_occupancy.h`` has no
    such attribute: the closest header behaviour is ``cudaOccMaxPotentialOccupancyBlockSize`` with
    ``maxThreadsPerBlock = reqntid``, which would still suggest a smaller size; here only the
    required size launches.  A ``func_reqntid`` of 0 (or less) means the kernel has none.
    """
    if type(block_size) is int and type(func_reqntid) is int:  # one launch (a reason's words): 0.3 µs, not 2
        one: BoolArray = np.asarray(func_reqntid <= 0 or block_size == func_reqntid)
        return one
    req = np.asarray(func_reqntid, dtype=np.int64)
    allowed: BoolArray = (req <= 0) | (np.asarray(block_size, dtype=np.int64) == req)
    return allowed


def launchable(
    device: DeviceProperties,
    block_size: IntArray | int,
    func_max_threads_per_block: IntArray | int,
    func_reqntid: IntArray | int = 0,
) -> BoolArray:
    """Whether a block of ``block_size`` threads can launch at all: within ``maxBlockSize`` and ``.reqntid``."""
    within: BoolArray = np.asarray(block_size, dtype=np.int64) <= max_block_size(device, func_max_threads_per_block)
    return within & reqntid_allows(block_size, func_reqntid)


def warps_per_block(device: DeviceProperties, block_size: IntArray) -> IntArray:
    """Warps one block occupies: ``ceil(blockSize / warpSize)``."""
    return divide_round_up(block_size, device.warp_size)


def max_blocks_per_sm_warps_limit(device: DeviceProperties, block_size: IntArray, gc_on: IntArray) -> IntArray:
    """Blocks allowed by warp slots; with partitioned caching a block stays in one half SM."""
    max_warps = device.max_threads_per_multiprocessor // device.warp_size
    warps = np.maximum(warps_per_block(device, block_size), 1)
    spread = max_warps // warps
    partitioned = ((max_warps // 2) // warps) * 2
    limit = np.where(gc_on, partitioned, spread)
    return np.where(block_size > device.max_threads_per_block, 0, limit)
