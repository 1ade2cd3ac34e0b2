"""The installer: ``occupancy-gui --self-test`` from source, and (opt-in) the whole .deb round trip.

The .deb check builds the PyInstaller bundle and the package, installs it as root, runs the
installed launchers and uninstalls it (``packaging/check_deb.sh``; about 2 minutes on 2 cores, build included).
It only runs with ``OCCUPANCY_GUI_TEST_INSTALLER=1``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALLER_ENV = "OCCUPANCY_GUI_TEST_INSTALLER"


def _headless_env() -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def test_self_test_from_source() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui", "--self-test"],
        cwd=ROOT, env=_headless_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "self-test passed (source)" in proc.stdout
    assert "4 blocks/SM, 50%, registers" in proc.stdout


def test_self_test_failure_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A broken bundled profile makes the self-test return 1 with exactly one line on stderr
    (it fails before any Qt object is made)."""
    import occupancy_gui.paths
    from occupancy_gui.ui import self_test

    (tmp_path / "broken.yaml").write_text("schema: 1\nname: broken\nkind: nonsense\n", encoding="utf-8")
    monkeypatch.setattr(occupancy_gui.paths, "data_dir", lambda name: tmp_path)

    class NoWindow:  # the profiles check fails first: no window may be built
        def create(self, argv: list[str]) -> object:
            raise AssertionError("the window was built after a failed check")

        def screenshot(self, window: object, path: Path) -> None:
            raise AssertionError("the window was rendered after a failed check")

    assert self_test.run(NoWindow()) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("occupancy-gui: self-test failed: bundled profile"), captured.err
    assert captured.out == ""


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get(INSTALLER_ENV) != "1",
    reason="installer check needs OCCUPANCY_GUI_TEST_INSTALLER=1 (slow, root)",
)
def test_deb_installs_runs_and_uninstalls() -> None:
    if sys.platform != "linux" or shutil.which("dpkg-deb") is None or shutil.which("apt-get") is None:
        pytest.skip("the .deb check needs a Debian-family Linux with dpkg-deb and apt-get")
    if os.geteuid() != 0:
        pytest.fail(f"{INSTALLER_ENV}=1 but not running as root: the .deb check installs a package")
    proc = subprocess.run(
        ["bash", str(ROOT / "packaging" / "check_deb.sh")],
        cwd=ROOT, capture_output=True, text=True, timeout=20 * 60,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    assert "check_deb: PASSED" in proc.stdout
