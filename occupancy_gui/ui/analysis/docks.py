"""The analyses' docks: Advisor, Heat maps, Grid and waves (the Utilization and GPU data docks install themselves).

Each view's module loads when its dock is first shown: start-up builds none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...fields import AMD
from ..support.analysis_dock import AnalysisDock, add_analysis_dock

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ...session import Session
    from ..support.window_api import WindowApi


def _advisor(session: Session) -> QWidget:
    from .advisor_view import AdvisorView  # noqa: PLC0415 - lazy: see above

    return AdvisorView(session)


def _amd_advisor(session: Session) -> QWidget:
    from .amd_advisor_view import AmdAdvisorView  # noqa: PLC0415 - lazy: see above

    return AmdAdvisorView(session)


def _heatmap(session: Session) -> QWidget:
    from .heatmap_view import HeatmapView  # noqa: PLC0415 - lazy: see above

    return HeatmapView(session)


def _amd_heatmap(session: Session) -> QWidget:
    from .amd_heatmap_view import AmdHeatmapView  # noqa: PLC0415 - lazy: see above

    return AmdHeatmapView(session)


def _waves(session: Session) -> QWidget:
    from .waves_view import WavesView  # noqa: PLC0415 - lazy: see above

    return WavesView(session)


def _amd_waves(session: Session) -> QWidget:
    from .amd_waves_view import AmdWavesView  # noqa: PLC0415 - lazy: see above

    return AmdWavesView(session)


def install_analysis_docks(window: WindowApi) -> tuple[AnalysisDock, AnalysisDock, AnalysisDock]:
    """The Advisor, Heat maps and Grid-and-waves docks; their modules load when a dock is first shown."""
    return (
        add_analysis_dock(window, _advisor, "advisor_dock", "Advisor", {AMD: _amd_advisor}),
        add_analysis_dock(window, _heatmap, "heatmap_dock", "Heat maps", {AMD: _amd_heatmap}),
        add_analysis_dock(window, _waves, "waves_dock", "Grid and waves", {AMD: _amd_waves}),
    )
