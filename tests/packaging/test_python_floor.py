"""``requires-python`` is true to the pinned wheels: every pinned runtime dependency has a wheel (or a
pure-Python one) for the floor, and one of them has none for the Python below it (numpy 2.3.5 has no
3.10 wheel); ruff's target-version and mypy's python_version are the floor.

The registry is asked by pip itself (``pip install --dry-run --only-binary=:all: --python-version X.Y``,
this machine's platform, no dependencies); where it cannot be reached the test is skipped, saying so.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.helpers.toolchains import _UNREACHABLE

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _floor() -> tuple[int, int]:
    match = re.fullmatch(r">=(\d+)\.(\d+)", CONFIG["project"]["requires-python"])
    assert match, f"requires-python is not a plain floor: {CONFIG['project']['requires-python']}"
    return int(match.group(1)), int(match.group(2))


def test_tools_target_the_floor() -> None:
    major, minor = _floor()
    assert CONFIG["tool"]["ruff"]["target-version"] == f"py{major}{minor}"
    assert CONFIG["tool"]["mypy"]["python_version"] == f"{major}.{minor}"


def test_every_runtime_pin_is_exact() -> None:
    loose = [d for d in CONFIG["project"]["dependencies"] if not re.fullmatch(r"[A-Za-z0-9._-]+==[\w.]+", d)]
    assert not loose, f"runtime dependencies not pinned with ==: {loose}"


def _wheels_for(python: str, requirements: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--no-deps",
            "--quiet",
            "--only-binary=:all:",
            "--python-version",
            python,
            "--target",
            "unused",
            *requirements,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_requires_python_is_the_lowest_python_every_pinned_wheel_serves() -> None:
    major, minor = _floor()
    pins = CONFIG["project"]["dependencies"]
    at_floor = _wheels_for(f"{major}.{minor}", pins)
    if at_floor.returncode != 0 and _UNREACHABLE.search(at_floor.stderr):
        pytest.skip("the package registry is unreachable: the pinned wheels' Pythons cannot be checked")
    assert at_floor.returncode == 0, f"a pinned wheel does not serve Python {major}.{minor}:\n{at_floor.stderr}"
    below = {pin: _wheels_for(f"{major}.{minor - 1}", [pin]) for pin in pins}
    for pin, proc in below.items():
        if proc.returncode != 0 and _UNREACHABLE.search(proc.stderr):
            pytest.skip(f"the package registry is unreachable while checking {pin}")
    without = sorted(pin for pin, proc in below.items() if proc.returncode != 0)
    assert without, f"every pinned wheel serves Python {major}.{minor - 1}: requires-python could be lower"
    for pin in without:
        assert "No matching distribution" in below[pin].stderr, below[pin].stderr
