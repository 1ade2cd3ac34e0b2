"""The Utilization dock: how much of each resource of one SM the resident blocks hold, how much stays
empty because another limit binds, and how much is too little for one more block (Nsight Compute's
occupancy section).

A table, one row per resource, with a three-part bar painted by a delegate and the figures beside it;
the model (``utilization_model``) words the engine's split.  Installed by ``utilization_dock``.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ... import units
from ...session import Session
from ..support.qt_utils import is_dark
from ..support.refresh import RefreshWhenVisible
from ..support.terms import tip
from .utilization_model import BAR_COLUMN, FRACTIONS_ROLE, HEADERS, UtilizationModel

PART_COLORS_LIGHT = ("#2f6fc4", "#a9b0b8", "#e0a030")
PART_COLORS_DARK = ("#6aa6f0", "#6b737c", "#e8b550")
"""Allocated, unusable, remainder: blue, grey, amber — apart in hue and in lightness (colour-blind safe)."""
PART_NAMES = ("Allocated to the resident blocks", "Unusable: another limit binds", "Remainder: less than one block")
BAR_MIN_WIDTH = 140
CELL_PADDING = 14


def part_colors() -> tuple[QColor, QColor, QColor]:
    allocated, unusable, remainder = PART_COLORS_DARK if is_dark() else PART_COLORS_LIGHT
    return QColor(allocated), QColor(unusable), QColor(remainder)


class SplitBarDelegate(QStyledItemDelegate):
    """Paints the bar column: three segments, as wide as their shares of the capacity."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().paint(painter, option, index)  # background, selection, focus
        fractions = index.data(FRACTIONS_ROLE)
        if not fractions:
            return
        rect = QRectF(option.rect).adjusted(6, 5, -6, -5)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(Qt.PenStyle.NoPen)
        x = rect.left()
        for fraction, color in zip(fractions, part_colors()):
            width = rect.width() * fraction
            painter.fillRect(QRectF(x, rect.top(), width, rect.height()), color)
            x += width
        outline = option.palette.color(option.palette.ColorRole.Mid)
        painter.setPen(QPen(outline, 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        painter.restore()


def legend_html() -> str:
    swatches = (f'<span style="color:{c.name()}">■</span>&nbsp;{name}' for c, name in zip(part_colors(), PART_NAMES))
    return " &nbsp; ".join(swatches)


class UtilizationView(RefreshWhenVisible, QWidget):
    """A caption (what the rows are for), a legend, and the table; reads the session, writes nothing."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model = UtilizationModel(self)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setToolTip(tip("utilization"))
        self.legend = QLabel(legend_html(), self)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setToolTip(tip("utilization"))
        self.table = self._build_table()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addWidget(self.caption)
        layout.addWidget(self.legend)
        layout.addWidget(self.table, 1)
        self._dark = is_dark()
        self.refresh()

    def _build_table(self) -> QTableView:
        table = QTableView(self)
        table.setModel(self.model)
        table.setItemDelegateForColumn(BAR_COLUMN, SplitBarDelegate(table))
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setWordWrap(False)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 12)
        header = table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(BAR_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)
        self.model.modelReset.connect(self.fit_columns)
        self.model.dataChanged.connect(self._on_model_data_changed)
        table.setMinimumHeight(header.sizeHint().height() + 3 * table.verticalHeader().defaultSectionSize())
        return table

    def _on_model_data_changed(self, *_args: object) -> None:
        self.fit_columns()

    def fit_columns(self) -> None:
        """Every text column as wide as its widest text (header included); the bar takes the rest."""
        table, model = self.table, self.model
        plain = table.fontMetrics()
        bold_font = QFont(table.font())
        bold_font.setBold(True)
        bold, head = QFontMetrics(bold_font), QFontMetrics(table.horizontalHeader().font())
        header = table.horizontalHeader()
        for column in range(len(HEADERS)):
            if column == BAR_COLUMN:
                continue
            width = max(head.horizontalAdvance(line) for line in model.HEADERS[column].split("\n"))
            for row in range(model.rowCount()):
                metrics = bold if model.is_binding(row) else plain
                width = max(width, metrics.horizontalAdvance(model.display_text(row, column)))
            width += CELL_PADDING
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)
        texts = sum(header.sectionSize(c) for c in range(len(HEADERS)) if c != BAR_COLUMN)
        table.setMinimumWidth(min(texts + BAR_MIN_WIDTH + 2 * table.frameWidth(), 400))

    def refresh(self) -> None:
        self._dirty = False
        self.fill_model()
        if is_dark() != self._dark:  # the bar colours follow a light/dark switch
            self._dark = is_dark()
            self.legend.setText(legend_html())
            self.table.viewport().update()
        caption = self.describe()
        if caption != self.caption.text():
            self.caption.setText(caption)

    def fill_model(self) -> None:
        """Give the model the session's figures (NVIDIA's result; the AMD view, the HIP runtime's)."""
        self.model.set_result(self.session.result)

    def describe(self) -> str:
        """The caption: what the rows show, for this launch, or why there are none."""
        result = self.session.result
        if result is None:
            return (
                f"<b>No figures:</b> {self.session.error or 'the occupancy query failed'}. "
                "Change the inputs on the left."
            )
        binding = [
            item.usage.resource.lower()
            for item in (self.model.item(r) for r in range(self.model.rowCount()))
            if item.binding
        ]
        if result.active_blocks == 0:
            return (
                f"<b>No block fits on an SM</b> ({'; '.join(result.reasons)}): a resource that cannot hold "
                "one block is all remainder."
            )
        blocks = units.count(result.active_blocks, "resident block")
        return (
            f"One SM with <b>{blocks}</b>, limited by <b>{' + '.join(binding)}</b> ★: how each of its resources is used"
        )
