"""Sweeps equal the scalar engine value for value, and their step edges fit pyqtgraph's contract."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from occupancy_gui.engine import (
    FunctionAttributes,
    Launch,
    OccupancyError,
    compute_occupancy,
    sweep_barriers,
    sweep_block_size,
    sweep_block_size_registers,
    sweep_registers,
    sweep_shared_memory,
)

FUNC = FunctionAttributes(num_regs=40, shared_size_bytes=6000, num_block_barriers=3)
LAUNCH = Launch(200, 3000)


def scalar_blocks(device, func, launch) -> int:
    try:
        return compute_occupancy(device, func, launch).active_blocks
    except OccupancyError:
        return 0


@pytest.mark.parametrize("name", ["sm_35", "sm_60", "sm_75", "sm_86", "sm_90", "sm_100", "sm_120"])
def test_curves_equal_scalar_engine(cc_devices, name: str) -> None:
    device = cc_devices[name]
    curves = {
        "block": sweep_block_size(device, FUNC, LAUNCH),
        "regs": sweep_registers(device, FUNC, LAUNCH),
        "smem": sweep_shared_memory(device, FUNC, LAUNCH),
        "bars": sweep_barriers(device, FUNC, LAUNCH),
    }
    for curve in curves.values():
        assert len(curve.edges) == len(curve.x) + 1
        assert np.all(np.diff(curve.edges) > 0)
    rng = np.random.default_rng(7)
    for i in rng.choice(len(curves["block"].x), 40):
        x = int(curves["block"].x[i])
        assert curves["block"].active_blocks[i] == scalar_blocks(device, FUNC, Launch(x, LAUNCH.dynamic_smem))
    for i, x in enumerate(curves["regs"].x):
        assert curves["regs"].active_blocks[i] == scalar_blocks(device, replace(FUNC, num_regs=int(x)), LAUNCH)
    for i, x in enumerate(curves["bars"].x):
        assert curves["bars"].active_blocks[i] == scalar_blocks(
            device, replace(FUNC, num_block_barriers=int(x)), LAUNCH
        )
    smem = curves["smem"]
    for i in rng.choice(len(smem.x), 40):
        # every byte count inside a step gets the step's value
        for total in {int(np.floor(smem.edges[i] + 1)), int(smem.x[i])}:
            if total >= FUNC.shared_size_bytes:
                got = scalar_blocks(device, FUNC, Launch(LAUNCH.block_size, total - FUNC.shared_size_bytes))
                assert smem.active_blocks[i] == got, (name, total)


def test_grid_equals_scalar_engine(cc_devices) -> None:
    device = cc_devices["sm_89"]
    grid = sweep_block_size_registers(device, FUNC, LAUNCH)
    assert grid.active_blocks.shape == (1024, 257)  # registers 0..256 on CC >= 7
    rng = np.random.default_rng(3)
    for _ in range(200):
        i, j = int(rng.integers(0, 1024)), int(rng.integers(0, 256))
        func = replace(FUNC, num_regs=int(grid.registers[j]))
        want = scalar_blocks(device, func, Launch(int(grid.block_sizes[i]), LAUNCH.dynamic_smem))
        assert grid.active_blocks[i, j] == want


def test_cliffs_are_the_nearest_changes(cc_devices) -> None:
    device = cc_devices["sm_80"]
    curve = sweep_registers(device, FunctionAttributes(num_regs=64), Launch(256))
    above, below = curve.cliff_above(), curve.cliff_below()
    assert above is not None and below is not None
    assert (below.x, below.active_blocks) == (48, 5)  # 48 × 32 = 1536 per warp: 10 warps per sub-partition
    assert (above.x, above.active_blocks) == (65, 3)
    here = compute_occupancy(device, FunctionAttributes(num_regs=below.x), Launch(256)).active_blocks
    assert here == below.active_blocks
    assert compute_occupancy(device, FunctionAttributes(num_regs=below.x + 1), Launch(256)).active_blocks == 4
