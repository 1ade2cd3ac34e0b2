"""Heat-map grids for AMD: occupancy over block size × VGPRs and block size × LDS, by either rule.

* The HIP runtime's grids are the rule of ``hip_runtime.max_active_blocks`` written over numpy arrays (one
  vectorised pass; a call per cell costs 10-15 µs, some 100 ms per map), each cell equal to that function's
  answer (``tests/engine/amd/test_grids.py`` checks every cell against it).  Rows are the wave-aligned block
  sizes (the rule sees only ``alignUp(block, wave)``), columns every VGPR count, or LDS per workgroup in steps.
* The compiler model's grids (``compiler_grids``) share ``AmdGrid`` and the columns.  LLVM's answer depends on
  the kernel's maximum flat workgroup size (its launch bound), not on the block launched, so their rows are that
  bound; and it sees static LDS only.  They do not depend on the launch at all, so a caller may keep one while
  only the block or the dynamic LDS changes.

A cell's ``binding`` is the index in ``HIP_LIMITS`` (or ``COMPILER_LIMITS``) of the first limit equal to its
answer; ``NO_BLOCK_FITS`` where the answer is 0, ``FAILS`` where the runtime returns an error (more VGPRs than a
SIMD holds: ``hipErrorUnknown``; more SGPRs than it holds: no answer).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .hip_runtime import HIP_LIMITS, INT_MAX, SGPR_GRANULE, align_up
from .types import AmdDevice, AmdKernel, AmdLaunch

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

NO_BLOCK_FITS = -1
"""A cell whose answer is 0 blocks (0 waves per SIMD for the compiler model)."""
FAILS = -2
"""A cell where the runtime returns an error instead of a count."""


@dataclass(frozen=True)
class AmdGrid:
    """Occupancy over block size (rows) × one other input (columns), with each cell's binding limit.

    ``active_blocks`` holds blocks per multiprocessor for the runtime, waves per SIMD for the compiler model
    (whose rows are the maximum flat workgroup size); ``limits`` names the ``binding`` indices."""

    block_sizes: IntArray
    values: IntArray
    active_blocks: IntArray
    occupancy: FloatArray
    binding: IntArray
    limits: tuple[str, ...]


def wave_aligned_blocks(device: AmdDevice, kernel: AmdKernel) -> IntArray:
    """The kernel's wave size and its multiples up to the target's largest workgroup."""
    wave = kernel.resolved_wave_size(device.target)
    return np.arange(wave, device.target.max_workgroup_size + 1, wave, dtype=np.int64)


def lds_columns(device: AmdDevice, kernel: AmdKernel, upto: int | None = None) -> IntArray:
    """LDS per workgroup in LLVM's LDS granule steps, from the step holding the static LDS to ``upto`` (default the
    runtime's per-workgroup LDS); each column is sampled at its top byte."""
    step = device.target.llvm_lds_granule
    top = device.target.lds_per_workgroup if upto is None else max(upto, 1)
    first = max(1, -(-kernel.static_lds // step))
    last = max(first, -(-top // step))
    return np.arange(first, last + 1, dtype=np.int64) * step


def binding_codes(answer: IntArray, limits: list[IntArray | None], failed: npt.NDArray[np.bool_]) -> IntArray:
    """Each cell's binding code: the index of the first limit equal to ``answer`` (``None`` limits and -1 cells
    never bind), ``NO_BLOCK_FITS`` where the answer is 0, ``FAILS`` where ``failed``."""
    binding = np.full(answer.shape, NO_BLOCK_FITS, dtype=np.int64)
    for i, limit in reversed(list(enumerate(limits))):
        if limit is not None:
            binding = np.where(limit == answer, i, binding)
    binding = np.where(answer > 0, binding, NO_BLOCK_FITS)
    return np.where(failed, FAILS, binding)


def _hip_grid(device: AmdDevice, kernel: AmdKernel, vgprs: IntArray, total_lds: IntArray, values: IntArray) -> AmdGrid:
    """The runtime's rule over ``vgprs`` and ``total_lds`` (broadcast to rows × columns) for every wave-aligned
    block size; ``kernel``'s other figures hold for every cell."""
    target = device.target
    wave = kernel.resolved_wave_size(target)
    simds = target.simds_per_cu * (2 if kernel.resolved_wgp_mode(target) else 1)
    cap = target.runtime_max_waves_per_simd
    halve = target.gfx_major >= 10 and wave == 64
    granule = target.runtime_vgpr_granule >> 1 if halve else target.runtime_vgpr_granule
    per_simd = target.runtime_vgprs_per_simd >> 1 if halve else target.runtime_vgprs_per_simd
    sizes = wave_aligned_blocks(device, kernel)
    aligned = sizes[:, None]
    shape = np.broadcast_shapes(aligned.shape, vgprs.shape, total_lds.shape)
    allocated = -(-vgprs // granule) * granule
    vgpr_waves = np.where(vgprs > 0, per_simd // np.maximum(allocated, 1), cap)
    sgpr_waves: int | None = None
    if kernel.sgprs > 0 and target.runtime_sgprs_per_simd is not None:
        sgpr_waves = target.runtime_sgprs_per_simd // align_up(kernel.sgprs, SGPR_GRANULE)
    failed = np.broadcast_to((vgpr_waves == 0) | (sgpr_waves == 0), shape)
    gpr_waves = vgpr_waves if sgpr_waves is None else np.minimum(vgpr_waves, sgpr_waves)
    alu = simds * np.minimum(cap, gpr_waves) * wave
    lds_blocks = np.where(total_lds > 0, target.lds_per_workgroup // np.maximum(total_lds, 1), INT_MAX)
    blocks = np.where(failed, 0, np.minimum(alu // aligned, lds_blocks)).astype(np.int64)
    limits: list[IntArray | None] = [
        None,
        np.broadcast_to(simds * cap * wave // aligned, shape),
        np.broadcast_to(np.where(vgprs > 0, simds * vgpr_waves * wave // aligned, -1), shape),
        None if sgpr_waves is None else np.broadcast_to(simds * sgpr_waves * wave // aligned, shape),
        np.broadcast_to(np.where(total_lds > 0, lds_blocks, -1), shape),
    ]
    occupancy = blocks * (aligned // wave) / (simds * cap)
    return AmdGrid(
        sizes, values, blocks, occupancy.astype(np.float64), binding_codes(blocks, limits, failed), HIP_LIMITS
    )


def hip_grid_vgprs(device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch) -> AmdGrid:
    """The runtime's blocks per multiprocessor over wave-aligned block sizes × every VGPR count 0..the
    addressable maximum, for the kernel's SGPRs and LDS and the launch's dynamic LDS."""
    vgprs = np.arange(0, device.target.llvm_addressable_vgprs + 1, dtype=np.int64)
    total = np.asarray(kernel.static_lds + launch.dynamic_lds, dtype=np.int64)
    return _hip_grid(device, kernel, vgprs[None, :], total, vgprs)


def hip_grid_lds(device: AmdDevice, kernel: AmdKernel, upto: int | None = None) -> AmdGrid:
    """The runtime's blocks per multiprocessor over wave-aligned block sizes × LDS per workgroup (static +
    dynamic, :func:`lds_columns`), for the kernel's VGPRs and SGPRs."""
    total = lds_columns(device, kernel, upto)
    return _hip_grid(device, kernel, np.asarray(kernel.vgprs, dtype=np.int64), total[None, :], total)
