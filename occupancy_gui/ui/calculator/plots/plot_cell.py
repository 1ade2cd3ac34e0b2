"""``PlotCell``: a view box with a left and a bottom axis, without ``pg.PlotItem``'s extras.

A ``PlotItem`` builds a context menu, a configuration dialog and auto-range buttons for every plot;
four of them cost ~60 ms of start-up for features this window switches off.  A cell is only what
the step plots use.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem


class PlotCell:
    def __init__(self, layout: pg.GraphicsLayout, row: int, col: int) -> None:
        self.layout = layout.addLayout(row=row, col=col)
        self.layout.setContentsMargins(2, 2, 2, 2)
        self.layout.setSpacing(0)
        self.view = pg.ViewBox(enableMenu=False)
        self.view.setMouseEnabled(x=False, y=False)
        self.axes = {"left": pg.AxisItem("left"), "bottom": pg.AxisItem("bottom")}
        for axis in self.axes.values():
            axis.linkToView(self.view)
        self.layout.addItem(self.axes["left"], row=0, col=0)
        self.layout.addItem(self.view, row=0, col=1)
        self.layout.addItem(self.axes["bottom"], row=1, col=1)
        self.items: list[QGraphicsItem] = []

    def getAxis(self, name: str) -> pg.AxisItem:  # noqa: N802 (pyqtgraph's spelling)
        return self.axes[name]

    def getViewBox(self) -> pg.ViewBox:  # noqa: N802
        return self.view

    def setLabel(self, axis: str, text: str) -> None:  # noqa: N802
        self.axes[axis].setLabel(text)

    def showGrid(self, alpha: float) -> None:  # noqa: N802
        for axis in self.axes.values():
            axis.setGrid(int(alpha * 255))

    def addItem(self, item: QGraphicsItem, ignoreBounds: bool = True) -> None:  # noqa: N802, N803
        self.view.addItem(item, ignoreBounds=ignoreBounds)
        self.items.append(item)

    def sceneBoundingRect(self) -> QRectF:  # noqa: N802
        rect: QRectF = self.layout.sceneBoundingRect()  # pyqtgraph is untyped: the Qt call's own type
        return rect
