"""The scalar engine: one question in, one self-explaining ``OccupancyResult`` out.

It runs the vectorised model on a single query, turns the header's status into ``OccupancyError``
and adds what a reader needs beside the numbers: the constraint rows, the reasons when nothing fits
and the first-pass estimate.
"""

from __future__ import annotations

from . import architecture as arch
from .errors import OccupancyError
from .estimate import first_pass_estimate
from .launch import Launch, build_query
from .occupancy import MAX_BLOCK_SIZE, MAX_REGISTERS, MAX_SHARED_BYTES, ResultArrays, max_active_blocks
from .rows import constraint_rows, zero_block_reasons
from .types import (
    INT_MAX,
    DeviceProperties,
    DeviceState,
    FunctionAttributes,
    Limit,
    OccError,
    OccupancyResult,
    PartitionedGCConfig,
)


def _check_domain(device: DeviceProperties, func: FunctionAttributes, state: DeviceState, launch: Launch) -> None:
    """Refuse inputs the header itself refuses, and those that would overflow its 32-bit arithmetic."""
    checks = (
        (launch.block_size <= 0, f"threads per block must be at least 1 (got {launch.block_size})"),
        (launch.block_size > MAX_BLOCK_SIZE, f"threads per block {launch.block_size} is beyond {MAX_BLOCK_SIZE}"),
        (func.num_regs < 0, f"registers per thread must be 0 or more (got {func.num_regs})"),
        (func.num_regs > MAX_REGISTERS, f"registers per thread {func.num_regs} is beyond {MAX_REGISTERS}"),
        (func.shared_size_bytes < 0, f"static shared memory must be 0 or more (got {func.shared_size_bytes})"),
        (launch.dynamic_smem < 0, f"dynamic shared memory must be 0 or more (got {launch.dynamic_smem})"),
        (func.shared_size_bytes + launch.dynamic_smem > MAX_SHARED_BYTES,
         f"shared memory per block {func.shared_size_bytes + launch.dynamic_smem} B is beyond {MAX_SHARED_BYTES} B"),
        (func.num_block_barriers < 0, f"block barriers must be 0 or more (got {func.num_block_barriers})"),
        (func.virtual_resource_count < 0, f"virtual resources must be 0 or more (got {func.virtual_resource_count})"),
        (func.max_threads_per_block <= 0,
         f"the kernel's max threads per block must be at least 1 (got {func.max_threads_per_block})"),
        (not -1 <= state.carveout_config <= 100,
         f"carveout must be -1 (default) or a percentage 0..100 (got {state.carveout_config})"),
        ((func.max_dynamic_shared_size_bytes or 0) < 0,
         f"max dynamic shared memory must be 0 or more (got {func.max_dynamic_shared_size_bytes})"),
    )  # fmt: skip
    for failed, message in checks:
        if failed:
            raise OccupancyError(OccError.INVALID_INPUT, message)
    arch.max_blocks_per_multiprocessor(device.compute_capability)  # unknown major -> UNKNOWN_DEVICE


def _status_error(device: DeviceProperties, status: int, sm_smem_request: int) -> OccupancyError:
    cc = f"{device.compute_major}.{device.compute_minor}"
    if status == OccError.UNKNOWN_DEVICE:
        return OccupancyError(OccError.UNKNOWN_DEVICE, f"compute capability {cc} is unknown to the occupancy model")
    if status == OccError.INVALID_INPUT and device.num_sms <= 0:
        return OccupancyError(OccError.INVALID_INPUT, "device properties must all be positive")
    largest = max(arch.shared_memory_configs(device.compute_capability), default=0)
    return OccupancyError(
        OccError.INVALID_INPUT,
        f"shared memory per SM {sm_smem_request} B is beyond the largest configuration of CC {cc} ({largest} B)",
    )


def _scalar(arrays: ResultArrays, name: str) -> int:
    return int(getattr(arrays, name).reshape(-1)[0])


def compute_occupancy(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    state: DeviceState | None = None,
) -> OccupancyResult:
    """``cudaOccMaxActiveBlocksPerMultiprocessor`` for one launch, explained.

    Raises ``OccupancyError`` where the header would return an error status.
    """
    state = state or DeviceState()
    _check_domain(device, func, state, launch)
    arrays = max_active_blocks(device, build_query(device, func, state, launch.block_size, launch.dynamic_smem))
    status = _scalar(arrays, "status")
    if status != OccError.SUCCESS:
        raise _status_error(device, status, device.shared_mem_per_multiprocessor)
    limits = {
        limit: (None if value >= INT_MAX else value)
        for limit in Limit
        for value in [int(arrays.limit(limit).reshape(-1)[0])]
    }
    if not arch.applies_barrier_limit(device.compute_capability) or func.num_block_barriers <= 0:
        limits[Limit.BARRIERS] = None
    active = _scalar(arrays, "active_blocks")
    warps = -(-launch.block_size // device.warp_size)
    estimate = first_pass_estimate(
        device, launch.block_size, func.num_regs, func.shared_size_bytes + launch.dynamic_smem,
        func.num_block_barriers, func.virtual_resource_count,
    )  # fmt: skip
    allocated_smem = _scalar(arrays, "allocated_shared_mem_per_block")
    sm_smem = _scalar(arrays, "shared_mem_per_multiprocessor")
    rows = constraint_rows(device, func, launch, arrays, limits, estimate)
    return OccupancyResult(
        active_blocks=active,
        active_warps=active * warps,
        active_threads=active * launch.block_size,
        max_warps_per_multiprocessor=device.max_warps_per_multiprocessor,
        limits=limits,
        limiting_factors=_scalar(arrays, "limiting_factors"),
        allocated_registers_per_block=_scalar(arrays, "allocated_registers_per_block"),
        allocated_shared_memory_per_block=allocated_smem,
        partitioned_gc_config=PartitionedGCConfig(_scalar(arrays, "partitioned_gc_config")),
        reasons=zero_block_reasons(device, func, launch, limits, allocated_smem, sm_smem) if active == 0 else (),
        rows=rows,
        estimate=estimate,
        warps_per_block=warps,
        shared_mem_per_multiprocessor=sm_smem,
    )
