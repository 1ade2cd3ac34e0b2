"""``cudaOccMaxActiveBlocksPerMultiprocessor``, vectorised: every query field may be a numpy array.

The scalar API (``compute_occupancy``) and every sweep call this one function, so a sweep equals the
scalar engine value for value by construction.  Where the header would return an error status the
``status`` array holds it and the other fields are meaningless.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from . import architecture as arch
from ._int import IntArray, as_int_array
from .barriers import max_blocks_per_sm_block_barrier_limit, max_blocks_per_sm_virtual_resource
from .registers import max_blocks_per_sm_regs_limit
from .shared_memory import max_blocks_per_sm_smem_limit
from .types import LIMIT_FLAGS, DeviceProperties, Limit, OccError, PartitionedGCConfig
from .warps import launchable, max_blocks_per_sm_warps_limit

# Inputs beyond these would overflow the header's 32-bit int arithmetic; the engine refuses them.
MAX_BLOCK_SIZE = 1 << 24
MAX_REGISTERS = 1 << 16
MAX_SHARED_BYTES = (1 << 31) - (1 << 20)


@dataclass
class Query:
    """One or many occupancy queries for one device; each field broadcasts against the others."""

    block_size: IntArray
    num_regs: IntArray
    shared_size_bytes: IntArray
    dynamic_smem: IntArray
    max_dynamic_smem: IntArray
    num_block_barriers: IntArray
    cache_config: IntArray
    carveout: IntArray
    shmem_limit_config: IntArray
    partitioned_gc_config: IntArray
    virtual_resource_count: IntArray
    func_max_threads_per_block: IntArray
    func_reqntid: IntArray

    def __post_init__(self) -> None:
        # Fields keep their own shapes: a rule that depends only on scalars is computed once and
        # broadcast at the end, which is what makes a block × register sweep cheap.
        for f in fields(self):
            setattr(self, f.name, as_int_array(getattr(self, f.name)))

    @property
    def shape(self) -> tuple[int, ...]:
        return np.broadcast_shapes(*(getattr(self, f.name).shape for f in fields(self)))


@dataclass
class ResultArrays:
    """``cudaOccResult`` as arrays, plus the header's status per query."""

    status: IntArray
    active_blocks: IntArray
    limiting_factors: IntArray
    block_limit_regs: IntArray
    block_limit_shared_mem: IntArray
    block_limit_warps: IntArray
    block_limit_blocks: IntArray
    block_limit_barriers: IntArray
    block_limit_virtual: IntArray
    allocated_registers_per_block: IntArray
    allocated_shared_mem_per_block: IntArray
    partitioned_gc_config: IntArray
    shared_mem_per_multiprocessor: IntArray
    """Not in ``cudaOccResult``: the SM's shared memory configuration the launch runs under."""
    launchable: IntArray
    """Not in ``cudaOccResult``: 1 where the block can launch (``warps.launchable``: ``maxBlockSize``, ``.reqntid``)."""

    @property
    def resident_blocks(self) -> IntArray:
        """Blocks that really reside: the header's answer, 0 where it refused or the launch cannot happen."""
        return np.where((self.status == OccError.SUCCESS) & (self.launchable != 0), self.active_blocks, 0)

    def limit(self, which: Limit) -> IntArray:
        """The blocks allowed by one limit, by its ``Limit`` name."""
        return {
            Limit.WARPS: self.block_limit_warps,
            Limit.BLOCKS: self.block_limit_blocks,
            Limit.REGISTERS: self.block_limit_regs,
            Limit.SHARED_MEMORY: self.block_limit_shared_mem,
            Limit.BARRIERS: self.block_limit_barriers,
            Limit.VIRTUAL_RESOURCES: self.block_limit_virtual,
        }[which]


def device_is_valid(device: DeviceProperties) -> bool:
    """``cudaOccDevicePropCheck``: every per-device limit must be positive."""
    return (
        min(
            device.max_threads_per_block,
            device.max_threads_per_multiprocessor,
            device.regs_per_block,
            device.regs_per_multiprocessor,
            device.warp_size,
            device.shared_mem_per_block,
            device.shared_mem_per_multiprocessor,
            device.num_sms,
        )
        > 0
    )


