"""The kernel's required block size (PTX ``.reqntid``) and ``__launch_bounds__``'s minimum blocks per SM.

``.reqntid`` is a launch rule the header does not model: a block of any other size cannot launch, so
the engine's resident blocks (scalar answer, curves, heat maps, advisor, suggest, batch) are 0 there
and the header's own per-limit figures stay untouched.  ``minBlocksPerMultiprocessor`` is a compiler
hint: the engine only says when a launch leaves fewer blocks resident.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace

import numpy as np
import pytest

from occupancy_gui.cli.main import main
from occupancy_gui.engine import (
    DeviceState,
    FunctionAttributes,
    Launch,
    Limit,
    OccupancyError,
    advise_block_size,
    build_query,
    compute_occupancy,
    grid_block_size_registers,
    input_cliffs,
    max_active_blocks,
    max_potential_block_size,
    min_blocks_shortfall,
    sweep_block_size,
)
from occupancy_gui.engine.advisor import CANNOT_LAUNCH, NO_BLOCK_FITS
from tests.harness.reference import Reference

FUNC = FunctionAttributes(num_regs=32, shared_size_bytes=4096, reqntid=256)


def test_only_the_required_size_launches(cc_devices: dict) -> None:
    device = cc_devices["sm_90"]
    free = replace(FUNC, reqntid=0)
    ok = compute_occupancy(device, FUNC, Launch(256))
    assert ok == compute_occupancy(device, free, Launch(256))  # at the required size: exactly the header's answer
    for threads in (128, 255, 257, 288):
        r = compute_occupancy(device, FUNC, Launch(threads))
        assert compute_occupancy(device, free, Launch(threads)).active_blocks > 0  # only .reqntid stops it
        assert r.active_blocks == 0 and r.binding == (Limit.WARPS,)
        assert r.reasons == (
            f"{threads} threads per block ≠ 256, the kernel's required block size (.reqntid): the launch fails",
        )
        warps_row = next(row for row in r.rows if row.limit == Limit.WARPS)
        assert warps_row.blocks == 0 and ".reqntid" in warps_row.calculation
        assert r.limits[Limit.REGISTERS] == compute_occupancy(device, free, Launch(threads)).limits[Limit.REGISTERS]


def test_the_header_fields_stay_exact_and_resident_blocks_follow_the_rule(cc_devices: dict) -> None:
    device = cc_devices["sm_100"]
    rng = np.random.default_rng(31)
    block = rng.integers(1, device.max_threads_per_block + 50, 4000)
    req = np.where(rng.random(4000) < 0.3, 0, rng.choice([64, 96, 128, 256, 1024, 2048], 4000))
    bound = np.where(rng.random(4000) < 0.5, 2**31 - 1, rng.choice([128, 512], 4000))
    base = build_query(
        device, FunctionAttributes(num_regs=40), DeviceState(), block, 0, func_max_threads_per_block=bound
    )
    free = max_active_blocks(device, base)
    r = max_active_blocks(device, replace(base, func_reqntid=np.asarray(req)))
    assert (r.active_blocks == free.active_blocks).all() and (r.block_limit_warps == free.block_limit_warps).all()
    launches = (block <= np.minimum(device.max_threads_per_block, bound)) & ((req == 0) | (block == req))
    assert (r.resident_blocks == np.where(launches, free.active_blocks, 0)).all()
    assert ((req > 0) & (block != req) & (free.resident_blocks > 0)).any()  # the rule really removed launches


def test_curve_heat_map_advisor_and_cliffs_offer_only_the_required_size(cc_devices: dict) -> None:
    device = cc_devices["sm_100"]
    curve = sweep_block_size(device, FUNC, Launch(256))
    assert curve.reqntid == 256 and curve.cliff_above() is None and curve.cliff_below() is None
    assert sweep_block_size(device, replace(FUNC, reqntid=0), Launch(256)).cliff_above() is not None
    assert (curve.active_blocks[curve.x != 256] == 0).all() and curve.active_blocks[curve.x == 256][0] > 0
    grid = grid_block_size_registers(device, FUNC, Launch(256))
    assert (grid.binding[grid.block_sizes != 256] == CANNOT_LAUNCH).all()
    row = grid.binding[grid.block_sizes == 256][0]
    assert (row >= 0).all()  # 256 threads fit at every register count: each cell names its binding limit
    advice = advise_block_size(device, FUNC, 288)
    assert advice.suggestion is not None and advice.suggestion.block_size == 256
    assert {r.block_size for r in advice.ranking} == {256, 288}
    assert (
        advice.ranking[0].block_size == 256
        and next(r for r in advice.ranking if r.block_size == 288).active_blocks == 0
    )
    threads = [c for c in input_cliffs(device, FUNC, Launch(256)) if c.input == "threads"]
    assert all(c.value == 256 for c in threads) or not threads


def test_heat_map_tells_cannot_launch_from_no_block_fits(cc_devices: dict) -> None:
    device = cc_devices["sm_90"]
    grid = grid_block_size_registers(device, FunctionAttributes(num_regs=32, max_threads_per_block=768), Launch(128))
    above, within = grid.block_sizes > 768, grid.block_sizes <= 768
    assert (grid.binding[above] == CANNOT_LAUNCH).all()
    # 768 threads × 255 registers do not fit in 65,536 registers: "no block fits", a matter of resources;
    # 1024 threads × 255 registers do not fit either, but 1024 is above the bound: that is "cannot launch".
    assert grid.binding[grid.block_sizes == 768][0, 255] == NO_BLOCK_FITS
    assert not (grid.binding[within] == CANNOT_LAUNCH).any()


@pytest.mark.parametrize("name", ["sm_75", "sm_90", "sm_120"])
def test_suggest_is_the_required_size_with_the_header_blocks_there(
    reference: Reference, cc_devices: dict, name: str
) -> None:
    device = cc_devices[name]
    for req in (32, 96, 200, 256, 640, 1024):
        for regs in (24, 64, 128):
            func = FunctionAttributes(num_regs=regs, shared_size_bytes=8192, reqntid=req)
            got = max_potential_block_size(device, func)
            header = compute_occupancy(device, replace(func, reqntid=0), Launch(req)).active_blocks
            # (the header's own answer where nothing fits is block size 0)
            assert (got.block_size, got.blocks_per_sm, got.tried) == (req if header else 0, header, ((req, header),))
            # The closest header call, maxThreadsPerBlock = reqntid, may suggest a smaller size.
            kernel = np.array([[regs, 8192, req, 0, 1, device.shared_mem_per_block - 8192, 1, 0, 0, -1]])
            status, _grid, block = reference.potential_block_size(device, kernel, np.zeros((1, 3), np.int64))[0]
            assert status == 0 and block <= req
    with pytest.raises(OccupancyError, match="required block size .* 2048 threads is above 1024"):
        max_potential_block_size(device, FunctionAttributes(num_regs=32, reqntid=2048))


def _cli(*argv: str) -> tuple[int, dict, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    text = out.getvalue()
    return code, json.loads(text) if code == 0 and "--json" in argv else {}, text


def test_cli_calc_suggest_and_batch_carry_the_required_size(capsys: pytest.CaptureFixture[str]) -> None:
    code, got, _ = _cli(
        "calc", "--device", "sm_90", "--threads", "288", "--registers", "32", "--required-block-size", "256", "--json"
    )
    assert code == 0 and got["active_blocks"] == 0 and got["required_block_size"] == 256
    assert got["binding"] == ["warps"] and ".reqntid" in got["reasons"][0]
    code, got, _ = _cli(
        "calc", "--device", "sm_90", "--threads", "256", "--registers", "32", "--required-block-size", "256", "--json"
    )
    assert got["active_blocks"] == 8
    code, got, _ = _cli("suggest", "--device", "sm_90", "--registers", "32", "--required-block-size", "96", "--json")
    assert (code, got["block_size"], got["required_block_size"]) == (0, 96, 96)
    code, _, _ = _cli("calc", "--device", "sm_90", "--threads", "64", "--registers", "32", "--required-block-size", "0")
    assert code == 2 and capsys.readouterr().err.strip() == (
        "occupancy calc: error: required_block_size: expected at least 1 (the kernel's .reqntid), got 0"
    )


def test_min_blocks_shortfall_is_said_plainly_in_calc() -> None:
    assert (
        min_blocks_shortfall(4, 4) is None
        and min_blocks_shortfall(8, 4) is None
        and min_blocks_shortfall(0, None) is None
    )
    words = min_blocks_shortfall(1, 2)
    assert words is not None and words.startswith("Only 1 block per SM, below the 2 the kernel asked for")
    # 256 threads × 64 registers on sm_90: 4 blocks; the kernel asked for 6.
    code, got, _ = _cli(
        "calc", "--device", "sm_90", "--threads", "256", "--registers", "64", "--min-blocks-per-sm", "6", "--json"
    )
    assert code == 0 and got["active_blocks"] == 4 and got["min_blocks_per_sm"] == 6
    assert got["min_blocks_shortfall"].startswith("Only 4 blocks per SM, below the 6 the kernel asked for")
    code, got, _ = _cli(
        "calc", "--device", "sm_90", "--threads", "256", "--registers", "64", "--min-blocks-per-sm", "4", "--json"
    )
    assert got["min_blocks_shortfall"] is None
    code, _, text = _cli(
        "calc", "--device", "sm_90", "--threads", "256", "--registers", "64", "--min-blocks-per-sm", "6"
    )
    assert code == 0 and text.rstrip().splitlines()[-1].startswith("Note: Only 4 blocks per SM, below the 6")
    code, _, text = _cli("calc", "--device", "sm_90", "--threads", "256", "--registers", "64")
    assert "Note:" not in text
