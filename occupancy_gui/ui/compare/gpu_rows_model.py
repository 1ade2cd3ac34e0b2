"""``GpuRowsModel``: "the same kernel on every GPU" as a table, one row per GPU, either vendor's.

NVIDIA's rows (``GpuTableModel``) and AMD's (``AmdGpuTableModel``) differ only in their columns: a subclass gives a
row's texts, sort keys and tooltip; the rows, the current device's bold row, sorting and alignment live here once.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, Protocol, TypeVar

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ..support.read_only_model import ReadOnlyTableModel

SORT_ROLE = Qt.ItemDataRole.UserRole
"""A row's sort key in a column: numbers for the numeric columns, so that 10 sorts after 9."""


class GpuRow(Protocol):
    @property
    def name(self) -> str: ...


R = TypeVar("R", bound=GpuRow)


class GpuRowsModel(ReadOnlyTableModel, Generic[R]):
    """One row per GPU; ``SORT_ROLE`` gives numbers for the numeric columns; the current device's row is bold."""

    TEXT_COLUMNS: ClassVar[frozenset[int]] = frozenset({0})
    """Columns aligned left (the others are figures, aligned right)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[R] = []
        self.current = ""
        self._bold = QFont()
        self._bold.setBold(True)

    def set_rows(self, rows: list[R], current: str) -> None:
        if rows == self._rows and current == self.current:
            return
        self.beginResetModel()
        self._rows, self.current = rows, current
        self.endResetModel()

    def gpu_row(self, row: int) -> R:
        return self._rows[row]

    def row_count(self) -> int:
        return len(self._rows)

    def texts(self, row: R) -> tuple[str, ...]:
        raise NotImplementedError

    def sort_keys(self, row: R) -> tuple[Any, ...]:
        raise NotImplementedError

    def tip(self, row: R) -> str | None:
        raise NotImplementedError

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self.valid(index):
            return None
        g, column = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.texts(g)[column]
        if role == SORT_ROLE:
            return self.sort_keys(g)[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column not in self.TEXT_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and g.name == self.current:
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tip(g)
        return None
