"""The step curves in one ``GraphicsLayoutWidget`` (one view, one repaint): a 2×2 grid, a row of four,
or one alone (``arrange``; :class:`~.plot_area.PlotArea` decides which)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QWidget

from ....session import Session
from .plot_cell import PlotCell
from .plot_style import plot_style
from .step_plot import PERCENT, StepCurvePlot

# key, axis label, unit word, x divisor
SWEEPS = (
    ("threads", "threads per block", "threads", 1.0),
    ("registers", "registers per thread", "registers", 1.0),
    ("shared_memory", "shared memory per block (KiB)", "bytes", 1024.0),
    ("barriers", "block barriers", "barriers", 1.0),
)
NO_BARRIERS = "Block barriers do not\nlimit residency before\ncompute capability 9.0"


class PlotGrid(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph is untyped
    """Reads the session's curves; the hover text follows the mouse over any of the four plots."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        style = plot_style()
        super().__init__(parent)
        self.setBackground(style.background)
        self.session = session
        self.mode = PERCENT
        self.ci.layout.setSpacing(4)
        self.ci.setContentsMargins(4, 2, 8, 2)
        self.plots: dict[str, StepCurvePlot] = {}
        for i, (key, label, unit, scale) in enumerate(SWEEPS):
            cell = PlotCell(self.ci, row=i // 2, col=i % 2)
            self.plots[key] = StepCurvePlot(cell, key, label, unit, style, scale)
        self.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self.setToolTip("")
        self._max_warps = 0
        self.arrangement = "grid"
        self.sync_from_session()

    def arrange(self, arrangement: str, shown: str = "threads") -> None:
        """``"grid"`` (2×2), ``"row"`` (1×4) or ``"single"`` (only ``shown``): the same cells, moved."""
        grid = self.ci.layout
        cells = [self.plots[key].plot.layout for key, *_ in SWEEPS]
        for cell in cells:
            for i in range(grid.count()):
                if grid.itemAt(i) is cell:
                    grid.removeAt(i)
                    break
        for r in range(grid.rowCount()):
            grid.setRowStretchFactor(r, 0)
        for c in range(grid.columnCount()):
            grid.setColumnStretchFactor(c, 0)
        for i, ((key, *_), cell) in enumerate(zip(SWEEPS, cells, strict=True)):
            if arrangement == "single" and key != shown:
                cell.hide()
                continue
            row, col = {"grid": (i // 2, i % 2), "row": (0, i)}.get(arrangement, (0, 0))
            grid.addItem(cell, row, col)
            grid.setRowStretchFactor(row, 1)
            grid.setColumnStretchFactor(col, 1)
            cell.show()
        self.arrangement = arrangement
        grid.invalidate()
        grid.activate()  # now: else the next paint shows the cells where they were, and a second one follows

    def apply_style(self) -> None:
        """Re-colour the plots from the current system palette (light/dark switch)."""
        style = plot_style()
        self.setBackground(style.background)
        for plot in self.plots.values():
            plot.apply_style(style)

    def set_mode(self, mode: str) -> None:
        """``"percent"`` or ``"warps"`` on the y axes."""
        self.mode = mode
        for plot in self.plots.values():
            plot.set_mode(mode, self.session.device.max_warps_per_multiprocessor)

    def on_session_changed(self, changed: frozenset[str]) -> None:
        self.sync_from_session()

    def sync_from_session(self) -> None:
        max_warps = self.session.device.max_warps_per_multiprocessor
        if max_warps != self._max_warps:
            self._max_warps = max_warps
            for plot in self.plots.values():
                plot.set_mode(self.mode, max_warps)
        curves = self.session.curves
        for key, plot in self.plots.items():
            message = NO_BARRIERS if key == "barriers" and not self.session.barriers_apply else "No curve for these inputs"
            plot.update(curves.get(key), message)

    def _on_scene_mouse_moved(self, pos: QPointF) -> None:
        for plot in self.plots.values():
            if plot.plot.sceneBoundingRect().contains(pos) and plot.plot.getViewBox().sceneBoundingRect().contains(pos):
                plot.hover(plot.plot.getViewBox().mapSceneToView(pos).x())
            else:
                plot.hover(None)

    def leaveEvent(self, event: object) -> None:  # noqa: N802 (Qt override)
        for plot in self.plots.values():
            plot.hover(None)
        super().leaveEvent(event)
