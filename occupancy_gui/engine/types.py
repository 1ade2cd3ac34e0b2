"""The engine's inputs and outputs, named after the structures of ``cuda_occupancy.h``.

Inputs mirror ``cudaOccDeviceProp``, ``cudaOccFuncAttributes`` and ``cudaOccDeviceState`` field for
field, so that a reader can hold this file next to NVIDIA's header and see the same model.  Sizes are
in bytes, counts are plain integers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

INT_MAX = 2**31 - 1
"""The header's ``INT_MAX``: "this limit does not apply" in ``cudaOccResult``."""


class PartitionedGCConfig(enum.IntEnum):
    """``cudaOccPartitionedGCConfig``: partitioned global caching (sm_52, sm_53, sm_6x except 6.0)."""

    OFF = 0
    ON = 1
    ON_STRICT = 2


class FuncShmemConfig(enum.IntEnum):
    """``cudaOccFuncShmemConfig``: whether a kernel may use the opt-in per-block shared memory limit."""

    DEFAULT = 0
    OPTIN = 1


class CacheConfig(enum.IntEnum):
    """``cudaOccCacheConfig``: the pre-Volta L1 / shared memory split preference."""

    PREFER_NONE = 0
    PREFER_SHARED = 1
    PREFER_L1 = 2
    PREFER_EQUAL = 3


CARVEOUT_DEFAULT = -1
"""``SHAREDMEM_CARVEOUT_DEFAULT``: no carveout preference; 0..100 is a percentage of shared memory."""


class Limit(enum.Enum):
    """One ceiling on resident blocks; values are the names used in JSON output."""

    WARPS = "warps"
    BLOCKS = "blocks"
    REGISTERS = "registers"
    SHARED_MEMORY = "shared_memory"
    BARRIERS = "barriers"
    VIRTUAL_RESOURCES = "virtual_resources"

    # Members are singletons compared by identity, so identity's hash (in C) serves; ``Enum``'s own
    # hashes the name in Python, and limits are dict keys on every answer (a fifth of the batch's time
    # on the answers where no block fits).
    __hash__ = object.__hash__


LIMIT_FLAGS: dict[Limit, int] = {
    Limit.WARPS: 0x01,
    Limit.REGISTERS: 0x02,
    Limit.SHARED_MEMORY: 0x04,
    Limit.BLOCKS: 0x08,
    Limit.BARRIERS: 0x10,
    Limit.VIRTUAL_RESOURCES: 0x20,
}
"""``cudaOccLimitingFactor`` bits, as the header sets them in ``limitingFactors``."""


class OccError(enum.IntEnum):
    """``cudaOccError``: the header's status codes."""

    SUCCESS = 0
    INVALID_INPUT = 1
    UNKNOWN_DEVICE = 2


@dataclass(frozen=True)
class DeviceProperties:
    """``cudaOccDeviceProp``: what ``cudaGetDeviceProperties`` reports, per device."""

    compute_major: int
    compute_minor: int
    max_threads_per_block: int
    max_threads_per_multiprocessor: int
    regs_per_block: int
    regs_per_multiprocessor: int
    warp_size: int
    shared_mem_per_block: int
    shared_mem_per_multiprocessor: int
    num_sms: int
    shared_mem_per_block_optin: int
    reserved_shared_mem_per_block: int

    @property
    def compute_capability(self) -> tuple[int, int]:
        return (self.compute_major, self.compute_minor)

    @property
    def max_warps_per_multiprocessor(self) -> int:
        return self.max_threads_per_multiprocessor // self.warp_size


def default_max_dynamic_smem(device: DeviceProperties, static_smem: Any) -> Any:
    """The runtime's default max dynamic shared memory attribute: the per-block limit less static (int or array)."""
    return np.maximum(0, device.shared_mem_per_block - static_smem)


@dataclass(frozen=True)
class FunctionAttributes:
    """``cudaOccFuncAttributes``: what the compiler and ``cudaFuncSetAttribute`` decide per kernel.

    The defaults are those the CUDA runtime uses when it converts ``cudaFuncAttributes``: opt-in
    shared memory config, one block barrier, no partitioned caching.  ``max_dynamic_shared_size_bytes``
    of ``None`` means the runtime's default attribute value, ``shared_mem_per_block - static``.
    """

    num_regs: int
    shared_size_bytes: int = 0
    max_threads_per_block: int = INT_MAX
    partitioned_gc_config: PartitionedGCConfig = PartitionedGCConfig.OFF
    shmem_limit_config: FuncShmemConfig = FuncShmemConfig.OPTIN
    max_dynamic_shared_size_bytes: int | None = None
    num_block_barriers: int = 1
    virtual_resource_count: int = 0
    reqntid: int = 0
    """The kernel's required block size, ``x·y·z`` of PTX ``.reqntid`` (cubin ``EIATTR_REQNTID``); 0: none.

    Not a field of the header's ``cudaOccFuncAttributes``: the one place it is applied is
    ``warps.reqntid_allows``."""

    def resolved_max_dynamic_smem(self, device: DeviceProperties) -> int:
        """The attribute value the runtime would hold for this kernel on ``device``."""
        if self.max_dynamic_shared_size_bytes is not None:
            return self.max_dynamic_shared_size_bytes
        return int(default_max_dynamic_smem(device, self.shared_size_bytes))


