"""Every cell of the AMD heat-map grids equals the scalar rule's answer for that cell's inputs."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from occupancy_gui.engine.amd import (
    COMPILER_LIMITS,
    FAILS,
    HIP_LIMITS,
    NO_BLOCK_FITS,
    AmdGrid,
    AmdKernel,
    AmdLaunch,
    compiler_grid_lds,
    compiler_grid_vgprs,
    compiler_occupancy,
    hip_grid_lds,
    hip_grid_vgprs,
    max_active_blocks,
)
from occupancy_gui.profiles.amd_catalog import AmdCatalog

KiB = 1024

CASES = [
    ("MI300X", AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB), AmdLaunch(256)),
    ("MI300X", AmdKernel(vgprs=40, sgprs=0), AmdLaunch(64, 3000)),
    ("MI50", AmdKernel(vgprs=16, sgprs=102, max_threads=256), AmdLaunch(64)),
    ("MI100", AmdKernel(vgprs=100, agprs=200, sgprs=30, static_lds=4 * KiB), AmdLaunch(512)),
    ("RX 7900 XTX", AmdKernel(vgprs=96, sgprs=40), AmdLaunch(256)),
    ("RX 7900 XTX", AmdKernel(vgprs=96, sgprs=40, wave_size=64), AmdLaunch(256)),
    ("RX 7900 XTX", AmdKernel(vgprs=64, wgp_mode=False, static_lds=48 * KiB), AmdLaunch(128)),
    ("RX 6800 XT", AmdKernel(vgprs=72, waves_per_eu=(4, None)), AmdLaunch(96, 100)),
    ("gfx950", AmdKernel(vgprs=200, sgprs=80, static_lds=70 * KiB), AmdLaunch(256)),
    ("RX 9070 XT", AmdKernel(vgprs=33, sgprs=20), AmdLaunch(1024)),
]


def _code(binding: tuple[str, ...], answer: int, error: str | None, names: tuple[str, ...]) -> int:
    if error is not None:
        return FAILS
    if answer == 0:
        return NO_BLOCK_FITS
    return names.index(binding[0])


def _check_hip(grid: AmdGrid, device: Any, kernel_at: Any, dynamic_at: Any) -> None:
    assert grid.limits == HIP_LIMITS
    assert grid.active_blocks.shape == grid.occupancy.shape == (len(grid.block_sizes), len(grid.values))
    for i, block in enumerate(grid.block_sizes):
        for j, value in enumerate(grid.values):
            r = max_active_blocks(device, kernel_at(int(value)), int(block), dynamic_at(int(value)))
            where = f"block {block}, column {value}"
            assert grid.active_blocks[i, j] == r.active_blocks, where
            assert grid.binding[i, j] == _code(r.binding, r.active_blocks, r.error, HIP_LIMITS), where
            expected = 0.0 if r.error is not None else r.occupancy
            assert grid.occupancy[i, j] == pytest.approx(expected, abs=0, rel=1e-15), where


@pytest.mark.parametrize(("name", "kernel", "launch"), CASES)
def test_hip_vgpr_grid_equals_the_runtime_rule_in_every_cell(
    amd_catalog: AmdCatalog, name: str, kernel: AmdKernel, launch: AmdLaunch
) -> None:
    device = amd_catalog.get(name).device()
    grid = hip_grid_vgprs(device, kernel, launch)
    assert grid.values[0] == 0 and grid.values[-1] == device.target.llvm_addressable_vgprs
    _check_hip(grid, device, lambda v: dataclasses.replace(kernel, vgprs=v), lambda _v: launch.dynamic_lds)


@pytest.mark.parametrize(("name", "kernel", "launch"), CASES)
def test_hip_lds_grid_equals_the_runtime_rule_at_each_columns_bytes(
    amd_catalog: AmdCatalog, name: str, kernel: AmdKernel, launch: AmdLaunch
) -> None:
    device = amd_catalog.get(name).device()
    grid = hip_grid_lds(device, kernel, upto=int(device.target.lds_per_workgroup * 1.25))
    assert grid.values[0] >= kernel.static_lds and grid.values[0] - device.target.llvm_lds_granule < max(
        kernel.static_lds, 1
    )
    _check_hip(grid, device, lambda _v: kernel, lambda v: v - kernel.static_lds)


COMPILER_CASES = [
    *CASES,
    # amdgpu-waves-per-eu pads the registers (getMinNumVGPRs / getMinNumSGPRs): the per-cell comparison of the
    # padding with the column's count, on a gfx9 target (SGPRs limit) and a gfx11 one in wave64.
    ("MI300X", AmdKernel(vgprs=64, sgprs=90, waves_per_eu=(1, 3)), AmdLaunch(256)),
    ("MI50", AmdKernel(vgprs=30, sgprs=20, waves_per_eu=(2, 5), static_lds=3 * KiB), AmdLaunch(128)),
    ("RX 7900 XTX", AmdKernel(vgprs=80, wave_size=64, waves_per_eu=(3, 6)), AmdLaunch(256)),
    ("MI100", AmdKernel(vgprs=10, agprs=300, waves_per_eu=(2, 2)), AmdLaunch(64)),
]


@pytest.mark.parametrize(("name", "kernel", "launch"), COMPILER_CASES)
def test_compiler_grids_equal_llvms_model_with_the_row_as_launch_bound(
    amd_catalog: AmdCatalog, name: str, kernel: AmdKernel, launch: AmdLaunch
) -> None:
    device = amd_catalog.get(name).device()
    for grid, column in (
        (compiler_grid_vgprs(device, kernel), "vgprs"),
        (compiler_grid_lds(device, kernel), "static_lds"),
    ):
        assert grid.limits == COMPILER_LIMITS
        for i, block in enumerate(grid.block_sizes):
            for j, value in enumerate(grid.values):
                changes = {column: int(value), "max_threads": int(block), "required_block": 0}
                if column == "vgprs":
                    changes |= {"agprs": 0, "allocated_vgprs": 0}
                r = compiler_occupancy(device.target, dataclasses.replace(kernel, **changes))
                assert grid.active_blocks[i, j] == r.waves_per_simd, (block, value)
                assert grid.occupancy[i, j] == r.occupancy
                assert grid.binding[i, j] == _code(r.binding, r.waves_per_simd, None, COMPILER_LIMITS)


def test_every_hip_limit_binds_somewhere_and_errors_are_marked(amd_catalog: AmdCatalog) -> None:
    """The grids are not one colour: each limit of the runtime binds in some cell of these maps, and VGPR counts
    past a SIMD's file are the runtime's error, not 0 %."""
    mi50 = amd_catalog.get("MI50").device()
    seen: set[int] = set()
    kernel = AmdKernel(vgprs=24, sgprs=100, static_lds=2 * KiB)
    for grid in (hip_grid_vgprs(mi50, kernel, AmdLaunch(64)), hip_grid_lds(mi50, kernel, 80 * KiB)):
        seen |= set(np.unique(grid.binding).tolist())
    assert {HIP_LIMITS.index(k) for k in ("waves", "vgprs", "sgprs", "lds")} <= seen
    assert NO_BLOCK_FITS in seen
    too_many = hip_grid_lds(amd_catalog.get("MI300X").device(), AmdKernel(vgprs=600), None)
    assert (too_many.binding == FAILS).all() and (too_many.active_blocks == 0).all()  # hipErrorUnknown everywhere


@pytest.mark.parametrize(("name", "kernel", "launch"), CASES)
def test_hip_utilization_splits_each_resource_for_the_runtimes_answer(
    amd_catalog: AmdCatalog, name: str, kernel: AmdKernel, launch: AmdLaunch
) -> None:
    """Each resource alone allows the runtime's own limit for it, the resident blocks are its answer, and the
    binding rows are its binding limits."""
    from occupancy_gui.engine.amd import hip_occupancy, hip_utilization

    device = amd_catalog.get(name).device()
    result = hip_occupancy(device, kernel, launch)
    items = hip_utilization(result)
    keys = {"Wave slots": "waves", "VGPRs": "vgprs", "SGPRs": "sgprs", "LDS": "lds"}
    assert items and items[0].usage.resource == "Wave slots"
    for item in items:
        key = keys[item.usage.resource]
        assert item.usage.blocks == result.limits[key] and item.resident_blocks == result.active_blocks
        assert item.allocated + item.unusable + item.remainder == item.capacity
        assert item.binding == (key in result.binding)
    wave_slots = items[0]
    assert wave_slots.allocated == result.active_waves and wave_slots.capacity == result.max_waves
    assert {keys[i.usage.resource] for i in items} == {
        k for k in ("waves", "vgprs", "sgprs", "lds") if result.limits[k] is not None
    }


def test_hip_utilization_of_the_mi300x_worked_case(amd_catalog: AmdCatalog) -> None:
    from occupancy_gui.engine.amd import hip_occupancy, hip_utilization

    result = hip_occupancy(
        amd_catalog.get("MI300X").device(), AmdKernel(vgprs=128, sgprs=96, static_lds=16 * KiB), AmdLaunch(256)
    )
    figures = {i.usage.resource: (i.allocated, i.unusable, i.remainder, i.capacity) for i in hip_utilization(result)}
    assert figures == {
        "Wave slots": (16, 16, 0, 32),  # 4 blocks of 4 waves of 4 SIMDs × 8
        "VGPRs": (4 * 4 * 128, 0, 0, 4 * 512),  # 16 waves of 128 of 4 × 512: full
        "SGPRs": (16 * 96, 16 * 96, 4 * 800 - 32 * 96, 4 * 800),  # 8 blocks allowed
        "LDS": (64 * KiB, 0, 0, 64 * KiB),
    }
    assert hip_utilization(hip_occupancy(amd_catalog.get("MI300X").device(), AmdKernel(vgprs=600), AmdLaunch(64))) == ()
