"""Either AMD answer as limit rows a table can show beside NVIDIA's: what a block (or wave) asks for,
what it is given after rounding, what the hardware has, and the arithmetic in words.

Rows are vendor-neutral: ``name`` is the limit's key in the JSON contract, ``value`` is in ``unit``
(blocks per multiprocessor for the runtime, waves per SIMD for the compiler), None where it does not apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from .compiler import COMPILER_LIMITS, CompilerResult, total_vgprs
from .hip_runtime import HIP_LIMITS, HipRuntimeResult
from .llvm_isa import align_to
from .types import AmdDevice, AmdKernel, AmdLaunch, AmdTarget


@dataclass(frozen=True)
class AmdLimitRow:
    """One limit of one rule, with the figures behind it."""

    rule: str
    """"hip_runtime" or "compiler"."""
    name: str
    value: int | None
    unit: str
    requested: str
    allocated: str
    capacity: str
    calculation: str
    binding: bool


def _kib(nbytes: int) -> str:
    return f"{nbytes // 1024} KiB" if nbytes % 1024 == 0 and nbytes else f"{nbytes} B"


def hip_rows(result: HipRuntimeResult, device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch) -> list[AmdLimitRow]:
    """The runtime's limits as rows: blocks per multiprocessor (a WGP in WGP mode, else a CU)."""
    b = result.budget
    target = device.target
    binding = set(result.binding)
    aligned = b.aligned_block or launch.threads_per_block
    per_mp = f"{b.simds} SIMDs"

    def row(name: str, requested: str, allocated: str, capacity: str, calculation: str) -> AmdLimitRow:
        return AmdLimitRow(
            "hip_runtime",
            name,
            result.limits.get(name),
            "blocks",
            requested,
            allocated,
            capacity,
            calculation,
            name in binding,
        )

    lanes = f"⌊{b.simds} × {{}} waves × {b.wave_size} / {aligned}⌋"
    rows = [
        row(
            "workgroup_size",
            f"{launch.threads_per_block} threads",
            f"{aligned} threads ({aligned // b.wave_size} waves)",
            f"{target.max_workgroup_size} threads per block",
            "0: the block exceeds maxWorkGroupSize" if result.limits["workgroup_size"] == 0 else "within the limit",
        ),
        row(
            "waves",
            f"{aligned // b.wave_size} waves",
            f"{aligned // b.wave_size} waves",
            f"{b.simds * b.cap} waves ({per_mp} × {b.cap})",
            lanes.format(b.cap),
        ),
        row(
            "vgprs",
            f"{kernel.vgprs} VGPRs",
            f"{b.vgprs_allocated} VGPRs (granule {b.vgpr_granule})" if b.vgprs_allocated else "no VGPR limit",
            f"{b.vgprs_per_simd} VGPRs per SIMD" if b.vgprs_per_simd else "",
            f"{b.vgprs_per_simd} / {b.vgprs_allocated} = {b.vgpr_waves} waves; " + lanes.format(b.vgpr_waves)
            if b.vgprs_allocated
            else "the kernel reports no VGPRs",
        ),
        row(
            "sgprs",
            f"{kernel.sgprs} SGPRs",
            f"{b.sgprs_allocated} SGPRs (granule 16)" if b.sgprs_allocated else "no SGPR limit",
            f"{b.sgprs_per_simd} SGPRs per SIMD" if b.sgprs_per_simd else "not shared between waves",
            f"{b.sgprs_per_simd} / {b.sgprs_allocated} = {b.sgpr_waves} waves; " + lanes.format(b.sgpr_waves)
            if b.sgpr_waves is not None
            else "no SGPR limit on this target or kernel",
        ),
        row(
            "lds",
            f"{_kib(kernel.static_lds)} static + {_kib(launch.dynamic_lds)} dynamic",
            f"{b.lds_per_block} B (no granule)",
            f"{_kib(b.lds_per_workgroup)} LDS per workgroup",
            f"⌊{b.lds_per_workgroup} / {b.lds_per_block}⌋" if b.lds_per_block else "no LDS used",
        ),
    ]
    assert [r.name for r in rows] == list(HIP_LIMITS)
    return rows


def compiler_rows(result: CompilerResult, target: AmdTarget, kernel: AmdKernel) -> list[AmdLimitRow]:
    """LLVM's limits as rows: waves per SIMD each resource allows."""
    b = result.budget
    binding = set(result.binding)
    lo, hi = b.flat_workgroup_sizes
    lds_alloc = align_to(kernel.static_lds, target.llvm_lds_granule) if kernel.static_lds else 0

    def row(name: str, requested: str, allocated: str, capacity: str, calculation: str) -> AmdLimitRow:
        return AmdLimitRow(
            "compiler",
            name,
            result.limits.get(name),
            "waves per SIMD",
            requested,
            allocated,
            capacity,
            calculation,
            name in binding,
        )

    regs_vgpr = align_to(b.vgprs, b.vgpr_granule)
    rows = [
        row("waves", "", "", f"{result.max_waves_per_simd} waves per SIMD", "getMaxWavesPerEU"),
        row(
            "workgroup_size",
            f"flat workgroup size {lo}..{hi}",
            f"{-(-hi // b.wave_size)} waves per workgroup",
            f"{b.eus_per_cu} SIMDs per {'WGP' if b.wgp_mode else 'CU'}",
            "wave slots and workgroup (barrier) slots for the launch-bound range",
        ),
        row(
            "lds",
            f"{_kib(kernel.static_lds)} static (dynamic LDS is not known to the compiler)",
            f"{lds_alloc} B (granule {target.llvm_lds_granule})" if lds_alloc else "no static LDS",
            f"{_kib(b.lds_pool)} per {'WGP' if b.wgp_mode else 'CU'}",
            f"⌊{b.lds_pool} / {lds_alloc}⌋ workgroups" if lds_alloc else "no LDS limit",
        ),
        row(
            "vgprs",
            f"{total_vgprs(target, kernel)} VGPRs" + (f" ({kernel.agprs} AGPRs)" if kernel.agprs else ""),
            f"{regs_vgpr} VGPRs (granule {b.vgpr_granule})",
            f"{b.total_vgprs} VGPRs per SIMD",
            f"{b.total_vgprs} / {regs_vgpr}" if b.vgprs >= b.vgpr_granule else "fewer than one granule: the cap",
        ),
        row(
            "sgprs",
            f"{b.sgprs} SGPRs",
            f"{align_to(b.sgprs, target.llvm_sgpr_granule)} + {target.llvm_trap_sgprs} (trap)",
            f"{target.llvm_total_sgprs} SGPRs per SIMD",
            "SGPRs limit occupancy only before gfx10",
        )
        if result.limits["sgprs"] is not None
        else row("sgprs", f"{b.sgprs} SGPRs", "", "", "SGPRs limit occupancy only before gfx10"),
        row(
            "waves_per_eu",
            f"amdgpu-waves-per-eu {kernel.waves_per_eu}" if kernel.waves_per_eu else "not set",
            f"{b.padded_vgprs} VGPRs, {b.padded_sgprs} SGPRs",
            f"budget for {b.waves_per_eu[1]} waves per SIMD",
            "LLVM pads the register allocation to the maximum waves per EU it budgets for",
        ),
    ]
    assert [r.name for r in rows] == list(COMPILER_LIMITS)
    return rows
