"""Whether every text of a widget tree is shown whole: labels, table cells and headers.

Measured with the widgets' own fonts (offscreen fonts differ from a desktop's, so this checks the layout
rules — columns sized to their texts, labels wrapped or given room — not pixel values).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QLabel, QTableView, QWidget

CELL_MARGIN = 6
"""Room Qt's item delegate leaves around a cell's text (3 px a side in the Fusion style)."""


def _text_width(metrics: QFontMetrics, text: str) -> int:
    return max((metrics.horizontalAdvance(line) for line in text.split("\n")), default=0)


def _header_cuts(header: QHeaderView, name: str) -> list[str]:
    model, cuts = header.model(), []
    if model is None or not header.isVisible():
        return cuts
    orientation = header.orientation()
    count = model.columnCount() if orientation == Qt.Orientation.Horizontal else model.rowCount()
    for section in range(count):
        if header.isSectionHidden(section):
            continue
        text = model.headerData(section, orientation, Qt.ItemDataRole.DisplayRole)
        if not text:
            continue
        font = model.headerData(section, orientation, Qt.ItemDataRole.FontRole)
        metrics = QFontMetrics(font if isinstance(font, QFont) else header.font())
        room = header.sectionSize(section) if orientation == Qt.Orientation.Horizontal else header.width()
        if _text_width(metrics, str(text)) + CELL_MARGIN > room:
            cuts.append(f"{name} header {text!r}: {_text_width(metrics, str(text))} px in {room}")
    return cuts


def table_cuts(table: QTableView, name: str = "table") -> list[str]:
    """Cells and headers of ``table`` whose text is wider than their column (or vertical header)."""
    model, cuts = table.model(), []
    cuts += _header_cuts(table.horizontalHeader(), name)
    cuts += _header_cuts(table.verticalHeader(), name)
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            if table.isColumnHidden(column):
                continue
            index = model.index(row, column)
            text = index.data(Qt.ItemDataRole.DisplayRole)
            if not text:
                continue
            font = index.data(Qt.ItemDataRole.FontRole)
            metrics = QFontMetrics(font if isinstance(font, QFont) else table.font())
            if _text_width(metrics, str(text)) + CELL_MARGIN > table.columnWidth(column):
                cuts.append(f"{name} cell ({row}, {column}) {text!r}: {_text_width(metrics, str(text))} px "
                            f"in {table.columnWidth(column)}")  # fmt: skip
    return cuts


def label_cuts(root: QWidget) -> list[str]:
    """Visible labels under ``root`` whose text does not fit: too wide (unwrapped) or too tall (wrapped)."""
    cuts = []
    for label in root.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        if label.wordWrap():
            need = label.heightForWidth(label.width())
            if need > label.height():
                cuts.append(f"label {label.text()[:40]!r}: {need} px tall in {label.height()}")
        elif label.sizeHint().width() > label.width():
            cuts.append(f"label {label.text()[:40]!r}: {label.sizeHint().width()} px wide in {label.width()}")
    return cuts
