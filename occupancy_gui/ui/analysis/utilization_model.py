"""``UtilizationModel``: one row per resource of one SM, split into allocated + unusable + remainder.

The figures are the engine's (``engine.utilization()``): the model only words them, in the window's one
convention for sizes and counts (``units``).  Nothing here names a vendor's resources: the rows are
whatever limits the engine lists, with the names and units it gives.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ... import units
from ...engine import OccupancyResult, ResourceUtilization, utilization
from ..calculator.constraint_model import BINDING_MARK
from ..support.qt_utils import binding_row_color
from ..support.read_only_model import ReadOnlyTableModel

HEADERS = (
    "Resource",
    "One SM",
    "Allocated",
    "Unusable:\nanother limit binds",
    "Remainder:\nless than a block",
    "SM capacity",
    "Per block",
)
HEADER_TIPS = (
    "A resource of one SM that every resident block takes a share of; ★ marks the binding one(s)",
    "The SM's capacity of this resource, split: allocated | unusable | remainder",
    "What the resident blocks hold: resident blocks × per block",
    "Room for more blocks by this resource alone, left empty because another resource binds",
    "What is left after the last block this resource allows: too little (or too split up) for one more",
    "What one SM has of this resource for this launch (shared memory: the configuration it runs under)",
    "What one block is allocated, after allocation rounding",
)
BAR_COLUMN = 1
NUMBER_COLUMNS = frozenset({2, 3, 4, 5, 6})
FRACTIONS_ROLE = Qt.ItemDataRole.UserRole + 1
"""The bar column's data: (allocated, unusable, remainder) as fractions of the capacity."""


def quantity(value: int, unit: str) -> str:
    """``"16,384 registers"``, ``"25 KiB"``, ``"1 warp"``: sizes in KiB, counts with their plural."""
    return units.kib(value) if unit == "byte" else units.count(value, unit)


def exact(value: int, unit: str) -> str:
    """The exact figure where the cell rounds it (bytes shown in KiB), else the cell's own text."""
    return units.bytes_tooltip(value) if unit == "byte" else quantity(value, unit)


def percent(fraction: float) -> str:
    """``"50 %"``, ``"43.9 %"``, ``"0.4 %"``: one decimal where the share is not whole."""
    value = fraction * 100
    return f"{value:.0f} %" if abs(value - round(value)) < 0.05 else f"{value:.1f} %"


def marked(item: ResourceUtilization) -> bool:
    """Whether the row is marked binding (★, bold, tinted): as in the constraint table, only where blocks
    reside; where none fit, the resources that cannot hold one show it as a whole-capacity remainder."""
    return item.binding and item.resident_blocks > 0


def _share(item: ResourceUtilization, part: int) -> str:
    """``"32 warps (50 %)"``; a plain ``"0"`` for an empty part, so that the parts that exist stand out."""
    return f"{quantity(part, item.usage.unit)} ({percent(item.fraction(part))})" if part else "0"


class UtilizationModel(ReadOnlyTableModel):
    """Read-only rows over the last result's utilization (``None``: no rows)."""

    HEADERS: tuple[str, ...] = HEADERS
    HEADER_TIPS = HEADER_TIPS

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: tuple[ResourceUtilization, ...] = ()
        self._calculations: tuple[str, ...] = ()
        self._texts: list[tuple[str, ...]] = []
        self._bold = QFont()
        self._bold.setBold(True)
        self.where = "SM"
        """What one row's capacity belongs to: an SM; on an AMD device a CU or a WGP, as HIP counts it."""

    def set_where(self, where: str) -> None:
        """Name the multiprocessor ``where`` in the headers and tooltips (emits only on a change)."""
        if where == self.where:
            return
        self.where = where
        self.HEADERS = tuple(h.replace("SM", where) for h in HEADERS)
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(HEADERS) - 1)

    def set_result(self, result: OccupancyResult | None) -> None:
        """Show ``result``'s utilization; emits only for rows whose figures changed."""
        items = utilization(result) if result is not None else ()
        calculations = tuple(row.calculation for row in result.rows) if result is not None else ()
        self.set_items(items, calculations)

    def set_items(self, items: tuple[ResourceUtilization, ...], calculations: tuple[str, ...]) -> None:
        """Show ``items`` (each with its limit's calculation); emits only for rows whose figures changed."""
        if items == self._items and calculations == self._calculations:
            return
        texts = [self._row_texts(item) for item in items]
        if [i.usage.resource for i in items] == [i.usage.resource for i in self._items]:
            changed = [
                r for r in range(len(items)) if items[r] != self._items[r] or calculations[r] != self._calculations[r]
            ]
            self._items, self._calculations, self._texts = items, calculations, texts
            if changed:
                self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], len(HEADERS) - 1))
            return
        self.beginResetModel()
        self._items, self._calculations, self._texts = items, calculations, texts
        self.endResetModel()

    def item(self, row: int) -> ResourceUtilization:
        return self._items[row]

    def is_binding(self, row: int) -> bool:
        return marked(self._items[row])

    def display_text(self, row: int, column: int) -> str:
        return self._texts[row][column]

    @staticmethod
    def _row_texts(item: ResourceUtilization) -> tuple[str, ...]:
        unit = item.usage.unit
        return (
            (BINDING_MARK if marked(item) else "") + item.usage.resource,
            "",
            _share(item, item.allocated),
            _share(item, item.unusable),
            _share(item, item.remainder),
            quantity(item.capacity, unit),
            quantity(item.usage.per_block, unit),
        )

    # -- QAbstractItemModel
    def row_count(self) -> int:
        return len(self._items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self.valid(index):
            return None
        row, column = index.row(), index.column()
        item = self._items[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._texts[row][column] if column != BAR_COLUMN else None
        if role == FRACTIONS_ROLE and column == BAR_COLUMN:
            return (item.fraction(item.allocated), item.fraction(item.unusable), item.fraction(item.remainder))
        if role == Qt.ItemDataRole.AccessibleTextRole and column == BAR_COLUMN:
            return (
                f"{percent(item.fraction(item.allocated))} allocated, {percent(item.fraction(item.unusable))} "
                f"unusable, {percent(item.fraction(item.remainder))} remainder"
            )
        if role == Qt.ItemDataRole.BackgroundRole and marked(item):
            return binding_row_color()
        if role == Qt.ItemDataRole.FontRole and marked(item):
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMBER_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(row)
        return None

    def tooltip(self, row: int) -> str:
        """The row in words, with exact figures and the limit's own calculation."""
        item, calculation = self._items[row], self._calculations[row]
        usage, unit = item.usage, item.usage.unit
        allowed = (
            "does not limit this launch"
            if usage.blocks is None
            else (f"alone allows {units.count(usage.blocks, 'block')} per {self.where} ({calculation})")
        )
        lines = [
            f"{usage.resource}: one {self.where} has {exact(item.capacity, unit)}; one block is allocated "
            f"{exact(usage.per_block, unit)}; this resource {allowed}.",
            f"Allocated to {units.count(item.resident_blocks, 'resident block')}: {exact(item.allocated, unit)}.",
            f"Unusable, because another limit binds: {exact(item.unusable, unit)}.",
            f"Remainder, too little for one more block: {exact(item.remainder, unit)}.",
        ]
        if marked(item):
            lines.append("★ Binding: this resource's ceiling is the number of resident blocks.")
        elif item.usage.blocks == 0:
            lines.append("Not even one block fits in this resource: the launch would fail.")
        return "\n".join(lines)
