"""The explanation, the step curves, the VGPR steps and the limit rows agree with the two rules they show."""

from __future__ import annotations

import dataclasses
import random

import pytest

from occupancy_gui.engine.amd import (
    COMPILER_LIMITS,
    HIP_LIMITS,
    AmdKernel,
    AmdLaunch,
    compiler_occupancy,
    compiler_rows,
    explain_difference,
    hip_occupancy,
    hip_rows,
    max_active_blocks,
    sweep_block_size,
    sweep_lds,
    sweep_vgprs,
    vgpr_steps,
)
from occupancy_gui.engine.amd.advisor import next_vgpr_step, vgpr_hint
from occupancy_gui.profiles.amd_catalog import AmdCatalog

KiB = 1024

EXPLAINED = [
    # Runtime 16 waves over 4 SIMDs = 4; LLVM 512/128 = 4 VGPR waves: the same.
    (
        "MI300X",
        AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB),
        AmdLaunch(256),
        "Both answers agree: 4 waves per SIMD.",
    ),
    # gfx906: the runtime caps at 8, LLVM at 10 (64-thread launch bound, 16 VGPRs: no other limit).
    (
        "MI50",
        AmdKernel(vgprs=16, max_threads=64),
        AmdLaunch(64),
        "The runtime gives 8 waves per SIMD and the compiler 10: the runtime caps a SIMD at 8 waves where LLVM allows 10.",
    ),
    # gfx1030: comgr's granule 8 keeps 72 VGPRs at 72 (14 waves), LLVM's 16 rounds to 80 (12 waves).
    (
        "RX 6800 XT",
        AmdKernel(vgprs=72, max_threads=64),
        AmdLaunch(64),
        "The runtime gives 14 waves per SIMD and the compiler 12: LLVM rounds 72 VGPRs to a granule of 16 of 1024 "
        "(12 waves), the runtime to 72 of 1024 (14 waves).",
    ),
    # 32 KiB of dynamic LDS: 2 blocks of 4 waves on 4 SIMDs; LLVM sees no LDS.
    (
        "MI300X",
        AmdKernel(vgprs=32, max_threads=256),
        AmdLaunch(256, 32 * KiB),
        "The runtime gives 2 waves per SIMD and the compiler 8: the runtime counts the 32768 B of dynamic LDS, which "
        "the compiler cannot see, so only 2 blocks fit.",
    ),
    # amdgpu-waves-per-eu 3: LLVM pads to 129 VGPRs (512/136 = 3 waves); the runtime reads 20 VGPRs.
    (
        "MI300X",
        AmdKernel(vgprs=20, max_threads=256, waves_per_eu=(3, 3)),
        AmdLaunch(256),
        "The runtime gives 8 waves per SIMD and the compiler 3: LLVM pads the registers to 129 VGPRs to honour "
        "amdgpu-waves-per-eu (3, 3); the runtime reads the kernel's 20.",
    ),
    (
        "MI300X",
        AmdKernel(vgprs=600),
        AmdLaunch(256),
        "The runtime refuses the kernel (hipErrorUnknown: 600 VGPRs exceed the 512 per SIMD); the compiler still "
        "reports 1 wave per SIMD, because LLVM never counts fewer than one.",
    ),
    # hipModuleLaunchKernel refuses a block above the kernel's launch bound; the occupancy API does not look.
    (
        "MI300X",
        AmdKernel(vgprs=32, max_threads=256),
        AmdLaunch(512),
        "The launch itself fails: a block of 512 threads is above the kernel's launch bound of 256 "
        "(hipErrorLaunchFailure), though the occupancy call still answers 4 blocks.",
    ),
    (
        "MI300X",
        AmdKernel(vgprs=32),
        AmdLaunch(2048),
        "The runtime fits no block of 2048 threads (the limit is 1024); the compiler answers for the kernel's launch bound.",
    ),
]


@pytest.mark.parametrize(("device", "kernel", "launch", "text"), EXPLAINED)
def test_explanations(device: str, kernel: AmdKernel, launch: AmdLaunch, text: str, amd_catalog: AmdCatalog) -> None:
    assert explain_difference(amd_catalog.get(device).device(), kernel, launch) == text


