"""The HIP runtime's rule on issue #40's worked cases and on cases of our own for every target.

No AMD GPU runs here, so the expected figures are worked by hand from ``hip_platform.cpp`` (ROCm 7.x,
``ihipOccupancyMaxActiveBlocksPerMultiprocessor``) and the profile values; each case shows its arithmetic.
Together they make every limit bind at least once, on wave32 and wave64, in WGP and CU mode, and reach the
0-wave ``hipErrorUnknown`` and the block above 1024 threads.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occupancy_gui.engine.amd import (
    HIP_LIMITS,
    AmdInputError,
    AmdKernel,
    AmdLaunch,
    hip_block_size_search,
    hip_occupancy,
    hip_potential_block_size,
    max_active_blocks,
)
from occupancy_gui.profiles.amd_catalog import AmdCatalog

KiB = 1024


@dataclass(frozen=True)
class Case:
    device: str
    kernel: AmdKernel
    threads: int
    blocks: int
    waves: int
    max_waves: int
    limits: tuple[int | None, ...]
    """workgroup_size, waves, vgprs, sgprs, lds."""
    binding: tuple[str, ...]
    grid: int | None
    dynamic: int = 0
    error: str | None = None


WORKED = [
    # MI300X (304): VGPR waves 512/128 = 4, SGPR waves 800/96 = 8, 4 SIMDs × min(8, 4) × 64 = 1024 threads -> 4 blocks;
    # LDS 65536 / 16384 = 4; waves limit 4·8·64/256 = 8.  Grid: best block 256, 1024/256 = 4 per CU × 304.
    Case(
        "MI300X",
        AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB),
        256,
        4,
        16,
        32,
        (None, 8, 4, 8, 4),
        ("vgprs", "lds"),
        1216,
    ),
    # RX 7900 XTX (48 WGPs): granule 24, 1536 per SIMD -> 96 VGPRs give 16 waves; 4 SIMDs (WGP) × 16 × 32 = 2048 -> 8.
    Case(
        "RX 7900 XTX",
        AmdKernel(vgprs=96, sgprs=40, wave_size=32, wgp_mode=True),
        256,
        8,
        64,
        64,
        (None, 8, 8, None, None),
        ("waves", "vgprs"),
        384,
    ),
    # wave64: granule 12, 768 per SIMD -> 8 waves; 4 × 8 × 64 = 2048 -> 8 blocks of 4 waves = 32 of 64.
    Case(
        "RX 7900 XTX",
        AmdKernel(vgprs=96, sgprs=40, wave_size=64, wgp_mode=True),
        256,
        8,
        32,
        64,
        (None, 16, 8, None, None),
        ("vgprs",),
        384,
    ),
    # CU mode: 2 SIMDs × 16 × 32 = 1024 -> 4 blocks; the grid doubles the 48 WGPs to 96 CUs: 96 × 4.
    Case(
        "RX 7900 XTX",
        AmdKernel(vgprs=96, sgprs=40, wave_size=32, wgp_mode=False),
        256,
        4,
        32,
        32,
        (None, 4, 4, None, None),
        ("waves", "vgprs"),
        384,
    ),
    # alignUp(64, 24) = 72 -> 1536/72 = 21 VGPR waves (21 blocks of 4 waves); 48 KiB of LDS: 65536/49152 = 1 block.
    Case(
        "RX 7900 XTX",
        AmdKernel(vgprs=64, static_lds=48 * KiB, wave_size=32, wgp_mode=True),
        128,
        1,
        4,
        64,
        (None, 16, 21, None, 1),
        ("lds",),
        48,
    ),
    # MI250X (110 per GCD): 512/512 = 1 VGPR wave -> 4 × 1 × 64 = 256 threads < 1024 -> 0 blocks; grid 110 × (256/256).
    Case("MI250X", AmdKernel(vgprs=512, sgprs=96), 1024, 0, 0, 32, (None, 2, 0, 2, None), ("vgprs",), 110),
    Case(
        "MI300X",
        AmdKernel(vgprs=600),
        256,
        0,
        0,
        32,
        (None, None, 0, None, None),
        ("vgprs",),
        None,
        error="hipErrorUnknown: 600 VGPRs exceed the 512 per SIMD",
    ),
    Case("MI300X", AmdKernel(vgprs=32), 1025, 0, 0, 32, (0, None, None, None, None), ("workgroup_size",), 0),
]

OURS = [
    # gfx906 MI50 (60): 256/32 = 8 VGPR waves, 800/32 = 25 SGPR waves, cap 8: 4·8·64 = 2048 -> 8 blocks.
    Case("MI50", AmdKernel(vgprs=32, sgprs=20), 256, 8, 32, 32, (None, 8, 8, 25, None), ("waves", "vgprs"), 480),
    # gfx906: 100 SGPRs -> alignUp 112 -> 800/112 = 7 waves; 4·7·64/64 = 28 blocks of one wave.
    Case("MI50", AmdKernel(vgprs=10, sgprs=100), 64, 28, 28, 32, (None, 32, 84, 28, None), ("sgprs",), 1680),
    # gfx908 MI100 (120): 256/128 = 2 VGPR waves -> 4·2·64/128 = 4; LDS 12 KiB static + 4 KiB dynamic = 4.
    Case(
        "MI100",
        AmdKernel(vgprs=128, agprs=128, sgprs=16, static_lds=12 * KiB),
        128,
        4,
        8,
        32,
        (None, 16, 4, 100, 4),
        ("vgprs", "lds"),
        480,
        dynamic=4 * KiB,
    ),
    # gfx90a MI250X: 512/64 = 8 -> 4·8·64/512 = 4, but 65536/40960 = 1 block; grid 110 × min(2048/512, 1).
    Case("MI250X", AmdKernel(vgprs=64, static_lds=40 * KiB), 512, 1, 8, 32, (None, 4, 4, None, 1), ("lds",), 110),
    # gfx942: 65 threads align to 128 (2 waves); 24 VGPRs -> 512/24 = 21 waves; 4·8·64/128 = 16 blocks.
    Case("MI300X", AmdKernel(vgprs=24), 65, 16, 32, 32, (None, 16, 42, None, None), ("waves",), 4864),
    Case("MI300A", AmdKernel(vgprs=24), 65, 16, 32, 32, (None, 16, 42, None, None), ("waves",), 3648),
    # gfx950 MI355X (256): 160 KiB of LDS / 32 KiB = 5 blocks (MI300X's 64 KiB would give 2).
    Case("MI355X", AmdKernel(vgprs=64, static_lds=32 * KiB), 256, 5, 20, 32, (None, 8, 8, None, 5), ("lds",), 1280),
    Case("MI300X", AmdKernel(vgprs=64, static_lds=32 * KiB), 256, 2, 8, 32, (None, 8, 8, None, 2), ("lds",), 608),
    # gfx1030 RX 6800 XT (72 CUs, 36 WGPs), wave32 WGP: comgr granule 8 -> alignUp(100, 8) = 104, 1024/104 = 9;
    # 4·9·32 = 1152 -> 1152/256 = 4 blocks (4.5).
    Case(
        "RX 6800 XT",
        AmdKernel(vgprs=100, wave_size=32, wgp_mode=True),
        256,
        4,
        32,
        64,
        (None, 8, 4, None, None),
        ("vgprs",),
        144,
    ),
    # wave64 CU mode: granule 4 and 512 per SIMD -> 512/100 = 5; 2 SIMDs: 2·5·64 = 640 -> 2 blocks; grid CUs ×2.
    Case(
        "RX 6800 XT",
        AmdKernel(vgprs=100, wave_size=64, wgp_mode=False),
        256,
        2,
        8,
        32,
        (None, 8, 2, None, None),
        ("vgprs",),
        144,
    ),
    # gfx1031 RX 6700 XT (20 WGPs): 1024/40 = 25 -> cap 16: 4·16·32 = 2048 -> 2 blocks of 32 waves.
    Case("RX 6700 XT", AmdKernel(vgprs=40), 1024, 2, 64, 64, (None, 2, 3, None, None), ("waves",), 40),
    # gfx1101 RX 7800 XT (30 WGPs), CU mode: 2·16·32 = 1024 threads -> 5 blocks of 192; LDS 8; grid 60 CUs × 5.
    Case(
        "RX 7800 XT",
        AmdKernel(vgprs=48, static_lds=8 * KiB, wgp_mode=False),
        192,
        5,
        30,
        32,
        (None, 5, 10, None, 8),
        ("waves",),
        300,
    ),
    # gfx1102 RX 7600 (16 WGPs), wave64: granule 16/2 = 8, 1024/2 = 512 -> 512/40 = 12; 4·12·64 = 3072 -> 24 blocks.
    Case("RX 7600", AmdKernel(vgprs=40, wave_size=64), 128, 24, 48, 64, (None, 32, 24, None, None), ("vgprs",), 384),
    # gfx1103 Radeon 780M (6 WGPs): alignUp(130, 16) = 144 -> 1024/144 = 7; 4·7·32 = 896 -> 14 blocks of 2 waves.
    Case("Radeon 780M", AmdKernel(vgprs=130), 64, 14, 28, 64, (None, 32, 14, None, None), ("vgprs",), 84),
    # gfx1151 Radeon 8060S (20 WGPs): 0 VGPRs -> the cap; SGPRs do not limit gfx10+.
    Case("Radeon 8060S", AmdKernel(vgprs=0, sgprs=200), 256, 8, 64, 64, (None, 8, None, None, None), ("waves",), 160),
    # gfx1200 RX 9060 XT (16 WGPs), wave64: granule 12 -> alignUp(200, 12) = 204, 768/204 = 3; 4·3·64 = 768 -> 1 block.
    Case(
        "RX 9060 XT",
        AmdKernel(vgprs=200, static_lds=20 * KiB, wave_size=64),
        512,
        1,
        8,
        64,
        (None, 8, 1, None, 3),
        ("vgprs",),
        16,
    ),
    # gfx1201 RX 9070 XT (32 WGPs), CU mode: 1536/24 = 64 -> cap 16: 2·16·32 = 1024 -> 1 block; grid 64 CUs.
    Case("RX 9070 XT", AmdKernel(vgprs=24, wgp_mode=False), 1024, 1, 32, 32, (None, 1, 4, None, None), ("waves",), 64),
    Case(
        "RX 9070",
        AmdKernel(vgprs=1537),
        64,
        0,
        0,
        64,
        (None, None, 0, None, None),
        ("vgprs",),
        None,
        error="hipErrorUnknown: 1537 VGPRs exceed the 1536 per SIMD",
    ),
    Case(
        "RX 9070",
        AmdKernel(vgprs=769, wave_size=64),
        64,
        0,
        0,
        64,
        (None, None, 0, None, None),
        ("vgprs",),
        None,
        error="hipErrorUnknown: 769 VGPRs exceed the 768 per SIMD (wave64)",
    ),
    Case("gfx1100", AmdKernel(vgprs=96), 256, 8, 64, 64, (None, 8, 8, None, None), ("waves", "vgprs"), None),
]


@pytest.mark.parametrize("case", WORKED + OURS, ids=lambda c: f"{c.device}-{c.threads}-{c.kernel.vgprs}v")
def test_runtime_rule(case: Case, amd_catalog: AmdCatalog) -> None:
    result = hip_occupancy(amd_catalog.get(case.device).device(), case.kernel, AmdLaunch(case.threads, case.dynamic))
    assert (result.active_blocks, result.active_waves, result.max_waves) == (case.blocks, case.waves, case.max_waves)
    assert tuple(result.limits[k] for k in HIP_LIMITS) == case.limits
    assert (result.binding, result.grid_blocks, result.error) == (case.binding, case.grid, case.error)
    assert result.occupancy == case.waves / case.max_waves


def test_cases_cover_every_target_and_limit(amd_catalog: AmdCatalog) -> None:
    targets = {amd_catalog.get(c.device).target.name for c in WORKED + OURS}
    assert targets == {p.name for p in amd_catalog.targets()}
    assert {b for c in WORKED + OURS for b in c.binding} == set(HIP_LIMITS)
    kernels = [(amd_catalog.get(c.device).target, c.kernel) for c in WORKED + OURS]
    assert {(k.resolved_wave_size(t), k.resolved_wgp_mode(t)) for t, k in kernels} == {
        (64, False),
        (32, True),
        (64, True),
        (32, False),
    }


def test_json_contract(amd_catalog: AmdCatalog) -> None:
    result = hip_occupancy(amd_catalog.get("MI300X").device(), WORKED[0].kernel, AmdLaunch(256))
    assert result.as_dict() == {
        "active_blocks": 4,
        "active_waves": 16,
        "occupancy": 0.5,
        "limits": {"workgroup_size": None, "waves": 8, "vgprs": 4, "sgprs": 8, "lds": 4},
        "binding": ["vgprs", "lds"],
        "best_block_size": 1024,
        "grid_blocks": 1216,
        "error": None,
    }


def test_invalid_block_and_inputs(amd_catalog: AmdCatalog) -> None:
    device = amd_catalog.get("MI300X").device()
    result = hip_occupancy(device, AmdKernel(vgprs=8), AmdLaunch(0))
    assert result.error is not None and result.error.startswith("hipErrorInvalidValue")
    with pytest.raises(AmdInputError, match="wave size 32 is not available on gfx942"):
        hip_occupancy(device, AmdKernel(vgprs=8, wave_size=32), AmdLaunch(64))
    with pytest.raises(AmdInputError, match="vgprs must not be negative"):
        hip_occupancy(device, AmdKernel(vgprs=-1), AmdLaunch(64))


def test_sgprs_that_leave_no_wave_are_no_answer(amd_catalog: AmdCatalog) -> None:
    """gfx9: alignUp(801, 16) = 816 > 800 SGPRs per SIMD -> 0 waves, where HIP divides by zero; 800 still fits one."""
    device = amd_catalog.get("MI300X").device()
    result = hip_occupancy(device, AmdKernel(vgprs=8, sgprs=801), AmdLaunch(64))
    assert result.error == "no answer: 801 SGPRs exceed the 800 per SIMD (the runtime divides by zero here)"
    assert result.active_blocks == 0 and result.binding == ("sgprs",) and result.limits["sgprs"] == 0
    assert result.budget.sgpr_waves == 0 and result.budget.sgprs_allocated == 816
    potential = max_active_blocks(device, AmdKernel(vgprs=8, sgprs=900), 0, potential=True)
    assert potential.error is not None and potential.grid_blocks is None
    fits = hip_occupancy(device, AmdKernel(vgprs=8, sgprs=800), AmdLaunch(64))
    assert fits.error is None and fits.limits["sgprs"] == 4  # 4 SIMDs × 1 wave × 64 / 64
    # gfx10+ has no SGPR limit: the same count answers.
    assert (
        hip_occupancy(
            amd_catalog.get("RX 7900 XTX").device(), AmdKernel(vgprs=8, sgprs=900, wave_size=32), AmdLaunch(64)
        ).error
        is None
    )


POTENTIAL = [
    # MI300X worked case: ALU threads 4 × 4 × 64 = 1024 -> best block 1024, 1 per CU, LDS allows 4: grid 304.
    ("MI300X", AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB), 0, 0, 1024, 304),
    # RX 6800 XT: 4 × 9 × 32 = 1152 -> best min(1152, 1024) = 1024, 1152/1024 = 1 per WGP: grid 36.
    ("RX 6800 XT", AmdKernel(vgprs=100), 0, 0, 1024, 36),
    # A limit of 200 aligns to 256, and HIP returns that aligned size: min(2048, 256) = 256, 8 per CU × 60.
    ("MI50", AmdKernel(vgprs=32, sgprs=20), 0, 200, 256, 480),
    # LDS-bound: 2048 ALU threads -> 1024 per block, 2 per CU, but 40 KiB of LDS allows 1: grid 110.
    ("MI250X", AmdKernel(vgprs=64, static_lds=40 * KiB), 0, 0, 1024, 110),
    # Dynamic LDS counts too: 24 KiB dynamic on 64 KiB -> 2 per CU; ALU 2048/1024 = 2 -> grid 2 × 304.
    ("MI300X", AmdKernel(vgprs=64), 24 * KiB, 0, 1024, 608),
    # A limit above 1024 is replaced by 1024.
    ("RX 7900 XTX", AmdKernel(vgprs=96), 0, 5000, 1024, 96),
]


@pytest.mark.parametrize(("device", "kernel", "dynamic", "limit", "block", "grid"), POTENTIAL)
def test_potential_block_size(
    device: str, kernel: AmdKernel, dynamic: int, limit: int, block: int, grid: int, amd_catalog: AmdCatalog
) -> None:
    result = hip_potential_block_size(amd_catalog.get(device).device(), kernel, dynamic, limit)
    assert (result.best_block_size, result.grid_blocks, result.error) == (block, grid, None)


SEARCH = [
    # MI300X: ALU budget 1024 threads, LDS 4 blocks; 2048 (maxThreadsPerMultiProcessor) is never reached, so all
    # 16 candidates run and the first best, 1024 threads × 1 block, stays.
    ("MI300X", AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB), 0, 0, (1024, 1, 304, 16)),
    # MI50: 2 blocks of 1024 = 2048 threads, below the 2560 HIP reports, so the loop runs to the end.
    ("MI50", AmdKernel(vgprs=32, sgprs=20), 0, 0, (1024, 2, 120, 16)),
    # RX 7900 XTX: 2 × 1024 = 2048 = 32 × 32 × 2 (WGP): the first candidate ends the loop.
    ("RX 7900 XTX", AmdKernel(vgprs=96), 0, 0, (1024, 2, 96, 1)),
    # 64 B of dynamic LDS per thread: no block size gets past 1024 resident threads, so 1024 (first) stays.
    ("RX 7900 XTX", AmdKernel(vgprs=64), lambda b: 64 * b, 0, (1024, 1, 48, 32)),
    # A limit of 200: candidates 200 (aligned 256), 192, 128, 64; 200 × 4 = 800 threads wins.
    ("MI300X", AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB), 0, 200, (200, 4, 1216, 4)),
    # The kernel's launch bound (max flat workgroup size 256) caps the search like maxThreadsPerBlock does.
    ("MI300X", AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB, max_threads=256), 0, 0, (256, 4, 1216, 4)),
]


@pytest.mark.parametrize(("device", "kernel", "dynamic", "limit", "expected"), SEARCH)
def test_header_block_size_search(
    device: str,
    kernel: AmdKernel,
    dynamic: object,
    limit: int,
    expected: tuple[int, int, int, int],
    amd_catalog: AmdCatalog,
) -> None:
    found = hip_block_size_search(amd_catalog.get(device).device(), kernel, dynamic, limit)  # type: ignore[arg-type]  # int or callable
    assert (found.block_size, found.blocks_per_multiprocessor, found.min_grid_size, found.candidates) == expected
    assert found.error is None


def test_search_stops_at_the_runtime_error(amd_catalog: AmdCatalog) -> None:
    found = hip_block_size_search(amd_catalog.get("MI300X").device(), AmdKernel(vgprs=600))
    assert found.error == "hipErrorUnknown: 600 VGPRs exceed the 512 per SIMD" and found.candidates == 1


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_blocks_are_the_smallest_limit(data: st.DataObject, amd_catalog: AmdCatalog) -> None:
    """Whatever the input, the answer is the smallest limit, and the grid is CUs × best blocks per CU."""
    profile = data.draw(st.sampled_from(amd_catalog.gpus()))
    target = profile.target
    wave = data.draw(st.sampled_from(target.wave_sizes()))
    kernel = AmdKernel(
        vgprs=data.draw(st.integers(0, 256)),
        sgprs=data.draw(st.integers(0, 110)),
        static_lds=data.draw(st.integers(0, 40000)),
        wave_size=wave,
        wgp_mode=data.draw(st.booleans()) if target.has_wgp else None,
    )
    threads = data.draw(st.integers(1, 1024))
    result = hip_occupancy(profile.device(), kernel, AmdLaunch(threads, data.draw(st.integers(0, 20000))))
    assert result.error is None
    assert result.active_blocks == min(v for v in result.limits.values() if v is not None)
    assert result.binding and 0 <= result.occupancy <= 1
    assert result.active_waves == result.active_blocks * -(-threads // wave)
