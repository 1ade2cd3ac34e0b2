"""The textbook first-pass estimate, shown beside the exact answer and never instead of it.

Each ceiling divides the SM's resource by the block's nominal need — ``T·R`` registers and ``S``
bytes — with no allocation rounding, no sub-partitions and no carveout.  Where it disagrees with the
exact engine, allocation granularity is what moved the boundary.
"""

from __future__ import annotations

import numpy as np

from . import architecture as arch
from ._int import IntArray, as_int_array
from .barriers import max_blocks_per_sm_block_barrier_limit, max_blocks_per_sm_virtual_resource
from .types import INT_MAX, DeviceProperties, FirstPassEstimate, Limit


def first_pass_limits(
    device: DeviceProperties,
    block_size: IntArray,
    num_regs: IntArray,
    shared_bytes: IntArray,
    num_barriers: IntArray,
    virtual_resources: IntArray,
) -> tuple[dict[Limit, IntArray], IntArray]:
    """Each estimated ceiling (``INT_MAX`` where the block needs none of it) and their minimum, per query.

    min(B_max, ⌊T_SM/T⌋, ⌊W_SM/W_B⌋, ⌊R_SM/(T·R)⌋, ⌊S_SM/S⌋, barriers, virtual resources).
    """
    cc = device.compute_capability
    warps = -(-block_size // device.warp_size)
    regs = block_size * num_regs
    limits = {
        Limit.BLOCKS: np.full_like(block_size, arch.max_blocks_per_multiprocessor(cc)),
        Limit.WARPS: np.minimum(
            device.max_threads_per_multiprocessor // block_size, device.max_warps_per_multiprocessor // warps
        ),
        Limit.REGISTERS: np.where(regs > 0, device.regs_per_multiprocessor // np.maximum(regs, 1), INT_MAX),
        Limit.SHARED_MEMORY: np.where(
            shared_bytes > 0, device.shared_mem_per_multiprocessor // np.maximum(shared_bytes, 1), INT_MAX
        ),
        Limit.BARRIERS: max_blocks_per_sm_block_barrier_limit(device, num_barriers),
        Limit.VIRTUAL_RESOURCES: max_blocks_per_sm_virtual_resource(device, virtual_resources),
    }
    active = limits[Limit.BLOCKS]
    for ceiling in limits.values():
        active = np.minimum(active, ceiling)
    return limits, active


def first_pass_estimate(
    device: DeviceProperties,
    block_size: int,
    num_regs: int,
    shared_bytes: int,
    num_barriers: int,
    virtual_resources: int,
) -> FirstPassEstimate:
    """The estimate of one launch, ceilings that need nothing omitted (``None``)."""
    arrays, active_array = first_pass_limits(
        device, *(as_int_array(v) for v in (block_size, num_regs, shared_bytes, num_barriers, virtual_resources))
    )
    limits = {limit: _finite(int(value)) for limit, value in arrays.items()}
    active = int(active_array)
    warps = -(-block_size // device.warp_size)
    return FirstPassEstimate(
        active_blocks=active,
        active_warps=active * warps,
        occupancy=active * warps / device.max_warps_per_multiprocessor,
        limits=limits,
    )


def _finite(value: int) -> int | None:
    return None if value >= INT_MAX else value
