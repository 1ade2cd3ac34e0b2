"""Occupancy swept over one input (or two) with everything else held: the step curves and heat maps.

Every sweep is one call of the vectorised model, so each point equals the scalar engine's answer.
Points where the launch is invalid (status != 0, or a block that cannot launch: ``warps.launchable``) count
as 0 blocks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import architecture as arch
from ._int import IntArray
from .launch import Launch, build_query
from .occupancy import max_active_blocks
from .types import DeviceProperties, DeviceState, FunctionAttributes

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Cliff:
    """The nearest input value, in one direction, where resident blocks change."""

    x: int
    active_blocks: int
    occupancy: float


@dataclass(frozen=True)
class StepCurve:
    """Occupancy against one input: ``x`` holds the sampled values, ``edges`` their step boundaries.

    ``len(edges) == len(x) + 1``, as pyqtgraph's ``stepMode="center"`` expects: the value at
    ``x[i]`` holds from ``edges[i]`` to ``edges[i + 1]``.
    """

    name: str
    unit: str
    x: IntArray
    edges: FloatArray
    active_blocks: IntArray
    active_warps: IntArray
    occupancy: FloatArray
    current_x: int
    launch_bound: int | None = None
    """Block-size sweep only: the kernel's bound where it is below the device's; above it nothing launches."""
    reqntid: int | None = None
    """Block-size sweep only: the kernel's required block size (``.reqntid``); no other size launches."""

    def index_of(self, value: int) -> int:
        """Index of the step that holds ``value``."""
        return int(np.clip(np.searchsorted(self.edges, value, side="right") - 1, 0, len(self.x) - 1))

    def _cliff(self, indices: IntArray) -> Cliff | None:
        if indices.size == 0:
            return None
        i = int(indices[0])
        return Cliff(int(self.x[i]), int(self.active_blocks[i]), float(self.occupancy[i]))

    def cliff_above(self) -> Cliff | None:
        """The smallest swept value above the current one where resident blocks change.

        None on a block-size sweep with a required size (``.reqntid``): no other size launches."""
        if self.reqntid is not None:
            return None
        here = self.index_of(self.current_x)
        changed = np.flatnonzero(self.active_blocks[here + 1 :] != self.active_blocks[here]) + here + 1
        return self._cliff(changed)

    def cliff_below(self) -> Cliff | None:
        """The largest swept value below the current one where resident blocks change (None as above)."""
        if self.reqntid is not None:
            return None
        here = self.index_of(self.current_x)
        changed = np.flatnonzero(self.active_blocks[:here] != self.active_blocks[here])[::-1]
        return self._cliff(changed)


def _curve(
    name: str,
    unit: str,
    device: DeviceProperties,
    x: IntArray,
    edges: FloatArray,
    blocks: IntArray,
    warps_per_block: IntArray,
    current: int,
) -> StepCurve:
    warps = blocks * warps_per_block
    return StepCurve(name, unit, x, edges, blocks, warps, warps / device.max_warps_per_multiprocessor, current)


def _unit_edges(x: IntArray) -> FloatArray:
    return np.arange(len(x) + 1, dtype=np.float64) + float(x[0]) - 0.5


