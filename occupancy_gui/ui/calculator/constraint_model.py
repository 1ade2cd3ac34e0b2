"""``ConstraintTableModel``: one row per limit of the last result, binding rows marked twice over
(background colour and a text marker), rounding effects flagged against the first-pass estimate."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ... import units
from ...engine import Limit, LimitRow, OccupancyResult
from ..support.qt_utils import binding_row_color
from ..support.read_only_model import ReadOnlyTableModel
from ..support.terms import tip

COLUMNS = (
    "Limit",
    "Blocks allowed",
    "Per block (nominal)",
    "Allocated",
    "SM capacity",
    "Calculation",
    "First-pass estimate",
    "Note",
)
HEADER_LABELS = (
    "Limit",
    "Blocks\nallowed",
    "Per block\n(nominal)",
    "Allocated",
    "SM capacity",
    "Calculation",
    "First-pass\nestimate",
    "Note",
)
"""Header text as shown (wrapped to keep the columns narrow); ``COLUMNS`` is the one-line form.  The answer
("Blocks allowed") comes right after the limit's name, so a narrow window never scrolls it out of sight."""
BLOCKS_COLUMN = COLUMNS.index("Blocks allowed")
ESTIMATE_COLUMN = COLUMNS.index("First-pass estimate")
NUMERIC_COLUMNS = {BLOCKS_COLUMN, ESTIMATE_COLUMN}

ROW_TITLES = {
    Limit.BLOCKS: "Resident blocks",
    Limit.WARPS: "Warps / threads",
    Limit.REGISTERS: "Registers",
    Limit.SHARED_MEMORY: "Shared memory",
    Limit.BARRIERS: "Block barriers",
    Limit.VIRTUAL_RESOURCES: "Virtual resources",
}
BINDING_MARK = "★ "
"""Prefix of binding rows' Limit cell: the marker that needs no colour (rows are also bold and tinted)."""
ROUNDING_NOTE = "≠ estimate"

HEADER_TIPS = (
    "The resource that caps resident blocks per SM; ★ marks the binding one(s), ties all marked\n\n" + tip("binding"),
    "Blocks per SM this resource alone allows (— where it does not apply)",
    "What one block asks for",
    "What one block is given after allocation rounding",
    "What one SM has (for shared memory: the configuration this launch runs under)",
    "How the ceiling is computed from the allocated figures",
    "The same ceiling with no allocation rounding: T·R registers, S bytes\n\n" + tip("estimate"),
    "≠ estimate: allocation rounding moved this ceiling away from the first-pass estimate",
)


def _count(value: int | None) -> str:
    return "—" if value is None else str(value)


_quantities = units.quantities


class ConstraintTableModel(ReadOnlyTableModel):
    """Read-only adapter over an :class:`OccupancyResult` (``None`` shows an empty table)."""

    HEADERS = HEADER_LABELS
    HEADER_TIPS = HEADER_TIPS

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: tuple[LimitRow, ...] = ()
        self._binding: frozenset[Limit] = frozenset()
        self._texts: list[tuple[str, ...]] = []
        self._was_binding: list[bool] = []
        self._bold = QFont()
        self._bold.setBold(True)

    def set_result(self, result: OccupancyResult | None) -> None:
        rows = result.rows if result is not None else ()
        binding = frozenset(result.binding) if result is not None and result.active_blocks > 0 else frozenset()
        old_texts = self._texts
        if len(rows) == len(self._rows) and [r.limit for r in rows] == [r.limit for r in self._rows]:
            # Same shape: update in place, and only the span of rows whose content changed, so the view keeps
            # its selection and re-measures and repaints as little as possible.
            self._rows, self._binding = rows, binding
            self._texts = [self._row_texts(r) for r in range(len(rows))]
            changed = [
                r
                for r in range(len(rows))
                if self._texts[r] != old_texts[r] or (rows[r].limit in binding) != self._was_binding[r]
            ]
            if changed:  # one signal: the view re-measures its columns once per result, not per row
                self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], len(COLUMNS) - 1))
        else:
            self.beginResetModel()
            self._rows, self._binding = rows, binding
            self._texts = [self._row_texts(r) for r in range(len(rows))]
            self.endResetModel()
        self._was_binding = [row.limit in binding for row in rows]

    def row(self, index: int) -> LimitRow:
        return self._rows[index]

    def is_binding(self, index: int) -> bool:
        return self._rows[index].limit in self._binding

    # -- QAbstractItemModel
    def row_count(self) -> int:
        return len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, column = self._rows[index.row()], index.column()
        binding = row.limit in self._binding
        if role == Qt.ItemDataRole.DisplayRole:
            return self._texts[index.row()][column]
        if role == Qt.ItemDataRole.BackgroundRole and binding:
            return binding_row_color()
        if role == Qt.ItemDataRole.FontRole and binding:
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMERIC_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(index.row())
        return None

    def display_text(self, row_index: int, column: int) -> str:
        return self._texts[row_index][column]

    def _row_texts(self, row_index: int) -> tuple[str, ...]:
        row = self._rows[row_index]
        binding = row.limit in self._binding
        values = (
            (BINDING_MARK if binding else "") + ROW_TITLES[row.limit],
            _count(row.blocks),
            _quantities(row.per_block_nominal),
            _quantities(row.per_block_allocated),
            _quantities(row.sm_capacity),
            row.calculation,
            _count(row.estimate_blocks),
            ROUNDING_NOTE if row.rounding_changed_ceiling else "",
        )
        return values

    def tooltip(self, row_index: int) -> str:
        row = self._rows[row_index]
        lines = [
            f"{ROW_TITLES[row.limit]}: {_count(row.blocks)} blocks per SM ({row.calculation}); per block "
            f"{_quantities(row.per_block_nominal)}, first-pass estimate {_count(row.estimate_blocks)}"
        ]
        if row.limit == Limit.SHARED_MEMORY:  # the cells show KiB; the exact bytes are here
            lines.append(
                f"Per block {row.per_block_nominal}, allocated {row.per_block_allocated}, "
                f"SM {row.sm_capacity} (exact bytes)"
            )
            if "reserved" in row.per_block_allocated:
                lines.append(tip("reserved"))
        if row.limit == Limit.BARRIERS:
            lines.append(tip("barriers"))
        if row.limit in self._binding:
            lines.append("Binding: this ceiling equals the number of resident blocks.")
        if row.rounding_changed_ceiling:
            lines.append(
                f"Allocation rounding changed this ceiling: the first-pass estimate (no rounding) "
                f"gives {_count(row.estimate_blocks)}, the exact allocation gives {_count(row.blocks)}."
            )
        return "\n".join(lines)

    def to_tsv(self) -> str:
        """The table as tab-separated text with a header line (Edit → Copy table)."""
        lines = ["\t".join(COLUMNS)]
        for r in range(len(self._rows)):
            lines.append("\t".join(self.display_text(r, c) for c in range(len(COLUMNS))))
        return "\n".join(lines) + "\n"
