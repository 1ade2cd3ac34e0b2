"""The shared memory limit: ``cudaOccMaxBlocksPerSMSmemLimit`` and the preference rules it uses.

A block allocates static + dynamic + the driver's reserved bytes, rounded up to the allocation unit.
How much of the SM is shared memory depends on the architecture: Kepler by the cache-config
preference, Maxwell and Pascal always all of it, Volta and later by the carveout preference aligned
up to a size the SM supports — and a block that needs more than the preference gets the smallest
supported size that holds it.
"""

from __future__ import annotations

import numpy as np

from . import architecture as arch
from ._int import IntArray, round_up
from .types import CARVEOUT_DEFAULT, INT_MAX, CacheConfig, DeviceProperties, FuncShmemConfig, OccError

_L1_MIN_KEPLER = 16 * 1024
_L1_MAX_KEPLER = 48 * 1024
_CARVEOUT_MAX_SHARED = 100


def align_up_shmem_size(device: DeviceProperties, size: IntArray) -> tuple[IntArray, IntArray]:
    """``cudaOccAlignUpShmemSizeVoltaPlus``: the next supported SM shared memory size, and a status.

    A size above the largest configuration is ``INVALID_INPUT``; an unknown minor version is
    ``UNKNOWN_DEVICE``.
    """
    try:
        configs = np.asarray(arch.shared_memory_configs(device.compute_capability), dtype=np.int64)
    except Exception:  # noqa: BLE001 - re-expressed as the header's status code
        return np.zeros_like(size), np.full_like(size, OccError.UNKNOWN_DEVICE)
    index = np.searchsorted(configs, size, side="left")
    too_big = index >= len(configs)
    aligned = configs[np.minimum(index, len(configs) - 1)]
    return np.where(too_big, 0, aligned), np.where(too_big, OccError.INVALID_INPUT, OccError.SUCCESS)


def effective_carveout(cache_config: IntArray, carveout: IntArray) -> IntArray:
    """The carveout in force on Volta+: an explicit percentage wins over the legacy cache config."""
    from_cache = np.select(
        [
            cache_config == CacheConfig.PREFER_L1,
            cache_config == CacheConfig.PREFER_SHARED,
            cache_config == CacheConfig.PREFER_EQUAL,
        ],
        [0, _CARVEOUT_MAX_SHARED, 50],
        default=CARVEOUT_DEFAULT,
    )
    return np.where(carveout == CARVEOUT_DEFAULT, from_cache, carveout)


def smem_preference_volta_plus(
    device: DeviceProperties, cache_config: IntArray, carveout: IntArray
) -> tuple[IntArray, IntArray]:
    """``cudaOccSMemPreferenceVoltaPlus``: carveout percent of the SM's shared memory, aligned up."""
    invalid = (carveout < CARVEOUT_DEFAULT) | (carveout > _CARVEOUT_MAX_SHARED)
    preference = effective_carveout(cache_config, carveout)
    size = np.where(
        preference == CARVEOUT_DEFAULT,
        device.shared_mem_per_multiprocessor,
        (preference * device.shared_mem_per_multiprocessor) // 100,
    )
    aligned, status = align_up_shmem_size(device, size)
    return aligned, np.where(invalid, OccError.INVALID_INPUT, status)


def smem_preference_kepler_maxwell_pascal(device: DeviceProperties, cache_config: IntArray) -> IntArray:
    """``cudaOccSMemPreference``: Kepler splits 64 KB-class storage by cache config; later parts don't."""
    high = device.shared_mem_per_multiprocessor
    if device.compute_major != 3:
        return np.full_like(cache_config, high)
    low = high + _L1_MIN_KEPLER - _L1_MAX_KEPLER
    return np.select(
        [cache_config == CacheConfig.PREFER_L1, cache_config == CacheConfig.PREFER_EQUAL],
        [low, (high + low) // 2],
        default=high,
    )


def smem_per_multiprocessor(
    device: DeviceProperties, cache_config: IntArray, carveout: IntArray
) -> tuple[IntArray, IntArray]:
    """``cudaOccSMemPerMultiprocessor``: the user-preferred shared memory per SM, and a status."""
    if arch.supports_carveout(device.compute_capability):
        return smem_preference_volta_plus(device, cache_config, carveout)
    preference = smem_preference_kepler_maxwell_pascal(device, cache_config)
    return preference, np.zeros_like(preference)


def smem_per_block_limit(device: DeviceProperties, shmem_limit_config: IntArray, smem_per_cta: IntArray) -> IntArray:
    """``cudaOccSMemPerBlock``: the per-block limit, the opt-in one where the kernel needs and may use it.

    From Ampere the limit includes the driver's reserved bytes, as the allocation does.
    """
    limit = np.full_like(smem_per_cta, device.shared_mem_per_block)
    if arch.supports_carveout(device.compute_capability):
        opt_in = (shmem_limit_config == FuncShmemConfig.OPTIN) & (smem_per_cta > device.shared_mem_per_block)
        limit = np.where(opt_in, device.shared_mem_per_block_optin, limit)
    if arch.reserves_shared_memory(device.compute_capability):
        limit = limit + device.reserved_shared_mem_per_block
    return limit


def smem_allocated_per_block(device: DeviceProperties, static_smem: IntArray, dynamic_smem: IntArray) -> IntArray:
    """Static + reserved + dynamic bytes rounded up to the allocation granularity."""
    total = static_smem + device.reserved_shared_mem_per_block + dynamic_smem
    return round_up(total, arch.smem_allocation_granularity(device.compute_capability))


def max_blocks_per_sm_smem_limit(
    device: DeviceProperties,
    static_smem: IntArray,
    dynamic_smem: IntArray,
    max_dynamic_smem: IntArray,
    shmem_limit_config: IntArray,
    cache_config: IntArray,
    carveout: IntArray,
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Blocks allowed by shared memory, bytes allocated per block, the SM's shared memory size in
    force for this launch, and a status."""
    preference, status = smem_per_multiprocessor(device, cache_config, carveout)
    allocated = smem_allocated_per_block(device, static_smem, dynamic_smem)
    max_usage = static_smem + device.reserved_shared_mem_per_block + max_dynamic_smem
    dynamic_exceeded = (shmem_limit_config != FuncShmemConfig.DEFAULT) & (dynamic_smem > max_dynamic_smem)
    total_exceeded = allocated > smem_per_block_limit(device, shmem_limit_config, max_usage)
    refused = dynamic_exceeded | total_exceeded

    # The preference holds while one block fits in it; otherwise Volta+ grows to the next size.
    if arch.supports_carveout(device.compute_capability):
        grown, grow_status = align_up_shmem_size(device, allocated)
    else:
        grown, grow_status = np.full_like(allocated, device.shared_mem_per_multiprocessor), np.zeros_like(allocated)
    needs_growth = ~refused & (preference < allocated)
    sm_smem = np.where(needs_growth, grown, preference)
    status = np.where((status == 0) & needs_growth, grow_status, status)

    blocks = np.where(allocated > 0, sm_smem // np.maximum(allocated, 1), INT_MAX)
    return np.where(refused, 0, blocks), allocated, sm_smem, status
