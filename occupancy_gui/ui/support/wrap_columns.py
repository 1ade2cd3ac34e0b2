"""A table whose long columns wrap to the view's width instead of running past it (no text cut, no side scroll).

Each column gets its natural width while the view holds them all; when it does not, the columns named as
wrapping share what the others leave and their text wraps, the rows growing to hold it.  Qt's own header modes
either cut (Interactive, Stretch) or scroll (ResizeToContents) a long sentence such as an advisor's cost.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QHeaderView, QTableView

MIN_WRAPPED = 80
"""A wrapping column is never narrower than this (or than its longest word)."""


class WrapColumns(QObject):
    """Fits ``view``'s columns to its width on every resize and content change (the view's child)."""

    def __init__(self, view: QTableView, wrapping: set[int]) -> None:
        super().__init__(view)
        self.view, self.wrapping = view, wrapping
        view.setWordWrap(True)
        view.setTextElideMode(Qt.TextElideMode.ElideNone)
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        view.viewport().installEventFilter(self)
        model = view.model()
        model.modelReset.connect(self.fit)
        model.dataChanged.connect(self.fit)
        model.layoutChanged.connect(self.fit)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def _measure(self) -> tuple[list[int], dict[int, int]]:
        """Each column's natural width, and the narrowest each wrapping column may be (its longest word)."""
        view = self.view
        model = view.model()
        header = view.horizontalHeader()
        metrics = view.fontMetrics()
        natural = [max(view.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in range(model.columnCount())]
        floor = {}
        for c in self.wrapping:
            if c < len(natural):
                words = [model.index(r, c).data() or "" for r in range(model.rowCount())]
                longest = max((metrics.horizontalAdvance(w) for text in words for w in str(text).split()), default=0)
                floor[c] = min(natural[c], max(MIN_WRAPPED, longest + 12, header.sectionSizeHint(c)))
        return natural, floor

    def least_width(self) -> int:
        """The narrowest the view can be with nothing cut: its columns at their floors, its frame, a scroll bar."""
        natural, floor = self._measure()
        view = self.view
        return (
            sum(floor.get(c, w) for c, w in enumerate(natural))
            + 2 * view.frameWidth()
            + view.verticalScrollBar().sizeHint().width()
        )

    def fit(self) -> None:
        view = self.view
        columns = view.model().columnCount()
        if not columns:
            return
        header = view.horizontalHeader()
        natural, floor = self._measure()
        room = view.viewport().width()
        widths = list(natural)
        if sum(natural) > room:
            wrap = [c for c in range(columns) if c in floor]
            fixed = sum(w for c, w in enumerate(natural) if c not in floor)
            left = max(room - fixed, 0)
            total = sum(natural[c] for c in wrap) or 1
            for c in wrap:
                widths[c] = max(int(left * natural[c] / total), floor[c])
        spare = room - sum(widths)
        if spare > 0:
            widths[-1] += spare  # the last column takes what is left, as a stretched one would
        wrap = sorted(floor, key=lambda c: -widths[c])
        while spare < 0 and wrap:  # rounding and the minimums overran the room: the widest wrapping columns give
            c = wrap.pop(0)
            give = min(-spare, max(widths[c] - floor[c], 0))
            widths[c] -= give
            spare += give
        least = self.least_width()
        if view.minimumWidth() != least:  # the layout never gives the view less than its columns need
            view.setMinimumWidth(least)
        for c, width in enumerate(widths):
            if header.sectionSize(c) != width:
                header.resizeSection(c, width)
        view.resizeRowsToContents()
