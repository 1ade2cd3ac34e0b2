"""GPU detection: a fake CUDA runtime stands in for a GPU; without the extra or a GPU, one clear line."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from occupancy_gui.cli.main import main
from occupancy_gui.detect import DetectionUnavailable, detect_devices, profile_document, save_profile
from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog
from tests.helpers.fake_cuda import NoDriver, fake_h200_runtime


def test_detected_profile_loads_and_matches_the_runtime(tmp_path) -> None:
    devices = detect_devices(fake_h200_runtime(count=2))
    assert [d.profile_name for d in devices] == ["NVIDIA H200 [detected]", "NVIDIA H200 [detected #1]"]
    paths = [save_profile(d, tmp_path) for d in devices]
    catalog = Catalog.load([data_dir("device_profiles")], [tmp_path])
    assert catalog.errors == []
    profile = catalog.get("NVIDIA H200 [detected]")
    assert profile.user and profile.sm_count == 132 and profile.compute_capability == (9, 0)
    assert profile.device_properties() == catalog.get("H200").device_properties()
    assert "driver 13.5" in profile.sources["regs_per_multiprocessor"]
    assert profile.notes and profile.notes.startswith("detected")
    assert all(p.exists() for p in paths)


def test_no_driver_is_one_clear_message() -> None:
    rt = fake_h200_runtime()
    rt.cudaGetDeviceCount = lambda: (NoDriver(35), None)
    with pytest.raises(DetectionUnavailable, match="cudaErrorInsufficientDriver"):
        detect_devices(rt)


def test_document_flags_block_limit_disagreement() -> None:
    device = detect_devices(fake_h200_runtime())[0]
    from dataclasses import replace

    odd = replace(device, extra={"maxBlocksPerMultiProcessor": 24})
    assert "driver reports 24 blocks per SM" in profile_document(odd)["notes"]


def test_cli_detect_without_gpu_or_extra_fails_cleanly() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", "devices", "--detect"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_cli_detect_saves_profiles(monkeypatch, tmp_path) -> None:
    import occupancy_gui.detect as detect

    monkeypatch.setenv("OCCUPANCY_GUI_PROFILE_DIR", str(tmp_path))
    monkeypatch.setattr(detect, "_load_runtime", fake_h200_runtime)
    out = io.StringIO()
    assert main(["devices", "--detect"], out=out) == 0
    assert "NVIDIA H200 [detected]: CC 9.0, 132 SMs, driver 13.5" in out.getvalue() and "(saved)" in out.getvalue()
