"""The register-file limit: ``cudaOccMaxBlocksPerSMRegsLimit`` and the GP100 forward-compatibility rule.

Registers are allocated per warp (``numRegs × warpSize`` rounded up to the allocation unit) and the
register file is split evenly across the SM's sub-partitions, so the SM holds
``⌊(regsPerSM / subPartitions) / regsPerWarp⌋ × subPartitions`` warps.  Hardware checks a block
against ``regsPerBlock`` as if its warps were rounded up to a multiple of the sub-partitions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from . import architecture as arch
from ._int import IntArray, round_up
from .types import INT_MAX, DeviceProperties, PartitionedGCConfig
from .warps import warps_per_block


@dataclass(frozen=True)
class RegisterAllocation:
    """Per-warp and per-block register figures for one kernel and block size."""

    per_warp: IntArray
    per_block: IntArray
    per_block_hardware_check: IntArray


def register_allocation(device: DeviceProperties, num_regs: IntArray, block_size: IntArray) -> RegisterAllocation:
    """Round registers per warp up to the allocation unit; count warps per block and sub-partitions."""
    cc = device.compute_capability
    warps = warps_per_block(device, block_size)
    per_warp = round_up(num_regs * device.warp_size, arch.reg_allocation_granularity(cc))
    return RegisterAllocation(
        per_warp=per_warp,
        per_block=per_warp * warps,
        per_block_hardware_check=per_warp * round_up(warps, arch.sub_partitions_per_multiprocessor(cc)),
    )


def _regs_limit(
    device: DeviceProperties, num_regs: IntArray, block_size: IntArray, gc_config: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """One evaluation of the header's function: (blocks allowed, gc config after, regs per block)."""
    cc = device.compute_capability
    sub_partitions = arch.sub_partitions_per_multiprocessor(cc)
    alloc = register_allocation(device, num_regs, block_size)
    warps = np.maximum(warps_per_block(device, block_size), 1)
    does_not_fit = (
        (device.regs_per_block < alloc.per_block_hardware_check)
        | (device.regs_per_block < alloc.per_block)
        | (num_regs > arch.reg_allocation_max_per_thread(cc))
    )
    warps_per_sub_partition = (device.regs_per_multiprocessor // sub_partitions) // np.maximum(alloc.per_warp, 1)
    gc_off = gc_config == PartitionedGCConfig.OFF
    partitioned = np.where(gc_off, 0, ((warps_per_sub_partition * (sub_partitions // 2)) // warps) * 2)
    # A block that cannot fit in half an SM spreads across the SM and caching turns off, unless forced.
    spread = (partitioned == 0) & (gc_config != PartitionedGCConfig.ON_STRICT)
    blocks = np.where(spread, (warps_per_sub_partition * sub_partitions) // warps, partitioned)
    uses_registers = alloc.per_warp > 0
    blocks = np.where(does_not_fit, 0, np.where(uses_registers, blocks, INT_MAX))
    gc_after = np.where(~does_not_fit & uses_registers & spread, PartitionedGCConfig.OFF, gc_config)
    return blocks, gc_after, alloc.per_block


def max_blocks_per_sm_regs_limit(
    device: DeviceProperties, num_regs: IntArray, block_size: IntArray, gc_config: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """Blocks allowed by registers, the partitioned-caching config in force, and registers per block.

    On GP100 (6.0) a kernel that could not run on GP10x (four sub-partitions) is refused too, so that
    code tuned on GP100 runs on every Pascal part.
    """
    blocks, gc_after, per_block = _regs_limit(device, num_regs, block_size, gc_config)
    if device.compute_capability == (6, 0):
        gp10x = replace(device, compute_minor=1)
        blocks_gp10x, _, _ = _regs_limit(gp10x, num_regs, block_size, gc_after)
        blocks = np.where((blocks != 0) & (blocks_gp10x == 0), 0, blocks)
    return blocks, gc_after, per_block
