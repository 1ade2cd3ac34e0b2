"""The kernel's own launch bound, ``cudaOccFuncAttributes.maxThreadsPerBlock``, everywhere it matters.

The header uses it to limit ``cudaOccMaxPotentialOccupancyBlockSize``'s search to ``min(device,
kernel)``; a block above it cannot launch, so the engine's resident blocks (curves, heat maps, the
advisor, the scalar answer) are 0 there while the header's own per-limit figures stay untouched.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace

import numpy as np
import pytest

from occupancy_gui.cli.main import main
from occupancy_gui.engine import (
    INT_MAX,
    DeviceState,
    FunctionAttributes,
    Launch,
    Limit,
    advise_block_size,
    build_query,
    compute_occupancy,
    grid_block_size_registers,
    max_active_blocks,
    sweep_block_size,
)
from tests.engine.test_reference_differential import RESULT_FIELDS, SEED, random_kernels
from tests.harness.reference import KERNEL_FIELDS, Reference

FUNC = FunctionAttributes(num_regs=32, shared_size_bytes=4096, max_threads_per_block=256)


def test_block_above_the_bound_cannot_launch(cc_devices: dict) -> None:
    device = cc_devices["sm_90"]
    ok = compute_occupancy(device, FUNC, Launch(256))
    assert ok.active_blocks > 0 and not ok.reasons
    r = compute_occupancy(device, FUNC, Launch(288))
    assert r.active_blocks == 0 and r.binding == (Limit.WARPS,)
    assert r.reasons == (
        "288 threads per block > 256, the kernel's launch bound (maxThreadsPerBlock): the launch fails",
    )
    warps_row = next(row for row in r.rows if row.limit == Limit.WARPS)
    assert warps_row.blocks == 0 and "launch bound" in warps_row.calculation
    # Unbounded, the same launch fits: only the bound stops it.
    assert compute_occupancy(device, replace(FUNC, max_threads_per_block=INT_MAX), Launch(288)).active_blocks > 0


def test_resident_blocks_are_the_header_within_the_bound(reference: Reference, cc_devices: dict) -> None:
    """The header's fields stay exact; resident blocks are its answer where block <= min(device, kernel), else 0."""
    rng = np.random.default_rng(SEED + 77)
    for name in ("sm_75", "sm_90", "sm_100", "sm_120"):
        device, n = cc_devices[name], 3000
        kernel = random_kernels(rng, n, device)
        kernel[:, 2] = rng.integers(1, 1100, n)
        block = rng.integers(1, device.max_threads_per_block + 100, n)
        dyn = np.zeros(n, dtype=np.int64)
        ref = reference.occupancy(device, kernel, block, dyn)
        q = dict(zip(KERNEL_FIELDS, kernel.T, strict=True))
        r = max_active_blocks(
            device, build_query(device, FunctionAttributes(num_regs=0), DeviceState(), block, dyn, **q)
        )
        ok = ref["status"] == 0
        for field in RESULT_FIELDS[1:]:
            assert (getattr(r, field)[ok] == ref[field][ok]).all(), (name, field)
        within = block <= np.minimum(device.max_threads_per_block, kernel[:, 2])
        want = np.where(ok & within, ref["active_blocks"], 0)
        assert (r.resident_blocks == want).all(), name
        assert (ok & ~within & (ref["active_blocks"] > 0)).any()  # the bound really removed launches here


def test_curves_heat_maps_and_advisor_respect_the_bound(cc_devices: dict) -> None:
    device = cc_devices["sm_100"]
    curve = sweep_block_size(device, FUNC, Launch(128))
    assert (curve.active_blocks[curve.x > 256] == 0).all() and (curve.active_blocks[curve.x <= 256] > 0).all()
    grid = grid_block_size_registers(device, FUNC, Launch(128))
    assert (grid.active_blocks[grid.block_sizes > 256] == 0).all()
    assert (grid.active_blocks[grid.block_sizes <= 256, 32] > 0).all()
    advice = advise_block_size(device, FUNC, 288)
    assert advice.suggestion is not None and advice.suggestion.block_size <= 256
    assert all(r.active_blocks == 0 for r in advice.ranking if r.block_size > 256)
    assert max(r.block_size for r in advice.ranking if r.active_blocks) <= 256


def _cli(*argv: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, json.loads(out.getvalue()) if code == 0 else {}


@pytest.mark.parametrize("name", ["sm_75", "sm_86", "sm_90", "sm_100", "sm_120"])
def test_cli_suggest_is_the_header_with_the_attribute(reference: Reference, cc_devices: dict, name: str) -> None:
    """``occupancy suggest --max-threads-per-block N`` = ``cudaOccMaxPotentialOccupancyBlockSize`` with that attribute."""
    device = cc_devices[name]
    bounds = [32, 100, 200, 256, 384, 640, 1000, 2048]
    for regs in (24, 64, 128):
        kernel = np.zeros((len(bounds), 10), dtype=np.int64)
        kernel[:, 0], kernel[:, 1], kernel[:, 2] = regs, 8192, bounds
        kernel[:, 4], kernel[:, 5], kernel[:, 6], kernel[:, 9] = 1, device.shared_mem_per_block - 8192, 1, -1
        ref = reference.potential_block_size(device, kernel, np.zeros((len(bounds), 3), dtype=np.int64))
        for bound, (status, min_grid, block) in zip(bounds, ref, strict=True):
            code, got = _cli(
                "suggest",
                "--device",
                name,
                "--registers",
                str(regs),
                "--static-smem",
                "8192",
                "--max-threads-per-block",
                str(bound),
                "--json",
            )
            assert status == 0 and code == 0
            assert (got["block_size"], got["min_grid_size"]) == (int(block), int(min_grid)), (regs, bound)
            assert got["max_threads_per_block"] == bound and got["block_size"] <= bound


def test_cli_calc_above_the_bound_gives_zero_and_a_reason() -> None:
    code, got = _cli(
        "calc", "--device", "sm_90", "--threads", "288", "--registers", "32", "--max-threads-per-block", "256", "--json"
    )
    assert code == 0 and got["active_blocks"] == 0 and got["binding"] == ["warps"]
    assert got["max_threads_per_block"] == 256 and "launch bound" in got["reasons"][0]
    code, got = _cli(
        "calc", "--device", "sm_90", "--threads", "256", "--registers", "32", "--max-threads-per-block", "256", "--json"
    )
    assert got["active_blocks"] == 8


def test_cli_refuses_a_bound_below_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _cli("calc", "--device", "sm_90", "--threads", "64", "--registers", "32", "--max-threads-per-block", "0")
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "occupancy calc: error: max_threads_per_block: expected at least 1 (the kernel's launch bound), got 0"
    )
