"""The scalar engine: one question in, one self-explaining ``OccupancyResult`` out.

It runs the vectorised model on a single query, turns the header's status into ``OccupancyError``
and adds what a reader needs beside the numbers: the constraint rows, the reasons when nothing fits
and the first-pass estimate.
"""

from __future__ import annotations

from . import architecture as arch
from .columns import occupancy_columns
from .domain import check_domain, domain_inputs
from .errors import OccupancyError
from .estimate import first_pass_estimate
from .launch import Launch, build_query
from .occupancy import ResultArrays
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
    check_domain(domain_inputs(func, state, launch))
    arch.max_blocks_per_multiprocessor(device.compute_capability)  # unknown major -> UNKNOWN_DEVICE


def status_error(device: DeviceProperties, status: int, sm_smem_request: int) -> OccupancyError:
    """The words for a status the header returned instead of a result."""
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
    columns = occupancy_columns(device, build_query(device, func, state, launch.block_size, launch.dynamic_smem))
    arrays = columns.arrays
    status = _scalar(arrays, "status")
    if status != OccError.SUCCESS:
        raise status_error(device, status, device.shared_mem_per_multiprocessor)
    limits = {
        limit: (None if value >= INT_MAX else value)
        for limit in Limit
        for value in [int(columns.limits[limit].reshape(-1)[0])]
    }
    active = int(columns.active_blocks.reshape(-1)[0])
    warps = -(-launch.block_size // device.warp_size)
    estimate = first_pass_estimate(
        device,
        launch.block_size,
        func.num_regs,
        func.shared_size_bytes + launch.dynamic_smem,
        func.num_block_barriers,
        func.virtual_resource_count,
    )
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
