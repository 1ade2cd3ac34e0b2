"""What to change: the runtime's block size and the full ranking, the nearest cliff of each input,
the exact shared-memory headroom per block count, a register cap for a target occupancy, and the
block size × registers / shared memory grids of the heat maps.

Every figure is a query of the vectorised engine; nothing here estimates.  A query the header
refuses counts as 0 resident blocks (the launch would fail).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import architecture as arch
from ._int import IntArray
from .block_size import BlockSizeSuggestion, DynamicSmem, max_potential_block_size
from .dynamic_smem import dynamic_smem_headroom
from .errors import OccupancyError
from .launch import Launch, build_query
from .occupancy import ResultArrays, max_active_blocks
from .types import DeviceProperties, DeviceState, FunctionAttributes, Limit
from .warps import max_block_size

FloatArray = npt.NDArray[np.float64]
BINDING_ORDER = (
    Limit.REGISTERS,
    Limit.SHARED_MEMORY,
    Limit.WARPS,
    Limit.BLOCKS,
    Limit.BARRIERS,
    Limit.VIRTUAL_RESOURCES,
)
"""Grid cells name one binding limit; where several tie, the first of these (what a user can change first)."""
NO_BLOCK_FITS = -1
"""``LimitGrid.binding`` where the block could launch but the resources leave room for none."""
CANNOT_LAUNCH = -2
"""``LimitGrid.binding`` where the block size cannot launch at all (``warps.launchable``: the kernel's
launch bound or its required block size)."""
MAX_REGISTER_CAP = 255
"""The largest register cap nvcc accepts (``-maxrregcount``, ``__maxnreg__``): the model allows a thread
256 registers from CC 7.0 (``cudaOccRegAllocationMaxPerThread``), but no compiler option asks for that."""


def _query(
    device: DeviceProperties,
    func: FunctionAttributes,
    state: DeviceState | None,
    block_size: int | IntArray,
    dynamic_smem: int | IntArray,
    **sweep: int | IntArray,
) -> tuple[ResultArrays, IntArray]:
    r = max_active_blocks(device, build_query(device, func, state or DeviceState(), block_size, dynamic_smem, **sweep))
    return r, r.resident_blocks


def _warps(device: DeviceProperties, block_size: IntArray | int) -> IntArray:
    return -(-np.asarray(block_size, dtype=np.int64) // device.warp_size)


def launch_candidates(device: DeviceProperties, func: FunctionAttributes, current: int) -> list[int]:
    """Block sizes the advisor ranks: every warp multiple up to ``maxBlockSize``, the limit and ``current``;
    for a kernel with a required block size (``.reqntid``) only that size (and ``current``, shown as 0)."""
    if func.reqntid > 0:
        return sorted({func.reqntid, current})
    limit = int(max_block_size(device, func.max_threads_per_block))
    return sorted({*range(device.warp_size, limit + 1, device.warp_size), limit, current})


# --------------------------------------------------------------------------------- block size
@dataclass(frozen=True)
class RankedBlockSize:
    """One block size of the ranking, with the dynamic shared memory it launches with."""

    block_size: int
    dynamic_smem: int
    active_blocks: int
    active_warps: int
    occupancy: float


@dataclass(frozen=True)
class BlockSizeAdvice:
    """``cudaOccMaxPotentialBlockSize``'s answer (``None`` with ``error`` where it refuses) and the ranking."""

    suggestion: BlockSizeSuggestion | None
    error: str | None
    ranking: tuple[RankedBlockSize, ...]
    """Best occupancy first; ties keep larger blocks first, as the header prefers them."""
    current: int

    def ties(self) -> tuple[RankedBlockSize, ...]:
        """Every block size sharing the best occupancy."""
        best = self.ranking[0].active_warps if self.ranking else 0
        return tuple(r for r in self.ranking if r.active_warps == best)


def advise_block_size(
    device: DeviceProperties,
    func: FunctionAttributes,
    current: int,
    dynamic_smem: DynamicSmem | int = 0,
    state: DeviceState | None = None,
) -> BlockSizeAdvice:
    """The runtime heuristic and every multiple of the warp size up to the limit (plus ``current``) ranked."""
    dyn: Callable[[int], int] = dynamic_smem if callable(dynamic_smem) else DynamicSmem(int(dynamic_smem))
    try:
        suggestion, error = max_potential_block_size(device, func, dyn, state), None
    except OccupancyError as exc:
        suggestion, error = None, str(exc)
    sizes = [s for s in launch_candidates(device, func, current) if s > 0]
    smem = np.array([dyn(s) for s in sizes], dtype=np.int64)
    _, blocks = _query(device, func, state, np.array(sizes, dtype=np.int64), smem)
    warps = blocks * _warps(device, np.array(sizes))
    order = sorted(range(len(sizes)), key=lambda i: (-int(warps[i]), -int(blocks[i]) * sizes[i], -sizes[i]))
    ranking = tuple(
        RankedBlockSize(
            sizes[i], int(smem[i]), int(blocks[i]), int(warps[i]), int(warps[i]) / device.max_warps_per_multiprocessor
        )
        for i in order
    )
    return BlockSizeAdvice(suggestion, error, ranking, current)