@dataclass(frozen=True)
class DeviceState:
    """``cudaOccDeviceState``: the cache / carveout preference in force for the launch."""

    cache_config: CacheConfig = CacheConfig.PREFER_NONE
    carveout_config: int = CARVEOUT_DEFAULT


@dataclass(frozen=True)
class LimitUsage:
    """One limit as numbers: a resource of one SM of which each resident block is allocated a share.

    Vendor-neutral on purpose: NVIDIA's limits (warps, block slots, registers, shared memory, block
    barriers) fill it here, another vendor's (waves, VGPRs, SGPRs, LDS) fill the same fields, and a view
    that draws them (the utilization dock) needs no vendor's field names.  ``per_block`` and
    ``capacity`` are in the same unit, both as the allocation rules count them: per block after the
    allocation granularity (whole warps, registers per warp rounded up, shared memory with the reserved
    bytes rounded up to the unit), per SM as configured for this launch (the shared memory carveout).
    """

    resource: str
    """What is allocated, for display: ``"Registers"``, ``"Shared memory"``."""
    unit: str
    """The singular unit of ``per_block`` and ``capacity``: ``"register"``, ``"byte"``, ``"warp"``."""
    per_block: int
    """Allocated to one block (0 where the kernel uses none)."""
    capacity: int
    """What one SM has of it for this launch."""
    blocks: int | None
    """Blocks this limit alone allows on one SM; ``None`` where it does not apply."""


@dataclass(frozen=True)
class LimitRow:
    """One row of the constraint table: what a block needs against what an SM has.

    ``blocks`` is ``None`` where the limit does not apply (the header's ``INT_MAX``), for example the
    register limit of a kernel that uses no registers.  The text fields explain the row; ``usage`` is
    the same row as numbers.
    """

    limit: Limit
    blocks: int | None
    per_block_nominal: str
    per_block_allocated: str
    sm_capacity: str
    calculation: str
    estimate_blocks: int | None
    usage: LimitUsage

    @property
    def rounding_changed_ceiling(self) -> bool:
        """True where allocation granularity moved this ceiling away from the first-pass estimate."""
        return self.blocks != self.estimate_blocks


@dataclass(frozen=True)
class FirstPassEstimate:
    """The textbook estimate: T·R registers and S bytes per block, no rounding of any kind."""

    active_blocks: int
    active_warps: int
    occupancy: float
    limits: dict[Limit, int | None]


@dataclass(frozen=True)
class OccupancyResult:
    """``cudaOccResult`` plus everything derived from it that a reader of the result needs."""

    active_blocks: int
    active_warps: int
    active_threads: int
    max_warps_per_multiprocessor: int
    limits: dict[Limit, int | None]
    limiting_factors: int
    allocated_registers_per_block: int
    allocated_shared_memory_per_block: int
    partitioned_gc_config: PartitionedGCConfig
    reasons: tuple[str, ...]
    rows: tuple[LimitRow, ...]
    estimate: FirstPassEstimate
    warps_per_block: int = field(default=0)
    shared_mem_per_multiprocessor: int = field(default=0)
    """The SM shared memory configuration this launch runs under (carveout aligned, grown if needed)."""

    @property
    def occupancy(self) -> float:
        """Theoretical occupancy: active warps over the SM's maximum resident warps (0..1)."""
        return self.active_warps / self.max_warps_per_multiprocessor

    @property
    def binding(self) -> tuple[Limit, ...]:
        """Every limit whose ceiling equals the result (ties all listed), in the header's flag order.

        This is the true binding set.  The header's own ``limitingFactors`` can also flag a limit that
        tied before the barrier limit lowered the result; ``header_binding`` keeps that raw view.
        """
        return tuple(lim for lim in LIMIT_FLAGS if self.limits.get(lim) == self.active_blocks)

    @property
    def header_binding(self) -> tuple[Limit, ...]:
        """The limits flagged in the header's ``limitingFactors`` bit field."""
        return tuple(lim for lim, bit in LIMIT_FLAGS.items() if self.limiting_factors & bit)
