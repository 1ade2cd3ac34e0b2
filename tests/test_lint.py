"""Lint and types are part of the test command: a ruff finding or a mypy error fails the suite.

Both read their settings from pyproject.toml ([tool.ruff], [tool.mypy]); the versions are pinned in
the test extra, so a new release cannot change the verdict under a commit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_finds_nothing() -> None:
    proc = _run("ruff", "check", "--no-cache", "occupancy_gui", "tests")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_finds_nothing() -> None:
    """Strict below the window, non-strict in ui (see [tool.mypy])."""
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
