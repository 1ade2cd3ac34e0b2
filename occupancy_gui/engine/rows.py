"""The constraint table and the reasons a launch cannot fit, written with the actual numbers.

Every figure here comes from the same rule modules the engine uses, so the table explains the
answer rather than recomputing it.  Each row also carries its numbers (``LimitUsage``: allocation per
block, the SM's capacity, blocks allowed), which the utilization view splits without a rule of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import architecture as arch
from ._int import IntArray, as_int_array
from .barriers import barriers_available_per_sm
from .launch import Launch
from .occupancy import ResultArrays
from .registers import register_allocation
from .shared_memory import smem_per_block_limit
from .types import (
    INT_MAX,
    DeviceProperties,
    FirstPassEstimate,
    FuncShmemConfig,
    FunctionAttributes,
    Limit,
    LimitRow,
    LimitUsage,
    default_max_dynamic_smem,
)
from .warps import reqntid_allows
from .words import count

SUBSCRIPT_FLOOR = "⌊{} / {}⌋"


def _int(value: object) -> int:
    return int(as_int_array(value).reshape(-1)[0])


def launch_bound_reason(
    device: DeviceProperties, max_threads_per_block: int, block_size: int, reqntid: int = 0
) -> str | None:
    """Why a block of ``block_size`` threads cannot launch at all (``maxBlockSize``), or ``None``;
    ``max_threads_per_block`` is the kernel's launch bound, ``reqntid`` its required block size (0: none)."""
    if block_size > device.max_threads_per_block:
        return f"{block_size} threads per block > {device.max_threads_per_block} allowed"
    if block_size > max_threads_per_block:
        return (
            f"{block_size} threads per block > {max_threads_per_block}, the kernel's launch bound "
            "(maxThreadsPerBlock): the launch fails"
        )
    if not reqntid_allows(block_size, reqntid):
        return (
            f"{block_size} threads per block ≠ {reqntid}, the kernel's required block size (.reqntid): the launch fails"
        )
    return None


