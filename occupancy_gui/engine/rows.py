"""The constraint table and the reasons a launch cannot fit, written with the actual numbers.

Every figure here comes from the same rule modules the engine uses, so the table explains the
answer rather than recomputing it.
"""

from __future__ import annotations

from . import architecture as arch
from ._int import as_int_array
from .barriers import barriers_available_per_sm
from .launch import Launch
from .occupancy import ResultArrays
from .registers import register_allocation
from .shared_memory import smem_per_block_limit
from .types import DeviceProperties, FirstPassEstimate, FuncShmemConfig, FunctionAttributes, Limit, LimitRow
from .warps import reqntid_allows

SUBSCRIPT_FLOOR = "⌊{} / {}⌋"


def _int(value: object) -> int:
    return int(as_int_array(value).reshape(-1)[0])


def launch_bound_reason(device: DeviceProperties, func: FunctionAttributes, block_size: int) -> str | None:
    """Why a block of ``block_size`` threads cannot launch at all (``maxBlockSize``), or ``None``."""
    if block_size > device.max_threads_per_block:
        return f"{block_size} threads per block > {device.max_threads_per_block} allowed"
    if block_size > func.max_threads_per_block:
        return (f"{block_size} threads per block > {func.max_threads_per_block}, the kernel's launch bound "
                "(maxThreadsPerBlock): the launch fails")  # fmt: skip
    if not reqntid_allows(block_size, func.reqntid):
        return (f"{block_size} threads per block ≠ {func.reqntid}, the kernel's required block size "
                "(.reqntid): the launch fails")  # fmt: skip
    return None


def _warps_row(device: DeviceProperties, func: FunctionAttributes, launch: Launch, blocks: int | None,
               estimate: int | None) -> LimitRow:  # fmt: skip
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
    return LimitRow(Limit.WARPS, blocks, f"{launch.block_size} threads", f"{warps} warps",
                    f"{max_warps} warps", calculation, estimate)  # fmt: skip


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
    return LimitRow(Limit.REGISTERS, blocks, f"{func.num_regs * launch.block_size} regs ({func.num_regs}/thread)",
                    f"{per_block} regs ({per_warp}/warp)", f"{device.regs_per_multiprocessor} regs",
                    calculation, estimate)  # fmt: skip


def _shared_memory_row(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, arrays: ResultArrays,
    blocks: int | None, estimate: int | None,
) -> LimitRow:  # fmt: skip
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
    return LimitRow(Limit.SHARED_MEMORY, blocks, f"{nominal} B", allocated_text, f"{sm_smem} B", calculation, estimate)


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
        LimitRow(Limit.BLOCKS, limits[Limit.BLOCKS], "1 block", "1 slot", f"{slots} blocks",
                 f"{slots} (architecture limit)", estimate.limits[Limit.BLOCKS]),  # fmt: skip
        _warps_row(device, func, launch, limits[Limit.WARPS], estimate.limits[Limit.WARPS]),
        _registers_row(device, func, launch, limits[Limit.REGISTERS], estimate.limits[Limit.REGISTERS]),
        _shared_memory_row(device, func, launch, arrays, limits[Limit.SHARED_MEMORY],
                           estimate.limits[Limit.SHARED_MEMORY]),  # fmt: skip
    ]
    if arch.applies_barrier_limit(cc) and func.num_block_barriers > 0:
        available = barriers_available_per_sm(device)
        needed = f"{func.num_block_barriers} barrier" + ("s" if func.num_block_barriers != 1 else "")
        rows.append(LimitRow(Limit.BARRIERS, limits[Limit.BARRIERS], needed, needed, f"{available} barriers",
                             SUBSCRIPT_FLOOR.format(available, func.num_block_barriers),
                             estimate.limits[Limit.BARRIERS]))  # fmt: skip
    per_sm = arch.max_virtual_resource_count_per_sm(cc)
    if per_sm and func.virtual_resource_count > 0:
        rows.append(LimitRow(Limit.VIRTUAL_RESOURCES, limits[Limit.VIRTUAL_RESOURCES],
                             f"{func.virtual_resource_count}", f"{func.virtual_resource_count}", f"{per_sm}",
                             SUBSCRIPT_FLOOR.format(per_sm, func.virtual_resource_count),
                             estimate.limits[Limit.VIRTUAL_RESOURCES]))  # fmt: skip
    return tuple(rows)


