"""The step curves in one ``GraphicsLayoutWidget`` (one view, one repaint): a 2×2 grid, a row of four,
or one alone (``arrange``; :class:`~.plot_area.PlotArea` decides which).

On an AMD device three of the cells show AMD's sweeps (block size, VGPRs, LDS): the HIP runtime's curve as the
plot's own, the compiler's dashed over it; the barrier plot is NVIDIA's alone and leaves the grid (the third plot
then spans the second row).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Signal
from PySide6.QtWidgets import QWidget

from ....fields import AMD, NVIDIA
from ....session import Session
from .amd_overlay import CompilerOverlay
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
AMD_SWEEPS = {
    "threads": ("threads", "threads per block"),
    "registers": ("vgprs", "VGPRs per lane"),
    "shared_memory": ("lds", "LDS per workgroup (KiB)"),
}
"""Plot key -> (AMD curve, axis label) on an AMD device; the keys left out are NVIDIA's alone."""


class PlotGrid(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph is untyped
    """Reads the session's curves; the hover text follows the mouse over any of the four plots."""

    vendorChanged = Signal(str)
    """The plots now show this vendor's sweeps (the area re-arranges them and names its tabs)."""

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
        self.vendor = NVIDIA
        self.hidden: frozenset[str] = frozenset()
        """Plots the selected device's vendor has no sweep for (left out of every arrangement)."""
        self.overlays: dict[str, CompilerOverlay] = {}
        """The compiler's curves, made the first time an AMD device is selected."""
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
        visible = [key for key, *_ in SWEEPS if key not in self.hidden]
        for (key, *_), cell in zip(SWEEPS, cells, strict=True):
            if key in self.hidden or (arrangement == "single" and key != shown):
                cell.hide()
                continue
            i = visible.index(key)
            row, col = {"grid": (i // 2, i % 2), "row": (0, i)}.get(arrangement, (0, 0))
            span = 2 if arrangement == "grid" and len(visible) % 2 and i == len(visible) - 1 else 1
            grid.addItem(cell, row, col, 1, span)
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
        for overlay in self.overlays.values():
            overlay.apply_style()

    def set_mode(self, mode: str) -> None:
        """``"percent"`` or ``"warps"`` on the y axes."""
        self.mode = mode
        top = self._amd_max_waves() if self.vendor == AMD else self.session.device.max_warps_per_multiprocessor
        for plot in self.plots.values():
            plot.set_mode(mode, top)
        for overlay in self.overlays.values():
            overlay.redraw()

    def on_session_changed(self, changed: frozenset[str]) -> None:
        self.sync_from_session()

    def set_vendor(self, vendor: str) -> None:
        """Label, show and hide the plots for ``vendor``'s sweeps (the caller re-arranges them)."""
        if vendor == self.vendor:
            return
        self.vendor = vendor
        amd = vendor == AMD
        if amd and not self.overlays:
            self.overlays = {key: CompilerOverlay(self.plots[key]) for key in AMD_SWEEPS}
        labels = {key: label for key, label, *_ in SWEEPS}
        for key, plot in self.plots.items():
            plot.plot.setLabel("bottom", AMD_SWEEPS[key][1] if amd and key in AMD_SWEEPS else labels[key])
            plot.count_word = "wave" if amd else "warp"
            plot.hover_extra = self.overlays[key].describe if amd and key in self.overlays else None
        for overlay in self.overlays.values():
            overlay.update(None)
        self.hidden = frozenset(k for k in self.plots if k not in AMD_SWEEPS) if amd else frozenset()
        self._max_warps = 0  # the y range follows the new device's figures
        self.vendorChanged.emit(vendor)

    def _amd_max_waves(self) -> int:
        state = self.session.amd
        return state.answer.hip.max_waves if state is not None and state.answer is not None else 64

    def _sync_amd(self) -> None:
        state = self.session.amd
        top = self._amd_max_waves()
        if top != self._max_warps:
            self._max_warps = top
            for plot in self.plots.values():
                plot.set_mode(self.mode, top)
        answer = state.answer if state is not None else None
        simds = answer.hip.budget.simds if answer is not None else 1
        for key, (name, _label) in AMD_SWEEPS.items():
            sweep = state.curves.get(name) if state is not None else None
            self.plots[key].update(sweep.runtime if sweep is not None else None, "No curve for these inputs")
            self.overlays[key].update(sweep.compiler if sweep is not None else None, simds)

    def sync_from_session(self) -> None:
        if self.session.vendor != self.vendor:
            self.set_vendor(self.session.vendor)
        if self.vendor == AMD:
            self._sync_amd()
            return
        max_warps = self.session.device.max_warps_per_multiprocessor
        if max_warps != self._max_warps:
            self._max_warps = max_warps
            for plot in self.plots.values():
                plot.set_mode(self.mode, max_warps)
        curves = self.session.curves
        for key, plot in self.plots.items():
            message = (
                NO_BARRIERS if key == "barriers" and not self.session.barriers_apply else "No curve for these inputs"
            )
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
