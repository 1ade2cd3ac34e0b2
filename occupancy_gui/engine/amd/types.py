"""The AMD engine's inputs: a gfx target's limits, a device, a kernel's resources and a launch.

Two consumers read a target: the HIP runtime's occupancy rule (``hip_runtime``) and LLVM's AMDGPU
occupancy model (``compiler``).  They disagree on several numbers (the VGPR granule of gfx10.3, the
wave cap of gfx9, the LDS pool on RDNA), so a target holds both sets, each named after the code that
uses it; the device profiles (``device_profiles/amd/``) give every value with its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import AmdInputError

_GFX_NAME = re.compile(r"^gfx(\d{1,2})([0-9a-f])([0-9a-f])$")


def gfx_version(name: str) -> tuple[int, int, int]:
    """``gfx942`` -> (9, 4, 2), ``gfx90a`` -> (9, 0, 10), ``gfx1151`` -> (11, 5, 1).

    LLVM's processor naming (AMDGPUUsage, "Processors"): the last two characters are the minor
    version and the stepping, each one hexadecimal digit; the rest is the major version.
    """
    match = _GFX_NAME.match(name)
    if match is None:
        raise AmdInputError(f"{name!r} is not a gfx target name such as gfx942 or gfx1100")
    return int(match.group(1)), int(match.group(2), 16), int(match.group(3), 16)


AGPR_FILES = ("none", "separate", "unified")
"""How a target holds AccVGPRs: none (no MFMA), separate (gfx908: its own 256-entry file, and
``.vgpr_count`` is max(arch, acc)), unified (gfx90a and later: ``.vgpr_count`` already counts them)."""


@dataclass(frozen=True)
class AmdTarget:
    """One gfx target: what the HIP runtime and LLVM's AMDGPU backend each take as its limits.

    ``runtime_*`` fields are those ``hip_impl::ihipOccupancyMaxActiveBlocksPerMultiprocessor`` reads
    (ROCclr's device info, filled from comgr's ISA metadata and ROCr); ``llvm_*`` fields are those of
    LLVM's ``AMDGPU::IsaInfo`` (``AMDGPUBaseInfo.cpp``).  Sizes are bytes, register counts are per
    lane (VGPRs) or per wave (SGPRs).
    """

    name: str
    simds_per_cu: int
    """SIMDs in one CU as ROCclr's ISA table has it (4 on gfx9, 2 on RDNA)."""
    default_wave_size: int
    wave32: bool
    """The target can run wave32 (gfx10 and later); gfx9 runs wave64 only."""
    has_wgp: bool
    """The target has work-group processors (two CUs) and a WGP / CU mode (gfx10 and later)."""
    max_workgroup_size: int
    agpr_file: str
    lds_per_workgroup: int
    """The runtime's ``localMemSize_``: ROCr's group segment size, LDS one workgroup may use."""
    runtime_vgpr_granule: int
    """comgr ``VGPRAllocGranule`` (wave32 on RDNA, wave64 on gfx9); the runtime halves it for wave64 on gfx10+."""
    runtime_vgprs_per_simd: int
    """comgr ``TotalNumVGPRs``, likewise halved for wave64 on gfx10+."""
    runtime_sgprs_per_simd: int | None
    """800 on gfx8-9; None where SGPRs are not shared between waves (gfx10+: ``UINT32_MAX``)."""
    runtime_max_waves_per_simd: int
    """The runtime's cap: 8 on gfx9 and earlier, 16 after (``MaxWavesPerSimd``)."""
    max_waves_per_cu: int
    """HSA ``MAX_WAVES_PER_CU`` (rocminfo "Max Waves Per CU"): ``maxThreadsPerMultiProcessor`` / wave size."""
    llvm_max_waves_per_eu: int
    llvm_vgpr_granule_wave64: int
    llvm_vgpr_granule_wave32: int | None
    llvm_total_vgprs_wave64: int
    llvm_total_vgprs_wave32: int | None
    llvm_addressable_vgprs: int
    llvm_lds_per_cu: int
    """LLVM ``getLocalMemorySize`` in CU mode; doubled in WGP mode (gfx10+), "per whatever block the
    waves of a workgroup share"."""
    llvm_lds_granule: int
    """``getLdsDwGranularity`` × 4: LLVM rounds a workgroup's LDS up to it (512 B; 1280 B on gfx950)."""
    llvm_total_sgprs: int
    llvm_sgpr_granule: int
    llvm_addressable_sgprs: int
    llvm_trap_sgprs: int
    """SGPRs LLVM keeps for the trap handler when it sizes SGPR budgets (``TRAP_NUM_SGPRS``)."""

    @property
    def gfx_version(self) -> tuple[int, int, int]:
        return gfx_version(self.name)

    @property
    def gfx_major(self) -> int:
        return self.gfx_version[0]

    def wave_sizes(self) -> tuple[int, ...]:
        """Wave sizes a kernel may be compiled for on this target."""
        return (32, 64) if self.wave32 else (64,)

    def llvm_vgpr_granule(self, wave_size: int) -> int:
        granule = self.llvm_vgpr_granule_wave32 if wave_size == 32 else self.llvm_vgpr_granule_wave64
        if granule is None:
            raise AmdInputError(f"{self.name} has no wave{wave_size}")
        return granule

    def llvm_total_vgprs(self, wave_size: int) -> int:
        total = self.llvm_total_vgprs_wave32 if wave_size == 32 else self.llvm_total_vgprs_wave64
        if total is None:
            raise AmdInputError(f"{self.name} has no wave{wave_size}")
        return total


