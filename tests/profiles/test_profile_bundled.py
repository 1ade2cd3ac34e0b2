"""Every shipped profile loads, and its values match what the driver reports for that device."""

from __future__ import annotations

from pathlib import Path

import pytest

from occupancy_gui.engine.types import DeviceProperties
from occupancy_gui.profiles import LIMIT_NAMES, Catalog, load_profile

HEADER_CCS = [
    "3.0",
    "3.2",
    "3.5",
    "3.7",
    "5.0",
    "5.2",
    "5.3",
    "6.0",
    "6.1",
    "6.2",
    "7.0",
    "7.2",
    "7.5",
    "8.0",
    "8.6",
    "8.7",
    "8.8",
    "8.9",
    "9.0",
    "10.0",
    "10.1",
    "10.3",
    "10.7",
    "11.0",
    "12.0",
    "12.1",
]
"""Every compute capability cuda_occupancy.h 13.5 knows."""

ARCHITECTURES = {"Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell"}

# (cc, field, value) as cudaGetDeviceProperties reports them.
DRIVER_VALUES = [
    ("8.0", "shared_mem_per_multiprocessor", 167936),
    ("8.7", "shared_mem_per_multiprocessor", 167936),
    ("8.6", "shared_mem_per_multiprocessor", 102400),
    ("8.9", "shared_mem_per_multiprocessor", 102400),
    ("9.0", "shared_mem_per_multiprocessor", 233472),
    ("11.0", "shared_mem_per_multiprocessor", 233472),
    ("7.5", "shared_mem_per_multiprocessor", 65536),
    ("7.0", "shared_mem_per_multiprocessor", 98304),
    ("3.5", "shared_mem_per_multiprocessor", 49152),
    ("3.7", "shared_mem_per_multiprocessor", 114688),
    ("5.2", "shared_mem_per_multiprocessor", 98304),
    ("6.1", "shared_mem_per_multiprocessor", 98304),
    ("6.0", "shared_mem_per_multiprocessor", 65536),
    ("10.7", "shared_mem_per_multiprocessor", 335872),
    ("8.0", "shared_mem_per_block_optin", 166912),
    ("8.6", "shared_mem_per_block_optin", 101376),
    ("12.0", "shared_mem_per_block_optin", 101376),
    ("9.0", "shared_mem_per_block_optin", 232448),
    ("10.0", "shared_mem_per_block_optin", 232448),
    ("7.0", "shared_mem_per_block_optin", 98304),
    ("7.2", "shared_mem_per_block_optin", 98304),
    ("7.5", "shared_mem_per_block_optin", 65536),
    ("6.1", "shared_mem_per_block_optin", 49152),
    ("3.7", "regs_per_multiprocessor", 131072),
    ("3.2", "regs_per_block", 32768),
    ("5.3", "regs_per_block", 32768),
    ("6.2", "regs_per_block", 32768),
    ("7.2", "regs_per_block", 65536),
    ("7.5", "max_threads_per_multiprocessor", 1024),
    ("8.6", "max_threads_per_multiprocessor", 1536),
    ("8.7", "max_threads_per_multiprocessor", 1536),
    ("8.9", "max_threads_per_multiprocessor", 1536),
    ("10.1", "max_threads_per_multiprocessor", 1536),
    ("11.0", "max_threads_per_multiprocessor", 1536),
    ("12.1", "max_threads_per_multiprocessor", 1536),
    ("10.3", "max_threads_per_multiprocessor", 2048),
    ("9.0", "max_threads_per_multiprocessor", 2048),
]


def test_every_shipped_file_loads(bundled_dir: Path) -> None:
    files = sorted(bundled_dir.glob("*.yaml"))
    assert len(files) >= 25 + 30
    for path in files:
        raw = load_profile(path)
        assert raw.name
    assert not list(bundled_dir.glob("*.yml")), "use the .yaml suffix"


def test_catalog_has_no_errors_and_every_file(bundled_catalog: Catalog, bundled_dir: Path) -> None:
    assert bundled_catalog.errors == []
    assert len(bundled_catalog.profiles) == len(list(bundled_dir.glob("*.yaml")))


def test_all_header_compute_capabilities_present(bundled_catalog: Catalog) -> None:
    ccs = [p for p in bundled_catalog.profiles if p.kind == "compute_capability"]
    assert [p.cc_string for p in ccs] == HEADER_CCS
    for profile in ccs:
        assert profile.name == "sm_" + profile.cc_string.replace(".", "")
        assert profile.sm_count is None and profile.segment is None


def test_enough_gpus_across_architectures_and_segments(bundled_catalog: Catalog) -> None:
    gpus = [p for p in bundled_catalog.profiles if p.kind == "gpu"]
    assert len(gpus) >= 32
    assert {p.architecture for p in gpus} >= ARCHITECTURES
    assert {p.segment for p in gpus} == {"datacenter", "workstation", "consumer", "embedded"}


