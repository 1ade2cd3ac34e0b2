"""Per-architecture constants of the occupancy model, one function per table of ``cuda_occupancy.h``.

Each function is named after the header function it mirrors and takes the compute capability as
``(major, minor)``.  A compute capability the header does not know raises ``OccupancyError`` with
``UNKNOWN_DEVICE``, as the header returns ``CUDA_OCC_ERROR_UNKNOWN_DEVICE``.
"""

from __future__ import annotations

from .errors import OccupancyError
from .types import OccError

ComputeCapability = tuple[int, int]

KNOWN_MAJORS = (3, 5, 6, 7, 8, 9, 10, 11, 12)
"""Major versions every table of the header covers."""

KNOWN_COMPUTE_CAPABILITIES: tuple[ComputeCapability, ...] = (
    (3, 0),
    (3, 2),
    (3, 5),
    (3, 7),
    (5, 0),
    (5, 2),
    (5, 3),
    (6, 0),
    (6, 1),
    (6, 2),
    (7, 0),
    (7, 2),
    (7, 5),
    (8, 0),
    (8, 6),
    (8, 7),
    (8, 8),
    (8, 9),
    (9, 0),
    (10, 0),
    (10, 1),
    (10, 3),
    (10, 7),
    (11, 0),
    (12, 0),
    (12, 1),
)
"""Released compute capabilities the header answers for (10.1 is Thor's pre-CUDA-13 number, 11.0 now; 8.8 is a
CUDA 13 target the header answers as it does 8.6)."""

KIB = 1024


def _unknown(cc: ComputeCapability, what: str) -> OccupancyError:
    return OccupancyError(
        OccError.UNKNOWN_DEVICE, f"compute capability {cc[0]}.{cc[1]} is unknown to the occupancy model ({what})"
    )


def _require_known_major(cc: ComputeCapability, what: str) -> None:
    if cc[0] not in KNOWN_MAJORS:
        raise _unknown(cc, what)


def smem_allocation_granularity(cc: ComputeCapability) -> int:
    """``cudaOccSMemAllocationGranularity``: shared memory is allocated to blocks in these units."""
    _require_known_major(cc, "shared memory allocation granularity")
    return 256 if cc[0] <= 7 else 128


def reg_allocation_max_per_thread(cc: ComputeCapability) -> int:
    """``cudaOccRegAllocationMaxPerThread``: the most registers one thread may use."""
    _require_known_major(cc, "registers per thread")
    return 255 if cc[0] <= 6 else 256


def reg_allocation_granularity(cc: ComputeCapability) -> int:
    """``cudaOccRegAllocationGranularity``: registers are allocated per warp in these units."""
    _require_known_major(cc, "register allocation granularity")
    return 256


def sub_partitions_per_multiprocessor(cc: ComputeCapability) -> int:
    """``cudaOccSubPartitionsPerMultiprocessor``: the register file is split across these.

    GP100 (6.0) has two sub-partitions; every other SM has four.
    """
    _require_known_major(cc, "sub-partitions")
    return 2 if cc == (6, 0) else 4


def max_blocks_per_multiprocessor(cc: ComputeCapability) -> int:
    """``cudaOccMaxBlocksPerMultiprocessor``: resident-block slots per SM."""
    _require_known_major(cc, "blocks per SM")
    major, minor = cc
    if major == 3:
        return 16
    if major in (5, 6, 9):
        return 32
    if major == 7:
        return 16 if minor == 5 else 32
    if major == 8:
        return {0: 32, 9: 24}.get(minor, 16)
    if major == 10:
        return {1: 24, 7: 16}.get(minor, 32)
    if major == 11:
        return 24 if minor == 0 else 32
    return 24  # major 12


_VOLTA_CONFIGS = (0, 8, 16, 32, 64, 96)
_AMPERE_GA100_CONFIGS = (0, 8, 16, 32, 64, 100, 132, 164)
_AMPERE_CONSUMER_CONFIGS = (0, 8, 16, 32, 64, 100)
_HOPPER_CONFIGS = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)


def shared_memory_configs(cc: ComputeCapability) -> tuple[int, ...]:
    """The shared memory sizes (bytes) an SM can be configured to, as ``cudaOccAlignUpShmemSizeVoltaPlus``
    lists them.  A request is aligned up to the next size; one above the largest is invalid input.
    """
    major, minor = cc
    kib: tuple[int, ...]
    if major == 7:
        kib = (32, 64) if minor == 5 else _VOLTA_CONFIGS
    elif major == 8:
        kib = _AMPERE_GA100_CONFIGS if minor in (0, 7) else _AMPERE_CONSUMER_CONFIGS
    elif major == 9 or major in (10, 11) and minor in (0, 1, 3):
        kib = _HOPPER_CONFIGS
    elif major in (10, 11) and minor == 7:
        kib = (*_HOPPER_CONFIGS, 328)
    elif major == 12 and minor in (0, 1):
        kib = _AMPERE_CONSUMER_CONFIGS
    else:
        raise _unknown(cc, "shared memory configurations")
    return tuple(k * KIB for k in kib)


def block_barriers_per_block_slot(cc: ComputeCapability) -> int:
    """Barriers available per resident-block slot, from ``cudaOccMaxBlocksPerSMBlockBarrierLimit``.

    The SM has ``slots × this`` block barriers; the header applies the limit from compute capability 9.
    """
    major, minor = cc
    if major in (5, 6, 7, 9):
        return 2
    if major == 8:
        return 2 if minor == 0 else 1
    if major == 10:
        return 2 if minor == 0 else 1
    if major == 11:
        return 1 if minor == 0 else 2
    if major == 12:
        return 1
    raise _unknown(cc, "block barriers")


def partitioned_gc_supported(cc: ComputeCapability) -> bool:
    """``cudaOccPartitionedGlobalCachingModeSupport``: sm_52, sm_53 and Pascal other than GP100."""
    major, minor = cc
    return (major == 5 and minor in (2, 3)) or (major == 6 and minor != 0)


def max_virtual_resource_count_per_sm(cc: ComputeCapability) -> int:
    """``cudaOccMaxVirtualResourceCountPerSM``: 128 from compute capability 10; 0 (no limit) before."""
    return 128 if cc[0] in (10, 11, 12) else 0


def supports_carveout(cc: ComputeCapability) -> bool:
    """Volta and later take a shared memory carveout preference; earlier SMs do not."""
    return cc[0] >= 7


def supports_cache_config(cc: ComputeCapability) -> bool:
    """Only Kepler (3.x) sizes shared memory by the cache-config preference alone."""
    return cc[0] == 3


def reserves_shared_memory(cc: ComputeCapability) -> bool:
    """From Ampere (8.0) the driver reserves shared memory per block (``reservedSharedMemPerBlock``)."""
    return cc[0] >= 8


def applies_barrier_limit(cc: ComputeCapability) -> bool:
    """The header counts block barriers against the SM from Hopper (9.0) on."""
    return cc[0] >= 9