@dataclass(frozen=True)
class AmdDevice:
    """A GPU as the HIP runtime sees it: its target, its CUs and whether the driver runs it in WGP mode.

    ``compute_units`` is the hardware count (one GCD of an MI250X: 110); None for a bare target, where
    no grid size can be given.  ``wgp_mode`` is ROCclr's ``enableWgpMode_`` (``GPU_ENABLE_WGP_MODE``,
    on by default on gfx10+), which halves ``multiProcessorCount``.
    """

    target: AmdTarget
    compute_units: int | None = None
    wgp_mode: bool | None = None
    name: str = ""

    @property
    def runtime_wgp_mode(self) -> bool:
        return self.target.has_wgp if self.wgp_mode is None else (self.wgp_mode and self.target.has_wgp)

    @property
    def multiprocessor_count(self) -> int | None:
        """``hipDeviceProp_t::multiProcessorCount`` (``maxComputeUnits_``): WGPs in WGP mode, else CUs."""
        if self.compute_units is None:
            return None
        return self.compute_units // 2 if self.runtime_wgp_mode else self.compute_units

    @property
    def warp_size(self) -> int:
        """``hipDeviceProp_t::warpSize``: HSA's agent wavefront size, the target's default."""
        return self.target.default_wave_size

    @property
    def max_threads_per_multiprocessor(self) -> int:
        """``maxThreadsPerMultiProcessor``: wave size × HSA max waves per CU, ×2 in WGP mode (ROCclr)."""
        waves = self.target.max_waves_per_cu * (2 if self.runtime_wgp_mode else 1)
        return self.warp_size * waves


@dataclass(frozen=True)
class AmdKernel:
    """One kernel's figures as the code object gives them (``importers.amd``), plus its compile attributes.

    ``vgprs`` is ``.vgpr_count`` (gfx908: max(arch, acc); gfx90a+: arch aligned to 4 plus acc);
    ``agprs`` is ``.agpr_count``; ``allocated_vgprs`` is what the kernel descriptor allocates
    (``GRANULATED_WORKITEM_VGPR_COUNT``), 0 where unknown: LLVM pads it past ``.vgpr_count`` to honour
    ``amdgpu-waves-per-eu``; ``allocated_sgprs`` likewise from ``GRANULATED_WAVEFRONT_SGPR_COUNT`` (gfx9 only:
    LLVM pads SGPRs for the same reason).  ``wave_size`` / ``wgp_mode`` None mean the target's default,
    ``max_threads`` None the default flat workgroup size (1024), ``required_block`` 0 none.
    ``waves_per_eu`` is ``amdgpu-waves-per-eu`` as (min, max); max None when only the minimum is given.
    """

    vgprs: int
    sgprs: int = 0
    agprs: int = 0
    allocated_vgprs: int = 0
    static_lds: int = 0
    scratch: int = 0
    wave_size: int | None = None
    wgp_mode: bool | None = None
    max_threads: int | None = None
    required_block: int = 0
    waves_per_eu: tuple[int, int | None] | None = None
    allocated_sgprs: int = 0

    def resolved_wave_size(self, target: AmdTarget) -> int:
        wave = target.default_wave_size if self.wave_size is None else self.wave_size
        if wave not in target.wave_sizes():
            sizes = " or ".join(str(w) for w in target.wave_sizes())
            raise AmdInputError(f"wave size {wave} is not available on {target.name} (wave {sizes})")
        return wave

    def resolved_wgp_mode(self, target: AmdTarget) -> bool:
        """The kernel's ``.workgroup_processor_mode``: LLVM compiles WGP mode on gfx10+ unless ``+cumode``."""
        if not target.has_wgp:
            return False
        return True if self.wgp_mode is None else self.wgp_mode

    def flat_workgroup_sizes(self, target: AmdTarget) -> tuple[int, int]:
        """``amdgpu-flat-work-group-size`` as (min, max): (1, max_threads), or the required size twice."""
        if self.required_block:
            return self.required_block, self.required_block
        return 1, target.max_workgroup_size if self.max_threads is None else self.max_threads


@dataclass(frozen=True)
class AmdLaunch:
    """What a launch adds: threads per block and the dynamic LDS it asks for."""

    threads_per_block: int
    dynamic_lds: int = 0
