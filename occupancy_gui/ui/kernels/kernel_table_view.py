"""The kernel table's read-only view."""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from ...fields import AMD, NVIDIA
from .table_columns import AMD_COLUMNS, HEADERS, NAME, NVIDIA_COLUMNS

SAMPLE_ROWS = 2000
"""Rows measured when the figures' columns are sized (the first ones shown): 10^5 rows are not all measured."""
PADDING = 18
"""Room around a cell's text (margins, grid line, a sort arrow in the header)."""


def fit_figure_columns(view: QTableView, sample: int = SAMPLE_ROWS) -> None:
    """Size every column but the name to its header and figures (measured on the first rows shown), so the name,
    which stretches, gets the rest: the figures are never cut, a long name is elided with the whole of it in
    its tooltip.  ``sample``: rows measured (each cell a ``data()`` call: 2,000 rows of AMD kernels took 272 ms)."""
    model = view.model()
    header = view.horizontalHeader()
    head = QFontMetrics(header.font())
    plain = view.fontMetrics()
    italic_font = QFont(view.font())
    italic_font.setItalic(True)
    italic = QFontMetrics(italic_font)
    rows = min(model.rowCount(), sample)
    for column in range(len(HEADERS)):
        if column == NAME:
            continue
        width = head.horizontalAdvance(str(model.headerData(column, Qt.Orientation.Horizontal) or HEADERS[column]))
        for row in range(rows):
            text = model.index(row, column).data()
            if text:
                width = max(width, italic.horizontalAdvance(str(text)), plain.horizontalAdvance(str(text)))
        width += PADDING
        if header.sectionSize(column) != width:
            header.resizeSection(column, width)


def show_vendor_columns(view: QTableView, vendors: frozenset[str]) -> None:
    """Show the columns of one vendor alone (:data:`AMD_COLUMNS`, :data:`NVIDIA_COLUMNS`) where ``vendors`` has it."""
    for column in AMD_COLUMNS | NVIDIA_COLUMNS:
        view.setColumnHidden(column, (AMD if column in AMD_COLUMNS else NVIDIA) not in vendors)


def kernel_table_view(model: QSortFilterProxyModel, parent: QWidget) -> QTableView:
    """A table view of ``model``: whole-row single selection, the file's order until a header is clicked,
    and uniform row heights sized to ``parent``'s font."""
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # the file's order
    view.setSortingEnabled(True)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    view.verticalHeader().hide()
    rows = view.verticalHeader()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform rows: 10^5 of them stay fast
    rows.setDefaultSectionSize(parent.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
    header.setHighlightSections(False)
    # The header and one row: the bottom docks of a 1024×700 window must leave the answer room to spare.
    view.setMinimumHeight(header.sizeHint().height() + rows.defaultSectionSize())
    return view
