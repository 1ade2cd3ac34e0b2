"""A stand-in for the frozen bundle's executables, for the tests of its worker processes.

The bundle (built only by the installer test) has no ``python -m``: a worker is the executable itself
started with ``child_process.WORKER_FLAG``, and the bundle's entry scripts hand over to it before they
import anything else.  The stand-in is a shell script that runs one of those same entry scripts
(``packaging/entry_cli.py`` or ``entry_gui.py``) with this interpreter; ``sys.frozen`` is set as
PyInstaller sets it, so ``child_process`` starts workers as it would in the bundle.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENTRY_SCRIPTS = ("entry_cli.py", "entry_gui.py")


def act_frozen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str) -> Path:
    """Make this process look frozen, its executable a stand-in running ``packaging/<entry>``; returns it."""
    script = tmp_path / f"frozen-{entry}.sh"
    script.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(ROOT / "packaging" / entry))} "$@"\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the bundle carries the package; here it is the checkout
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(script))
    return script
