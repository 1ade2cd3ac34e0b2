"""The figures of a device that the model derives or takes from its architecture tables, as a list.

A device profile states the ``cudaOccDeviceProp`` limits (each with its source); the rest of what the
occupancy model uses — block slots, allocation units, register sub-partitions, the shared memory
configurations, block barriers — comes from ``architecture``'s tables.  The GPU data view shows both
side by side for every profile, as Nsight Compute's "GPU Data" tab and the spreadsheet's physical-limits
table do.  Each fact names the rule it comes from, and the list is plain data (label, unit, value), so
another vendor's model can list its own facts for the same view.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import architecture as arch
from .barriers import barriers_available_per_sm
from .errors import OccupancyError
from .types import DeviceProperties

Value = int | tuple[int, ...] | None


@dataclass(frozen=True)
class DeviceFact:
    """One figure of a device that is not a profile field: what it is, in what unit, and from which rule."""

    key: str
    label: str
    unit: str
    """Singular unit (``"byte"``, ``"register"``, ``"warp"``); ``""`` for a plain number."""
    value: Value
    """An integer, a list of sizes (``shared memory configurations``), or ``None`` where it does not apply."""
    source: str


@dataclass(frozen=True)
class FactSpec:
    """A column of the facts table: its key, label, unit and the rule named as its source."""

    key: str
    label: str
    unit: str
    source: str


FACT_SPECS: tuple[FactSpec, ...] = (
    FactSpec(
        "max_warps_per_multiprocessor",
        "Max warps per SM",
        "warp",
        "maxThreadsPerMultiProcessor / warpSize (cudaOccMaxBlocksPerSMWarpsLimit)",
    ),
    FactSpec("max_blocks_per_multiprocessor", "Block slots per SM", "block", "cudaOccMaxBlocksPerMultiprocessor"),
    FactSpec(
        "reg_allocation_granularity",
        "Register allocation unit (per warp)",
        "register",
        "cudaOccRegAllocationGranularity",
    ),
    FactSpec(
        "reg_allocation_max_per_thread", "Max registers per thread", "register", "cudaOccRegAllocationMaxPerThread"
    ),
    FactSpec(
        "sub_partitions_per_multiprocessor", "Register file sub-partitions", "", "cudaOccSubPartitionsPerMultiprocessor"
    ),
    FactSpec(
        "smem_allocation_granularity", "Shared memory allocation unit", "byte", "cudaOccSMemAllocationGranularity"
    ),
    FactSpec(
        "shared_memory_configs",
        "Shared memory configurations (carveout sizes)",
        "byte",
        "cudaOccAlignUpShmemSizeVoltaPlus",
    ),
    FactSpec(
        "block_barriers_per_multiprocessor",
        "Block barriers per SM",
        "barrier",
        "cudaOccMaxBlocksPerSMBlockBarrierLimit (counted from CC 9.0)",
    ),
    FactSpec(
        "virtual_resources_per_multiprocessor",
        "Virtual resources per SM",
        "resource",
        "cudaOccMaxVirtualResourceCountPerSM",
    ),
)
"""The facts every device has, in the order shown."""


def _values(device: DeviceProperties) -> dict[str, Value]:
    cc = device.compute_capability
    return {
        "max_warps_per_multiprocessor": device.max_warps_per_multiprocessor,
        "max_blocks_per_multiprocessor": arch.max_blocks_per_multiprocessor(cc),
        "reg_allocation_granularity": arch.reg_allocation_granularity(cc),
        "reg_allocation_max_per_thread": arch.reg_allocation_max_per_thread(cc),
        "sub_partitions_per_multiprocessor": arch.sub_partitions_per_multiprocessor(cc),
        "smem_allocation_granularity": arch.smem_allocation_granularity(cc),
        "shared_memory_configs": arch.shared_memory_configs(cc) if arch.supports_carveout(cc) else None,
        "block_barriers_per_multiprocessor": barriers_available_per_sm(device)
        if arch.applies_barrier_limit(cc)
        else None,
        "virtual_resources_per_multiprocessor": arch.max_virtual_resource_count_per_sm(cc) or None,
    }


def device_facts(device: DeviceProperties) -> tuple[DeviceFact, ...]:
    """The facts of :data:`FACT_SPECS` for ``device``; every value ``None`` for an architecture the model
    does not know (the profile's own limits still show)."""
    try:
        values = _values(device)
    except OccupancyError:
        values = {}
    return tuple(DeviceFact(s.key, s.label, s.unit, values.get(s.key), s.source) for s in FACT_SPECS)
