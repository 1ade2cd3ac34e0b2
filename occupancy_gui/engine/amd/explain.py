"""Why the HIP runtime and LLVM disagree, in one line of plain words.

The two answers are compared per SIMD: the runtime pools a multiprocessor's waves (whole blocks of
``ceil(block / wave)`` waves over all its SIMDs), the compiler counts waves per SIMD directly.  The
explanation names the limit that binds on the lower side and the figure each rule uses for it.
"""

from __future__ import annotations

from fractions import Fraction

from ..words import count
from .compiler import CompilerResult, compiler_occupancy, total_vgprs
from .hip_runtime import HipRuntimeResult, hip_occupancy
from .types import AmdDevice, AmdKernel, AmdLaunch


def _num(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):.2f}".rstrip("0")


def runtime_waves_per_simd(hip: HipRuntimeResult) -> Fraction:
    """The runtime's active waves spread over the multiprocessor's SIMDs (may be fractional)."""
    return Fraction(hip.active_waves, hip.budget.simds)


def explain_difference(
    device: AmdDevice,
    kernel: AmdKernel,
    launch: AmdLaunch,
    hip: HipRuntimeResult | None = None,
    compiler: CompilerResult | None = None,
) -> str:
    """One sentence: both agree, or why the runtime's waves per SIMD differ from the compiler's."""
    target = device.target
    hip = hip if hip is not None else hip_occupancy(device, kernel, launch)
    compiler = compiler if compiler is not None else compiler_occupancy(target, kernel)
    comp = compiler.waves_per_simd
    if hip.error is not None:
        return (
            f"The runtime refuses the kernel ({hip.error}); the compiler still reports "
            f"{count(comp, 'wave')} per SIMD, because LLVM never counts fewer than one."
        )
    if hip.limits.get("workgroup_size") == 0:
        return (
            f"The runtime fits no block of {launch.threads_per_block} threads (the limit is "
            f"{target.max_workgroup_size}); the compiler answers for the kernel's launch bound."
        )
    bound = compiler.budget.flat_workgroup_sizes[1]
    if launch.threads_per_block > bound:
        return (
            f"The launch itself fails: a block of {launch.threads_per_block} threads is above the kernel's "
            f"launch bound of {bound} (hipErrorLaunchFailure), though the occupancy call still answers "
            f"{count(hip.active_blocks, 'block')}."
        )
    runtime = runtime_waves_per_simd(hip)
    if runtime == comp:
        return f"Both answers agree: {count(comp, 'wave')} per SIMD."
    head = f"The runtime gives {_num(runtime)} {'wave' if runtime == 1 else 'waves'} per SIMD and the compiler {comp}: "
    return head + (
        _runtime_lower(device, kernel, launch, hip, compiler)
        if runtime < comp
        else _compiler_lower(device, kernel, launch, hip, compiler)
    )


