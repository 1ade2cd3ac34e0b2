"""The GPU data dock's place in the window: an analysis dock whose view loads when first shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...fields import AMD
from ..support.analysis_dock import AnalysisDock, add_analysis_dock

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ...session import Session
    from ..support.window_api import WindowApi


def _gpu_data(session: Session) -> QWidget:
    from .gpu_data_view import GpuDataView  # noqa: PLC0415 - lazy: start-up builds no closed dock

    return GpuDataView(session)


def _amd_gpu_data(session: Session) -> QWidget:
    from .gpu_data_view import GpuDataView  # noqa: PLC0415 - lazy: as above

    return GpuDataView(session, amd=True)


def install_gpu_data_dock(window: WindowApi) -> AnalysisDock:
    """Add the closed GPU data dock (``--docks gpu_data``) to the analysis docks."""
    return add_analysis_dock(window, _gpu_data, "gpu_data_dock", "GPU data", {AMD: _amd_gpu_data})
