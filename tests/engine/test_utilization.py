"""Utilization: each resource of one SM split into allocated + unusable + remainder, which add up to its capacity.

Hand-worked cases (the figures are worked out in the comments, from the CUDA Programming Guide's rules
and the profiles' limits, not read back from the engine), then the identity on random launches of every
compute capability, with the numbers tied to the result fields the header comparison proves.
"""

from __future__ import annotations

import numpy as np
import pytest

from occupancy_gui.engine import (
    DeviceState,
    FunctionAttributes,
    Launch,
    Limit,
    LimitUsage,
    OccupancyError,
    compute_occupancy,
    split_usage,
    utilization,
)
from occupancy_gui.profiles import Catalog

KIB = 1024


def split(result) -> dict[str, tuple[int, int, int, int, int | None, bool]]:
    """resource -> (allocated, unusable, remainder, capacity, blocks allowed, binding)."""
    return {
        u.usage.resource: (u.allocated, u.unusable, u.remainder, u.capacity, u.usage.blocks, u.binding)
        for u in utilization(result)
    }


@pytest.fixture(scope="module")
def devices(bundled_catalog: Catalog):
    return {name: bundled_catalog.get(name).device_properties() for name in ("sm_100", "sm_90", "sm_80")}


def test_programming_guide_example_registers_bind(devices) -> None:
    """CC 10.0, 256 threads, 64 registers, 24 KiB static: 4 blocks, 32 of 64 warps (50 %), registers bind."""
    r = compute_occupancy(devices["sm_100"], FunctionAttributes(num_regs=64, shared_size_bytes=24 * KIB), Launch(256))
    assert (r.active_blocks, r.active_warps, r.occupancy) == (4, 32, 0.5)
    assert split(r) == {
        # 32 slots, 1 per block: 4 held, 28 free because registers bind.
        "Block slots": (4, 28, 0, 32, 32, False),
        # 8 warps per block, 64 per SM: 8 blocks alone; 4 resident hold 32, the other 32 are unusable.
        "Warps": (32, 32, 0, 64, 8, False),
        # 64 × 32 = 2048 per warp (a multiple of 256), × 8 warps = 16384 per block; ⌊⌊16384 / 2048⌋ × 4 / 8⌋ = 4.
        "Registers": (65536, 0, 0, 65536, 4, True),
        # 24 KiB + 1 KiB reserved = 25600 B; the default carveout runs the SM at 228 KiB = 233472 B;
        # ⌊233472 / 25600⌋ = 9 blocks; 4 × 25600 held, 5 × 25600 unusable, 233472 − 9 × 25600 = 3072 too small.
        "Shared memory": (102400, 128000, 3072, 233472, 9, False),
        # 1 barrier per block, 32 slots × 2 = 64 per SM.
        "Block barriers": (4, 60, 0, 64, 64, False),
    }


def test_partial_warp_and_register_fragmentation(devices) -> None:
    """CC 9.0, 100 threads (4 warps, the last partial), 37 registers, no shared memory of its own."""
    r = compute_occupancy(devices["sm_90"], FunctionAttributes(num_regs=37), Launch(100))
    assert r.active_blocks == 12 and r.binding == (Limit.REGISTERS,)
    assert split(r) == {
        "Block slots": (12, 20, 0, 32, 32, False),
        # ⌈100 / 32⌉ = 4 warps per block; ⌊64 / 4⌋ = 16 blocks alone.
        "Warps": (48, 16, 0, 64, 16, False),
        # 37 × 32 = 1184 → 1280 per warp (256-register unit), 5120 per block.  Each of 4 sub-partitions has 16384:
        # ⌊16384 / 1280⌋ = 12 warps, 48 per SM, ⌊48 / 4⌋ = 12 blocks.  4096 registers are left, but as 1024 per
        # sub-partition, less than one warp's 1280: too fragmented for one more block.
        "Registers": (61440, 0, 4096, 65536, 12, True),
        # Only the reserved 1 KiB per block: ⌊233472 / 1024⌋ = 228 blocks alone.
        "Shared memory": (12 * KIB, 216 * KIB, 0, 233472, 228, False),
        "Block barriers": (12, 52, 0, 64, 64, False),
    }


