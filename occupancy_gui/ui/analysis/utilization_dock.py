"""The Utilization dock's place in the window: an analysis dock whose view loads when first shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...fields import AMD
from ..support.analysis_dock import AnalysisDock, add_analysis_dock

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ...session import Session
    from ..support.window_api import WindowApi


def _utilization(session: Session) -> QWidget:
    from .utilization_view import UtilizationView  # noqa: PLC0415 - lazy: start-up builds no closed dock

    return UtilizationView(session)


def _amd_utilization(session: Session) -> QWidget:
    from .amd_utilization_view import AmdUtilizationView  # noqa: PLC0415 - lazy: as above

    return AmdUtilizationView(session)


def install_utilization_dock(window: WindowApi) -> AnalysisDock:
    """Add the closed Utilization dock (``--docks utilization``) to the analysis docks."""
    return add_analysis_dock(window, _utilization, "utilization_dock", "Utilization", {AMD: _amd_utilization})
