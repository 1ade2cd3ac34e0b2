"""``GpuRowsModel``: "the same kernel on every GPU" as a table, one row per GPU, either vendor's.

NVIDIA's rows (``GpuTableModel``, here) and AMD's (``AmdGpuTableModel``, ``amd_gpus``) differ only in their
columns: a subclass gives a row's texts, sort keys and tooltip; the rows, the current device's bold row, sorting and
alignment live here once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ..support.read_only_model import ReadOnlyTableModel

if TYPE_CHECKING:
    from ...report import GpuRow as NvidiaGpuRow

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


GPU_HEADERS = ("GPU", "CC", "SMs", "Blocks / SM", "Occupancy", "Binding limit", "Blocks per GPU")


class GpuTableModel(GpuRowsModel["NvidiaGpuRow"]):
    """One row per named NVIDIA GPU: blocks per SM, occupancy, the binding limit and blocks per GPU."""

    HEADERS = GPU_HEADERS
    TEXT_COLUMNS = frozenset({0, 5})

    def texts(self, g: NvidiaGpuRow) -> tuple[str, ...]:
        return (
            g.name,
            f"{g.cc[0]}.{g.cc[1]}",
            str(g.sms),
            str(g.blocks_per_sm),
            f"{g.occupancy * 100:.4g} %",
            g.binding,
            str(g.blocks_per_gpu),
        )

    def sort_keys(self, g: NvidiaGpuRow) -> tuple[Any, ...]:
        return (
            g.name.casefold(),
            g.cc[0] * 1000 + g.cc[1],
            g.sms,
            g.blocks_per_sm,
            g.occupancy,
            g.binding,
            g.blocks_per_gpu,
        )

    def tip(self, g: NvidiaGpuRow) -> str | None:
        return g.error or None
