"""A crash loses nothing: a real ``occupancy-gui`` process, an edit, ``kill -9``, and a restart.

The first process gets one edit through the documented ``OCCUPANCY_GUI_TEST_EDIT`` hook (applied
once the event loop runs, like a typed value), which the debounced autosave writes about a second
later.  The process is then killed without any chance to clean up; the next start must restore
the edit, which ``--print-state`` reports as JSON (and, being a diagnostic run, leaves the recovery
file where it is).  Two windows at once each keep their own recovery file (issue 15, item 9).
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

pytestmark = [
    pytest.mark.slow,  # real app processes started, killed and restarted: ~10 s
    pytest.mark.skipif(sys.platform == "win32", reason="kill -9 is POSIX"),
]

REPO = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "OCCUPANCY_GUI_"))}
    home = tmp_path / "home"
    for name in ("config", "data", "cache", "runtime"):
        (home / name).mkdir(parents=True, exist_ok=True)
    (home / "runtime").chmod(0o700)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_RUNTIME_DIR=str(home / "runtime"),
        QT_QPA_PLATFORM="offscreen",
        OCCUPANCY_GUI_PROFILE_DIR=str(home / "profiles"),
        PYTHONPATH=str(REPO),
    )
    return env


def _data_dir(env: dict[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "occupancy_gui" / "occupancy-gui"


def _recovery_files(env: dict[str, str]) -> list[Path]:
    return sorted(_data_dir(env).glob("autosave*.occsession"))


def _start_editing(env: dict[str, str], edit: str, cwd: Path, **extra: str) -> subprocess.Popen:
    """A real window that makes ``edit`` once its event loop runs; returns when its recovery file holds it."""
    before = set(_recovery_files(env))
    proc = subprocess.Popen(
        [sys.executable, "-m", "occupancy_gui", "--device", "sm_90"],
        env={**env, "OCCUPANCY_GUI_TEST_EDIT": edit, **extra},
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    threads = edit.split(",")[0].split("=")[1]
    while proc.poll() is None and time.monotonic() < deadline:
        mine = [p for p in set(_recovery_files(env)) - before if f"threads: {threads}\n" in _text(p)]
        if mine:
            return proc
        time.sleep(0.05)
    _kill(proc)
    raise AssertionError(proc.stderr.read().decode() if proc.poll() is not None else "no autosave in 30 s")


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    proc.stderr.close()


def _print_state(env: dict[str, str], cwd: Path) -> dict:
    run = subprocess.run(
        [sys.executable, "-m", "occupancy_gui", "--print-state"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_autosave_survives_kill_9(tmp_path):
    env = _env(tmp_path)
    proc = _start_editing(env, "threads=384,registers=40", tmp_path)
    _kill(proc)
    assert proc.returncode == -signal.SIGKILL
    [autosave] = _recovery_files(env)

    for _ in range(2):  # a diagnostic run restores, and leaves the recovery file where it was
        state = _print_state(env, tmp_path)
        assert state["device"] == "sm_90"
        assert state["inputs"]["threads"] == 384 and state["inputs"]["registers"] == 40
        assert state["window"]["modified"] and "Restored" in state["window"]["status"]
        assert _recovery_files(env) == [autosave]

    # A real run takes it over and removes it when it exits cleanly.
    subprocess.run(
        [sys.executable, "-m", "occupancy_gui"],
        env={**env, "OCCUPANCY_GUI_QUIT_AFTER": "500"},
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert _recovery_files(env) == []
    assert "Restored" not in _print_state(env, tmp_path)["window"]["status"]  # nothing left to restore


def test_two_windows_keep_their_own_recovery(tmp_path):
    """A second window neither adopts the first's autosave nor removes it when it exits; the first's crash
    is still recovered afterwards."""
    env = _env(tmp_path)
    first = _start_editing(env, "threads=384,registers=40", tmp_path)
    try:
        assert "Restored" not in _print_state(env, tmp_path)["window"]["status"]  # the first is running
        second = _start_editing(env, "threads=512,registers=48", tmp_path, OCCUPANCY_GUI_QUIT_AFTER="3000")
        assert len(_recovery_files(env)) == 2
        assert second.wait(30) == 0  # a clean exit ...
        second.stdout.close()
        second.stderr.close()
        [left] = _recovery_files(env)  # ... removes its own file only
        assert "threads: 384\n" in left.read_text()
    finally:
        _kill(first)
    state = _print_state(env, tmp_path)
    assert state["inputs"]["threads"] == 384 and "Restored" in state["window"]["status"]
