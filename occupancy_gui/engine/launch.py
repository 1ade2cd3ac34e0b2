"""One occupancy question, as a user asks it: a device, a kernel, a launch, a device state."""

from __future__ import annotations

from dataclasses import dataclass

from ._int import IntArray
from .occupancy import Query
from .types import DeviceProperties, DeviceState, FunctionAttributes


@dataclass(frozen=True)
class Launch:
    """The launch-time inputs: threads per block and dynamic shared memory bytes."""

    block_size: int
    dynamic_smem: int = 0


def build_query(
    device: DeviceProperties,
    func: FunctionAttributes,
    state: DeviceState,
    block_size: int | IntArray,
    dynamic_smem: int | IntArray = 0,
    **sweep: int | IntArray,
) -> Query:
    """The vectorised engine's query for one kernel; block size and dynamic smem may be arrays.

    ``sweep`` replaces any other query field by an array (``num_regs=np.arange(256)``, ...).
    """
    fields: dict[str, object] = dict(
        block_size=block_size,
        num_regs=func.num_regs,
        shared_size_bytes=func.shared_size_bytes,
        dynamic_smem=dynamic_smem,
        max_dynamic_smem=func.resolved_max_dynamic_smem(device),
        num_block_barriers=func.num_block_barriers,
        cache_config=int(state.cache_config),
        carveout=state.carveout_config,
        shmem_limit_config=int(func.shmem_limit_config),
        partitioned_gc_config=int(func.partitioned_gc_config),
        virtual_resource_count=func.virtual_resource_count,
        func_max_threads_per_block=func.max_threads_per_block,
        func_reqntid=func.reqntid,
    )
    unknown = set(sweep) - set(fields)
    if unknown:
        raise TypeError(f"unknown query fields: {sorted(unknown)}")
    fields.update(sweep)
    return Query(**fields)  # type: ignore[arg-type]  # a sweep swaps an int for an array, per field
