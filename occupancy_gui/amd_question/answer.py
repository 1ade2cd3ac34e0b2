"""Both AMD answers for one question: the HIP runtime's and the compiler's (LLVM's model), the one-line explanation
of a difference, their limit rows and their step curves.  The command line prints an :class:`AmdAnswer`; the window's
session holds one for the selected AMD device.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine.amd import (
    AmdDevice,
    AmdKernel,
    AmdLaunch,
    AmdLimitRow,
    AmdSweep,
    CompilerResult,
    HipRuntimeResult,
    compiler_occupancy,
    compiler_rows,
    explain_difference,
    hip_occupancy,
    hip_rows,
    sweep_block_size,
    sweep_lds,
    sweep_vgprs,
)

if TYPE_CHECKING:
    from ..profiles import AmdProfile

VENDOR = "amd"
CURVE_NAMES = ("threads", "vgprs", "lds")
"""The AMD step curves: both rules swept over block size, VGPRs and LDS per workgroup."""
SWEEPS = {"threads": sweep_block_size, "vgprs": sweep_vgprs, "lds": sweep_lds}


@dataclass(frozen=True)
class AmdAnswer:
    """One question's answer: the inputs as the engine took them, both rules' results and the explanation."""

    profile: AmdProfile
    device: AmdDevice
    kernel: AmdKernel
    launch: AmdLaunch
    hip: HipRuntimeResult
    compiler: CompilerResult
    explanation: str

    def as_json(self) -> dict[str, Any]:
        """The calc JSON: ``vendor``, ``device``, the ``hip_runtime`` and ``compiler`` objects, ``explanation``."""
        return {
            "vendor": VENDOR,
            "device": self.profile.name,
            "hip_runtime": self.hip.as_dict(),
            "compiler": self.compiler.as_dict(),
            "explanation": self.explanation,
        }

    def hip_rows(self) -> list[AmdLimitRow]:
        """The runtime's limits as rows (blocks per multiprocessor)."""
        return hip_rows(self.hip, self.device, self.kernel, self.launch)

    def compiler_rows(self) -> list[AmdLimitRow]:
        """LLVM's limits as rows (waves per SIMD)."""
        return compiler_rows(self.compiler, self.device.target, self.kernel)

    @property
    def multiprocessor(self) -> str:
        """What HIP counts as a multiprocessor for this kernel: a WGP in WGP mode, else a CU."""
        return "WGP" if self.hip.budget.simds > self.device.target.simds_per_cu else "CU"


def answer(profile: AmdProfile, kernel: AmdKernel, launch: AmdLaunch) -> AmdAnswer:
    """Both answers on ``profile``'s device, which runs in the driver's default WGP mode (on for gfx10+); the
    kernel's ``wgp_mode`` is how it was compiled (with or without ``+cumode``), as HIP's grid size reads it.

    Raises ``AmdInputError`` for what the engine refuses (one line)."""
    device = profile.device()
    hip = hip_occupancy(device, kernel, launch)
    compiler = compiler_occupancy(device.target, kernel)
    return AmdAnswer(
        profile, device, kernel, launch, hip, compiler, explain_difference(device, kernel, launch, hip, compiler)
    )


def curve(name: str, result: AmdAnswer) -> AmdSweep:
    """One of :data:`CURVE_NAMES` swept for ``result``'s device, kernel and launch."""
    return SWEEPS[name](result.device, result.kernel, result.launch)
