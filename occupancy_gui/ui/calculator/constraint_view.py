"""The read-only table view of the constraint model (NVIDIA's, or AMD's: the model says its columns)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from .amd_constraint_model import AmdConstraintModel
from .constraint_model import COLUMNS, HEADER_LABELS, ConstraintTableModel

CELL_PADDING = 12
"""Horizontal room around a cell's text (margins, grid line); Qt's own value is about 2 × 6 + 1."""
HIDE_ORDER = tuple(
    COLUMNS.index(name) for name in ("Note", "First-pass estimate", "Calculation", "Per block (nominal)")
)
"""Columns a narrow window hides first (never cut): each row's tooltip still says what they hold."""


class ConstraintTableView(QTableView):
    """Columns sized to their text by the view itself.

    ``QHeaderView.ResizeToContents`` would measure every cell through the delegate on each change and
    re-lay out on a timer; measuring the few strings directly is cheaper and synchronous, and a
    column is only resized when its width really changes.
    """

    def __init__(self, model: ConstraintTableModel | AmdConstraintModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        amd = isinstance(model, AmdConstraintModel)
        self._columns = AmdConstraintModel.COLUMNS if amd else COLUMNS
        self._headers = AmdConstraintModel.HEADERS if amd else HEADER_LABELS
        self._hide_order = AmdConstraintModel.HIDE_ORDER if amd else HIDE_ORDER
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # Nothing to select: a selected row would look like the binding one (Copy table copies it all).
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWordWrap(False)
        self._natural: list[int] = [0] * len(self._columns)
        self.hidden_columns: tuple[int, ...] = ()
        """Columns hidden because the window is too narrow for them (see :data:`HIDE_ORDER`)."""
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.verticalHeader().hide()
        # Compact rows: the table holds the answer and must stay in sight on a 700 px screen with docks open.
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # columns are hidden, never cut
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the height holds every row
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # Before stretching: Qt keeps the last section's size at that moment as its floor.
        header.setDefaultSectionSize(60)
        header.setStretchLastSection(True)
        self.setToolTip(
            "Each row is one ceiling on resident blocks per SM; the smallest one wins.\n"
            "Edit → Copy table (Ctrl+Shift+C) copies it as tab-separated text."
        )
        model.modelReset.connect(self.fit_columns)
        model.dataChanged.connect(self._on_model_data_changed)
        self.fit_columns()

    def _on_model_data_changed(self, *_args: object) -> None:
        self.fit_columns()

    def fit_columns(self) -> None:
        model: ConstraintTableModel | AmdConstraintModel = self.model()  # type: ignore[assignment]  # as built
        plain = self.fontMetrics()
        bold_font = QFont(self.font())
        bold_font.setBold(True)
        bold = QFontMetrics(bold_font)
        head = QFontMetrics(self.horizontalHeader().font())
        header = self.horizontalHeader()
        for column in range(len(self._columns)):
            width = max(head.horizontalAdvance(line) for line in self._headers[column].split("\n"))
            for row in range(model.rowCount()):
                metrics = bold if model.is_binding(row) else plain
                width = max(width, metrics.horizontalAdvance(model.display_text(row, column)))
            width += CELL_PADDING
            self._natural[column] = width
            if column < len(self._columns) - 1 and header.sectionSize(column) != width:  # the last one stretches
                header.resizeSection(column, width)
        self._fit_width()

    def _fit_width(self) -> None:
        """Hide the columns of :data:`HIDE_ORDER` that the view's width cannot hold whole, first ones first."""
        room = self.viewport().width()
        hidden: list[int] = []
        for column in self._hide_order:
            if sum(w for c, w in enumerate(self._natural) if c not in hidden) <= room:
                break
            hidden.append(column)
        hidden_now = tuple(sorted(hidden))
        if hidden_now == self.hidden_columns:
            return
        self.hidden_columns = hidden_now
        for column in range(len(self._columns)):
            self.setColumnHidden(column, column in hidden_now)
        names = ", ".join(self._columns[c] for c in hidden_now)
        self.horizontalHeader().setToolTip(
            f"Hidden at this width: {names} (each row's tooltip has them; widen the window to show them)"
            if hidden_now
            else ""
        )

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_width()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(super().sizeHint().width(), self.fitting_height())

    def fitting_height(self) -> int:
        """Height that shows five rows (every limit that applies; AMD's six); the columns always fit the width."""
        rows = max(6 if self._columns is not COLUMNS else 5, self.model().rowCount())
        header = self.horizontalHeader().sizeHint().height()
        return header + rows * self.verticalHeader().defaultSectionSize() + 2 * self.frameWidth()
