"""The wheel carries the top-level resources/ and device_profiles/ as occupancy_gui/_data/, and
``paths.data_dir`` finds them there as it finds them in a checkout."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_checkout_data_dirs_resolve() -> None:
    from occupancy_gui.paths import data_dir

    assert (data_dir("device_profiles") / "sm_90.yaml").is_file()
    assert data_dir("resources").is_dir()


def test_wheel_contains_data_and_paths_resolve_from_it(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("occupancy_gui-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    profiles = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "device_profiles").rglob("*.yaml"))
    assert any("/amd/" in name for name in profiles)  # the AMD profiles' sub-folder travels too
    assert all(f"occupancy_gui/_data/{name}" in names for name in profiles)
    resources = [p.relative_to(ROOT).as_posix() for p in (ROOT / "resources").rglob("*") if p.is_file()]
    assert all(f"occupancy_gui/_data/{r}" in names for r in resources)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import occupancy_gui.paths as p; d = p.data_dir('device_profiles'); "
            "assert '_data' in str(d), d; assert (d / 'sm_90.yaml').is_file(); print(d)")  # fmt: skip
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(site)},
                         capture_output=True, text=True)  # fmt: skip
    assert run.returncode == 0, run.stderr