def _register_reasons(device: DeviceProperties, func: FunctionAttributes, launch: Launch) -> list[str]:
    cc = device.compute_capability
    # Plain ints pass through the same arithmetic as arrays, without numpy's cost for one launch.
    alloc = register_allocation(device, func.num_regs, launch.block_size)  # type: ignore[arg-type]
    per_warp, per_block, hardware = int(alloc.per_warp), int(alloc.per_block), int(alloc.per_block_hardware_check)
    max_per_thread = arch.reg_allocation_max_per_thread(cc)
    sub = arch.sub_partitions_per_multiprocessor(cc)
    reasons = []
    if func.num_regs > max_per_thread:
        reasons.append(f"{func.num_regs} registers per thread > {max_per_thread} allowed")
    if per_block > device.regs_per_block:
        reasons.append(f"{per_block} registers per block ({per_warp} per warp) > {device.regs_per_block} allowed")
    elif hardware > device.regs_per_block:
        reasons.append(
            f"{hardware} registers per block with warps rounded up to {sub} sub-partitions > "
            f"{device.regs_per_block} allowed (hardware check)"
        )
    if not reasons and cc == (6, 0):
        reasons.append("does not fit on GP10x (4 sub-partitions); CC 6.0 refuses it for Pascal forward compatibility")
    if not reasons:
        reasons.append(f"{per_warp} registers per warp leave too few warps per SM for one block")
    return reasons


def _shared_memory_reasons(device: DeviceProperties, func: FunctionAttributes, launch: Launch,
                           allocated: int, sm_smem: int) -> list[str]:  # fmt: skip
    max_dynamic = func.resolved_max_dynamic_smem(device)
    requested = func.shared_size_bytes + launch.dynamic_smem
    reserved = device.reserved_shared_mem_per_block if arch.reserves_shared_memory(device.compute_capability) else 0
    optin = func.shmem_limit_config == FuncShmemConfig.OPTIN
    if optin and launch.dynamic_smem > max_dynamic:
        if func.max_dynamic_shared_size_bytes is None:
            return [f"{requested} B shared memory per block > {device.shared_mem_per_block} B without opt-in "
                    f"(raise the max dynamic shared memory attribute, up to "
                    f"{device.shared_mem_per_block_optin - func.shared_size_bytes} B)"]  # fmt: skip
        return [f"{launch.dynamic_smem} B dynamic shared memory > {max_dynamic} B max dynamic shared memory attribute"]
    max_usage = func.shared_size_bytes + device.reserved_shared_mem_per_block + max_dynamic
    limit = _int(smem_per_block_limit(device, as_int_array(int(func.shmem_limit_config)), as_int_array(max_usage)))
    if allocated > limit:
        kind = "with opt-in" if limit - reserved > device.shared_mem_per_block else "without opt-in"
        return [f"{requested} B shared memory per block > {limit - reserved} B {kind}"]
    return [f"{allocated} B allocated shared memory per block > {sm_smem} B shared memory per SM"]


def zero_block_reasons(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    limits: dict[Limit, int | None],
    allocated_smem: int,
    sm_smem: int,
) -> tuple[str, ...]:
    """Every reason, in words with the numbers, why not even one block fits on an SM."""
    reasons: list[str] = []
    if limits[Limit.WARPS] == 0:
        bound = launch_bound_reason(device, func, launch.block_size)
        if bound is not None:
            reasons.append(bound)
        else:
            reasons.append(f"{-(-launch.block_size // device.warp_size)} warps per block > "
                           f"{device.max_warps_per_multiprocessor // 2} warps per half SM")  # fmt: skip
    if limits[Limit.REGISTERS] == 0:
        reasons.extend(_register_reasons(device, func, launch))
    if limits[Limit.SHARED_MEMORY] == 0:
        reasons.extend(_shared_memory_reasons(device, func, launch, allocated_smem, sm_smem))
    if limits[Limit.BARRIERS] == 0:
        reasons.append(f"{func.num_block_barriers} block barriers per block > "
                       f"{barriers_available_per_sm(device)} available per SM")  # fmt: skip
    if limits[Limit.VIRTUAL_RESOURCES] == 0:
        per_sm = arch.max_virtual_resource_count_per_sm(device.compute_capability)
        reasons.append(f"{func.virtual_resource_count} virtual resources per block > {per_sm} per SM")
    return tuple(reasons)