# --------------------------------------------------------------------------------- cliffs
UNITS = {"registers": "registers", "shared_memory": "B", "threads": "threads"}


@dataclass(frozen=True)
class InputCliff:
    """The nearest value of one input where resident blocks rise (``gains``) or fall, and its cost."""

    input: str
    """``"registers"`` (per thread), ``"shared_memory"`` (bytes per block, static + dynamic) or ``"threads"``."""
    gains: bool
    value: int
    current: int
    active_blocks: int
    occupancy: float
    cost: str

    def describe(self) -> str:
        """``"56 registers → 5 blocks, 62.5 %"``."""
        return f"{self.value} {UNITS[self.input]} → {self.active_blocks} blocks, {self.occupancy * 100:.4g} %"


def _nearest(x: IntArray, blocks: IntArray, current: int, now: int, gains: bool, upward: bool) -> int | None:
    """Index of the value nearest ``current`` in one direction with more (``gains``) or fewer blocks."""
    side = x > current if upward else x < current
    hit = np.flatnonzero(side & ((blocks > now) if gains else (blocks < now)))
    if hit.size == 0:
        return None
    return int(hit[0] if upward else hit[-1])


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _register_cost(
    cliff_regs: int, current: int, gains: bool, spill_stores: int | None, spill_loads: int | None
) -> str:
    if not gains:
        return f"adding {_count(cliff_regs - current, 'register')} per thread loses a block"
    text = (
        f"cap at {cliff_regs} (-maxrregcount={cliff_regs} or __launch_bounds__): {current - cliff_regs} fewer per "
        "thread may spill to local memory, and fewer registers can be slower even without spills"
    )
    if spill_stores is not None or spill_loads is not None:
        stores, loads = spill_stores or 0, spill_loads or 0
        text += (
            f"; already spills {stores} B stores / {loads} B loads at {current} registers"
            if stores or loads
            else f"; no spills now at {current} registers"
        )
    return text


def _smem_cost(value: int, current: int, static: int, gains: bool, blocks: int) -> str:
    if gains:
        text = f"cut {current - value} B of shared memory per block (to {value} B)"
        return text + (f", {static - value} B of it static" if value < static else "")
    if blocks == 0:
        return f"adding {value - current} B per block makes the launch fail"
    return f"adding {value - current} B per block loses a block (up to {value - current - 1} B more are free)"


def _thread_cost(value: int, current: int, gains: bool) -> str:
    if gains:
        return (
            f"{_count(current - value, 'thread')} fewer per block: more, smaller blocks (the grid needs more of them)"
        )
    return f"adding {_count(value - current, 'thread')} per block loses a block"


def input_cliffs(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    state: DeviceState | None = None,
    spill_stores: int | None = None,
    spill_loads: int | None = None,
) -> tuple[InputCliff, ...]:
    """For registers, shared memory and block size: the nearest value gaining a block and the nearest losing one.

    Shared memory is the total per block: below the static size the static part is cut (dynamic at 0);
    block sizes are multiples of the warp size (a partial warp allocates as a whole one).
    """
    cc = device.compute_capability
    _, now_arr = _query(device, func, state, launch.block_size, launch.dynamic_smem)
    now = int(now_arr.reshape(-1)[0])
    max_warps = device.max_warps_per_multiprocessor
    out: list[InputCliff] = []

    def add(
        name: str, x: IntArray, blocks: IntArray, current: int, warps: IntArray, cost: Callable[[int, bool, int], str]
    ) -> None:
        for gains in (True, False):
            # More of any of these inputs never fits more blocks: gains lie below, losses above.
            i = _nearest(x, blocks, current, now, gains, upward=not gains)
            if i is not None:
                value, b = int(x[i]), int(blocks[i])
                if name == "shared_memory" and not gains and i > 0:
                    # x holds the top byte of each step, so a loss starts one byte past the previous step.
                    value = max(int(x[i - 1]) + 1, current + 1)
                out.append(InputCliff(name, gains, value, current, b, int(warps[i]) / max_warps, cost(value, gains, b)))

    regs = np.arange(0, arch.reg_allocation_max_per_thread(cc) + 1, dtype=np.int64)
    _, b = _query(device, func, state, launch.block_size, launch.dynamic_smem, num_regs=regs)
    add(
        "registers",
        regs,
        b,
        func.num_regs,
        b * _warps(device, launch.block_size),
        lambda v, g, _b: _register_cost(v, func.num_regs, g, spill_stores, spill_loads),
    )
    total, static = func.shared_size_bytes + launch.dynamic_smem, func.shared_size_bytes
    x = shared_memory_steps(device, include=(total, static, static + func.resolved_max_dynamic_smem(device)))
    static_x = np.minimum(static, x)
    max_dyn = (
        np.maximum(0, device.shared_mem_per_block - static_x)
        if func.max_dynamic_shared_size_bytes is None
        else func.max_dynamic_shared_size_bytes
    )
    _, b = _query(
        device, func, state, launch.block_size, x - static_x, shared_size_bytes=static_x, max_dynamic_smem=max_dyn
    )
    add(
        "shared_memory",
        x,
        b,
        total,
        b * _warps(device, launch.block_size),
        lambda v, g, bl: _smem_cost(v, total, static, g, bl),
    )
    sizes = np.array(launch_candidates(device, func, launch.block_size), dtype=np.int64)
    _, b = _query(device, func, state, sizes, launch.dynamic_smem)
    add(
        "threads",
        sizes,
        b,
        launch.block_size,
        b * _warps(device, sizes),
        lambda v, g, _b: _thread_cost(v, launch.block_size, g),
    )
    return tuple(out)


