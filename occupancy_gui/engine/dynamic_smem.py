"""``cudaOccAvailableDynamicSMemPerBlock``, and the exact answer where the header's differs.

The header divides the SM's shared memory by the number of blocks and subtracts static and reserved
bytes.  It does not account for every rule the occupancy query applies (the reserved bytes counted
twice, the carveout growing to the next size, the register and warp limits), so its figure can fail
to yield N blocks — or leave bytes unused.  ``exact_dynamic_smem_for_blocks`` searches every
allocation step and returns the largest value that really keeps N blocks resident.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import architecture as arch
from ._int import as_int_array
from .domain import check_domain, domain_inputs
from .errors import OccupancyError
from .launch import Launch, build_query
from .occupancy import max_active_blocks
from .shared_memory import align_up_shmem_size, smem_per_block_limit, smem_per_multiprocessor
from .types import DeviceProperties, DeviceState, FunctionAttributes, OccError

SIZE_T = 1 << 64
"""The header computes in ``size_t``; a subtraction below zero wraps, and we reproduce that."""


def _scalar(value: object) -> int:
    return int(as_int_array(value).reshape(-1)[0])


def available_dynamic_smem_per_block(
    device: DeviceProperties,
    func: FunctionAttributes,
    num_blocks: int,
    block_size: int,
    state: DeviceState | None = None,
) -> int:
    """The header's answer, bit for bit (a ``size_t``, so a wrapped subtraction shows as a huge value)."""
    state = state or DeviceState()
    if num_blocks <= 0:
        raise OccupancyError(OccError.INVALID_INPUT, f"number of blocks must be at least 1 (got {num_blocks})")
    result = max_active_blocks(device, build_query(device, func, state, block_size, 0))
    status = _scalar(result.status)
    if status != OccError.SUCCESS:
        raise OccupancyError(OccError(status), "the occupancy query at zero dynamic shared memory failed")
    if _scalar(result.active_blocks) < num_blocks:
        raise OccupancyError(
            OccError.INVALID_INPUT,
            f"{num_blocks} blocks per SM are out of reach at block size {block_size} "
            f"(at most {_scalar(result.active_blocks)} even without dynamic shared memory)",
        )
    cc = device.compute_capability
    granularity = arch.smem_allocation_granularity(cc)
    config = as_int_array(int(func.shmem_limit_config))
    limit_per_block = _scalar(smem_per_block_limit(device, config, as_int_array(device.shared_mem_per_multiprocessor)))
    preferences, _ = smem_per_multiprocessor(
        device, as_int_array(int(state.cache_config)), as_int_array(state.carveout_config)
    )
    preference = _scalar(preferences)
    if num_blocks == 1:
        sm_smem = limit_per_block
    else:
        if preference == 0:
            if not arch.supports_carveout(cc):
                raise OccupancyError(OccError.UNKNOWN_DEVICE, "no shared memory preference on this architecture")
            preference = _scalar(align_up_shmem_size(device, as_int_array(1))[0])
        sm_smem = preference
    available = (sm_smem // num_blocks) // granularity * granularity
    available = min(available, limit_per_block)
    available = (available - func.shared_size_bytes) % SIZE_T
    if arch.reserves_shared_memory(cc):
        available = (available - device.reserved_shared_mem_per_block) % SIZE_T
    return min(available, func.resolved_max_dynamic_smem(device))


@dataclass(frozen=True)
class DynamicSmemHeadroom:
    """Both answers to "how much dynamic shared memory still allows N blocks per SM?"."""

    num_blocks: int
    reference: int | None
    """The header's ``cudaOccAvailableDynamicSMemPerBlock``; ``None`` where it returns an error."""
    exact: int | None
    """The largest value that really yields at least N resident blocks; ``None`` if none does."""

    @property
    def differs(self) -> bool:
        return self.reference != self.exact


def exact_dynamic_smem_for_blocks(
    device: DeviceProperties,
    func: FunctionAttributes,
    num_blocks: int,
    block_size: int,
    state: DeviceState | None = None,
) -> int | None:
    """The largest dynamic shared memory with at least ``num_blocks`` resident blocks, searched exactly.

    Only the allocation matters, so the candidates are the top byte of each allocation step (and the
    kernel's max-dynamic attribute); one vectorised query evaluates them all.
    """
    state = state or DeviceState()
    cc = device.compute_capability
    granularity = arch.smem_allocation_granularity(cc)
    base = func.shared_size_bytes + device.reserved_shared_mem_per_block
    ceiling = (
        max(device.shared_mem_per_block_optin, device.shared_mem_per_multiprocessor)
        + device.reserved_shared_mem_per_block
    )
    steps = np.arange(1, ceiling // granularity + 2, dtype=np.int64) * granularity - base
    candidates = np.unique(np.concatenate([steps[steps >= 0], [0, func.resolved_max_dynamic_smem(device)]]))
    result = max_active_blocks(device, build_query(device, func, state, block_size, candidates))
    ok = (result.status == OccError.SUCCESS) & (result.active_blocks >= num_blocks)
    return int(candidates[ok].max()) if ok.any() else None


def dynamic_smem_headroom(
    device: DeviceProperties,
    func: FunctionAttributes,
    num_blocks: int,
    block_size: int,
    state: DeviceState | None = None,
) -> DynamicSmemHeadroom:
    """The header's figure and the exact one, side by side."""
    check_domain(
        domain_inputs(func, state or DeviceState(), Launch(block_size, 0)), bounds_only=True
    )  # absurd figures: refused
    try:
        reference: int | None = available_dynamic_smem_per_block(device, func, num_blocks, block_size, state)
    except OccupancyError:
        reference = None
    exact = exact_dynamic_smem_for_blocks(device, func, num_blocks, block_size, state)
    return DynamicSmemHeadroom(num_blocks, reference, exact)
