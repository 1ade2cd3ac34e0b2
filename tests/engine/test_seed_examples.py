"""The worked examples of the occupancy method (../shared/seeds), as named tests.

The first seed uses the CUDA Programming Guide's illustrative compute-capability 10.0 SM (2048
threads, 32 blocks, 65536 registers, 233472 B shared memory); the second quotes A100 figures.
"""

from __future__ import annotations

import pytest

from occupancy_gui.engine import FunctionAttributes, Launch, Limit, compute_occupancy
from occupancy_gui.profiles import Catalog

KIB = 1024


@pytest.fixture(scope="module")
def cc100(bundled_catalog: Catalog):
    device = bundled_catalog.get("sm_100").device_properties()
    assert (
        device.max_threads_per_multiprocessor,
        device.regs_per_multiprocessor,
        device.shared_mem_per_multiprocessor,
    ) == (2048, 65536, 233472)
    return device


@pytest.fixture(scope="module")
def a100(bundled_catalog: Catalog):
    return bundled_catalog.get("A100").device_properties()


def test_registers_bind_at_64_per_thread(cc100) -> None:
    r = compute_occupancy(cc100, FunctionAttributes(num_regs=64, shared_size_bytes=24 * KIB), Launch(256))
    assert r.limits[Limit.BLOCKS] == 32
    assert r.limits[Limit.WARPS] == 8
    assert r.limits[Limit.REGISTERS] == 4
    assert r.limits[Limit.SHARED_MEMORY] == 9
    assert (r.active_blocks, r.active_warps, r.occupancy) == (4, 32, 0.5)
    assert r.binding == (Limit.REGISTERS,)
    assert r.estimate.active_blocks == 4


def test_32_registers_reach_full_occupancy_with_warps_and_registers_tied(cc100) -> None:
    r = compute_occupancy(cc100, FunctionAttributes(num_regs=32, shared_size_bytes=24 * KIB), Launch(256))
    assert (r.active_blocks, r.active_warps, r.occupancy) == (8, 64, 1.0)
    assert set(r.binding) == {Limit.WARPS, Limit.REGISTERS}


def test_one_warp_blocks_hit_the_block_limit(cc100) -> None:
    r = compute_occupancy(cc100, FunctionAttributes(num_regs=16), Launch(32))
    assert (r.active_blocks, r.active_warps, r.occupancy) == (32, 32, 0.5)
    assert r.binding == (Limit.BLOCKS,)


def test_768_thread_blocks_fit_twice(cc100) -> None:
    r = compute_occupancy(cc100, FunctionAttributes(num_regs=16), Launch(768))
    assert (r.active_blocks, r.active_warps, r.occupancy) == (2, 48, 0.75)
    assert r.binding == (Limit.WARPS,)


def test_partial_warp_counts_as_a_whole_warp(cc100) -> None:
    r = compute_occupancy(cc100, FunctionAttributes(num_regs=0), Launch(100))
    assert r.warps_per_block == 4
    assert r.limits[Limit.WARPS] == 16


@pytest.mark.parametrize(("registers", "occupancy"), [(32, 1.0), (64, 0.5), (128, 0.25)])
def test_a100_register_pressure(a100, registers: int, occupancy: float) -> None:
    r = compute_occupancy(a100, FunctionAttributes(num_regs=registers), Launch(256))
    assert r.occupancy == occupancy
    assert r.max_warps_per_multiprocessor == 64


def test_a100_48_kib_blocks_fit_three_times(a100) -> None:
    r = compute_occupancy(a100, FunctionAttributes(num_regs=32), Launch(256, 48 * KIB))
    assert r.limits[Limit.SHARED_MEMORY] == 3
    assert (r.active_warps, r.occupancy) == (24, 0.375)


def test_reserved_shared_memory_moves_a_boundary_the_estimate_misses(a100) -> None:
    """41 KiB per block: the estimate says 4 blocks, but 1 KiB reserved per block leaves room for 3."""
    r = compute_occupancy(a100, FunctionAttributes(num_regs=32), Launch(128, 41 * KIB))
    assert r.estimate.limits[Limit.SHARED_MEMORY] == 4
    assert r.limits[Limit.SHARED_MEMORY] == 3
    row = next(row for row in r.rows if row.limit is Limit.SHARED_MEMORY)
    assert row.rounding_changed_ceiling


def test_register_granularity_moves_a_boundary_the_estimate_misses(a100) -> None:
    """36 registers × 32 lanes = 1152, allocated as 1280 per warp: 6 blocks, not the estimate's 7."""
    r = compute_occupancy(a100, FunctionAttributes(num_regs=36), Launch(256))
    assert r.estimate.limits[Limit.REGISTERS] == 7
    assert r.limits[Limit.REGISTERS] == 6
    assert r.allocated_registers_per_block == 1280 * 8


def test_zero_blocks_lists_every_reason(cc100) -> None:
    r = compute_occupancy(cc100, FunctionAttributes(num_regs=300, num_block_barriers=80), Launch(1025, 50176))
    assert r.active_blocks == 0
    assert "1025 threads per block > 1024 allowed" in r.reasons
    assert "300 registers per thread > 256 allowed" in r.reasons
    assert any(reason.startswith("50176 B shared memory per block > 49152 B without opt-in") for reason in r.reasons)
    assert "80 block barriers per block > 64 available per SM" in r.reasons
