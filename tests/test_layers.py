"""The layer rules: Qt and pyqtgraph only in occupancy_gui/ui; the engine does no I/O and no YAML."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "occupancy_gui"
QT_MODULES = {"PySide6", "shiboken6", "pyqtgraph"}
ENGINE_FORBIDDEN = QT_MODULES | {"yaml", "os", "io", "pathlib", "open", "subprocess", "json"}


def imported_top_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_qt_is_imported_only_in_ui() -> None:
    offenders = [
        str(p.relative_to(PACKAGE.parent))
        for p in PACKAGE.rglob("*.py")
        if "ui" not in p.relative_to(PACKAGE).parts[:1] and imported_top_modules(p) & QT_MODULES
    ]
    assert offenders == []


def test_engine_imports_only_stdlib_math_and_numpy() -> None:
    for path in (PACKAGE / "engine").rglob("*.py"):
        assert not imported_top_modules(path) & ENGINE_FORBIDDEN, path


def test_import_linter_contracts_hold() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(exe).exists():
        pytest.fail("lint-imports not found: install the test extras")
    proc = subprocess.run(
        [exe, "--config", str(PACKAGE.parent / "pyproject.toml")], cwd=PACKAGE.parent, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_engine_and_cli_run_without_qt() -> None:
    """Importing the whole non-UI stack must not load Qt (a Qt-less machine can use the CLI)."""
    code = (
        "import sys; import occupancy_gui.engine, occupancy_gui.profiles, occupancy_gui.cli.main; "
        "bad = [m for m in ('PySide6', 'pyqtgraph', 'shiboken6') if m in sys.modules]; "
        "sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=PACKAGE.parent).returncode == 0


def test_the_window_starts_without_the_importers() -> None:
    """The window's modules load no importer (the first import, or a dropped file, loads them on its thread):
    30 ms of start-up for nothing otherwise."""
    code = (
        "import sys; import occupancy_gui.ui.main_window, occupancy_gui.ui.app; "
        "sys.exit(1 if 'occupancy_gui.importers' in sys.modules else 0)"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    assert subprocess.run([sys.executable, "-c", code], cwd=PACKAGE.parent, env=env).returncode == 0