def _warps_row(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, blocks: int | None, estimate: int | None
) -> LimitRow:
    warps = -(-launch.block_size // device.warp_size)
    max_warps = device.max_warps_per_multiprocessor
    if launch.block_size > device.max_threads_per_block:
        calculation = f"{launch.block_size} > {device.max_threads_per_block} threads per block"
    elif launch.block_size > func.max_threads_per_block:
        calculation = f"{launch.block_size} > {func.max_threads_per_block} threads (kernel's launch bound)"
    elif not reqntid_allows(launch.block_size, func.reqntid):
        calculation = f"{launch.block_size} ≠ {func.reqntid} threads (kernel's required block size, .reqntid)"
    else:
        calculation = SUBSCRIPT_FLOOR.format(max_warps, warps)
    return LimitRow(
        Limit.WARPS,
        blocks,
        count(launch.block_size, "thread"),
        count(warps, "warp"),
        count(max_warps, "warp"),
        calculation,
        estimate,
        LimitUsage("Warps", "warp", warps, max_warps, blocks),
    )


def _registers_row(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, blocks: int | None, estimate: int | None
) -> LimitRow:
    cc = device.compute_capability
    alloc = register_allocation(device, as_int_array(func.num_regs), as_int_array(launch.block_size))
    per_warp, per_block = _int(alloc.per_warp), _int(alloc.per_block)
    warps = -(-launch.block_size // device.warp_size)
    sub = arch.sub_partitions_per_multiprocessor(cc)
    per_sub = device.regs_per_multiprocessor // sub
    if func.num_regs == 0:
        calculation = "no registers used"
    elif blocks == 0:
        calculation = "does not fit (see reasons)"
    else:
        calculation = f"⌊⌊{per_sub} / {per_warp}⌋ × {sub} / {warps}⌋"
    return LimitRow(
        Limit.REGISTERS,
        blocks,
        f"{func.num_regs * launch.block_size} regs ({func.num_regs}/thread)",
        f"{per_block} regs ({per_warp}/warp)",
        f"{device.regs_per_multiprocessor} regs",
        calculation,
        estimate,
        LimitUsage("Registers", "register", per_block, device.regs_per_multiprocessor, blocks),
    )


def _shared_memory_row(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    arrays: ResultArrays,
    blocks: int | None,
    estimate: int | None,
) -> LimitRow:
    nominal = func.shared_size_bytes + launch.dynamic_smem
    allocated = _int(arrays.allocated_shared_mem_per_block)
    sm_smem = _int(arrays.shared_mem_per_multiprocessor)
    reserved = device.reserved_shared_mem_per_block
    allocated_text = f"{allocated} B" + (f" (incl. {reserved} B reserved)" if reserved else "")
    if allocated == 0:
        calculation = "no shared memory used"
    elif blocks == 0:
        calculation = "does not fit (see reasons)"
    else:
        calculation = SUBSCRIPT_FLOOR.format(sm_smem, allocated)
    return LimitRow(
        Limit.SHARED_MEMORY,
        blocks,
        f"{nominal} B",
        allocated_text,
        f"{sm_smem} B",
        calculation,
        estimate,
        LimitUsage("Shared memory", "byte", allocated, sm_smem, blocks),
    )


def constraint_rows(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    arrays: ResultArrays,
    limits: dict[Limit, int | None],
    estimate: FirstPassEstimate,
) -> tuple[LimitRow, ...]:
    """One row per limit that applies to this device and kernel, in the order a reader checks them."""
    cc = device.compute_capability
    slots = arch.max_blocks_per_multiprocessor(cc)
    rows = [
        LimitRow(
            Limit.BLOCKS,
            limits[Limit.BLOCKS],
            "1 block",
            "1 slot",
            f"{slots} blocks",
            f"{slots} (architecture limit)",
            estimate.limits[Limit.BLOCKS],
            LimitUsage("Block slots", "block", 1, slots, limits[Limit.BLOCKS]),
        ),
        _warps_row(device, func, launch, limits[Limit.WARPS], estimate.limits[Limit.WARPS]),
        _registers_row(device, func, launch, limits[Limit.REGISTERS], estimate.limits[Limit.REGISTERS]),
        _shared_memory_row(
            device, func, launch, arrays, limits[Limit.SHARED_MEMORY], estimate.limits[Limit.SHARED_MEMORY]
        ),
    ]
    if arch.applies_barrier_limit(cc) and func.num_block_barriers > 0:
        available = barriers_available_per_sm(device)
        needed = count(func.num_block_barriers, "barrier")
        rows.append(
            LimitRow(
                Limit.BARRIERS,
                limits[Limit.BARRIERS],
                needed,
                needed,
                f"{available} barriers",
                SUBSCRIPT_FLOOR.format(available, func.num_block_barriers),
                estimate.limits[Limit.BARRIERS],
                LimitUsage("Block barriers", "barrier", func.num_block_barriers, available, limits[Limit.BARRIERS]),
            )
        )
    per_sm = arch.max_virtual_resource_count_per_sm(cc)
    if per_sm and func.virtual_resource_count > 0:
        rows.append(
            LimitRow(
                Limit.VIRTUAL_RESOURCES,
                limits[Limit.VIRTUAL_RESOURCES],
                f"{func.virtual_resource_count}",
                f"{func.virtual_resource_count}",
                f"{per_sm}",
                SUBSCRIPT_FLOOR.format(per_sm, func.virtual_resource_count),
                estimate.limits[Limit.VIRTUAL_RESOURCES],
                LimitUsage(
                    "Virtual resources",
                    "resource",
                    func.virtual_resource_count,
                    per_sm,
                    limits[Limit.VIRTUAL_RESOURCES],
                ),
            )
        )
    return tuple(rows)


@dataclass(frozen=True)
class ReasonInputs:
    """What the reasons read of many launches on one device, one int64 array each (of one length)."""

    block_size: IntArray
    dynamic_smem: IntArray
    num_regs: IntArray
    shared_size_bytes: IntArray
    max_dynamic_smem: IntArray
    """The attribute where the kernel sets it, else ``-1`` (the runtime default applies)."""
    shmem_limit_config: IntArray
    num_block_barriers: IntArray
    virtual_resource_count: IntArray
    max_threads_per_block: IntArray
    reqntid: IntArray
    """The kernel's required block size (``.reqntid``), 0 where it has none."""
    limits: dict[Limit, IntArray]
    """Blocks allowed by each limit, ``INT_MAX`` where one does not apply."""
    allocated_smem: IntArray
    sm_smem: IntArray


def _register_reasons(device: DeviceProperties, r: ReasonInputs, rows: IntArray) -> list[tuple[str, ...]]:
    """Why the registers of one block do not fit, for each launch of ``rows``."""
    cc = device.compute_capability
    alloc = register_allocation(device, r.num_regs[rows], r.block_size[rows])
    max_per_thread = arch.reg_allocation_max_per_thread(cc)
    sub = arch.sub_partitions_per_multiprocessor(cc)
    out = []
    columns = zip(
        r.num_regs[rows].tolist(),
        alloc.per_warp.tolist(),
        alloc.per_block.tolist(),
        alloc.per_block_hardware_check.tolist(),
    )
    written: dict[tuple[int, int, int, int], tuple[str, ...]] = {}  # launches share their words: each is written once
    for key in columns:
        if key in written:
            out.append(written[key])
            continue
        regs, per_warp, per_block, hardware = key
        reasons: list[str] = []
        if regs > max_per_thread:
            reasons.append(f"{regs} registers per thread > {max_per_thread} allowed")
        if per_block > device.regs_per_block:
            reasons.append(f"{per_block} registers per block ({per_warp} per warp) > {device.regs_per_block} allowed")
        elif hardware > device.regs_per_block:
            reasons.append(
                f"{hardware} registers per block with warps rounded up to {sub} sub-partitions > "
                f"{device.regs_per_block} allowed (hardware check)"
            )
        if not reasons and cc == (6, 0):
            reasons.append(
                "does not fit on GP10x (4 sub-partitions); CC 6.0 refuses it for Pascal forward compatibility"
            )
        if not reasons:
            reasons.append(f"{per_warp} registers per warp leave too few warps per SM for one block")
        out.append(written.setdefault(key, tuple(reasons)))
    return out


def _shared_memory_reasons(device: DeviceProperties, r: ReasonInputs, rows: IntArray) -> list[str]:
    """Why the shared memory of one block does not fit, for each launch of ``rows``."""
    static, dynamic, attribute = r.shared_size_bytes[rows], r.dynamic_smem[rows], r.max_dynamic_smem[rows]
    max_dynamic = np.where(attribute >= 0, attribute, default_max_dynamic_smem(device, static))
    config = r.shmem_limit_config[rows]
    max_usage = static + device.reserved_shared_mem_per_block + max_dynamic
    limits = smem_per_block_limit(device, config, max_usage)
    reserved = device.reserved_shared_mem_per_block if arch.reserves_shared_memory(device.compute_capability) else 0
    out = []
    columns = zip(
        static.tolist(),
        dynamic.tolist(),
        attribute.tolist(),
        max_dynamic.tolist(),
        config.tolist(),
        limits.tolist(),
        r.allocated_smem[rows].tolist(),
        r.sm_smem[rows].tolist(),
    )
    for static_, dynamic_, attribute_, max_dynamic_, config_, limit, allocated, sm_smem in columns:
        requested = static_ + dynamic_
        if config_ == FuncShmemConfig.OPTIN and dynamic_ > max_dynamic_:
            if attribute_ < 0:
                out.append(
                    f"{requested} B shared memory per block > {device.shared_mem_per_block} B without opt-in "
                    f"(raise the max dynamic shared memory attribute, up to "
                    f"{device.shared_mem_per_block_optin - static_} B)"
                )
            else:
                out.append(f"{dynamic_} B dynamic shared memory > {max_dynamic_} B max dynamic shared memory attribute")
        elif allocated > limit:
            kind = "with opt-in" if limit - reserved > device.shared_mem_per_block else "without opt-in"
            out.append(f"{requested} B shared memory per block > {limit - reserved} B {kind}")
        else:
            out.append(f"{allocated} B allocated shared memory per block > {sm_smem} B shared memory per SM")
    return out


def zero_block_reasons_many(device: DeviceProperties, r: ReasonInputs) -> list[tuple[str, ...]]:
    """Every reason, in words with the numbers, why not even one block fits, for each launch of ``r``
    (one that fits gets none).  The figures are computed for all launches at once; only the words are
    written one launch at a time, and launches that share their words share one tuple (``() + words`` is
    ``words``): no list per launch."""
    reasons: list[tuple[str, ...]] = [()] * len(r.block_size)
    warps_rows = np.flatnonzero(r.limits[Limit.WARPS] == 0)
    warps_words: dict[tuple[int, int, int], tuple[str]] = {}  # launches share their words: each is written once
    for i, key in zip(
        warps_rows.tolist(),
        zip(
            r.block_size[warps_rows].tolist(),
            r.max_threads_per_block[warps_rows].tolist(),
            r.reqntid[warps_rows].tolist(),
        ),
    ):
        word = warps_words.get(key)
        if word is None:
            block_size, bound, reqntid = key
            word = warps_words[key] = (
                launch_bound_reason(device, bound, block_size, reqntid)
                or f"{-(-block_size // device.warp_size)} warps per block > "
                f"{device.max_warps_per_multiprocessor // 2} warps per half SM",
            )
        reasons[i] = word
    register_rows = np.flatnonzero(r.limits[Limit.REGISTERS] == 0)
    for i, words in zip(register_rows.tolist(), _register_reasons(device, r, register_rows)):
        reasons[i] += words
    smem_rows = np.flatnonzero(r.limits[Limit.SHARED_MEMORY] == 0)
    for i, text in zip(smem_rows.tolist(), _shared_memory_reasons(device, r, smem_rows)):
        reasons[i] += (text,)
    barrier_rows = np.flatnonzero(r.limits[Limit.BARRIERS] == 0)
    for i, barriers in zip(barrier_rows.tolist(), r.num_block_barriers[barrier_rows].tolist()):
        reasons[i] += (f"{barriers} block barriers per block > {barriers_available_per_sm(device)} available per SM",)
    virtual_rows = np.flatnonzero(r.limits[Limit.VIRTUAL_RESOURCES] == 0)
    per_sm = arch.max_virtual_resource_count_per_sm(device.compute_capability) if virtual_rows.size else 0
    for i, needed in zip(virtual_rows.tolist(), r.virtual_resource_count[virtual_rows].tolist()):
        reasons[i] += (f"{needed} virtual resources per block > {per_sm} per SM",)
    return reasons


def zero_block_reasons(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    limits: dict[Limit, int | None],
    allocated_smem: int,
    sm_smem: int,
) -> tuple[str, ...]:
    """Every reason, in words with the numbers, why not even one block fits on an SM."""

    def one(value: int) -> IntArray:
        return np.array([value], dtype=np.int64)

    inputs = ReasonInputs(
        block_size=one(launch.block_size),
        dynamic_smem=one(launch.dynamic_smem),
        num_regs=one(func.num_regs),
        shared_size_bytes=one(func.shared_size_bytes),
        max_dynamic_smem=one(-1 if func.max_dynamic_shared_size_bytes is None else func.max_dynamic_shared_size_bytes),
        shmem_limit_config=one(int(func.shmem_limit_config)),
        num_block_barriers=one(func.num_block_barriers),
        virtual_resource_count=one(func.virtual_resource_count),
        max_threads_per_block=one(func.max_threads_per_block),
        reqntid=one(func.reqntid),
        limits={limit: one(INT_MAX if value is None else value) for limit, value in limits.items()},
        allocated_smem=one(allocated_smem),
        sm_smem=one(sm_smem),
    )
    return zero_block_reasons_many(device, inputs)[0]
