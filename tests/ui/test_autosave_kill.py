"""A crash loses nothing: a real ``occupancy-gui`` process, an edit, ``kill -9``, and a restart.

The first process gets one edit through the documented ``OCCUPANCY_GUI_TEST_EDIT`` hook (applied
once the event loop runs, like a typed value), which the debounced autosave writes about a second
later.  The process is then killed without any chance to clean up; the second start must restore
the edit, which ``--print-state`` reports as JSON.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="kill -9 is POSIX")

REPO = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "OCCUPANCY_GUI_"))}
    home = tmp_path / "home"
    for name in ("config", "data", "cache", "runtime"):
        (home / name).mkdir(parents=True, exist_ok=True)
    (home / "runtime").chmod(0o700)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_CACHE_HOME=str(home / "cache"), XDG_RUNTIME_DIR=str(home / "runtime"),
               QT_QPA_PLATFORM="offscreen", OCCUPANCY_GUI_PROFILE_DIR=str(home / "profiles"),
               PYTHONPATH=str(REPO))  # fmt: skip
    return env


def test_autosave_survives_kill_9(tmp_path):
    env = _env(tmp_path)
    autosave = Path(env["XDG_DATA_HOME"]) / "occupancy_gui" / "occupancy-gui" / "autosave.occsession"
    edit = {**env, "OCCUPANCY_GUI_TEST_EDIT": "threads=384,registers=40"}
    proc = subprocess.Popen([sys.executable, "-m", "occupancy_gui", "--device", "sm_90"], env=edit, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not autosave.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert autosave.exists(), proc.stderr.read().decode() if proc.poll() is not None else "no autosave in 30 s"
        assert "threads: 384" in autosave.read_text()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    restart = subprocess.run([sys.executable, "-m", "occupancy_gui", "--print-state"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert restart.returncode == 0, restart.stderr
    state = json.loads(restart.stdout)
    assert state["device"] == "sm_90"
    assert state["inputs"]["threads"] == 384 and state["inputs"]["registers"] == 40
    assert state["window"]["modified"] and "Restored" in state["window"]["status"]
    assert not autosave.exists()  # the second run exited cleanly

    again = subprocess.run([sys.executable, "-m", "occupancy_gui", "--print-state"], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "Restored" not in json.loads(again.stdout)["window"]["status"]  # nothing to restore after a clean exit
