"""The compiler model's heat-map grids, computed per row and per column instead of per cell.

LLVM's ``; Occupancy`` (``compiler.compiler_occupancy``) is the minimum of six limits.  Over a grid whose rows are
the maximum flat workgroup size (the launch bound) and whose columns are one other input, most of those limits
depend on the row only, so each grid calls the scalar rule once per row (or once per distinct column class) and
broadcasts, rather than once per cell (the old way: ~30 µs a call, both maps 206 ms on MI300X and 226 ms on
RX 7900 XTX on the GUI thread per kernel edit; now 4-16 ms, ``tests/benchmarks/bench_heatmap.py``):

* VGPR columns: the waves a VGPR count allows (``getNumWavesPerEUWithNumVGPRs``) come from one table over
  0..the addressable maximum, built with ``LlvmIsa.waves_with_vgprs`` itself; the ``amdgpu-waves-per-eu`` padding
  (``getMinNumVGPRs`` / ``getMinNumSGPRs``) is the row's and compared per cell exactly as ``compiler_occupancy``
  does.  The workgroup-size, LDS, wave-cap and SGPR limits are the row's.
* LDS columns: LLVM sees static LDS only through ``getOccupancyWithWorkGroupSizes``'s workgroups-per-CU
  quotient (the CU's or WGP's pool over the LDS rounded up to its granule), so columns with the same quotient
  share one answer: the scalar rule is called once per distinct quotient in each row.

``tests/engine/amd/test_grids.py`` checks every cell against ``compiler_occupancy``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .compiler import COMPILER_LIMITS, compiler_occupancy
from .grids import AmdGrid, IntArray, binding_codes, lds_columns, wave_aligned_blocks
from .llvm_isa import LlvmIsa, align_to
from .types import AmdDevice, AmdKernel

_ROW_LIMITS = ("waves", "workgroup_size", "lds", "sgprs")
"""The compiler model's limits that do not depend on the VGPR count."""


def _grid(sizes: IntArray, values: IntArray, waves: IntArray, cap: int, limits: dict[str, IntArray]) -> AmdGrid:
    ordered: list[IntArray | None] = [limits[name] for name in COMPILER_LIMITS]
    failed = np.zeros(waves.shape, dtype=np.bool_)
    return AmdGrid(
        sizes, values, waves, (waves / cap).astype(np.float64), binding_codes(waves, ordered, failed), COMPILER_LIMITS
    )


def compiler_grid_vgprs(device: AmdDevice, kernel: AmdKernel) -> AmdGrid:
    """LLVM's waves per SIMD over maximum flat workgroup sizes (wave multiples) × every VGPR count (no AGPRs, no
    descriptor allocation: the column is the kernel's VGPR count)."""
    target = device.target
    isa = LlvmIsa(target, kernel.resolved_wave_size(target), kernel.resolved_wgp_mode(target))
    vgprs = np.arange(0, target.llvm_addressable_vgprs + 1, dtype=np.int64)
    waves_with = np.asarray([isa.waves_with_vgprs(v) for v in range(len(vgprs))], dtype=np.int64)
    counted = np.maximum(vgprs, 1)  # compiler_occupancy's max(total VGPRs, allocated, 1) with no AGPRs, none allocated
    base = dataclasses.replace(kernel, vgprs=0, agprs=0, allocated_vgprs=0, required_block=0)
    sizes = wave_aligned_blocks(device, kernel)
    shape = (len(sizes), len(vgprs))
    limits = {name: np.full(shape, -1, dtype=np.int64) for name in COMPILER_LIMITS}
    waves = np.empty(shape, dtype=np.int64)
    for i, size in enumerate(sizes):
        row = compiler_occupancy(target, dataclasses.replace(base, max_threads=int(size)))
        fixed = [row.limits[name] for name in _ROW_LIMITS]
        for name, value in zip(_ROW_LIMITS, fixed, strict=True):
            limits[name][i] = -1 if value is None else value
        budget = row.budget
        pad_vgprs, pad_sgprs = isa.min_vgprs(budget.waves_per_eu[1]), isa.min_sgprs(budget.waves_per_eu[1])
        padded = (pad_vgprs > counted) | (pad_sgprs > budget.sgprs)
        padding_waves = np.minimum(
            waves_with[np.maximum(counted, pad_vgprs)], isa.waves_with_sgprs(max(budget.sgprs, pad_sgprs))
        )
        limits["vgprs"][i] = waves_with[counted]
        limits["waves_per_eu"][i] = np.where(padded, padding_waves, -1)
        row_min = min(v for v in fixed if v is not None)
        waves[i] = np.minimum(np.minimum(row_min, waves_with[counted]), np.where(padded, padding_waves, row_min))
    return _grid(sizes, vgprs, waves, isa.max_waves_per_eu, limits)


def compiler_grid_lds(device: AmdDevice, kernel: AmdKernel, upto: int | None = None) -> AmdGrid:
    """LLVM's waves per SIMD over maximum flat workgroup sizes × static LDS (the only LDS it sees), in its LDS
    granule steps, each the same for every byte of its step (LLVM rounds LDS up to the granule)."""
    target = device.target
    isa = LlvmIsa(target, kernel.resolved_wave_size(target), kernel.resolved_wgp_mode(target))
    total = lds_columns(device, kernel, upto)
    aligned = np.asarray([align_to(int(s), target.llvm_lds_granule) for s in total], dtype=np.int64)
    # The quotient getOccupancyWithWorkGroupSizes sees; -1 marks no LDS at all (the LDS limit does not apply).
    quotient = np.where(total > 0, isa.local_memory_size // np.maximum(aligned, 1), -1)
    _, first, which = np.unique(quotient, return_index=True, return_inverse=True)
    base = dataclasses.replace(kernel, required_block=0)
    sizes = wave_aligned_blocks(device, kernel)
    shape = (len(sizes), len(total))
    limits = {name: np.full(shape, -1, dtype=np.int64) for name in COMPILER_LIMITS}
    waves = np.empty(shape, dtype=np.int64)
    for i, size in enumerate(sizes):
        results = [
            compiler_occupancy(target, dataclasses.replace(base, static_lds=int(total[j]), max_threads=int(size)))
            for j in first
        ]
        waves[i] = np.asarray([r.waves_per_simd for r in results], dtype=np.int64)[which]
        for name in COMPILER_LIMITS:
            per_class = [-1 if (v := r.limits.get(name)) is None else v for r in results]
            limits[name][i] = np.asarray(per_class, dtype=np.int64)[which]
    return _grid(sizes, total, waves, isa.max_waves_per_eu, limits)
