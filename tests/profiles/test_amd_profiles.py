"""The AMD profiles: every shipped file loads, every name people type finds its GPU, every broken file is
refused with its file, line and field, and the NVIDIA catalog does not see any of it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from occupancy_gui.engine.amd import AmdTarget
from occupancy_gui.profiles import Catalog, ProfileError
from occupancy_gui.profiles.amd_catalog import AMD_SUBDIR, AmdCatalog
from occupancy_gui.profiles.amd_loader import load_amd_profile, parse_amd_profile
from occupancy_gui.profiles.amd_schema import TARGET_FIELD_NAMES

TARGETS = [
    "gfx906",
    "gfx908",
    "gfx90a",
    "gfx942",
    "gfx950",
    "gfx1030",
    "gfx1031",
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1103",
    "gfx1151",
    "gfx1200",
    "gfx1201",
]

# (what a user types, the profile's target, hardware CUs, HIP's multiProcessorCount)
LOOKUPS = [
    ("MI50", "gfx906", 60, 60),
    ("Instinct MI60", "gfx906", 64, 64),
    ("MI100", "gfx908", 120, 120),
    ("MI210", "gfx90a", 104, 104),
    ("MI250", "gfx90a", 104, 104),
    ("MI250X", "gfx90a", 110, 110),
    ("MI300A", "gfx942", 228, 228),
    ("MI300X", "gfx942", 304, 304),
    ("AMD Instinct MI300X", "gfx942", 304, 304),
    ("amd instinct  mi300x", "gfx942", 304, 304),
    ("MI325X", "gfx942", 304, 304),
    ("MI350X", "gfx950", 256, 256),
    ("MI355X", "gfx950", 256, 256),
    ("RX 6800", "gfx1030", 60, 30),
    ("RX 6800 XT", "gfx1030", 72, 36),
    ("RX 6900 XT", "gfx1030", 80, 40),
    ("RX 6950 XT", "gfx1030", 80, 40),
    ("RX 6700 XT", "gfx1031", 40, 20),
    ("W6800", "gfx1030", 60, 30),
    ("RX 7900 XTX", "gfx1100", 96, 48),
    ("rx 7900 xtx", "gfx1100", 96, 48),
    ("AMD Radeon RX 7900 XTX", "gfx1100", 96, 48),
    ("RX 7900 XT", "gfx1100", 84, 42),
    ("RX 7900 GRE", "gfx1100", 80, 40),
    ("RX 7800 XT", "gfx1101", 60, 30),
    ("RX 7700 XT", "gfx1101", 54, 27),
    ("RX 7600", "gfx1102", 32, 16),
    ("W7900", "gfx1100", 96, 48),
    ("PRO W7800", "gfx1100", 70, 35),
    ("Radeon 780M", "gfx1103", 12, 6),
    ("Radeon 8060S", "gfx1151", 40, 20),
    ("Strix Halo", "gfx1151", 40, 20),
    ("RX 9070 XT", "gfx1201", 64, 32),
    ("RX 9070", "gfx1201", 56, 28),
    ("RX 9060 XT", "gfx1200", 32, 16),
]


@pytest.fixture(scope="module")
def amd_dir(bundled_dir: Path) -> Path:
    return bundled_dir / AMD_SUBDIR


@pytest.fixture(scope="module")
def amd_catalog(bundled_dir: Path) -> AmdCatalog:
    return AmdCatalog.from_profile_root(bundled_dir)


def test_every_shipped_amd_profile_loads(amd_dir: Path, amd_catalog: AmdCatalog) -> None:
    files = sorted(amd_dir.glob("*.yaml"))
    assert len(files) == len(amd_catalog) == 44
    for path in files:
        raw = load_amd_profile(path)
        assert raw.name and raw.kind in ("amd_target", "amd_gpu")
    assert [p.name for p in amd_catalog.targets()] == TARGETS
    for profile in amd_catalog:
        assert set(profile.sources) >= set(TARGET_FIELD_NAMES)
        assert all(len(source) > 20 for source in profile.sources.values())


def test_schema_is_the_engine_target() -> None:
    fields = [f.name for f in dataclasses.fields(AmdTarget) if f.name != "name"]
    assert list(TARGET_FIELD_NAMES) == fields


@pytest.mark.parametrize(("typed", "target", "cus", "reported"), LOOKUPS)
def test_lookup_by_what_people_type(typed: str, target: str, cus: int, reported: int, amd_catalog: AmdCatalog) -> None:
    profile = amd_catalog.get(typed)
    device = profile.device()
    assert (profile.target.name, profile.compute_units, device.multiprocessor_count) == (target, cus, reported)
    assert profile.hip_multiprocessor_count == reported


def test_targets_by_name_have_no_cu_count(amd_catalog: AmdCatalog) -> None:
    for name in TARGETS:
        profile = amd_catalog.get(name.upper())
        assert profile.kind == "amd_target" and profile.device().multiprocessor_count is None


def test_unknown_name_suggests(amd_catalog: AmdCatalog) -> None:
    with pytest.raises(KeyError, match="did you mean: .*MI300X"):
        amd_catalog.get("MI300XX")


def test_profiles_say_where_sources_disagree(amd_catalog: AmdCatalog) -> None:
    assert "160 KiB is taken" in (amd_catalog.get("gfx950").notes or "")
    assert amd_catalog.get("gfx950").target.lds_per_workgroup == 160 * 1024
    gfx1030 = amd_catalog.get("gfx1030")
    assert "LLVM says 16" in (gfx1030.notes or "")
    assert (gfx1030.target.runtime_vgpr_granule, gfx1030.target.llvm_vgpr_granule_wave32) == (8, 16)
    assert (
        "comgr" in gfx1030.sources["runtime_vgpr_granule"]
        and "AMDGPUBaseInfo" in gfx1030.sources["llvm_vgpr_granule_wave32"]
    )


def test_nvidia_catalog_does_not_see_amd(bundled_dir: Path, amd_catalog: AmdCatalog) -> None:
    nvidia = Catalog.load([bundled_dir])
    assert not {p.name for p in nvidia} & {p.name for p in amd_catalog}
    assert all(Path(p.path).parent.name != AMD_SUBDIR for p in nvidia)


# ---- refused files: file, line and field in one line ----

SRC = "device_profiles/amd/test.yaml"


@pytest.fixture(scope="module")
def target_text(amd_dir: Path) -> str:
    return (amd_dir / "gfx942.yaml").read_text()


@pytest.fixture(scope="module")
def gpu_text(amd_dir: Path) -> str:
    return (amd_dir / "gpu_mi300x.yaml").read_text()


def refused(text: str, source: str = SRC) -> ProfileError:
    with pytest.raises(ProfileError) as info:
        parse_amd_profile(text, source)
    assert info.value.path == source and "\n" not in str(info.value)
    return info.value


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_unknown_top_level_key(target_text: str) -> None:
    error = refused(target_text + "colour: red\n")
    assert (error.field, error.line) == ("colour", len(target_text.splitlines()) + 1)


def test_missing_limit_names_it(target_text: str) -> None:
    lines = target_text.splitlines()
    at = line_of(target_text, "  llvm_trap_sgprs:")
    text = "\n".join(lines[: at - 1] + lines[at + 2 :]) + "\n"
    assert refused(text).field == "limits.llvm_trap_sgprs"


def test_unknown_limit(target_text: str) -> None:
    text = target_text.replace("  simds_per_cu:", "  simd_per_cu:")
    error = refused(text)
    assert (error.field, error.line) == ("limits.simd_per_cu", line_of(text, "simd_per_cu"))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("simds_per_cu", '"four"', "expected a positive integer"),
        ("simds_per_cu", "0", "expected an integer >= 1"),
        ("wave32", "1", "expected true or false"),
        ("agpr_file", "shared", "expected one of none, separate, unified"),
        ("lds_per_workgroup", "null", "expected a positive integer"),
    ],
)
def test_wrong_value_types(target_text: str, field: str, value: str, message: str) -> None:
    lines = target_text.splitlines()
    at = line_of(target_text, f"  {field}:")
    lines[at] = f"    value: {value}"
    error = refused("\n".join(lines) + "\n")
    assert (error.field, error.line) == (f"limits.{field}", at + 1) and message in error.message


def test_cross_field_rules(target_text: str) -> None:
    lines = target_text.splitlines()
    at = line_of(target_text, "  llvm_vgpr_granule_wave32:")
    lines[at] = "    value: 16"
    error = refused("\n".join(lines) + "\n")
    assert error.field == "limits.llvm_vgpr_granule_wave32" and "must be null" in error.message


def test_value_without_source(target_text: str) -> None:
    lines = target_text.splitlines()
    at = line_of(target_text, "  max_waves_per_cu:")
    del lines[at + 1]
    assert refused("\n".join(lines) + "\n").field == "limits.max_waves_per_cu.source"


def test_target_name_must_be_a_gfx_target(target_text: str) -> None:
    assert refused(target_text.replace("name: gfx942", "name: MI300X")).field == "name"


def test_gpu_multiprocessor_count_must_follow_the_rule(amd_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "amd"
    folder.mkdir()
    (folder / "gfx1100.yaml").write_text((amd_dir / "gfx1100.yaml").read_text())
    text = (amd_dir / "gpu_rx_7900_xtx.yaml").read_text().replace("  value: 48", "  value: 96")
    (folder / "gpu.yaml").write_text(text)
    with pytest.raises(ProfileError) as info:
        AmdCatalog.load([folder])
    error = info.value
    assert (error.field, error.line) == ("hip_multiprocessor_count", line_of(text, "hip_multiprocessor_count:") + 1)
    assert "CUs / 2 (WGP mode) = 48" in error.message


def test_gpu_with_unknown_target_or_duplicate_alias(amd_dir: Path, tmp_path: Path, gpu_text: str) -> None:
    folder = tmp_path / "amd"
    folder.mkdir()
    (folder / "gfx942.yaml").write_text((amd_dir / "gfx942.yaml").read_text())
    (folder / "gpu_a.yaml").write_text(gpu_text.replace("target: gfx942", "target: gfx943"))
    with pytest.raises(ProfileError, match="unknown amd_target 'gfx943'; did you mean gfx942"):
        AmdCatalog.load([folder])
    (folder / "gpu_a.yaml").write_text(gpu_text)
    (folder / "gpu_b.yaml").write_text(gpu_text.replace('name: "AMD Instinct MI300X"', 'name: "Another"'))
    with pytest.raises(ProfileError) as info:
        AmdCatalog.load([folder])
    assert info.value.field == "aliases[0]" and info.value.path.endswith("gpu_b.yaml")


def test_hostile_files(gpu_text: str) -> None:
    assert "larger than the 1 MiB" in str(refused("a: " + "x" * (1024 * 1024 + 10)))
    assert "not valid UTF-8" in str(refused_bytes(b"schema: 1\nname: \xff\n"))
    assert "anchors" in str(refused("schema: &a 1\nname: *a\n"))
    assert refused(gpu_text.replace("segment: datacenter", "segment: space")).field == "segment"
    assert refused("schema: 1\nname: x\n").field == "kind"


def refused_bytes(data: bytes) -> ProfileError:
    with pytest.raises(ProfileError) as info:
        parse_amd_profile(data, SRC)
    return info.value