def shared_memory_steps(device: DeviceProperties, include: tuple[int, ...] = ()) -> IntArray:
    """Shared memory per block at the top byte of every allocation step, from 0 to past the opt-in limit."""
    cc = device.compute_capability
    granularity = arch.smem_allocation_granularity(cc)
    reserved = device.reserved_shared_mem_per_block if arch.reserves_shared_memory(cc) else 0
    top = max(device.shared_mem_per_block_optin, device.shared_mem_per_block) + granularity
    steps = np.arange(1, (top + reserved) // granularity + 1, dtype=np.int64) * granularity - reserved
    return np.unique(np.concatenate([[0], steps[steps >= 0], np.asarray(include, dtype=np.int64)]))


# --------------------------------------------------------------------------------- headroom
@dataclass(frozen=True)
class HeadroomRow:
    """Dynamic shared memory that keeps ``num_blocks`` resident: exact, beside the header's figure."""

    num_blocks: int
    exact: int | None
    header: int | None
    """``cudaOccAvailableDynamicSMemPerBlock`` (a ``size_t``: a wrapped subtraction is a huge value)."""
    blocks_at_exact: int
    capped: bool
    """``exact`` is the kernel's max dynamic shared memory attribute: the attribute stops it, not the SM."""

    @property
    def differs(self) -> bool:
        return self.header != self.exact


def smem_headroom(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None, extra: int = 2
) -> tuple[HeadroomRow, ...]:
    """Rows for N = 1 … current blocks, and up to ``extra`` more where any dynamic size reaches them."""
    _, now = _query(device, func, state, launch.block_size, launch.dynamic_smem)
    _, reach = _query(device, func, state, launch.block_size, 0)
    top = min(int(reach.reshape(-1)[0]), max(int(now.reshape(-1)[0]), 1) + extra)
    rows = []
    for n in range(1, top + 1):
        h = dynamic_smem_headroom(device, func, n, launch.block_size, state)
        blocks = (
            0 if h.exact is None else int(_query(device, func, state, launch.block_size, h.exact)[1].reshape(-1)[0])
        )
        capped = h.exact is not None and h.exact == func.resolved_max_dynamic_smem(device)
        rows.append(HeadroomRow(n, h.exact, h.reference, blocks, capped))
    return tuple(rows)


# --------------------------------------------------------------------------------- launch bounds
@dataclass(frozen=True)
class RegisterTarget:
    """A block count reachable at the current block size by changing registers alone, and the cap for it."""

    block_size: int
    min_blocks: int
    occupancy: float
    max_registers: int
    """The largest registers per thread that still keeps ``min_blocks`` resident (a cap nvcc accepts: ≤ 255)."""

    @property
    def launch_bounds(self) -> str:
        return f"__launch_bounds__({self.block_size}, {self.min_blocks})"

    @property
    def maxrregcount(self) -> str:
        return f"-maxrregcount={self.max_registers}"


def register_targets(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None
) -> tuple[RegisterTarget, ...]:
    """Every resident-block count some register count reaches, lowest first, with its register cap."""
    regs = np.arange(0, arch.reg_allocation_max_per_thread(device.compute_capability) + 1, dtype=np.int64)
    _, blocks = _query(device, func, state, launch.block_size, launch.dynamic_smem, num_regs=regs)
    warps = int(_warps(device, launch.block_size))
    return tuple(
        RegisterTarget(
            launch.block_size,
            int(n),
            int(n) * warps / device.max_warps_per_multiprocessor,
            min(int(regs[blocks >= n].max()), MAX_REGISTER_CAP),
        )
        for n in np.unique(blocks[blocks > 0])
    )


def suggest_launch_bounds(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    min_blocks: int,
    state: DeviceState | None = None,
) -> RegisterTarget | None:
    """The register cap reaching ``min_blocks`` resident blocks at the current block size (``None``: none does)."""
    for target in register_targets(device, func, launch, state):
        if target.min_blocks >= min_blocks:
            return target
    return None


# --------------------------------------------------------------------------------- heat maps
@dataclass(frozen=True)
class LimitGrid:
    """Occupancy over block size (rows) × one other input (columns), with each cell's binding limit."""

    block_sizes: IntArray
    values: IntArray
    active_blocks: IntArray
    occupancy: FloatArray
    binding: IntArray
    """Index into ``BINDING_ORDER`` of the cell's binding limit; ``NO_BLOCK_FITS`` where the resources
    leave no room for one block, ``CANNOT_LAUNCH`` where the block size cannot launch at all."""


def _grid(device: DeviceProperties, sizes: IntArray, values: IntArray, r: ResultArrays, blocks: IntArray) -> LimitGrid:
    binding = np.full(blocks.shape, -1, dtype=np.int64)
    for i, limit in reversed(list(enumerate(BINDING_ORDER))):
        binding = np.where(r.limit(limit) == blocks, i, binding)
    binding = np.where(blocks > 0, binding, NO_BLOCK_FITS)
    binding = np.where(r.launchable != 0, binding, CANNOT_LAUNCH)
    occupancy = blocks * _warps(device, sizes)[:, None] / device.max_warps_per_multiprocessor
    return LimitGrid(sizes, values, blocks, occupancy, binding)


def warp_multiples(device: DeviceProperties) -> IntArray:
    return np.arange(device.warp_size, device.max_threads_per_block + 1, device.warp_size, dtype=np.int64)


def grid_block_size_registers(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None
) -> LimitGrid:
    """Block sizes (multiples of the warp size) × every register count, in one vectorised query."""
    sizes = warp_multiples(device)
    regs = np.arange(0, arch.reg_allocation_max_per_thread(device.compute_capability) + 1, dtype=np.int64)
    r, blocks = _query(device, func, state, sizes[:, None], launch.dynamic_smem, num_regs=regs[None, :])
    return _grid(device, sizes, regs, r, blocks)


def grid_block_size_shared_memory(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    state: DeviceState | None = None,
    upto: int | None = None,
) -> LimitGrid:
    """Block sizes × shared memory per block (static + dynamic): one column per allocation step, at its top byte.

    Columns are evenly spaced by the allocation granularity, the first being the step that holds the
    static size, so column ``j`` stands for every size in ``(values[j] - granularity, values[j]]``.
    ``upto`` ends the columns at the step holding that many bytes (default: past the opt-in limit).
    """
    cc = device.compute_capability
    granularity = arch.smem_allocation_granularity(cc)
    reserved = device.reserved_shared_mem_per_block if arch.reserves_shared_memory(cc) else 0
    first = -(-(func.shared_size_bytes + reserved) // granularity)
    last = (max(device.shared_mem_per_block_optin, device.shared_mem_per_block) + reserved) // granularity + 1
    if upto is not None:
        last = max(first, min(last, -(-(upto + reserved) // granularity)))
    total = np.arange(first, last + 1, dtype=np.int64) * granularity - reserved
    sizes = warp_multiples(device)
    r, blocks = _query(device, func, state, sizes[:, None], (total - func.shared_size_bytes)[None, :])
    return _grid(device, sizes, total, r, blocks)


# --------------------------------------------------------------------------------- all at once
@dataclass(frozen=True)
class Advice:
    """Everything the advisor panel shows for one session state."""

    block_size: BlockSizeAdvice
    cliffs: tuple[InputCliff, ...]
    headroom: tuple[HeadroomRow, ...]
    targets: tuple[RegisterTarget, ...]


def advise(
    device: DeviceProperties,
    func: FunctionAttributes,
    launch: Launch,
    state: DeviceState | None = None,
    dynamic_smem: DynamicSmem | None = None,
    spill_stores: int | None = None,
    spill_loads: int | None = None,
) -> Advice:
    """The whole advice; ``dynamic_smem`` (for the block size ranking) defaults to the launch's constant bytes."""
    dyn = dynamic_smem if dynamic_smem is not None else DynamicSmem(launch.dynamic_smem)
    return Advice(
        block_size=advise_block_size(device, func, launch.block_size, dyn, state),
        cliffs=input_cliffs(device, func, launch, state, spill_stores, spill_loads),
        headroom=smem_headroom(device, func, launch, state),
        targets=register_targets(device, func, launch, state),
    )
