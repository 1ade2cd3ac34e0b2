"""Analysis → Detect local GPU: read the local GPUs, save them as user profiles, select the first.

The CUDA runtime call and the profile writing run on a pool thread (``cudaGetDeviceProperties`` can
take a second while the driver initialises).  Without the ``cuda`` extra or without a GPU the
action shows ``DetectionUnavailable``'s one-line message and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

from ...detect import DetectionUnavailable, detect_devices, save_profile
from ...paths import data_dir
from ...profiles import Catalog, ProfileError, user_profile_dir
from ..support.tasks import TaskOutcome, TaskRunner

if TYPE_CHECKING:
    from ...detect import DetectedDevice
    from ..calculator.device_panel import DevicePanel
    from ..support.window_api import WindowApi


@dataclass
class Detection:
    """What a detection found: the devices, where their profiles were written, the reloaded catalog."""

    devices: list[DetectedDevice]
    paths: list[Path]
    catalog: Catalog


def _detect_task(runtime: Any, user_dir: Path, bundled_dir: Path) -> Callable[..., Detection]:
    def run(_cancelled: Callable[[], bool], _progress: Callable[[int, int], None]) -> Detection:
        devices = detect_devices(runtime)
        paths = [save_profile(device, user_dir) for device in devices]
        return Detection(devices, paths, Catalog.load([bundled_dir], [user_dir]))

    return run


class DetectGpuAction(QObject):
    """The action and its background detection; ``runtime`` may be set to a fake CUDA runtime (tests)."""

    detected = Signal(str)
    """Detection succeeded; the argument is the selected profile's name."""
    failed = Signal(str)
    """Detection failed; the argument is the one-line message."""

    def __init__(self, window: WindowApi, device_panel: DevicePanel) -> None:
        super().__init__(window.frame)
        self.window_ = window.frame
        self.session = window.session
        self.device_panel = device_panel
        self.runtime: Any | None = None
        self.message_box: QMessageBox | None = None
        self.runner = TaskRunner(self, expected=(DetectionUnavailable, ProfileError, OSError, ValueError))
        self.runner.finished.connect(self._on_runner_finished)
        self.action = QAction("Detect local &GPU", window.frame)
        self.action.setToolTip(
            "Read the local GPUs' properties through the CUDA runtime, save them as user "
            "profiles and select the first (needs occupancy_gui[cuda] and an NVIDIA driver)"
        )
        self.action.triggered.connect(self.start)

    def start(self) -> None:
        """Detect in the background (the action is disabled meanwhile)."""
        if self.runner.busy:
            return
        self.action.setEnabled(False)
        self.window_.statusBar().showMessage("Detecting local GPUs…")
        self.runner.start(_detect_task(self.runtime, user_profile_dir(), data_dir("device_profiles")))

    def _on_runner_finished(self, outcome: TaskOutcome) -> None:
        self.action.setEnabled(True)
        if outcome.error is not None or outcome.value is None:
            self._report(outcome.error or "GPU detection was cancelled")
            return
        detection: Detection = outcome.value
        device = detection.devices[0]
        name = device.profile_name
        if self._adopt(detection.catalog, name):
            major, minor = device.compute_capability
            more = f" (and {len(detection.devices) - 1} more)" if len(detection.devices) > 1 else ""
            self.window_.statusBar().showMessage(
                f"Detected {device.name}{more}: CC {major}.{minor}, {device.sm_count} SMs; saved as the user profile "
                f"\u201c{name}\u201d in {detection.paths[0].parent}",
                10000,
            )
            self.detected.emit(name)

    def _adopt(self, catalog: Catalog, name: str) -> bool:
        """Give the session the reloaded catalog and select ``name``; ``False`` (with a message) if it is missing."""
        session = self.session
        try:
            catalog.get(name)
        except KeyError:
            errors = "; ".join(str(e) for e in catalog.errors) or "it is not in the reloaded catalog"
            self._report(f"The detected profile {name!r} could not be loaded: {errors}")
            return False
        with session.batch():
            session.set_catalog(catalog)
            session.replace(device=name)
        self.device_panel.set_catalog(catalog)
        return True

    def _report(self, message: str) -> None:
        message = " ".join(message.split())
        self.window_.statusBar().showMessage(message, 15000)
        box = QMessageBox(
            QMessageBox.Icon.Information, "Detect local GPU", message, QMessageBox.StandardButton.Ok, self.window_
        )
        box.setObjectName("detect_gpu_message")
        box.open()  # window-modal, does not block the event loop
        self.message_box = box
        self.failed.emit(message)

    def shutdown(self) -> None:
        self.runner.shutdown()


def install_detect_action(window: WindowApi, device_panel: DevicePanel) -> DetectGpuAction:
    """Analysis → Detect local GPU."""
    detect = DetectGpuAction(window, device_panel)
    window.analysis_menu.addAction(detect.action)
    return detect