def test_shared_memory_binds_with_a_remainder(devices) -> None:
    """CC 8.0, 128 threads, 32 registers, 48 KiB static: 49 KiB per block in a 164 KiB SM fits 3."""
    r = compute_occupancy(devices["sm_80"], FunctionAttributes(num_regs=32, shared_size_bytes=48 * KIB), Launch(128))
    assert r.active_blocks == 3 and r.binding == (Limit.SHARED_MEMORY,)
    parts = split(r)
    # 48 KiB + 1 KiB = 50176 B; ⌊167936 / 50176⌋ = 3; 167936 − 3 × 50176 = 17408 B (17 KiB) left over.
    assert parts["Shared memory"] == (150528, 0, 17408, 167936, 3, True)
    # 32 × 32 = 1024 per warp, 4096 per block; 16 blocks fill the 65536 exactly; 3 hold 12288.
    assert parts["Registers"] == (12288, 53248, 0, 65536, 16, False)
    assert parts["Warps"] == (12, 52, 0, 64, 16, False)
    assert "Block barriers" not in parts  # CC 8.0: the header does not count barriers


def test_the_carveout_sets_the_shared_memory_capacity(devices) -> None:
    """A 50 % carveout on CC 9.0 asks for 116736 B; the SM runs the next supported size, 132 KiB."""
    r = compute_occupancy(
        devices["sm_90"],
        FunctionAttributes(num_regs=32, shared_size_bytes=20 * KIB),
        Launch(128),
        DeviceState(carveout_config=50),
    )
    smem = next(u for u in utilization(r) if u.usage.resource == "Shared memory")
    # 21 KiB per block: ⌊135168 / 21504⌋ = 6 blocks, 135168 − 6 × 21504 = 6144 B left.
    assert (smem.capacity, smem.usage.per_block, smem.usage.blocks, smem.remainder) == (135168, 21504, 6, 6144)
    assert smem.capacity == r.shared_mem_per_multiprocessor


def test_nothing_fits(devices) -> None:
    """1024 threads × 128 registers = 131072 registers per block, beyond the 65536 a block may have."""
    r = compute_occupancy(devices["sm_90"], FunctionAttributes(num_regs=128), Launch(1024))
    assert r.active_blocks == 0
    parts = split(r)
    assert parts["Registers"] == (0, 0, 65536, 65536, 0, True)  # not one block's worth: all of it "too small"
    assert parts["Warps"] == (0, 64, 0, 64, 2, False)


def test_a_limit_that_does_not_apply_is_all_unusable(devices) -> None:
    r = compute_occupancy(devices["sm_90"], FunctionAttributes(num_regs=0), Launch(256))
    assert split(r)["Registers"] == (0, 65536, 0, 65536, None, False)


def test_split_refuses_figures_no_launch_gives() -> None:
    usage = LimitUsage("Registers", "register", 16384, 65536, 4)
    assert split_usage(usage, 4).allocated == 65536
    with pytest.raises(ValueError, match="5 resident blocks, but this limit allows 4"):
        split_usage(usage, 5)
    with pytest.raises(ValueError, match="exceed the capacity"):
        split_usage(LimitUsage("Registers", "register", 16384, 65536, 5), 1)


def test_parts_add_up_on_random_launches(bundled_catalog: Catalog) -> None:
    """Every compute capability, 300 random launches each: the parts are ≥ 0 and add up to the capacity,
    and the numbers are the result's own (limits, allocations, SM shared memory) that the header checks."""
    rng = np.random.default_rng(37)
    checked = 0
    for profile in bundled_catalog.profiles:
        if profile.kind != "compute_capability":
            continue
        device = profile.device_properties()
        for _ in range(300):
            func = FunctionAttributes(
                num_regs=int(rng.integers(0, 256)),
                shared_size_bytes=int(rng.integers(0, 48 * KIB)) * int(rng.random() < 0.6),
                num_block_barriers=int(rng.integers(0, 20)),
            )
            launch = Launch(int(rng.integers(1, 1025)), int(rng.integers(0, 64 * KIB)) * int(rng.random() < 0.3))
            try:
                r = compute_occupancy(device, func, launch, DeviceState(carveout_config=int(rng.integers(-1, 101))))
            except OccupancyError:
                continue
            for row, u in zip(r.rows, utilization(r), strict=True):
                assert u.allocated + u.unusable + u.remainder == u.capacity
                assert min(u.allocated, u.unusable, u.remainder) >= 0
                assert u.usage.blocks == r.limits[row.limit]
                assert u.binding == (r.limits[row.limit] == r.active_blocks)
            usage = {row.limit: row.usage for row in r.rows}
            assert usage[Limit.REGISTERS].per_block == r.allocated_registers_per_block
            assert usage[Limit.SHARED_MEMORY].per_block == r.allocated_shared_memory_per_block
            assert usage[Limit.SHARED_MEMORY].capacity == r.shared_mem_per_multiprocessor
            warps = usage[Limit.WARPS]
            assert warps.blocks is not None and warps.per_block * warps.blocks <= device.max_warps_per_multiprocessor
            checked += 1
    assert checked > 5000
