"""The device facts the GPU data view lists beside each profile's own limits."""

from __future__ import annotations

from dataclasses import replace

from occupancy_gui.engine import FACT_SPECS, device_facts
from occupancy_gui.profiles import Catalog

KIB = 1024


def facts(device) -> dict[str, object]:
    return {f.key: f.value for f in device_facts(device)}


def test_hopper(bundled_catalog: Catalog) -> None:
    """CC 9.0 (CUDA Programming Guide, Table 30/31): 64 warps and 32 blocks per SM; 128 B shared memory units;
    shared memory configurable up to 228 KiB; 2 block barriers per block slot."""
    got = facts(bundled_catalog.get("sm_90").device_properties())
    assert got == {
        "max_warps_per_multiprocessor": 64,
        "max_blocks_per_multiprocessor": 32,
        "reg_allocation_granularity": 256,
        "reg_allocation_max_per_thread": 256,
        "sub_partitions_per_multiprocessor": 4,
        "smem_allocation_granularity": 128,
        "shared_memory_configs": tuple(k * KIB for k in (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)),
        "block_barriers_per_multiprocessor": 64,
        "virtual_resources_per_multiprocessor": None,
    }


def test_pascal_has_no_carveout_and_no_counted_barriers(bundled_catalog: Catalog) -> None:
    got = facts(bundled_catalog.get("sm_60").device_properties())
    assert got["sub_partitions_per_multiprocessor"] == 2  # GP100
    assert got["shared_memory_configs"] is None and got["block_barriers_per_multiprocessor"] is None
    assert got["smem_allocation_granularity"] == 256 and got["reg_allocation_max_per_thread"] == 255


def test_blackwell_counts_virtual_resources(bundled_catalog: Catalog) -> None:
    assert facts(bundled_catalog.get("sm_100").device_properties())["virtual_resources_per_multiprocessor"] == 128


def test_an_unknown_architecture_has_no_facts(bundled_catalog: Catalog) -> None:
    device = replace(bundled_catalog.get("sm_90").device_properties(), compute_major=4)
    assert all(f.value is None for f in device_facts(device))


def test_every_fact_names_its_rule_and_every_profile_has_them(bundled_catalog: Catalog) -> None:
    assert all(spec.source and spec.label for spec in FACT_SPECS)
    for profile in bundled_catalog.profiles:
        got = device_facts(profile.device_properties())
        assert [f.key for f in got] == [s.key for s in FACT_SPECS]
        assert got[0].value == profile.values["max_threads_per_multiprocessor"] // 32, profile.name