def test_explanation_is_one_line_and_agrees_only_when_equal(amd_catalog: AmdCatalog) -> None:
    rng = random.Random(7)
    seen = set()
    for _ in range(3000):
        profile = rng.choice(amd_catalog.gpus())
        target = profile.target
        kernel = AmdKernel(
            vgprs=rng.randrange(0, 257),
            sgprs=rng.randrange(0, 107),
            static_lds=rng.choice((0, rng.randrange(0, 40000))),
            wave_size=rng.choice(target.wave_sizes()),
            max_threads=rng.choice((64, 256, 1024)),
            waves_per_eu=rng.choice((None, (rng.randrange(1, 9), None))),
        )
        launch = AmdLaunch(rng.randrange(1, 1025), rng.choice((0, rng.randrange(0, 30000))))
        text = explain_difference(profile.device(), kernel, launch)
        hip, comp = hip_occupancy(profile.device(), kernel, launch), compiler_occupancy(target, kernel)
        assert "\n" not in text and text.endswith(".")
        if hip.error is not None:
            assert text.startswith("The runtime refuses the kernel"), text
            continue
        if launch.threads_per_block > (kernel.max_threads or 1024):
            assert text.startswith("The launch itself fails"), text
            continue
        agree = hip.active_waves == comp.waves_per_simd * hip.budget.simds
        assert text.startswith("Both answers agree") == agree, text
        if not agree and text.startswith("The runtime gives"):
            seen.add(" ".join(text.split(": ", 1)[1].split()[:4]))
    assert len(seen) >= 6, seen  # several different reasons were given


def test_block_size_sweep_equals_each_rule(amd_catalog: AmdCatalog) -> None:
    device = amd_catalog.get("RX 7900 XTX").device()
    kernel = AmdKernel(vgprs=100, static_lds=6000, max_threads=512)
    sweep = sweep_block_size(device, kernel, AmdLaunch(256, 1000))
    assert list(sweep.runtime.x) == list(range(1, 1025)) and len(sweep.runtime.edges) == 1025
    for x in (1, 31, 32, 33, 200, 256, 512, 777, 1024):
        i = sweep.runtime.index_of(x)
        hip = max_active_blocks(device, kernel, x, 1000)
        assert (sweep.runtime.active_blocks[i], sweep.runtime.active_warps[i]) == (hip.active_blocks, hip.active_waves)
        comp = compiler_occupancy(device.target, dataclasses.replace(kernel, max_threads=x))
        assert sweep.compiler.active_blocks[i] == comp.waves_per_simd
    assert sweep.runtime.launch_bound == 512
    cliff = sweep.runtime.cliff_above()
    assert cliff is not None and cliff.active_blocks != sweep.runtime.active_blocks[sweep.runtime.index_of(256)]


def test_vgpr_sweep_equals_each_rule(amd_catalog: AmdCatalog) -> None:
    device = amd_catalog.get("MI300X").device()
    kernel = AmdKernel(vgprs=100, agprs=40, sgprs=30)
    sweep = sweep_vgprs(device, kernel, AmdLaunch(256))
    assert list(sweep.runtime.x) == list(range(0, 513))
    for x in range(0, 513, 7):
        plain = dataclasses.replace(kernel, vgprs=x, agprs=0)
        assert sweep.runtime.active_blocks[x] == hip_occupancy(device, plain, AmdLaunch(256)).active_blocks
        assert sweep.compiler.active_blocks[x] == compiler_occupancy(device.target, plain).waves_per_simd


def test_lds_sweep_steps_hold_for_every_byte(amd_catalog: AmdCatalog) -> None:
    """Each sampled step is exact: every byte inside it gives the step's values under both rules."""
    for name in ("MI355X", "RX 7600"):
        device = amd_catalog.get(name).device()
        kernel = AmdKernel(vgprs=24, static_lds=3000, max_threads=256)
        sweep = sweep_lds(device, kernel, AmdLaunch(128))
        rng = random.Random(3)
        probes = {int(e + 0.5) for e in sweep.runtime.edges[:-1]}
        probes |= {rng.randrange(3000, device.target.lds_per_workgroup) for _ in range(1500)}
        for total in sorted(probes):
            i = sweep.runtime.index_of(total)
            assert sweep.runtime.edges[i] < total <= sweep.runtime.edges[i + 1] or total == 3000
            hip = max_active_blocks(device, kernel, 128, total - 3000)
            comp = compiler_occupancy(device.target, dataclasses.replace(kernel, static_lds=total))
            got = (sweep.runtime.active_blocks[i], sweep.compiler.active_blocks[i])
            assert got == (hip.active_blocks, comp.waves_per_simd), total


