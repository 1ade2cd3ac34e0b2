"""AMD step curves: both answers swept over block size, VGPRs and LDS, as the NVIDIA sweeps' ``StepCurve``.

Each sweep returns an ``AmdSweep`` holding two curves.  The runtime curve is the NVIDIA kind exactly:
blocks per multiprocessor, active waves (in ``active_warps``) and occupancy.  The compiler counts no blocks,
so its curve's ``active_blocks`` and ``active_warps`` hold waves per SIMD and its occupancy is over LLVM's
wave cap; a change of ``active_blocks`` is still where a cliff is.

Every point is one call of the scalar rules, so each point equals the calculator's answer; that costs about
25 µs per rule and point (the 1024-point block-size sweep of both rules takes about 50 ms on a 2-core machine,
``tests/benchmarks/bench_amd.py``), which an edit can afford, so no second, vectorised copy of the rules exists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..sweeps import StepCurve
from .compiler import compiler_occupancy
from .hip_runtime import max_active_blocks
from .types import AmdDevice, AmdKernel, AmdLaunch


@dataclass(frozen=True)
class AmdSweep:
    """The runtime's and the compiler's curve over the same input."""

    runtime: StepCurve
    compiler: StepCurve


def _curves(
    name: str,
    unit: str,
    xs: Sequence[int],
    edges: Sequence[float],
    current: int,
    runtime_at: Callable[[int], tuple[int, int, int]],
    compiler_at: Callable[[int], tuple[int, int]],
) -> AmdSweep:
    """``runtime_at(x)`` -> (blocks, waves, max waves); ``compiler_at(x)`` -> (waves per SIMD, cap)."""
    runtime = [runtime_at(x) for x in xs]
    compiler = [compiler_at(x) for x in xs]
    x = np.asarray(xs, dtype=np.int64)
    e = np.asarray(edges, dtype=np.float64)
    blocks = np.asarray([r[0] for r in runtime], dtype=np.int64)
    waves = np.asarray([r[1] for r in runtime], dtype=np.int64)
    occupancy = np.asarray([r[1] / r[2] for r in runtime], dtype=np.float64)
    c_waves = np.asarray([c[0] for c in compiler], dtype=np.int64)
    c_occ = np.asarray([c[0] / c[1] for c in compiler], dtype=np.float64)
    return AmdSweep(
        StepCurve(name, unit, x, e, blocks, waves, occupancy, current),
        StepCurve(name, unit, x, e, c_waves, c_waves, c_occ, current),
    )


def _unit_edges(xs: Sequence[int]) -> list[float]:
    return [xs[0] - 0.5 + i for i in range(len(xs) + 1)]


def _runtime(device: AmdDevice, kernel: AmdKernel, block: int, dynamic_lds: int) -> tuple[int, int, int]:
    r = max_active_blocks(device, kernel, block, dynamic_lds)
    return r.active_blocks, r.active_waves, r.max_waves


def _compiler(device: AmdDevice, kernel: AmdKernel) -> tuple[int, int]:
    c = compiler_occupancy(device.target, kernel)
    return c.waves_per_simd, c.max_waves_per_simd


def sweep_block_size(device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch) -> AmdSweep:
    """Every block size 1..1024: the runtime for that block, the compiler as if the launch bound were that block."""
    top = device.target.max_workgroup_size
    xs = list(range(1, top + 1))
    sweep = _curves(
        "threads per block",
        "threads",
        xs,
        _unit_edges(xs),
        launch.threads_per_block,
        lambda x: _runtime(device, kernel, x, launch.dynamic_lds),
        lambda x: _compiler(device, dataclasses.replace(kernel, max_threads=x, required_block=0)),
    )
    bound = kernel.flat_workgroup_sizes(device.target)[1]
    if bound < top:
        sweep = AmdSweep(dataclasses.replace(sweep.runtime, launch_bound=bound), sweep.compiler)
    return sweep


def sweep_vgprs(device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch) -> AmdSweep:
    """Every VGPR count 0..the addressable maximum (256; 512 on gfx90a and later), both rules."""
    xs = list(range(0, device.target.llvm_addressable_vgprs + 1))

    def with_vgprs(x: int) -> AmdKernel:
        return dataclasses.replace(kernel, vgprs=x, agprs=0, allocated_vgprs=0)

    return _curves(
        "VGPRs per lane",
        "VGPRs",
        xs,
        _unit_edges(xs),
        kernel.vgprs,
        lambda x: _runtime(device, with_vgprs(x), launch.threads_per_block, launch.dynamic_lds),
        lambda x: _compiler(device, with_vgprs(x)),
    )


def sweep_lds(device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch) -> AmdSweep:
    """LDS per workgroup from the kernel's static LDS to the runtime's per-workgroup maximum.

    The runtime is given the extra bytes as dynamic LDS; the compiler as static LDS (the only kind it sees).
    Only the byte counts where either answer can change are sampled: the runtime's ``⌊L / x⌋`` changes at
    ``x = ⌊L / k⌋ + 1``, LLVM's rounding at one past each granule multiple.  Each sample is the largest byte
    count of its step, so every byte in ``(edges[i], edges[i + 1]]`` has the values of sample ``i``.
    """
    target = device.target
    low, high = kernel.static_lds, max(target.lds_per_workgroup, kernel.static_lds + launch.dynamic_lds)
    pool = target.lds_per_workgroup
    starts = {low} | {pool // k + 1 for k in range(1, pool + 1) if low < pool // k + 1 <= high}
    starts |= {
        m * target.llvm_lds_granule + 1
        for m in range(low // target.llvm_lds_granule, high // target.llvm_lds_granule + 1)
        if low < m * target.llvm_lds_granule + 1 <= high
    }
    begin = sorted(starts)
    ends = [b - 1 for b in begin[1:]] + [high]
    edges = [begin[0] - 0.5] + [e + 0.5 for e in ends]
    return _curves(
        "LDS per workgroup",
        "bytes",
        ends,
        edges,
        kernel.static_lds + launch.dynamic_lds,
        lambda x: _runtime(device, kernel, launch.threads_per_block, x - kernel.static_lds),
        lambda x: _compiler(device, dataclasses.replace(kernel, static_lds=x)),
    )
