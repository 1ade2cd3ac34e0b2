"""Analysis → Detect local GPU: a fake CUDA runtime stands in for a GPU; without one, one clear line."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from occupancy_gui.profiles import user_profile_dir
from tests.helpers.fake_cuda import NoDevice, fake_h200_runtime


def _close_message(window):
    for box in window.findChildren(QMessageBox):
        box.close()


def test_action_is_in_the_analysis_menu(window):
    assert window.detect_gpu.action in window.analysis_menu.actions()


def test_detected_gpu_is_saved_and_selected(qtbot, window):
    detect = window.detect_gpu
    detect.runtime = fake_h200_runtime(count=2)
    with qtbot.waitSignal(detect.detected, timeout=15000) as blocker:
        detect.action.trigger()
        assert not detect.action.isEnabled()  # busy while the pool thread works
    assert blocker.args == ["NVIDIA H200 [detected]"]
    session = window.session
    assert session.inputs.device == "NVIDIA H200 [detected]"
    assert session.profile.user and session.profile.sm_count == 132
    assert session.catalog.get("NVIDIA H200 [detected #1]").user
    assert sorted(p.name for p in user_profile_dir().iterdir()) == [
        "detected_nvidia_h200_0.yaml",
        "detected_nvidia_h200_1.yaml",
    ]
    assert "NVIDIA H200" in window.statusBar().currentMessage()
    assert detect.action.isEnabled()
    selector = window.device_panel.selector  # the drop-down lists the detected GPUs and shows the new one
    assert selector.index_of_name("NVIDIA H200 [detected]") >= 0
    assert selector.currentIndex() == selector.index_of_name("NVIDIA H200 [detected]")
    window.bridge.flush()
    assert window.windowTitle().startswith("NVIDIA H200 [detected]")


@pytest.mark.parametrize("runtime", ["real", "no_device"])
def test_no_gpu_is_one_line_and_changes_nothing(qtbot, window, runtime):
    """``real``: this machine's path (no cuda extra installed, or no GPU): DetectionUnavailable."""
    detect = window.detect_gpu
    if runtime == "no_device":
        rt = fake_h200_runtime()
        rt.cudaGetDeviceCount = lambda: (NoDevice(100), None)
        detect.runtime = rt
    before = window.session.inputs
    catalog = window.session.catalog
    with qtbot.waitSignal(detect.failed, timeout=30000) as blocker:
        detect.action.trigger()
    message = blocker.args[0]
    assert "\n" not in message and "Traceback" not in message
    assert ("cuda" in message.lower()) or ("gpu" in message.lower())
    assert window.session.inputs == before and window.session.catalog is catalog
    assert window.statusBar().currentMessage() == message
    assert detect.message_box is not None and detect.message_box.text() == message
    _close_message(window)
    assert detect.action.isEnabled()
