"""The compiler's answer: the waves per SIMD LLVM's AMDGPU backend prints as ``; Occupancy: N``.

``AMDGPUAsmPrinter::getSIProgramInfo`` sets ``ProgInfo.Occupancy`` to ``AMDGPUMCExpr::createOccupancy``
of ``GCNSubtarget::computeOccupancy(F, LDSSize).second`` (the flat workgroup size range and the static
LDS), ``NumSGPRsForWavesPerEU`` and ``NumVGPRsForWavesPerEU``; ``AMDGPUMCExpr::evaluateOccupancy``
then takes the minimum with the waves the SGPRs and the VGPRs allow.  The register counts are the
kernel's, padded to what LLVM budgets for its maximum waves per EU (``getMinNumVGPRs`` /
``getMinNumSGPRs`` of ``SIMachineFunctionInfo::getMaxWavesPerEU``), which is how ``amdgpu-waves-per-eu``
lowers occupancy.

It is a compiler model, not the runtime's: it uses the kernel's *maximum* flat workgroup size (its launch
bound) rather than the block launched, static LDS only (dynamic LDS is unknown at compile time), and
LLVM's own granules, wave caps and LDS pools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import AmdInputError
from .llvm_isa import LlvmIsa
from .types import AmdKernel, AmdTarget

COMPILER_LIMITS = ("waves", "workgroup_size", "lds", "vgprs", "sgprs", "waves_per_eu")
"""The limits of the compiler model, each in waves per SIMD (None where it does not apply)."""


@dataclass(frozen=True)
class CompilerBudget:
    """The figures LLVM works from, for tables and explanations."""

    wave_size: int
    wgp_mode: bool
    eus_per_cu: int
    lds_pool: int
    flat_workgroup_sizes: tuple[int, int]
    vgpr_granule: int
    total_vgprs: int
    vgprs: int
    """VGPRs for occupancy before padding: max(total VGPRs, the descriptor's allocation, 1)."""
    sgprs: int
    """SGPRs for occupancy before padding: max(``.sgpr_count``, the descriptor's allocation, 1)."""
    waves_per_eu: tuple[int, int]
    """The (min, max) waves per EU LLVM budgets registers for (``getWavesPerEU``)."""
    padded_vgprs: int
    padded_sgprs: int


@dataclass(frozen=True)
class CompilerResult:
    """``; Occupancy: N`` and the waves each resource allows."""

    waves_per_simd: int
    max_waves_per_simd: int
    limits: dict[str, int | None] = field(hash=False)
    budget: CompilerBudget

    @property
    def occupancy(self) -> float:
        """Waves per SIMD over LLVM's wave cap for the target (``getMaxWavesPerEU``)."""
        return self.waves_per_simd / self.max_waves_per_simd

    @property
    def binding(self) -> tuple[str, ...]:
        return tuple(k for k in COMPILER_LIMITS if self.limits.get(k) == self.waves_per_simd)

    def as_dict(self) -> dict[str, Any]:
        """The ``compiler`` object of the JSON contract (issue #40)."""
        return {
            "waves_per_simd": self.waves_per_simd,
            "occupancy": self.occupancy,
            "limits": {k: self.limits.get(k) for k in COMPILER_LIMITS},
            "binding": list(self.binding),
        }


def total_vgprs(target: AmdTarget, kernel: AmdKernel) -> int:
    """The VGPRs LLVM counts for occupancy: ``.vgpr_count``, or max(arch, acc) on a separate AGPR file."""
    if target.agpr_file == "separate":
        return max(kernel.vgprs, kernel.agprs)
    return kernel.vgprs


def _check(target: AmdTarget, kernel: AmdKernel) -> tuple[int, int]:
    for name in ("vgprs", "sgprs", "agprs", "allocated_vgprs", "allocated_sgprs", "static_lds"):
        if getattr(kernel, name) < 0:
            raise AmdInputError(f"{name} must not be negative, got {getattr(kernel, name)}")
    low, high = kernel.flat_workgroup_sizes(target)
    if not 1 <= low <= high <= target.max_workgroup_size:
        raise AmdInputError(f"max flat workgroup size {high} is outside 1..{target.max_workgroup_size}")
    if kernel.waves_per_eu is not None and kernel.waves_per_eu[0] < 1:
        raise AmdInputError(f"amdgpu-waves-per-eu minimum must be at least 1, got {kernel.waves_per_eu[0]}")
    return low, high


def compiler_occupancy(target: AmdTarget, kernel: AmdKernel) -> CompilerResult:
    """LLVM's ``; Occupancy`` for ``kernel`` compiled for ``target`` (its wave size and WGP mode)."""
    sizes = _check(target, kernel)
    isa = LlvmIsa(target, kernel.resolved_wave_size(target), kernel.resolved_wgp_mode(target))
    lds = kernel.static_lds
    waves_per_eu = isa.effective_waves_per_eu(kernel.waves_per_eu, sizes, lds)
    vgprs = max(total_vgprs(target, kernel), kernel.allocated_vgprs, 1)
    sgprs = max(kernel.sgprs, kernel.allocated_sgprs, 1)
    pad_vgprs, pad_sgprs = isa.min_vgprs(waves_per_eu[1]), isa.min_sgprs(waves_per_eu[1])
    padding = None
    if pad_vgprs > vgprs or pad_sgprs > sgprs:
        padding = min(isa.waves_with_vgprs(max(vgprs, pad_vgprs)), isa.waves_with_sgprs(max(sgprs, pad_sgprs)))
    limits: dict[str, int | None] = {
        "waves": isa.max_waves_per_eu,
        "workgroup_size": isa.occupancy_with_workgroup_sizes(0, sizes)[1],
        "lds": isa.occupancy_with_workgroup_sizes(lds, sizes)[1] if lds else None,
        "vgprs": isa.waves_with_vgprs(vgprs),
        "sgprs": isa.waves_with_sgprs(sgprs) if isa.sgpr_limited else None,
        "waves_per_eu": padding,
    }
    waves = min(v for v in limits.values() if v is not None)
    budget = CompilerBudget(
        isa.wave_size,
        isa.wgp,
        isa.eus_per_cu,
        isa.local_memory_size,
        sizes,
        isa.vgpr_granule,
        isa.total_vgprs,
        vgprs,
        sgprs,
        waves_per_eu,
        max(vgprs, pad_vgprs),
        max(sgprs, pad_sgprs),
    )
    return CompilerResult(waves, isa.max_waves_per_eu, limits, budget)
