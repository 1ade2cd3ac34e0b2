"""The kernel table's read-only view."""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from .kernel_table_model import NAME


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
