"""LLVM's AMDGPU occupancy arithmetic, one function per LLVM function, for one (target, wave, mode).

Sources (llvm-project, ``llvm/lib/Target/AMDGPU/``), as built into Triton 3.9.0's AMD code generator
(LLVM 24.0.0git 6bc4aaf6641c): ``Utils/AMDGPUBaseInfo.cpp`` namespace ``IsaInfo`` (``getEUsPerCU``,
``getLocalMemorySize``, ``getMaxWorkGroupsPerCU``, ``getWavesPerEUForWorkGroup``,
``getNumWavesPerEUWithNumVGPRs``, ``getOccupancyWithNumSGPRs``, ``getMinNumVGPRs``, ``getMinNumSGPRs``),
``AMDGPUSubtarget.cpp`` (``getOccupancyWithWorkGroupSizes``, ``getEffectiveWavesPerEU``).  The
target's numbers come from its profile (``AmdTarget.llvm_*``); the rules that depend on the generation
(SGPRs limit occupancy before gfx10, WGP mode doubles the CU's SIMDs, LDS and barriers) are here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .types import AmdTarget

WGP_BARRIERS = 32
CU_BARRIERS = 16
"""``getMaxWorkGroupsPerCU``: barrier resources for 16 workgroups per CU, 32 per WGP (gfx10+ WGP mode)."""


def divide_ceil(x: int, y: int) -> int:
    return -(-x // y)


def align_to(x: int, granule: int) -> int:
    return divide_ceil(x, granule) * granule


def align_down(x: int, granule: int) -> int:
    return x // granule * granule


@dataclass(frozen=True)
class LlvmIsa:
    """``IsaInfo`` for one target compiled for one wave size in one mode (WGP or CU)."""

    target: AmdTarget
    wave_size: int
    wgp_mode: bool

    @property
    def wgp(self) -> bool:
        """WGP mode in force: gfx10+ without ``+cumode`` (gfx9 has no WGPs)."""
        return self.target.has_wgp and self.wgp_mode

    @property
    def eus_per_cu(self) -> int:
        """``getEUsPerCU``: 2 SIMDs for gfx10+ in CU mode, else 4 (a gfx9 CU, or the two CUs of a WGP)."""
        return 2 if self.target.has_wgp and not self.wgp_mode else 4

    @property
    def local_memory_size(self) -> int:
        """``getLocalMemorySize``: the CU's LDS, doubled in WGP mode (the WGP's pool)."""
        return self.target.llvm_lds_per_cu * (2 if self.wgp else 1)

    @property
    def max_waves_per_eu(self) -> int:
        return self.target.llvm_max_waves_per_eu

    @property
    def vgpr_granule(self) -> int:
        return self.target.llvm_vgpr_granule(self.wave_size)

    @property
    def total_vgprs(self) -> int:
        return self.target.llvm_total_vgprs(self.wave_size)

    @property
    def sgpr_limited(self) -> bool:
        """SGPRs bound occupancy only before gfx10 (``getOccupancyWithNumSGPRs`` returns the cap after)."""
        return self.target.gfx_major < 10

    def waves_per_workgroup(self, flat_size: int) -> int:
        return divide_ceil(flat_size, self.wave_size)

    def max_workgroups_per_cu(self, flat_size: int) -> int:
        """``getMaxWorkGroupsPerCU``: wave slots / waves per group, and at most 16 (32 per WGP) barriers."""
        max_waves = self.max_waves_per_eu * self.eus_per_cu
        waves = self.waves_per_workgroup(flat_size)
        if waves == 1:
            return max_waves  # a single-wave workgroup uses no barrier
        return min(max_waves // waves, WGP_BARRIERS if self.wgp else CU_BARRIERS)

    def waves_per_eu_for_workgroup(self, flat_size: int) -> int:
        """``getWavesPerEUForWorkGroup``: the waves per SIMD one workgroup of ``flat_size`` needs."""
        return divide_ceil(self.waves_per_workgroup(flat_size), self.eus_per_cu)

    def occupancy_with_workgroup_sizes(self, lds_bytes: int, sizes: tuple[int, int]) -> tuple[int, int]:
        """``AMDGPUSubtarget::getOccupancyWithWorkGroupSizes``: (min, max) waves per SIMD for a flat
        workgroup size range and ``lds_bytes`` of LDS per workgroup, rounded up to the LDS granule."""
        max_wgs_lds = self.local_memory_size // max(align_to(lds_bytes, self.target.llvm_lds_granule), 1)
        if not max_wgs_lds:
            return 1, 1
        wave_size, waves_per_eu, eus = self.wave_size, self.max_waves_per_eu, self.eus_per_cu

        def props(size: int) -> tuple[int, int, int]:
            waves_per_wg = divide_ceil(size, wave_size)
            wgs_per_cu = min(self.max_workgroups_per_cu(size), max_wgs_lds)
            return waves_per_wg, wgs_per_cu, waves_per_wg * wgs_per_cu

        min_size, max_size = sizes
        min_waves_per_wg, max_wgs_per_cu, max_waves_per_cu = props(min_size)
        max_waves_per_wg, min_wgs_per_cu, min_waves_per_cu = props(max_size)
        if min_waves_per_cu >= max_waves_per_cu:
            min_waves_per_cu, max_waves_per_cu = max_waves_per_cu, min_waves_per_cu
        else:
            slots = waves_per_eu * eus
            min_for_size = divide_ceil(slots, min_wgs_per_cu + 1) * min_wgs_per_cu
            if min_waves_per_cu > min_for_size:
                excess_per_wg = (min_waves_per_cu - min_for_size) // min_wgs_per_cu
                if excess_per_wg:
                    min_waves_per_cu -= min_wgs_per_cu * min(excess_per_wg, max_waves_per_wg - min_waves_per_wg)
            leftover_per_wg = (slots - max_wgs_per_cu * min_waves_per_wg) // max_wgs_per_cu
            if leftover_per_wg:
                max_waves_per_cu += max_wgs_per_cu * min(
                    leftover_per_wg, (max_size - 1) // wave_size + 1 - min_waves_per_wg
                )
        low = min(max(min_waves_per_cu // eus, 1), waves_per_eu)
        high = min(max(divide_ceil(max_waves_per_cu, eus), 1), waves_per_eu)
        return low, high

    def effective_waves_per_eu(
        self, requested: tuple[int, int | None] | None, sizes: tuple[int, int], lds_bytes: int
    ) -> tuple[int, int]:
        """``getWavesPerEU`` / ``getEffectiveWavesPerEU``: the (min, max) waves per SIMD LLVM budgets for;
        an out-of-range ``amdgpu-waves-per-eu`` request is dropped for the default."""
        default_high = self.occupancy_with_workgroup_sizes(lds_bytes, sizes)[1]
        default = (min(self.waves_per_eu_for_workgroup(sizes[1]), default_high), default_high)
        low, high = (1, self.max_waves_per_eu) if requested is None else requested
        if high is None:
            high = self.max_waves_per_eu
        if low < default[0] or low > default[1] or low > high or high > self.max_waves_per_eu:
            return default
        return low, min(high, default[1])

    def waves_with_vgprs(self, vgprs: int) -> int:
        """``getNumWavesPerEUWithNumVGPRs``: at least 1 wave, the cap below one granule."""
        granule = self.vgpr_granule
        if vgprs < granule:
            return self.max_waves_per_eu
        return min(max(self.total_vgprs // align_to(vgprs, granule), 1), self.max_waves_per_eu)

    def waves_with_sgprs(self, sgprs: int) -> int:
        """``getOccupancyWithNumSGPRs``: before gfx10 the SGPR file (800) over the per-wave allocation
        (granule 16) plus the trap handler's SGPRs; after, the cap."""
        if not self.sgpr_limited:
            return self.max_waves_per_eu
        t = self.target
        per_wave = align_to(sgprs, t.llvm_sgpr_granule) + t.llvm_trap_sgprs
        return min(max(t.llvm_total_sgprs // per_wave, 1), self.max_waves_per_eu)

    def min_vgprs(self, waves_per_eu: int) -> int:
        """``getMinNumVGPRs``: the VGPR count LLVM pads a kernel to so it runs at most ``waves_per_eu`` waves."""
        max_waves = self.max_waves_per_eu
        if waves_per_eu >= max_waves:
            return 0
        total, granule = self.total_vgprs, self.vgpr_granule
        addressable = self.target.llvm_addressable_vgprs
        max_vgprs = align_down(total // waves_per_eu, granule)
        if max_vgprs == align_down(total // max_waves, granule):
            return 0
        min_waves = self.waves_with_vgprs(addressable)
        if waves_per_eu < min_waves:
            return self.min_vgprs(min_waves)
        next_vgprs = align_down(total // (waves_per_eu + 1), granule)
        return min(1 + min(max_vgprs - granule, next_vgprs), addressable)

    def min_sgprs(self, waves_per_eu: int) -> int:
        """``getMinNumSGPRs``: likewise for SGPRs (0 from gfx10, where SGPRs do not limit occupancy)."""
        if not self.sgpr_limited or waves_per_eu >= self.max_waves_per_eu:
            return 0
        t = self.target
        budget = t.llvm_total_sgprs // (waves_per_eu + 1)
        budget -= min(budget, t.llvm_trap_sgprs)
        return min(align_down(budget, t.llvm_sgpr_granule) + 1, t.llvm_addressable_sgprs)
