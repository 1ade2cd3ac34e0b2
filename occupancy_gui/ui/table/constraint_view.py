"""The read-only table view of the constraint model."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from .constraint_model import COLUMNS, HEADER_LABELS, ConstraintTableModel

CELL_PADDING = 12
"""Horizontal room around a cell's text (margins, grid line); Qt's own value is about 2 × 6 + 1."""


class ConstraintTableView(QTableView):
    """Columns sized to their text by the view itself.

    ``QHeaderView.ResizeToContents`` would measure every cell through the delegate on each change and
    re-lay out on a timer; measuring the few strings directly is cheaper and synchronous, and a
    column is only resized when its width really changes.
    """

    def __init__(self, model: ConstraintTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.verticalHeader().hide()
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # Before stretching: Qt keeps the last section's size at that moment as its floor.
        header.setDefaultSectionSize(60)
        header.setStretchLastSection(True)
        self.setToolTip("Each row is one ceiling on resident blocks per SM; the smallest one wins.\n"
                        "Edit → Copy table (Ctrl+Shift+C) copies it as tab-separated text.")  # fmt: skip
        model.modelReset.connect(self.fit_columns)
        model.dataChanged.connect(self._on_model_data_changed)
        self.fit_columns()

    def _on_model_data_changed(self, *_args: object) -> None:
        self.fit_columns()

    def fit_columns(self) -> None:
        model: ConstraintTableModel = self.model()  # type: ignore[assignment]  # the model it was built with
        plain = self.fontMetrics()
        bold_font = QFont(self.font())
        bold_font.setBold(True)
        bold = QFontMetrics(bold_font)
        head = QFontMetrics(self.horizontalHeader().font())
        header = self.horizontalHeader()
        for column in range(len(COLUMNS) - 1):  # the last one stretches
            width = max(head.horizontalAdvance(line) for line in HEADER_LABELS[column].split("\n"))
            for row in range(model.rowCount()):
                metrics = bold if model.is_binding(row) else plain
                width = max(width, metrics.horizontalAdvance(model.display_text(row, column)))
            width += CELL_PADDING
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(super().sizeHint().width(), self.fitting_height())

    def fitting_height(self) -> int:
        """Height that shows five rows (every limit that applies) and a horizontal scroll bar."""
        rows = max(5, self.model().rowCount())
        header = self.horizontalHeader().sizeHint().height()
        scroll = self.horizontalScrollBar().sizeHint().height()
        return header + rows * self.verticalHeader().defaultSectionSize() + 2 * self.frameWidth() + scroll