def _runtime_lower(
    device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch, hip: HipRuntimeResult, compiler: CompilerResult
) -> str:
    b = hip.budget
    binding = hip.binding
    if "lds" in binding and hip.limits["lds"] == 0:
        return f"the block's {b.lds_per_block} B of LDS exceed the {b.lds_per_workgroup} B a workgroup may use."
    if "lds" in binding and launch.dynamic_lds:
        return (
            f"the runtime counts the {launch.dynamic_lds} B of dynamic LDS, which the compiler cannot see, "
            f"so only {count(hip.limits['lds'] or 0, 'block')} {'fits' if hip.limits['lds'] == 1 else 'fit'}."
        )
    if "lds" in binding and b.lds_per_workgroup < compiler.budget.lds_pool:
        return (
            f"the runtime gives a workgroup {b.lds_per_workgroup} B of LDS to share, "
            f"LLVM {compiler.budget.lds_pool} B per {'WGP' if compiler.budget.wgp_mode else 'CU'}."
        )
    if "sgprs" in binding and b.sgpr_waves is not None and b.sgpr_waves < compiler.waves_per_simd:
        return (
            f"the runtime shares {b.sgprs_per_simd} SGPRs per SIMD among waves of {b.sgprs_allocated}, "
            f"which allows {b.sgpr_waves}."
        )
    vgpr_waves, compiler_vgprs = b.vgpr_waves, compiler.limits["vgprs"]
    if "vgprs" in binding and vgpr_waves is not None and compiler_vgprs is not None and vgpr_waves < compiler_vgprs:
        if device.target.agpr_file == "separate" and kernel.agprs > kernel.vgprs:
            return "the runtime counts .vgpr_count only, LLVM max(VGPRs, AGPRs)."
        return (
            f"the runtime rounds {kernel.vgprs} VGPRs to {b.vgprs_allocated} of {b.vgprs_per_simd} per SIMD "
            f"({count(vgpr_waves, 'wave')}), LLVM to a granule of {compiler.budget.vgpr_granule} of "
            f"{compiler.budget.total_vgprs} ({count(compiler_vgprs, 'wave')})."
        )
    if "waves" in binding and compiler.waves_per_simd > b.cap:
        return f"the runtime caps a SIMD at {count(b.cap, 'wave')} where LLVM allows {compiler.max_waves_per_simd}."
    slots = b.simds * min([b.cap] + [w for w in (b.vgpr_waves, b.sgpr_waves) if w is not None])
    if hip.active_blocks == 0:
        return (
            f"a block of {count(hip.waves_per_block, 'wave')} does not fit in the {slots} wave slots its registers "
            f"leave on {b.simds} SIMDs."
        )
    return (
        f"the runtime fits whole blocks of {count(hip.waves_per_block, 'wave')}: {hip.active_blocks} of them fill "
        f"{hip.active_waves} of the {slots} wave slots on {b.simds} SIMDs."
    )


def _compiler_lower(
    device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch, hip: HipRuntimeResult, compiler: CompilerResult
) -> str:
    target, cb = device.target, compiler.budget
    binding = compiler.binding
    if "waves_per_eu" in binding and kernel.waves_per_eu is not None:
        return (
            f"LLVM pads the registers to {cb.padded_vgprs} VGPRs to honour amdgpu-waves-per-eu "
            f"{kernel.waves_per_eu}; the runtime reads the kernel's {kernel.vgprs}."
        )
    if "vgprs" in binding and compiler.limits["vgprs"] != hip.budget.vgpr_waves:
        if kernel.allocated_vgprs > total_vgprs(target, kernel):
            return (
                f"the kernel descriptor allocates {kernel.allocated_vgprs} VGPRs, which LLVM counts; the runtime "
                f"reads .vgpr_count, {kernel.vgprs}."
            )
        if target.agpr_file == "separate" and kernel.agprs > kernel.vgprs:
            return f"LLVM counts max(VGPRs, AGPRs) = {kernel.agprs}; the runtime reads .vgpr_count, {kernel.vgprs}."
        b = hip.budget
        return (
            f"LLVM rounds {cb.vgprs} VGPRs to a granule of {cb.vgpr_granule} of {cb.total_vgprs} "
            f"({count(compiler.limits['vgprs'] or 0, 'wave')}), the runtime to {b.vgprs_allocated} of {b.vgprs_per_simd} "
            f"({count(b.vgpr_waves or 0, 'wave')})."
        )
    if "sgprs" in binding:
        return (
            f"LLVM charges {cb.sgprs} SGPRs rounded to {target.llvm_sgpr_granule} plus {target.llvm_trap_sgprs} "
            f"for the trap handler per wave; the runtime rounds to 16 with no trap reserve."
        )
    if "lds" in binding:
        return (
            f"LLVM rounds the static LDS up to {target.llvm_lds_granule} B before dividing its "
            f"{cb.lds_pool} B pool; the runtime divides {target.lds_per_workgroup} B by the exact bytes."
        )
    flat_max = cb.flat_workgroup_sizes[1]
    if "workgroup_size" in binding and flat_max != launch.threads_per_block:
        return (
            f"the compiler sizes for the launch bound of {flat_max} threads, the runtime for the "
            f"{launch.threads_per_block}-thread block launched."
        )
    if "workgroup_size" in binding:
        return (
            f"LLVM allows at most {16 if not cb.wgp_mode else 32} workgroups (barriers) per "
            f"{'WGP' if cb.wgp_mode else 'CU'} and spreads their waves over {cb.eus_per_cu} SIMDs."
        )
    return f"LLVM's wave cap is {compiler.max_waves_per_simd} per SIMD, the runtime's {hip.budget.cap}."
