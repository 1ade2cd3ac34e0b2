"""Lint, format and types are part of the test command: a ruff finding, a file ``ruff format`` would change or a
mypy error fails the suite.

They read their settings from pyproject.toml ([tool.ruff], [tool.mypy]); the versions are pinned in
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


def test_the_code_is_formatted() -> None:
    """One formatter, ``ruff format`` ([tool.ruff]: 120 columns), over the package, the tests and packaging/."""
    proc = _run("ruff", "format", "--check", "--no-cache", "occupancy_gui", "tests", "packaging")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_finds_nothing() -> None:
    """Strict everywhere, the window included (see [tool.mypy])."""
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_type_ignore_says_why() -> None:
    """A ``type: ignore[code]`` names its error code and, after it or on the line above, the reason."""
    bare = []
    for path in sorted([*(ROOT / "occupancy_gui").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        if path == Path(__file__).resolve():
            continue  # this file spells the marker out
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            at = line.find("# type: ignore")
            if at < 0:
                continue
            rest = line[at + len("# type: ignore") :]
            coded = rest.startswith("[")
            reason = "#" in rest or lines[number - 2].lstrip().startswith("#")
            if not (coded and reason):
                bare.append(f"{path.relative_to(ROOT)}:{number}")
    assert bare == []
