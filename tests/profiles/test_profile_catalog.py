"""Lookups by name, alias and capability spelling; ordering; user profiles and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from occupancy_gui.profiles import PROFILE_DIR_ENV, Catalog, ProfileError, default_catalog, user_profile_dir

from .texts import CC_TEMPLATE, GPU_TEMPLATE


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"),
        ("a100", "NVIDIA A100-SXM4-80GB"),
        ("  A100-80GB ", "NVIDIA A100-SXM4-80GB"),
        ("rtx 4090", "NVIDIA GeForce RTX 4090"),
        ("Jetson AGX Thor", "NVIDIA Thor"),
        ("sm_90", "sm_90"),
        ("SM_90", "sm_90"),
        ("sm90", "sm_90"),
        ("90", "sm_90"),
        ("9.0", "sm_90"),
        ("10.0", "sm_100"),
        ("sm_100", "sm_100"),
        ("100", "sm_100"),
        ("10.1", "sm_101"),
        ("11.0", "sm_110"),
        ("121", "sm_121"),
        ("3.2", "sm_32"),
    ],
)
def test_lookup(bundled_catalog: Catalog, query: str, name: str) -> None:
    assert bundled_catalog.get(query).name == name


def test_unknown_name_lists_close_matches(bundled_catalog: Catalog) -> None:
    with pytest.raises(KeyError) as info:
        bundled_catalog.get("RTX 4900")
    message = str(info.value)
    assert "RTX 4900" in message and "RTX 4090" in message


def test_unknown_without_matches(bundled_catalog: Catalog) -> None:
    with pytest.raises(KeyError, match="no device profile named"):
        bundled_catalog.get("zzzzzzzzzzzz")


def test_order_cc_then_gpus_by_capability(bundled_catalog: Catalog) -> None:
    kinds = [p.kind for p in bundled_catalog.profiles]
    first_gpu = kinds.index("gpu")
    assert set(kinds[:first_gpu]) == {"compute_capability"} and set(kinds[first_gpu:]) == {"gpu"}
    gpus = bundled_catalog.profiles[first_gpu:]
    assert [g.compute_capability for g in gpus] == sorted(g.compute_capability for g in gpus)


def user_gpu(name: str = "My Lab GPU", alias: str = "lab", inherits: str = "sm_80") -> str:
    return (
        GPU_TEMPLATE.replace("name: Test GPU", f"name: {name}")
        .replace("[TGPU]", f"[{alias}]")
        .replace("inherits: sm_80", f"inherits: {inherits}")
        .replace("segment: datacenter", "segment: workstation")
    )


def test_user_profiles_are_appended(bundled_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "lab.yaml").write_text(user_gpu(), encoding="utf-8")
    bundled_catalog = Catalog.load([bundled_dir], [tmp_path])
    assert bundled_catalog.errors == []
    lab = bundled_catalog.get("LAB")
    assert lab.user and lab.sm_count == 10 and lab.compute_capability == (8, 0)
    assert bundled_catalog.profiles[-1] is lab
    assert not any(p.user for p in bundled_catalog.profiles[:-1])
    assert lab.device_properties().num_sms == 10


def test_user_cc_profile_and_gpu_on_it(bundled_dir: Path, tmp_path: Path) -> None:
    cc = CC_TEMPLATE.replace("name: sm_80", "name: sm_130").replace('"8.0"', '"13.0"')
    (tmp_path / "sm_130.yaml").write_text(cc, encoding="utf-8")
    (tmp_path / "future.yaml").write_text(user_gpu("Future GPU", "future", "sm_130"), encoding="utf-8")
    bundled_catalog = Catalog.load([bundled_dir], [tmp_path])
    assert bundled_catalog.errors == []
    assert [p.name for p in bundled_catalog.profiles[-2:]] == ["sm_130", "Future GPU"]
    assert bundled_catalog.get("13.0").user and bundled_catalog.get("future").compute_capability == (13, 0)


def test_bad_user_profiles_are_reported_not_raised(bundled_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(user_gpu(), encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("name: [oops\n", encoding="utf-8")
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "orphan.yaml").write_text(user_gpu("Orphan", "orphan", "sm_999"), encoding="utf-8")
    (tmp_path / "readme.txt").write_text("not a profile", encoding="utf-8")
    bundled_catalog = Catalog.load([bundled_dir], [tmp_path])
    assert bundled_catalog.get("lab").user
    paths = sorted(Path(e.path).name for e in bundled_catalog.errors)
    assert paths == ["binary.yaml", "broken.yaml", "orphan.yaml"]
    assert all(isinstance(e, ProfileError) for e in bundled_catalog.errors)
    with pytest.raises(KeyError):
        bundled_catalog.get("Orphan")


def test_user_duplicate_of_bundled_is_skipped(bundled_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "a100.yaml").write_text(user_gpu("My A100", "A100"), encoding="utf-8")
    bundled_catalog = Catalog.load([bundled_dir], [tmp_path])
    assert [e.field for e in bundled_catalog.errors] == ["aliases[0]"]
    assert "already used" in bundled_catalog.errors[0].message
    assert not bundled_catalog.get("A100").user


def test_bad_bundled_profile_raises(cc_dir: Path, tmp_path: Path) -> None:
    (cc_dir / "bad.yaml").write_text("schema: 1\nkind: gpu\n", encoding="utf-8")
    with pytest.raises(ProfileError, match="missing required key"):
        Catalog.load([cc_dir], [tmp_path])


def test_missing_user_dir_is_fine(cc_dir: Path, tmp_path: Path) -> None:
    bundled_catalog = Catalog.load([cc_dir], [tmp_path / "does-not-exist"])
    assert bundled_catalog.names() == ["sm_80"] and bundled_catalog.errors == []


def test_user_profile_dir_env_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(PROFILE_DIR_ENV, str(tmp_path))
    assert user_profile_dir() == tmp_path
    monkeypatch.delenv(PROFILE_DIR_ENV)
    default = user_profile_dir()
    assert default.name == "profiles" and "occupancy_gui" in str(default)


def test_default_catalog_reads_user_dir(monkeypatch: pytest.MonkeyPatch, bundled_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "lab.yaml").write_text(user_gpu(), encoding="utf-8")
    monkeypatch.setenv(PROFILE_DIR_ENV, str(tmp_path))
    bundled_catalog = default_catalog(bundled_dir)
    assert bundled_catalog.get("lab").user and bundled_catalog.get("sm_90").kind == "compute_capability"
