"""A vertical-only scroll area as wide as its contents need, whatever they come to hold.

The inputs panel scrolls up and down but never sideways: when its contents grow wider (a long note under a
field, a longer device name), the area's minimum width follows, so nothing is cut at the right edge.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QScrollArea


class FitScrollWidth(QObject):
    """Keeps ``area``'s minimum width at its widget's minimum plus the vertical scroll bar (the area's child)."""

    def __init__(self, area: QScrollArea) -> None:
        super().__init__(area)
        self.area = area
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        widget = area.widget()
        assert widget is not None  # set before the follower
        widget.installEventFilter(self)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LayoutRequest:
            self.fit()
        return False

    def fit(self) -> None:
        widget = self.area.widget()
        if widget is None:
            return
        width = (
            widget.minimumSizeHint().width()
            + self.area.verticalScrollBar().sizeHint().width()
            + 2 * self.area.frameWidth()
        )
        if self.area.minimumWidth() != width:
            self.area.setMinimumWidth(width)