def sm_model(device: DeviceProperties) -> DeviceProperties:
    """The device as one SM's answers see it: the SM count counts only in ``device_is_valid`` (the header's
    ``cudaOccDevicePropCheck``), so devices alike but for it share one model; a batch asks the engine once
    per model (the 84 catalogued profiles are 25 models), not once per device."""
    return replace(device, num_sms=1) if device.num_sms > 0 else device


def _input_status(device: DeviceProperties, q: Query) -> IntArray:
    """The header's input checks, in its order, as a status per query."""
    invalid = (q.block_size <= 0) | (q.func_max_threads_per_block <= 0) | (q.num_regs < 0)
    if not device_is_valid(device):
        invalid = np.ones_like(invalid)
    status = np.where(invalid, OccError.INVALID_INPUT, OccError.SUCCESS)
    if device.compute_major not in arch.KNOWN_MAJORS:
        status = np.where(status == 0, OccError.UNKNOWN_DEVICE, status)
    return status


def _refused_result(status: IntArray) -> ResultArrays:
    zeros = np.zeros_like(status)
    return ResultArrays(status, *([zeros] * (len(fields(ResultArrays)) - 1)))


def _broadcast(result: ResultArrays, shape: tuple[int, ...]) -> ResultArrays:
    """Give every field the query's full shape (read-only views where a field is constant)."""
    for f in fields(result):
        setattr(result, f.name, np.broadcast_to(getattr(result, f.name), shape))
    return result


def max_active_blocks(device: DeviceProperties, q: Query) -> ResultArrays:
    """Blocks of one kernel that fit on one SM, with every limit's ceiling and the binding ones."""
    status = _input_status(device, q)
    if not device_is_valid(device) or device.compute_major not in arch.KNOWN_MAJORS:
        return _broadcast(_refused_result(status), q.shape)
    cc = device.compute_capability
    gc = q.partitioned_gc_config
    if not arch.partitioned_gc_supported(cc):
        gc = np.zeros_like(gc)
    regs, gc, regs_per_block = max_blocks_per_sm_regs_limit(device, q.num_regs, q.block_size, gc)
    warps = max_blocks_per_sm_warps_limit(device, q.block_size, gc != PartitionedGCConfig.OFF)
    blocks = np.asarray(arch.max_blocks_per_multiprocessor(cc), dtype=np.int64)
    smem, smem_per_block, sm_smem, smem_status = max_blocks_per_sm_smem_limit(
        device,
        q.shared_size_bytes,
        q.dynamic_smem,
        q.max_dynamic_smem,
        q.shmem_limit_config,
        q.cache_config,
        q.carveout,
    )
    status = np.where(status == 0, smem_status, status)
    virtual = max_blocks_per_sm_virtual_resource(device, q.virtual_resource_count)
    active = np.minimum(np.minimum(np.minimum(regs, smem), np.minimum(warps, blocks)), virtual)
    flags = np.zeros_like(active)
    for limit, ceiling in (
        (Limit.WARPS, warps),
        (Limit.REGISTERS, regs),
        (Limit.SHARED_MEMORY, smem),
        (Limit.BLOCKS, blocks),
        (Limit.VIRTUAL_RESOURCES, virtual),
    ):
        flags = flags | np.where(active == ceiling, LIMIT_FLAGS[limit], 0)
    # As in the header, barriers are applied last and the flags above are not revisited.
    barriers = max_blocks_per_sm_block_barrier_limit(device, q.num_block_barriers)
    active = np.minimum(active, barriers)
    flags = flags | np.where(active == barriers, LIMIT_FLAGS[Limit.BARRIERS], 0)
    return _broadcast(
        ResultArrays(
            status=status,
            active_blocks=active,
            limiting_factors=flags,
            block_limit_regs=regs,
            block_limit_shared_mem=smem,
            block_limit_warps=warps,
            block_limit_blocks=blocks,
            block_limit_barriers=barriers,
            block_limit_virtual=virtual,
            allocated_registers_per_block=regs_per_block,
            allocated_shared_mem_per_block=smem_per_block,
            partitioned_gc_config=gc,
            shared_mem_per_multiprocessor=sm_smem,
            launchable=launchable(device, q.block_size, q.func_max_threads_per_block, q.func_reqntid).astype(np.int64),
        ),
        q.shape,
    )
