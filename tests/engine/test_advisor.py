"""The advisor against the runtime heuristic (the reference header) and against the engine recomputed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from occupancy_gui.engine import (
    DynamicSmem,
    FunctionAttributes,
    Launch,
    OccupancyError,
    advise,
    advise_block_size,
    available_dynamic_smem_per_block,
    compute_occupancy,
    grid_block_size_registers,
    grid_block_size_shared_memory,
    input_cliffs,
    register_targets,
    smem_headroom,
    suggest_launch_bounds,
)
from occupancy_gui.engine import architecture as arch
from occupancy_gui.engine.advisor import BINDING_ORDER, MAX_REGISTER_CAP
from tests.engine.test_reference_differential import SEED, kernel_from_row, random_kernels
from tests.harness.reference import Reference

SEED_FUNC = FunctionAttributes(num_regs=64, shared_size_bytes=24 * 1024)
SEED_LAUNCH = Launch(256)
DEVICES = ["sm_61", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
KERNELS = [
    (FunctionAttributes(num_regs=64, shared_size_bytes=24 * 1024), Launch(256)),
    (
        FunctionAttributes(num_regs=32, shared_size_bytes=24 * 1024, max_dynamic_shared_size_bytes=150_000),
        Launch(256, 20_000),
    ),
    (FunctionAttributes(num_regs=100, shared_size_bytes=1000, num_block_barriers=4), Launch(96, 5000)),
    (FunctionAttributes(num_regs=24, shared_size_bytes=0, max_dynamic_shared_size_bytes=60_000), Launch(640, 40_000)),
    (FunctionAttributes(num_regs=255, shared_size_bytes=48 * 1024), Launch(1024)),
]


def blocks(device, func, launch, state=None) -> int:
    try:
        return compute_occupancy(device, func, launch, state).active_blocks
    except OccupancyError:
        return 0


def test_block_size_is_the_runtime_heuristic(reference: Reference, cc_devices: dict, gpu_devices: dict) -> None:
    rng = np.random.default_rng(SEED + 40)
    for name, device in {**cc_devices, **dict(list(gpu_devices.items())[::9])}.items():
        n = 25
        kernel = random_kernels(rng, n, device)
        kernel[:, 2] = np.where(rng.random(n) < 0.7, 2**31 - 1, rng.integers(1, 1100, n))
        terms = np.column_stack(
            [
                rng.integers(0, 20000, n) * (rng.random(n) < 0.5),
                rng.integers(0, 64, n) * (rng.random(n) < 0.3),
                rng.integers(0, 1024, n) * (rng.random(n) < 0.3),
            ]
        )
        ref = reference.potential_block_size(device, kernel, terms)
        for i in range(n):
            func, state = kernel_from_row(kernel[i])
            advice = advise_block_size(device, func, 256, DynamicSmem(*(int(t) for t in terms[i])), state)
            want = tuple(int(v) for v in ref[i])
            if want[0] != 0:
                assert advice.suggestion is None and advice.error, (name, i)
                continue
            got = advice.suggestion
            assert got is not None and (got.min_grid_size, got.block_size) == want[1:], (
                name,
                kernel[i].tolist(),
                want,
                got,
            )
            # The ranking holds the heuristic's choice, with the most resident threads of the sizes it tries.
            limit = min(device.max_threads_per_block, func.max_threads_per_block)
            threads = {r.block_size: r.active_blocks * r.block_size for r in advice.ranking if r.block_size <= limit}
            if got.block_size:
                assert threads[got.block_size] == max(threads.values()) == got.blocks_per_sm * got.block_size
            else:
                assert max(threads.values()) == 0


@pytest.mark.parametrize("name", DEVICES)
def test_ranking_covers_every_warp_multiple_and_equals_engine(cc_devices: dict, name: str) -> None:
    device = cc_devices[name]
    func, dyn = FunctionAttributes(num_regs=40, shared_size_bytes=2000), DynamicSmem(512, 8, 0)
    advice = advise_block_size(device, func, 200, dyn)
    sizes = [r.block_size for r in advice.ranking]
    assert sorted(sizes) == sorted({*range(32, device.max_threads_per_block + 1, 32), 200})
    for r in advice.ranking:
        assert r.dynamic_smem == dyn(r.block_size)
        assert r.active_blocks == blocks(device, func, Launch(r.block_size, r.dynamic_smem))
    warps = [r.active_warps for r in advice.ranking]
    assert warps == sorted(warps, reverse=True)
    assert all(r.active_warps == warps[0] for r in advice.ties()) and len(advice.ties()) >= 1


def test_seed_example_advice(cc_devices: dict) -> None:
    device = cc_devices["sm_100"]
    advice = advise(device, SEED_FUNC, SEED_LAUNCH, spill_stores=0, spill_loads=0)
    ties = {r.block_size for r in advice.block_size.ties()}
    assert {128, 256, 512, 1024} <= ties and advice.block_size.ranking[0].occupancy == 0.5
    regs = {c.gains: c for c in advice.cliffs if c.input == "registers"}
    assert regs[True].describe() == "48 registers → 5 blocks, 62.5 %"
    assert "spill" in regs[True].cost and "no spills now at 64 registers" in regs[True].cost
    assert regs[False].value == 65 and regs[False].active_blocks == 3
    assert not any(c.input == "shared_memory" and c.gains for c in advice.cliffs)  # registers bind, not smem
    assert [h.num_blocks for h in advice.headroom] == [1, 2, 3, 4]
    target = suggest_launch_bounds(device, SEED_FUNC, SEED_LAUNCH, 5)
    assert target is not None
    assert target.launch_bounds == "__launch_bounds__(256, 5)" and target.maxrregcount == "-maxrregcount=48"


def test_spill_figures_appear_in_the_register_cost(cc_devices: dict) -> None:
    cliffs = input_cliffs(cc_devices["sm_100"], SEED_FUNC, SEED_LAUNCH, spill_stores=12, spill_loads=8)
    gain = next(c for c in cliffs if c.input == "registers" and c.gains)
    assert "already spills 12 B stores / 8 B loads at 64 registers" in gain.cost


@pytest.mark.parametrize("name", DEVICES)
@pytest.mark.parametrize("case", range(len(KERNELS)))
def test_cliffs_are_nearest_and_exact(cc_devices: dict, name: str, case: int) -> None:
    device = cc_devices[name]
    func, launch = KERNELS[case]
    now = blocks(device, func, launch)
    granularity = arch.smem_allocation_granularity(device.compute_capability)

    def at(kind: str, value: int) -> int:
        if kind == "registers":
            return blocks(device, replace(func, num_regs=value), launch)
        if kind == "threads":
            return blocks(device, func, Launch(value, launch.dynamic_smem))
        static = min(func.shared_size_bytes, value)
        cut = replace(func, shared_size_bytes=static) if static != func.shared_size_bytes else func
        return blocks(device, cut, Launch(launch.block_size, value - static))

    for cliff in input_cliffs(device, func, launch):
        assert at(cliff.input, cliff.value) == cliff.active_blocks
        assert (cliff.active_blocks > now) if cliff.gains else (cliff.active_blocks < now)
        lo, hi = sorted((cliff.current, cliff.value))
        step = {"registers": 1, "threads": device.warp_size, "shared_memory": granularity}[cliff.input]
        between = range(hi - step, lo, -step) if cliff.input != "threads" else range(lo - lo % step + step, hi, step)
        for v in between:  # nothing nearer changes the block count
            if v != cliff.current and lo < v < hi:
                assert at(cliff.input, v) == now, (cliff, v)
        if cliff.input == "shared_memory" and not cliff.gains:
            assert at("shared_memory", cliff.value - 1) == now
        if cliff.input == "shared_memory" and cliff.gains:
            assert at("shared_memory", cliff.value + 1) <= now or cliff.value + 1 == cliff.current


@pytest.mark.parametrize("name", DEVICES)
@pytest.mark.parametrize("case", range(len(KERNELS)))
def test_headroom_really_yields_n_blocks(cc_devices: dict, name: str, case: int) -> None:
    device = cc_devices[name]
    func, launch = KERNELS[case]
    rows = smem_headroom(device, func, launch)
    reach = blocks(device, func, Launch(launch.block_size, 0))
    assert [r.num_blocks for r in rows] == list(range(1, min(reach, max(blocks(device, func, launch), 1) + 2) + 1))
    for r in rows:
        assert r.exact is not None
        got = blocks(device, func, Launch(launch.block_size, r.exact))
        assert got >= r.num_blocks and got == r.blocks_at_exact
        assert blocks(device, func, Launch(launch.block_size, r.exact + 1)) < r.num_blocks or r.capped
        if r.capped:  # one byte more is beyond the attribute: the launch fails
            assert blocks(device, func, Launch(launch.block_size, r.exact + 1)) == 0
        try:
            header = available_dynamic_smem_per_block(device, func, r.num_blocks, launch.block_size)
        except OccupancyError:
            header = None
        assert r.header == header


@pytest.mark.parametrize("name", DEVICES)
@pytest.mark.parametrize("case", range(len(KERNELS)))
def test_register_targets_are_the_largest_caps(cc_devices: dict, name: str, case: int) -> None:
    device = cc_devices[name]
    func, launch = KERNELS[case]
    top = min(arch.reg_allocation_max_per_thread(device.compute_capability), MAX_REGISTER_CAP)
    for t in register_targets(device, func, launch):
        assert t.max_registers <= 255  # nvcc refuses -maxrregcount=256, though CC >= 7 models 256
        assert blocks(device, replace(func, num_regs=t.max_registers), launch) >= t.min_blocks
        if t.max_registers < top:
            assert blocks(device, replace(func, num_regs=t.max_registers + 1), launch) < t.min_blocks
        assert suggest_launch_bounds(device, func, launch, t.min_blocks) == t
    assert suggest_launch_bounds(device, func, launch, 10_000) is None


@pytest.mark.parametrize("name", ["sm_75", "sm_90", "sm_100"])
def test_heat_map_grids_equal_scalar_engine(cc_devices: dict, name: str) -> None:
    device = cc_devices[name]
    func, launch = KERNELS[1]
    rng = np.random.default_rng(7)
    for grid, kind in (
        (grid_block_size_registers(device, func, launch), "registers"),
        (grid_block_size_shared_memory(device, func, launch), "smem"),
    ):
        assert grid.occupancy.shape == (len(grid.block_sizes), len(grid.values)) == grid.binding.shape
        assert list(grid.block_sizes) == list(range(32, device.max_threads_per_block + 1, 32))
        for _ in range(60):
            i, j = int(rng.integers(len(grid.block_sizes))), int(rng.integers(len(grid.values)))
            size, value = int(grid.block_sizes[i]), int(grid.values[j])
            if kind == "registers":
                f, lnch = replace(func, num_regs=value), Launch(size, launch.dynamic_smem)
            else:
                f, lnch = func, Launch(size, value - func.shared_size_bytes)
            try:
                result = compute_occupancy(device, f, lnch)
            except OccupancyError:
                assert grid.active_blocks[i, j] == 0 and grid.binding[i, j] == -1
                continue
            assert grid.active_blocks[i, j] == result.active_blocks
            assert grid.occupancy[i, j] == pytest.approx(result.occupancy)
            if result.active_blocks:
                primary = next(lim for lim in BINDING_ORDER if result.limits.get(lim) == result.active_blocks)
                assert BINDING_ORDER[grid.binding[i, j]] == primary
