"""The AMD advisor's register table: the VGPR counts at which waves per SIMD change, for each rule.

For every waves-per-SIMD level a rule can reach, the largest VGPR count (per lane, as ``.vgpr_count``)
that still reaches it.  The runtime and LLVM give different tables where their granules or register files
differ (gfx10.3: comgr's granule 8 against LLVM's 16) and where their wave caps differ (gfx9: 8 against 10).
A hint says which attribute asks the compiler for the next level.
"""

from __future__ import annotations

from dataclasses import dataclass

from .compiler import compiler_occupancy, total_vgprs
from .hip_runtime import align_up
from .llvm_isa import LlvmIsa
from .types import AmdKernel, AmdTarget


@dataclass(frozen=True)
class VgprStep:
    """At most ``max_vgprs`` VGPRs give ``waves`` waves per SIMD under ``rule`` ("hip_runtime" or "compiler")."""

    rule: str
    waves: int
    max_vgprs: int


def _runtime_waves(target: AmdTarget, wave: int, vgprs: int) -> int:
    halve = target.gfx_major >= 10 and wave == 64
    granule = target.runtime_vgpr_granule >> (1 if halve else 0)
    per_simd = target.runtime_vgprs_per_simd >> (1 if halve else 0)
    if vgprs == 0:
        return target.runtime_max_waves_per_simd
    return min(target.runtime_max_waves_per_simd, per_simd // align_up(vgprs, granule))


def vgpr_steps(target: AmdTarget, kernel: AmdKernel) -> list[VgprStep]:
    """Both rules' steps over 1..the addressable VGPRs, for the kernel's wave size and mode, highest waves first.

    The runtime's level 0 (``hipErrorUnknown``) is left out: no VGPR count the compiler accepts reaches it.
    """
    wave = kernel.resolved_wave_size(target)
    isa = LlvmIsa(target, wave, kernel.resolved_wgp_mode(target))
    steps: list[VgprStep] = []
    for rule, waves_of in (
        ("hip_runtime", lambda v: _runtime_waves(target, wave, v)),
        ("compiler", isa.waves_with_vgprs),
    ):
        best: dict[int, int] = {}
        for vgprs in range(1, target.llvm_addressable_vgprs + 1):
            waves = waves_of(vgprs)
            if waves > 0:
                best[waves] = vgprs
        steps += [VgprStep(rule, w, best[w]) for w in sorted(best, reverse=True)]
    return steps


def next_vgpr_step(target: AmdTarget, kernel: AmdKernel) -> VgprStep | None:
    """The compiler's next higher level above the kernel's VGPR waves, or None at the cap."""
    current = compiler_occupancy(target, kernel).limits["vgprs"] or 0
    higher = [s for s in vgpr_steps(target, kernel) if s.rule == "compiler" and s.waves > current]
    return min(higher, key=lambda s: s.waves) if higher else None


def vgpr_hint(target: AmdTarget, kernel: AmdKernel) -> str | None:
    """How to ask LLVM for one more VGPR-limited level, in words, or None when VGPRs do not limit."""
    step = next_vgpr_step(target, kernel)
    if step is None:
        return None
    now = total_vgprs(target, kernel)
    return (
        f"{now} VGPRs allow {compiler_occupancy(target, kernel).limits['vgprs']} waves per SIMD; at most "
        f"{step.max_vgprs} allow {step.waves}: __attribute__((amdgpu_waves_per_eu({step.waves}))) asks LLVM "
        f"to fit them (it may spill to scratch)."
    )