def test_vgpr_steps_differ_where_the_granules_do(amd_catalog: AmdCatalog) -> None:
    gfx942 = amd_catalog.get("gfx942").target
    steps = vgpr_steps(gfx942, AmdKernel(vgprs=1))
    runtime = {s.waves: s.max_vgprs for s in steps if s.rule == "hip_runtime"}
    compiler = {s.waves: s.max_vgprs for s in steps if s.rule == "compiler"}
    assert runtime == compiler == {8: 64, 7: 72, 6: 80, 5: 96, 4: 128, 3: 168, 2: 256, 1: 512}
    gfx1030 = amd_catalog.get("gfx1030").target
    steps = vgpr_steps(gfx1030, AmdKernel(vgprs=1))
    runtime = {s.waves: s.max_vgprs for s in steps if s.rule == "hip_runtime"}
    compiler = {s.waves: s.max_vgprs for s in steps if s.rule == "compiler"}
    assert runtime[14] == 72 and 14 not in compiler and compiler[12] == 80
    assert max(runtime) == max(compiler) == 16 and runtime[4] == 256 and compiler[4] == 256
    gfx906 = amd_catalog.get("gfx906").target
    steps = vgpr_steps(gfx906, AmdKernel(vgprs=1))
    assert max(s.waves for s in steps if s.rule == "compiler") == 10
    assert max(s.waves for s in steps if s.rule == "hip_runtime") == 8


def test_vgpr_hint(amd_catalog: AmdCatalog) -> None:
    target = amd_catalog.get("gfx942").target
    kernel = AmdKernel(vgprs=100)
    step = next_vgpr_step(target, kernel)
    assert step is not None and (step.waves, step.max_vgprs) == (5, 96)
    assert vgpr_hint(target, kernel) == (
        "100 VGPRs allow 4 waves per SIMD; at most 96 allow 5: "
        "__attribute__((amdgpu_waves_per_eu(5))) asks LLVM to fit them "
        "(it may spill to scratch)."
    )
    assert vgpr_hint(target, AmdKernel(vgprs=40)) is None


def test_rows_mirror_the_results(amd_catalog: AmdCatalog) -> None:
    device = amd_catalog.get("MI300X").device()
    kernel = AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB)
    launch = AmdLaunch(256)
    hip = hip_occupancy(device, kernel, launch)
    rows = hip_rows(hip, device, kernel, launch)
    assert [r.name for r in rows] == list(HIP_LIMITS)
    assert {r.name: r.value for r in rows} == hip.limits
    assert [r.name for r in rows if r.binding] == ["vgprs", "lds"]
    assert rows[2].allocated == "128 VGPRs (granule 8)" and rows[4].capacity == "64 KiB LDS per workgroup"
    comp = compiler_occupancy(device.target, kernel)
    crows = compiler_rows(comp, device.target, kernel)
    assert [r.name for r in crows] == list(COMPILER_LIMITS)
    assert {r.name: r.value for r in crows} == comp.limits
    assert [r.name for r in crows if r.binding] == list(comp.binding) == ["vgprs"]
    assert crows[2].allocated == "16384 B (granule 512)" and crows[2].capacity == "64 KiB per CU"


def test_explanations_write_one_wave_and_one_block_in_the_singular(amd_catalog: AmdCatalog) -> None:
    """ "1 wave per SIMD", "1 block": never "1 waves" (the engine's ``words.count``), over many questions."""
    import re

    rng = random.Random(40)
    singular = re.compile(r"(?<![\d.,])1 (waves|blocks)\b")
    seen_one = False
    for _ in range(400):
        profile = rng.choice([p for p in amd_catalog if p.compute_units is not None])
        target = profile.target
        kernel = AmdKernel(
            vgprs=rng.choice([1, 24, 96, 128, 200, 256]),
            sgprs=rng.choice([0, 40, 102]),
            static_lds=rng.choice([0, 8 * 1024, 40 * 1024]),
            wave_size=rng.choice(target.wave_sizes()),
        )
        launch = AmdLaunch(rng.choice([64, 256, 1024]), rng.choice([0, 30000]))
        text = explain_difference(profile.device(), kernel, launch)
        assert not singular.search(text), text
        seen_one |= bool(re.search(r"(?<![\d.,])1 (wave|block)\b", text))
    assert seen_one  # the singular case was met, not only avoided
