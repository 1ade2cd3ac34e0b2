"""The textbook first-pass estimate, shown beside the exact answer and never instead of it.

Each ceiling divides the SM's resource by the block's nominal need — ``T·R`` registers and ``S``
bytes — with no allocation rounding, no sub-partitions and no carveout.  Where it disagrees with the
exact engine, allocation granularity is what moved the boundary.
"""

from __future__ import annotations

from . import architecture as arch
from ._int import as_int_array
from .barriers import max_blocks_per_sm_block_barrier_limit, max_blocks_per_sm_virtual_resource
from .types import INT_MAX, DeviceProperties, FirstPassEstimate, Limit


def first_pass_estimate(
    device: DeviceProperties,
    block_size: int,
    num_regs: int,
    shared_bytes: int,
    num_barriers: int,
    virtual_resources: int,
) -> FirstPassEstimate:
    """min(B_max, ⌊T_SM/T⌋, ⌊W_SM/W_B⌋, ⌊R_SM/(T·R)⌋, ⌊S_SM/S⌋), omitting ceilings that need nothing."""
    cc = device.compute_capability
    warps = -(-block_size // device.warp_size)
    limits: dict[Limit, int | None] = {
        Limit.BLOCKS: arch.max_blocks_per_multiprocessor(cc),
        Limit.WARPS: min(device.max_threads_per_multiprocessor // block_size, device.max_warps_per_multiprocessor // warps),
        Limit.REGISTERS: device.regs_per_multiprocessor // (block_size * num_regs) if num_regs else None,
        Limit.SHARED_MEMORY: device.shared_mem_per_multiprocessor // shared_bytes if shared_bytes else None,
        Limit.BARRIERS: _finite(int(max_blocks_per_sm_block_barrier_limit(device, as_int_array(num_barriers)))),
        Limit.VIRTUAL_RESOURCES: _finite(int(max_blocks_per_sm_virtual_resource(device, as_int_array(virtual_resources)))),
    }
    active = min(v for v in limits.values() if v is not None)
    return FirstPassEstimate(
        active_blocks=active,
        active_warps=active * warps,
        occupancy=active * warps / device.max_warps_per_multiprocessor,
        limits=limits,
    )


def _finite(value: int) -> int | None:
    return None if value >= INT_MAX else value
