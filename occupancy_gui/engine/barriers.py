"""Block barriers and virtual resources: ``cudaOccMaxBlocksPerSMBlockBarrierLimit`` and
``cudaOccMaxBlocksPerSMVirtualResource``.

From Hopper the SM has a fixed pool of block barriers — one or two per resident-block slot by
architecture — so a kernel using several named barriers fits fewer blocks.  From compute capability 10
the SM also has 128 virtual resources shared by its resident blocks.
"""

from __future__ import annotations

import numpy as np

from . import architecture as arch
from ._int import IntArray
from .types import INT_MAX, DeviceProperties


def barriers_available_per_sm(device: DeviceProperties) -> int:
    """Block barriers on one SM: resident-block slots × barriers per slot."""
    cc = device.compute_capability
    return arch.max_blocks_per_multiprocessor(cc) * arch.block_barriers_per_block_slot(cc)


def max_blocks_per_sm_block_barrier_limit(device: DeviceProperties, num_barriers: IntArray) -> IntArray:
    """Blocks allowed by block barriers; ``INT_MAX`` where the header does not apply this limit."""
    if not arch.applies_barrier_limit(device.compute_capability):
        return np.full_like(num_barriers, INT_MAX)
    available = barriers_available_per_sm(device)
    return np.where(num_barriers > 0, available // np.maximum(num_barriers, 1), INT_MAX)


def max_blocks_per_sm_virtual_resource(device: DeviceProperties, virtual_count: IntArray) -> IntArray:
    """Blocks allowed by virtual resources; ``INT_MAX`` where the device or kernel has none."""
    per_sm = arch.max_virtual_resource_count_per_sm(device.compute_capability)
    if per_sm <= 0:
        return np.full_like(virtual_count, INT_MAX)
    return np.where(virtual_count > 0, per_sm // np.maximum(virtual_count, 1), INT_MAX)
