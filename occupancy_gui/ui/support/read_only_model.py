"""``ReadOnlyTableModel``: what every table of the window shares (flat rows, fixed headers, no editing).

The constraint table, the kernel table, the A/B comparison and the every-GPU table differ only in
their rows and cells; the Qt bookkeeping (counts, headers with tooltips, flags) lives here once.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


class ReadOnlyTableModel(QAbstractTableModel):
    """A flat, selectable, read-only table.

    Subclasses set ``HEADERS`` (and optionally ``HEADER_TIPS``, one tooltip per column) and
    implement :meth:`row_count` and ``data``.
    """

    HEADERS: tuple[str, ...] = ()
    HEADER_TIPS: tuple[str, ...] = ()

    def row_count(self) -> int:
        raise NotImplementedError

    def valid(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        """Whether ``index`` is a cell of this table as it is now."""
        return index.isValid() and 0 <= index.row() < self.row_count() and 0 <= index.column() < len(self.HEADERS)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else self.row_count()

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self.HEADER_TIPS):
            return self.HEADER_TIPS[section]
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags
