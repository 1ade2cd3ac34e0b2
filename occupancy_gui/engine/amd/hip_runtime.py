"""The HIP runtime's answer: ``hip_impl::ihipOccupancyMaxActiveBlocksPerMultiprocessor``, line for line.

Source: ROCm/rocm-systems ``projects/clr/hipamd/src/hip_platform.cpp`` (ROCm 7.x), the function of that
name at the top of the file.  What it does, in the order it does it:

1. a block above the device's ``maxWorkGroupSize_`` (1024) gives 0 blocks and a 0 grid (or, when asked for
   the potential block size, is replaced by 1024); a block of 0 or less is ``hipErrorInvalidValue``;
2. ``MaxWavesPerSimd`` is 8 for gfx9 and earlier, 16 after;
3. for a wave64 kernel on gfx10+ the VGPR granule and the VGPRs per SIMD are halved;
4. VGPR waves = VGPRs per SIMD / alignUp(vgprs, granule) (the cap when the kernel reports 0 VGPRs);
   0 waves returns ``hipErrorUnknown``;
5. SGPR waves = SGPRs per SIMD / alignUp(sgprs, 16), only where sgprs > 0 (800 per SIMD on gfx8-9;
   ``UINT32_MAX`` on gfx10+, i.e. no limit); 0 SGPR waves (above 800 SGPRs, which no compiler emits: a wave
   addresses at most 112) leaves 0 ALU threads and the runtime's ``alu_limited_threads / bestBlockSize``
   divides by zero, so there is no answer to copy: the result is an error saying so, not a number;
6. SIMDs = the ISA table's SIMDs per CU, doubled for a kernel compiled in WGP mode;
7. ALU threads = SIMDs × min(cap, min(VGPR waves, SGPR waves)) × wave size;
8. LDS blocks = LDS per workgroup / (static + dynamic LDS), no granule (no limit when both are 0);
9. blocks = min(ALU threads / alignUp(block, wave size), LDS blocks);
10. best block = min(ALU threads, aligned block); grid = CUs × min(ALU threads / best block, LDS blocks),
    where CUs is ``maxComputeUnits_`` (already halved in WGP mode) ×2 or ÷2 when the kernel's WGP mode
    differs from the device's.

"Multiprocessor" is what HIP counts: a WGP on RDNA in WGP mode, a CU otherwise.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .errors import AmdInputError
from .types import AmdDevice, AmdKernel, AmdLaunch

HIP_LIMITS = ("workgroup_size", "waves", "vgprs", "sgprs", "lds")
"""The JSON contract's limit keys, in the order rows are shown."""

SGPR_GRANULE = 16
"""``amd::alignUp(wrkGrpInfo->usedSGPRs_, 16)`` in ``hip_platform.cpp``."""

INT_MAX = 2**31 - 1


