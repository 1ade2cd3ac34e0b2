"""The scalar engine's answer for many launches on one device at once, as columns.

``compute_occupancy`` reads its figures from here for a single launch, and ``occupancy batch`` for a
whole chunk of queries, so both report the same limits (``INT_MAX`` where one does not apply), the
same binding set and the same first-pass estimate.  Which inputs are refused is ``domain``'s matter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import architecture as arch
from ._int import IntArray
from .estimate import first_pass_limits
from .occupancy import Query, ResultArrays, max_active_blocks
from .types import INT_MAX, LIMIT_FLAGS, DeviceProperties, Limit
from .warps import warps_per_block


@dataclass(frozen=True)
class OccupancyColumns:
    """Per query: the header's status and result, each limit's ceiling, the binding flags, the estimate."""

    arrays: ResultArrays
    active_blocks: IntArray
    """Blocks that reside: the header's answer, or 0 where the block cannot launch (``warps.launchable``)."""
    limits: dict[Limit, IntArray]
    """Blocks allowed by each limit; ``INT_MAX`` where the limit does not apply."""
    binding: IntArray
    """``LIMIT_FLAGS`` bits of every limit whose ceiling equals the result (ties all set)."""
    warps_per_block: IntArray
    active_warps: IntArray
    active_threads: IntArray
    estimate_limits: dict[Limit, IntArray]
    estimate_active_blocks: IntArray


def binding_flags(limits: dict[Limit, IntArray], active: IntArray) -> IntArray:
    """A limit binds where its ceiling equals the answer; several may tie."""
    flags = np.zeros_like(active)
    for limit, bit in LIMIT_FLAGS.items():
        flags = flags | np.where(limits[limit] == active, bit, 0)
    return flags


def occupancy_columns(device: DeviceProperties, q: Query) -> OccupancyColumns:
    """Every figure of ``OccupancyResult`` that is a number, for each query of ``q`` (flattened)."""
    arrays = max_active_blocks(device, q)
    shape = arrays.status.shape
    limits = {limit: np.broadcast_to(arrays.limit(limit), shape) for limit in Limit}
    # The header reports a barrier ceiling even where it does not count barriers; the engine does not.
    if not arch.applies_barrier_limit(device.compute_capability):
        limits[Limit.BARRIERS] = np.full(shape, INT_MAX, dtype=np.int64)
    else:
        limits[Limit.BARRIERS] = np.where(q.num_block_barriers <= 0, INT_MAX, limits[Limit.BARRIERS])
    # Above the kernel's own bound (maxThreadsPerBlock), or off its required size (.reqntid), the launch
    # fails: no block resides, and the warps row says why.  One rule for calc and batch (``warps.launchable``).
    launchable = np.broadcast_to(arrays.launchable, shape) != 0
    active = np.where(launchable, arrays.active_blocks, 0)
    limits[Limit.WARPS] = np.where(launchable, limits[Limit.WARPS], 0)
    block_size = np.broadcast_to(q.block_size, shape)
    warps = warps_per_block(device, block_size)
    estimate_limits, estimate_active = first_pass_limits(
        device,
        block_size,
        np.broadcast_to(q.num_regs, shape),
        np.broadcast_to(q.shared_size_bytes + q.dynamic_smem, shape),
        np.broadcast_to(q.num_block_barriers, shape),
        np.broadcast_to(q.virtual_resource_count, shape),
    )
    return OccupancyColumns(
        arrays=arrays,
        active_blocks=active,
        limits=limits,
        binding=binding_flags(limits, active),
        warps_per_block=warps,
        active_warps=active * warps,
        active_threads=active * block_size,
        estimate_limits=estimate_limits,
        estimate_active_blocks=estimate_active,
    )
