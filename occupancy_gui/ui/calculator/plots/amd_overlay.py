"""The compiler's curve drawn over a step plot on an AMD device: LLVM's answer beside the HIP runtime's.

The plot's own curve is the runtime's (blocks and waves per multiprocessor, occupancy); this one is the compiler
model's, dashed, in the plot's unit: occupancy in %, or in the waves mode LLVM's waves per SIMD times the SIMDs the
runtime pools (its waves per CU or WGP, had every SIMD LLVM's count).  Created once, updated with ``setData``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen

from ....engine import StepCurve
from ...support.qt_utils import is_dark
from .step_plot import PERCENT, StepCurvePlot, merge_steps

LIGHT, DARK = "#2b8a3e", "#8ce99a"


def overlay_pen() -> QPen:
    """Dashed, in a green that reads on the current palette (the runtime's curve is the accent colour)."""
    pen: QPen = pg.mkPen(QColor(DARK if is_dark() else LIGHT), width=2, style=Qt.PenStyle.DashLine)
    return pen


class CompilerOverlay:
    """A dashed step curve in ``plot``'s view, hidden until :meth:`update` gives it a curve."""

    def __init__(self, plot: StepCurvePlot) -> None:
        self.plot = plot
        self.curve_model: StepCurve | None = None
        self.simds = 1
        self.item = pg.PlotCurveItem(np.array([0.0, 1.0]), np.array([0.0]), stepMode="center", antialias=False)
        self.item.setZValue(5)
        self.apply_style()
        plot.plot.addItem(self.item, ignoreBounds=True)
        self.item.hide()

    def apply_style(self) -> None:
        self.item.setPen(overlay_pen())

    def y_values(self, curve: StepCurve) -> np.ndarray:
        if self.plot.mode == PERCENT:
            return curve.occupancy * 100.0
        return curve.active_warps.astype(np.float64) * self.simds

    def update(self, curve: StepCurve | None, simds: int = 1) -> None:
        """Draw ``curve`` (LLVM's waves per SIMD over the plot's input); ``None`` hides it."""
        self.curve_model, self.simds = curve, simds
        if curve is None:
            self.item.hide()
            return
        edges, y = merge_steps(curve.edges / self.plot.scale, self.y_values(curve))
        self.item.setData(edges, y, stepMode="center")
        self.item.show()

    def redraw(self) -> None:
        """Again in the plot's current mode (after a switch between % and waves)."""
        self.update(self.curve_model, self.simds)

    def describe(self, x: int) -> str:
        """The hover's line for the compiler at the swept value ``x``."""
        c = self.curve_model
        if c is None:
            return ""
        i = c.index_of(x)
        return f"LLVM: {units_waves(int(c.active_warps[i]))} per SIMD ({c.occupancy[i] * 100:.4g} %)"


def units_waves(n: int) -> str:
    return f"{n} wave" if n == 1 else f"{n} waves"