def sweep_block_size(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None
) -> StepCurve:
    """Occupancy for every block size from 1 to the device's maximum."""
    x = np.arange(1, device.max_threads_per_block + 1, dtype=np.int64)
    r = max_active_blocks(device, build_query(device, func, state or DeviceState(), x, launch.dynamic_smem))
    warps = -(-x // device.warp_size)
    curve = _curve(
        "threads per block", "threads", device, x, _unit_edges(x), r.resident_blocks, warps, launch.block_size
    )
    if func.max_threads_per_block < device.max_threads_per_block:
        curve = dataclasses.replace(curve, launch_bound=func.max_threads_per_block)
    if func.reqntid > 0:
        curve = dataclasses.replace(curve, reqntid=func.reqntid)
    return curve


def sweep_registers(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None
) -> StepCurve:
    """Occupancy for every register count from 0 to the architecture's per-thread maximum."""
    x = np.arange(0, arch.reg_allocation_max_per_thread(device.compute_capability) + 1, dtype=np.int64)
    r = max_active_blocks(
        device, build_query(device, func, state or DeviceState(), launch.block_size, launch.dynamic_smem, num_regs=x)
    )
    warps = np.full_like(x, -(-launch.block_size // device.warp_size))
    return _curve(
        "registers per thread", "registers", device, x, _unit_edges(x), r.resident_blocks, warps, func.num_regs
    )


def sweep_shared_memory(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None
) -> StepCurve:
    """Occupancy against shared memory per block (static + dynamic), varying the dynamic part.

    Allocation changes only at granularity steps, so each sample is the largest byte count of one
    allocation step and ``edges`` are exact: every byte count in ``(edges[i], edges[i+1]]`` gets
    ``active_blocks[i]``.
    """
    cc = device.compute_capability
    granularity = arch.smem_allocation_granularity(cc)
    reserved = device.reserved_shared_mem_per_block
    top = max(device.shared_mem_per_block_optin, device.shared_mem_per_block) + granularity
    steps = np.arange(1, (top + reserved) // granularity + 1, dtype=np.int64) * granularity - reserved
    x = steps[steps >= max(func.shared_size_bytes, 1)]
    x = np.concatenate([[func.shared_size_bytes], x]) if func.shared_size_bytes not in x else x
    r = max_active_blocks(
        device, build_query(device, func, state or DeviceState(), launch.block_size, x - func.shared_size_bytes)
    )
    edges = np.concatenate([[x[0] - 0.5], x[:-1] + 0.5, [x[-1] + 0.5]]).astype(np.float64)
    warps = np.full_like(x, -(-launch.block_size // device.warp_size))
    current = func.shared_size_bytes + launch.dynamic_smem
    return _curve("shared memory per block", "bytes", device, x, edges, r.resident_blocks, warps, current)


def sweep_barriers(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None, upto: int = 32
) -> StepCurve:
    """Occupancy for 0..``upto`` block barriers (the limit applies from compute capability 9.0)."""
    x = np.arange(0, max(upto, func.num_block_barriers) + 1, dtype=np.int64)
    r = max_active_blocks(
        device,
        build_query(device, func, state or DeviceState(), launch.block_size, launch.dynamic_smem, num_block_barriers=x),
    )
    warps = np.full_like(x, -(-launch.block_size // device.warp_size))
    return _curve(
        "block barriers", "barriers", device, x, _unit_edges(x), r.resident_blocks, warps, func.num_block_barriers
    )


@dataclass(frozen=True)
class OccupancyGrid:
    """Occupancy over block size (rows) × registers per thread (columns)."""

    block_sizes: IntArray
    registers: IntArray
    active_blocks: IntArray
    occupancy: FloatArray
    limiting_factors: IntArray


def sweep_block_size_registers(
    device: DeviceProperties, func: FunctionAttributes, launch: Launch, state: DeviceState | None = None
) -> OccupancyGrid:
    """Every block size 1..max × every register count 0..max in one vectorised query."""
    sizes = np.arange(1, device.max_threads_per_block + 1, dtype=np.int64)[:, None]
    regs = np.arange(0, arch.reg_allocation_max_per_thread(device.compute_capability) + 1, dtype=np.int64)[None, :]
    r = max_active_blocks(
        device, build_query(device, func, state or DeviceState(), sizes, launch.dynamic_smem, num_regs=regs)
    )
    blocks = r.resident_blocks
    warps = -(-sizes // device.warp_size)
    return OccupancyGrid(
        sizes[:, 0], regs[0], blocks, blocks * warps / device.max_warps_per_multiprocessor, r.limiting_factors
    )