@pytest.mark.parametrize(("cc", "field", "value"), DRIVER_VALUES)
def test_driver_reported_values(bundled_catalog: Catalog, cc: str, field: str, value: int) -> None:
    assert bundled_catalog.get(cc).values[field] == value


def test_common_conventions(bundled_catalog: Catalog) -> None:
    for profile in bundled_catalog.profiles:
        v = profile.values
        assert v["warp_size"] == 32 and v["max_threads_per_block"] == 1024
        assert v["shared_mem_per_block"] == 49152
        assert v["reserved_shared_mem_per_block"] == (1024 if profile.compute_capability >= (8, 0) else 0)
        if profile.compute_capability < (7, 0):
            assert v["shared_mem_per_block_optin"] == 49152
        else:
            assert (
                v["shared_mem_per_block_optin"]
                == v["shared_mem_per_multiprocessor"] - v["reserved_shared_mem_per_block"]
            )
        expected_regs = 131072 if profile.compute_capability == (3, 7) else 65536
        assert v["regs_per_multiprocessor"] == expected_regs


def test_every_value_has_a_source(bundled_catalog: Catalog) -> None:
    for profile in bundled_catalog.profiles:
        assert set(profile.values) == set(LIMIT_NAMES)
        for name in LIMIT_NAMES:
            assert profile.sources[name].strip(), (profile.name, name)
        if profile.kind == "gpu":
            assert profile.sources["sm_count"].strip()


def test_gpu_device_properties_are_sane(bundled_catalog: Catalog) -> None:
    for profile in (p for p in bundled_catalog.profiles if p.kind == "gpu"):
        props = profile.device_properties()
        assert isinstance(props, DeviceProperties)
        assert props.num_sms == profile.sm_count and 1 <= props.num_sms <= 256
        assert props.warp_size == 32
        assert props.max_warps_per_multiprocessor in (32, 48, 64)
        assert props.max_threads_per_block <= props.max_threads_per_multiprocessor
        assert props.regs_per_block <= props.regs_per_multiprocessor
        assert props.shared_mem_per_block <= props.shared_mem_per_block_optin <= props.shared_mem_per_multiprocessor
        parent = bundled_catalog.get("sm_{}{}".format(*props.compute_capability))
        assert profile.values == parent.values, "bundled GPUs inherit their limits unchanged"
        assert any("inherited from" in profile.sources[n] for n in LIMIT_NAMES)


def test_cc_profile_counts_one_sm(bundled_catalog: Catalog) -> None:
    props = bundled_catalog.get("sm_90").device_properties()
    assert props.num_sms == 1 and props.compute_capability == (9, 0)


def test_sm_counts_of_well_known_gpus(bundled_catalog: Catalog) -> None:
    expected = {
        "Tesla K80": 13,
        "Tesla P100-SXM2-16GB": 56,
        "Tesla V100-SXM2-16GB": 80,
        "Tesla T4": 40,
        "A100": 108,
        "NVIDIA A30": 56,
        "NVIDIA A10": 72,
        "NVIDIA L4": 58,
        "NVIDIA L40S": 142,
        "H100": 132,
        "H100 PCIe": 114,
        "H200": 132,
        "B200": 148,
        "RTX 4090": 128,
        "RTX 3090": 82,
        "RTX 5090": 170,
        "Jetson TK1": 1,
        "Jetson AGX Xavier": 8,
        "Jetson AGX Thor": 20,
        "DGX Spark": 48,
    }
    for name, sms in expected.items():
        assert bundled_catalog.get(name).sm_count == sms, name


def test_renumbered_and_derived_profiles_say_so(bundled_catalog: Catalog) -> None:
    assert "11.0" in (bundled_catalog.get("sm_101").notes or "")
    assert bundled_catalog.get("10.1").values == bundled_catalog.get("11.0").values
    rubin = bundled_catalog.get("sm_107")
    assert "DERIVED" in rubin.sources["shared_mem_per_multiprocessor"]
    assert "UNVERIFIED" in rubin.sources["max_threads_per_multiprocessor"]
    assert bundled_catalog.get("Thor").compute_capability == (11, 0)


def test_cc_8_8_is_8_6_as_cccl_defines_it(bundled_catalog: Catalog) -> None:
    """ptxas 13.1+ targets sm_88; CCCL's arch_traits<sm_88> are sm_86's, and the profile says it is provisional."""
    ga10x, cc88 = bundled_catalog.get("sm_86"), bundled_catalog.get("8.8")
    assert cc88.compute_capability == (8, 8)
    assert cc88.values == ga10x.values
    assert "provisional" in (cc88.notes or "")
