"""Hand-written LLVM IR kernels that sweep what LLVM's occupancy depends on, for one target and mode.

Each kernel pins its resources exactly: an inline-asm clobber of ``v<N>`` / ``a<N>`` / ``s<N>`` makes LLVM
count N+1 registers, an ``addrspace(3)`` global of B bytes is B bytes of static LDS, and the function
attributes set the flat workgroup size range and ``amdgpu-waves-per-eu``.  A required block size is written
the way clang writes OpenCL's ``reqd_work_group_size``: the metadata plus a flat size range of (N, N).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from occupancy_gui.engine.amd import AmdTarget


@dataclass(frozen=True)
class IrCase:
    vgpr: int | None = None
    sgpr: int | None = None
    agpr: int | None = None
    lds: int = 0
    flat_max: int = 256
    required: bool = False
    waves_per_eu: tuple[int, int | None] | None = None


def kernel_ir(index: int, case: IrCase) -> str:
    clobbers = [
        f"~{{{kind}{n}}}" for kind, n in (("v", case.vgpr), ("s", case.sgpr), ("a", case.agpr)) if n is not None
    ]
    lines = []
    if case.lds:
        lines.append(f"@lds{index} = internal addrspace(3) global [{case.lds} x i8] undef, align 4")
    lines.append(
        f"define amdgpu_kernel void @k{index}(ptr addrspace(1) %out) #{index}"
        + (f" !reqd_work_group_size !{index}" if case.required else "")
        + " {"
    )
    if clobbers:
        lines.append(f'  call void asm sideeffect "", "{",".join(clobbers)}"()')
    if case.lds:
        lines.append(f"  %p = getelementptr [{case.lds} x i8], ptr addrspace(3) @lds{index}, i32 0, i32 {case.lds - 1}")
        lines.append("  store volatile i8 1, ptr addrspace(3) %p")
    lines += ["  ret void", "}"]
    low = case.flat_max if case.required else 1
    attrs = f'"amdgpu-flat-work-group-size"="{low},{case.flat_max}"'
    if case.waves_per_eu is not None:
        lo, hi = case.waves_per_eu
        attrs += f' "amdgpu-waves-per-eu"="{lo}' + (f",{hi}" if hi is not None else "") + '"'
    lines.append(f"attributes #{index} = {{ {attrs} }}")
    if case.required:
        lines.append(f"!{index} = !{{i32 {case.flat_max}, i32 1, i32 1}}")
    return "\n".join(lines) + "\n"


def module(cases: list[IrCase]) -> str:
    return "".join(kernel_ir(i, c) for i, c in enumerate(cases))


def modes(target: AmdTarget) -> list[tuple[str, int, bool]]:
    """(LLVM feature string, wave size, WGP mode) for every way the target compiles."""
    if not target.wave32:
        return [("", 64, False)]
    return [
        ("", 32, True),
        ("+wavefrontsize64", 64, True),
        ("+cumode", 32, False),
        ("+wavefrontsize64,+cumode", 64, False),
    ]


def sweep_cases(target: AmdTarget, wgp: bool, seed: int, *, full: bool) -> list[IrCase]:
    """Register, AGPR, SGPR, LDS, workgroup-size and waves-per-EU sweeps, then a seeded random mixture.

    ``full`` (the target's default mode) sweeps every VGPR count and every SGPR count, the other modes every
    fifth; LDS is swept at one past, at and below each LLVM granule multiple (every third multiple in the
    other modes) and around each runtime divisor ``pool / n``.  A workgroup never gets more LDS than one
    workgroup may address (LLVM refuses the kernel otherwise), even where the WGP's pool is twice that.
    """
    rng = random.Random(seed)
    pool = target.llvm_lds_per_cu * (2 if wgp and target.has_wgp else 1)
    addressable = target.llvm_lds_per_cu
    granule = target.llvm_lds_granule
    step = 1 if full else 5
    cases = [IrCase(vgpr=v) for v in range(0, 256, step)]
    cases += [IrCase(vgpr=v, flat_max=1024) for v in range(0, 256, 4 * step)]
    if target.agpr_file != "none":
        cases += [IrCase(vgpr=v, agpr=a) for v in (9, 130, 255) for a in range(0, 256, 4 * step)]
    if target.gfx_major < 10:
        cases += [IrCase(vgpr=4, sgpr=s) for s in range(0, 102, step)]
    else:
        cases += [IrCase(vgpr=4, sgpr=s) for s in range(0, 106, 15)]
    multiples = range(1, addressable // granule + 1, 1 if full else 3)
    edges = {k * granule + d for k in multiples for d in (-1, 0, 1)}
    edges |= {pool // n + d for n in range(1, 33 if full else 9) for d in (-1, 0, 1)}
    cases += [
        IrCase(vgpr=8, lds=b, flat_max=rng.choice((64, 128, 256, 1024))) for b in sorted(edges) if 0 < b <= addressable
    ]
    cases += [
        IrCase(vgpr=8, flat_max=f)
        for f in (
            1,
            2,
            31,
            32,
            33,
            63,
            64,
            65,
            96,
            128,
            129,
            192,
            256,
            320,
            384,
            448,
            512,
            576,
            640,
            768,
            896,
            960,
            1023,
            1024,
        )
    ]
    cases += [IrCase(vgpr=8, flat_max=f, required=True) for f in (32, 64, 96, 128, 256, 384, 512, 1024)]
    for w in range(1, target.llvm_max_waves_per_eu + 2):
        cases += [
            IrCase(vgpr=3, sgpr=3, waves_per_eu=(w, None)),
            IrCase(vgpr=3, sgpr=3, waves_per_eu=(w, w)),
            IrCase(vgpr=3, sgpr=3, waves_per_eu=(1, w)),
            IrCase(vgpr=3, sgpr=3, waves_per_eu=(w, w + 3)),
            IrCase(vgpr=3, sgpr=3, lds=addressable // 3, waves_per_eu=(w, w)),
        ]
    for _ in range(120 if full else 60):
        flat = rng.choice((64, 128, 256, 512, 1024, rng.randrange(1, 1025)))
        cases.append(
            IrCase(
                vgpr=rng.choice((None, rng.randrange(0, 256))),
                sgpr=rng.choice((None, rng.randrange(0, 102))),
                agpr=rng.choice((None, rng.randrange(0, 256))) if target.agpr_file != "none" else None,
                lds=rng.choice((0, 0, rng.randrange(1, addressable + 1), rng.randrange(1, addressable // 4))),
                flat_max=flat,
                required=rng.random() < 0.2,
                waves_per_eu=rng.choice(
                    (None, None, (rng.randrange(1, 12), None), (rng.randrange(1, 9), rng.randrange(1, 17)))
                ),
            )
        )
    return cases


def random_cases(target: AmdTarget, wgp: bool, seed: int) -> list[IrCase]:
    """The seeded random mixture alone (what the second LLVM build is checked on)."""
    full = sweep_cases(target, wgp, seed, full=False)
    return full[-60:]
