"""Profiles from strangers (issues 15 and 17): one hardened reader, and one broken user profile stops nothing.

A user profile with a 5000-digit number raised CPython's ``ValueError`` out of ``Catalog.load``, so
every command (``occupancy devices``, ``calc``, the window) failed; it is now that file's error.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from occupancy_gui.cli.main import main
from occupancy_gui.profiles import Catalog, ProfileError, parse_profile
from occupancy_gui.profiles.catalog import PROFILE_DIR_ENV


def _broken_copy(bundled_dir: Path, tmp_path: Path) -> Path:
    user = tmp_path / "user"
    user.mkdir()
    text = (bundled_dir / "gpu_a10.yaml").read_text(encoding="utf-8")
    assert "  value: 72\n" in text
    text = text.replace("  value: 72\n", "  value: " + "9" * 5000 + "\n", 1)
    (user / "mine.yaml").write_text(text.replace('name: "NVIDIA A10"', 'name: "Mine"', 1), encoding="utf-8")
    return user


def test_a_5000_digit_user_profile_is_its_own_error(bundled_dir, tmp_path):
    catalog = Catalog.load([bundled_dir], [_broken_copy(bundled_dir, tmp_path)])
    [error] = catalog.errors
    assert error.line == 9 and error.field == "sm_count.value" and "5000 characters" in error.message
    assert len(catalog.profiles) == len(Catalog.load([bundled_dir]).profiles)


def test_every_command_still_runs_with_a_broken_user_profile(bundled_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(PROFILE_DIR_ENV, str(_broken_copy(bundled_dir, tmp_path)))
    out = io.StringIO()
    assert main(["devices"], out=out) == 0
    assert "H100" in out.getvalue() and "mine.yaml:9: sm_count.value" in capsys.readouterr().err
    out = io.StringIO()
    assert main(["calc", "--device", "sm_90", "--threads", "256", "--registers", "32"], out=out) == 0


@pytest.mark.parametrize(
    "edit, field, needle",
    [
        (("schema: 1\n", "schema: 1\nschema: 1\n"), "schema", "duplicate key (first on line"),
        (("  value: 72\n", "  value: 72\n  value: 73\n"), "sm_count.value", "duplicate key"),
        (("kind: gpu\n", "kind: gpu\nnotes: &n x\n"), "notes", "anchors and aliases"),
    ],
)
def test_the_reader_names_the_field(bundled_dir, edit, field, needle):
    text = (bundled_dir / "gpu_a10.yaml").read_text(encoding="utf-8")
    assert edit[0] in text
    with pytest.raises(ProfileError) as info:
        parse_profile(text.replace(edit[0], edit[1], 1), "p.yaml")
    assert info.value.field == field and needle in info.value.message


def test_a_long_value_is_cut_in_the_message(bundled_dir):
    text = (bundled_dir / "gpu_a10.yaml").read_text(encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        parse_profile(text.replace("architecture: Ampere", "architecture: [" + "x, " * 3000 + "x]", 1), "p.yaml")
    assert len(str(info.value)) < 300
    with pytest.raises(ProfileError) as info:
        parse_profile(text.replace("segment: ", "segment: " + "y" * 200_000 + " #", 1), "p.yaml")
    assert len(str(info.value)) < 400, str(info.value)[:500]


def test_the_bundled_profiles_read_the_same_without_libyaml(bundled_dir, monkeypatch):
    """The pure-Python parser (a PyYAML without libyaml) gives the same catalog with the same checks."""
    from occupancy_gui.profiles import safe_yaml

    if not safe_yaml.HAVE_LIBYAML:
        pytest.skip("this PyYAML has no libyaml: the pure-Python parser is the only one")
    with_c = Catalog.load([bundled_dir])
    monkeypatch.setattr(safe_yaml, "_HardenedLoader", safe_yaml.PurePythonLoader)
    assert Catalog.load([bundled_dir]).profiles == with_c.profiles
    for text in ("a: 1\na: 2\n", "a: &x 1\n", "[" * 100, "a: " + "9" * 100):
        with pytest.raises(safe_yaml.YamlRefused):
            safe_yaml.compose(text)


def test_an_unknown_huge_device_name_is_cut_in_the_message(bundled_dir):
    # Found by the structured cli fuzzer: `calc --device <5000 digits>` printed the whole name.
    with pytest.raises(KeyError) as info:
        Catalog.load([bundled_dir]).get("1:" + "9" * 5000)
    assert len(str(info.value)) < 300