def align_up(value: int, granule: int) -> int:
    """``amd::alignUp``: the next multiple of ``granule`` at or above ``value``."""
    return -(-value // granule) * granule


@dataclass(frozen=True)
class HipBudget:
    """The per-SIMD figures the rule derived, for tables and explanations (None: that step did not run)."""

    wave_size: int
    simds: int
    cap: int
    vgpr_granule: int | None = None
    vgprs_per_simd: int | None = None
    vgprs_allocated: int | None = None
    vgpr_waves: int | None = None
    sgprs_per_simd: int | None = None
    sgprs_allocated: int | None = None
    sgpr_waves: int | None = None
    lds_per_block: int = 0
    lds_per_workgroup: int = 0
    aligned_block: int = 0


@dataclass(frozen=True)
class HipRuntimeResult:
    """What ``hipOccupancyMaxActiveBlocksPerMultiprocessor`` returns, with every limit that led there.

    ``limits`` holds the blocks each resource alone allows (None where a limit does not apply);
    ``error`` is the HIP error the call returns with its reason, or None.
    """

    active_blocks: int
    waves_per_block: int
    limits: dict[str, int | None] = field(hash=False)
    best_block_size: int
    grid_blocks: int | None
    error: str | None
    budget: HipBudget

    @property
    def active_waves(self) -> int:
        return self.active_blocks * self.waves_per_block

    @property
    def max_waves(self) -> int:
        """The occupancy's denominator: SIMDs × the runtime's wave cap."""
        return self.budget.simds * self.budget.cap

    @property
    def occupancy(self) -> float:
        return self.active_waves / self.max_waves

    @property
    def binding(self) -> tuple[str, ...]:
        """Every limit whose blocks equal the answer (ties all listed); on an error, the limit that failed."""
        if self.error is not None:
            if self.error.startswith("hipErrorUnknown"):
                return ("vgprs",)
            return ("sgprs",) if self.error.startswith("no answer") else ()
        return tuple(k for k in HIP_LIMITS if self.limits.get(k) == self.active_blocks)

    def as_dict(self) -> dict[str, Any]:
        """The ``hip_runtime`` object of the JSON contract (issue #40)."""
        return {
            "active_blocks": self.active_blocks,
            "active_waves": self.active_waves,
            "occupancy": self.occupancy,
            "limits": {k: self.limits.get(k) for k in HIP_LIMITS},
            "binding": list(self.binding),
            "best_block_size": self.best_block_size,
            "grid_blocks": self.grid_blocks,
            "error": self.error,
        }


def _check(kernel: AmdKernel, dynamic_lds: int) -> None:
    for name in ("vgprs", "sgprs", "agprs", "allocated_vgprs", "static_lds", "scratch"):
        if getattr(kernel, name) < 0:
            raise AmdInputError(f"{name} must not be negative, got {getattr(kernel, name)}")
    if dynamic_lds < 0:
        raise AmdInputError(f"dynamic LDS must not be negative, got {dynamic_lds}")


def _vgpr_budget(device: AmdDevice, kernel: AmdKernel, wave: int) -> tuple[int, int]:
    """(granule, VGPRs per SIMD) as the runtime uses them: halved for wave64 on gfx10+."""
    target = device.target
    halve = target.gfx_major >= 10 and wave == 64
    granule = target.runtime_vgpr_granule >> 1 if halve else target.runtime_vgpr_granule
    per_simd = target.runtime_vgprs_per_simd >> 1 if halve else target.runtime_vgprs_per_simd
    return granule, per_simd


def _grid_cus(device: AmdDevice, kernel_wgp: bool) -> int | None:
    """``maxCUs`` of the grid size: ``maxComputeUnits_`` ×2 / ÷2 where the kernel's WGP mode differs."""
    count = device.multiprocessor_count
    if count is None:
        return None
    device_wgp = device.runtime_wgp_mode
    if kernel_wgp == device_wgp:
        return count
    return count // 2 if kernel_wgp else count * 2


def max_active_blocks(
    device: AmdDevice, kernel: AmdKernel, block_size: int, dynamic_lds: int = 0, *, potential: bool = False
) -> HipRuntimeResult:
    """``ihipOccupancyMaxActiveBlocksPerMultiprocessor(…, inputBlockSize, dynamicSMemSize, bCalcPotentialBlkSz)``."""
    _check(kernel, dynamic_lds)
    target = device.target
    wave = kernel.resolved_wave_size(target)
    kernel_wgp = kernel.resolved_wgp_mode(target)
    simds = target.simds_per_cu * (2 if kernel_wgp else 1)
    cap = target.runtime_max_waves_per_simd
    max_wg = target.max_workgroup_size
    if not potential:
        if block_size <= 0:
            return _failed(
                HipBudget(wave, simds, cap),
                block_size,
                f"hipErrorInvalidValue: a block of {block_size} threads is not a block",
            )
        if block_size > max_wg:
            return HipRuntimeResult(
                0,
                -(-block_size // wave),
                dict.fromkeys(HIP_LIMITS) | {"workgroup_size": 0},
                0,
                None if device.compute_units is None else 0,
                None,
                HipBudget(wave, simds, cap, aligned_block=align_up(block_size, wave)),
            )
    elif block_size > max_wg or block_size <= 0:
        block_size = max_wg
    granule, vgprs_per_simd = _vgpr_budget(device, kernel, wave)
    allocated = align_up(kernel.vgprs, granule) if kernel.vgprs > 0 else None
    vgpr_waves = vgprs_per_simd // allocated if allocated else cap
    aligned = align_up(block_size, wave)
    total_lds = kernel.static_lds + dynamic_lds
    budget = HipBudget(
        wave,
        simds,
        cap,
        granule,
        vgprs_per_simd,
        allocated,
        vgpr_waves,
        lds_per_block=total_lds,
        lds_per_workgroup=target.lds_per_workgroup,
        aligned_block=aligned,
    )
    if vgpr_waves == 0:
        return _failed(
            budget,
            block_size,
            f"hipErrorUnknown: {kernel.vgprs} VGPRs exceed the {vgprs_per_simd} per SIMD"
            + (" (wave64)" if target.gfx_major >= 10 and wave == 64 else ""),
        )
    sgprs_per_simd = target.runtime_sgprs_per_simd
    sgpr_waves: int | None = None
    sgprs_allocated: int | None = None
    if kernel.sgprs > 0 and sgprs_per_simd is not None:
        sgprs_allocated = align_up(kernel.sgprs, SGPR_GRANULE)
        sgpr_waves = sgprs_per_simd // sgprs_allocated
    if sgpr_waves == 0:
        budget = dataclasses.replace(
            budget, sgprs_per_simd=sgprs_per_simd, sgprs_allocated=sgprs_allocated, sgpr_waves=0
        )
        return _failed(
            budget,
            block_size,
            f"no answer: {kernel.sgprs} SGPRs exceed the {sgprs_per_simd} per SIMD (the runtime divides by zero here)",
        )
    gpr_waves = vgpr_waves if sgpr_waves is None else min(vgpr_waves, sgpr_waves)
    alu_threads = simds * min(cap, gpr_waves) * wave
    lds_blocks = target.lds_per_workgroup // total_lds if total_lds else INT_MAX
    blocks = min(alu_threads // aligned, lds_blocks)
    best = min(alu_threads, aligned)
    cus = _grid_cus(device, kernel_wgp)
    grid = None if cus is None else cus * min(alu_threads // best, lds_blocks)
    limits: dict[str, int | None] = {
        "workgroup_size": None,
        "waves": simds * cap * wave // aligned,
        "vgprs": simds * vgpr_waves * wave // aligned if allocated else None,
        "sgprs": simds * sgpr_waves * wave // aligned if sgpr_waves is not None else None,
        "lds": lds_blocks if total_lds else None,
    }
    budget = HipBudget(
        wave,
        simds,
        cap,
        granule,
        vgprs_per_simd,
        allocated,
        vgpr_waves,
        sgprs_per_simd,
        sgprs_allocated,
        sgpr_waves,
        total_lds,
        target.lds_per_workgroup,
        aligned,
    )
    return HipRuntimeResult(blocks, aligned // wave, limits, best, grid, None, budget)


def _failed(budget: HipBudget, block_size: int, error: str) -> HipRuntimeResult:
    limits: dict[str, int | None] = dict.fromkeys(HIP_LIMITS)
    if error.startswith("hipErrorUnknown"):
        limits["vgprs"] = 0
    elif error.startswith("no answer"):
        limits["sgprs"] = 0
    waves = -(-block_size // budget.wave_size) if block_size > 0 else 0
    return HipRuntimeResult(0, waves, limits, 0, None, error, budget)


def hip_occupancy(device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch) -> HipRuntimeResult:
    """``hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, dynamicLDS)`` with its grid size.

    ``best_block_size`` is what ``hipOccupancyMaxPotentialBlockSize`` suggests for the same kernel and
    dynamic LDS (the block the call above uses internally is the launched one, rounded to whole waves).
    """
    result = max_active_blocks(device, kernel, launch.threads_per_block, launch.dynamic_lds)
    if result.error is not None:
        return result
    best = max_active_blocks(device, kernel, 0, launch.dynamic_lds, potential=True).best_block_size
    return dataclasses.replace(result, best_block_size=best)


def hip_potential_block_size(
    device: AmdDevice, kernel: AmdKernel, dynamic_lds: int = 0, block_size_limit: int = 0
) -> HipRuntimeResult:
    """``hipOccupancyMaxPotentialBlockSize``: no search; the largest wave-aligned block the ALU budget
    allows (``best_block_size``) and its grid (``grid_blocks``).  ``block_size_limit`` 0 means 1024."""
    return max_active_blocks(device, kernel, block_size_limit, dynamic_lds, potential=True)
