"""Shared helpers for the profile tests: the bundled directory and tiny valid profile texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from occupancy_gui.paths import data_dir

from .texts import CC_TEMPLATE


@pytest.fixture(scope="session")
def bundled_dir() -> Path:
    return data_dir("device_profiles")


@pytest.fixture
def cc_dir(tmp_path: Path) -> Path:
    """A directory holding one valid sm_80 profile, to build small catalogs on."""
    directory = tmp_path / "bundled"
    directory.mkdir()
    (directory / "sm_80.yaml").write_text(CC_TEMPLATE, encoding="utf-8")
    return directory
