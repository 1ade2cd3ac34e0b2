"""``AmdConstraintModel``: both AMD rules' limits side by side, one row per limit, the binding ones marked.

A row holds what the HIP runtime makes of a resource (blocks per multiprocessor it allows) and what LLVM makes of
it (waves per SIMD it allows), with the figures behind each (the engine's ``hip_rows`` / ``compiler_rows``).  A
binding value is starred and bold, and its row tinted with the amber accent, as the NVIDIA table marks its rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ..support.qt_utils import binding_row_color
from ..support.read_only_model import ReadOnlyTableModel
from .constraint_model import BINDING_MARK

if TYPE_CHECKING:
    from ...amd_question import AmdAnswer
    from ...engine.amd import AmdLimitRow

LIMITS = ("workgroup_size", "waves", "vgprs", "sgprs", "lds", "waves_per_eu")
"""Every limit of either rule, in the order rows are shown."""
ROW_TITLES = {
    "workgroup_size": "Workgroup size",
    "waves": "Wave cap",
    "vgprs": "VGPRs",
    "sgprs": "SGPRs",
    "lds": "LDS",
    "waves_per_eu": "Waves/EU budget",
}
COLUMNS = (
    "Limit",
    "HIP runtime blocks",
    "LLVM waves per SIMD",
    "Kernel asks",
    "HIP allocates",
    "HIP capacity",
    "HIP calculation",
    "LLVM allocates",
    "LLVM capacity",
    "LLVM calculation",
)
HEADER_LABELS = (
    "Limit",
    "HIP runtime\nblocks",
    "LLVM\nwaves / SIMD",
    "Kernel asks",
    "HIP\nallocates",
    "HIP capacity",
    "HIP calculation",
    "LLVM\nallocates",
    "LLVM capacity",
    "LLVM calculation",
)
HEADER_TIPS = (
    "The resource; ★ marks a limit that binds in either rule (the starred value says which)",
    "HIP runtime: blocks per multiprocessor (a WGP in WGP mode, else a CU) this resource alone allows",
    "Compiler model (LLVM): waves per SIMD this resource alone allows (for the launch bound, static LDS only)",
    "What the kernel and the launch ask for",
    "What the runtime rounds the request to",
    "What the runtime divides",
    "How the runtime computes it",
    "What LLVM rounds the request to",
    "What LLVM divides",
    "How LLVM computes it",
)
BLOCKS_COLUMN, WAVES_COLUMN = 1, 2
HIDE_ORDER = tuple(
    COLUMNS.index(n)
    for n in (
        "LLVM calculation",
        "HIP calculation",
        "LLVM capacity",
        "HIP capacity",
        "LLVM allocates",
        "HIP allocates",
        "Kernel asks",
    )
)
"""Columns a narrow window hides first (each row's tooltip still gives them)."""


def _value(row: AmdLimitRow | None) -> str:
    if row is None or row.value is None:
        return "—"
    return (BINDING_MARK if row.binding else "") + str(row.value)


class AmdConstraintModel(ReadOnlyTableModel):
    """Read-only adapter over an :class:`AmdAnswer` (``None`` shows an empty table)."""

    HEADERS = HEADER_LABELS
    HEADER_TIPS = HEADER_TIPS
    COLUMNS = COLUMNS
    HIDE_ORDER = HIDE_ORDER

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, AmdLimitRow | None, AmdLimitRow | None]] = []
        self._texts: list[tuple[str, ...]] = []
        self._bold = QFont()
        self._bold.setBold(True)

    def set_answer(self, answer: AmdAnswer | None) -> None:
        if answer is None:
            rows: list[tuple[str, AmdLimitRow | None, AmdLimitRow | None]] = []
        else:
            hip = {r.name: r for r in answer.hip_rows()}
            llvm = {r.name: r for r in answer.compiler_rows()}
            rows = [(name, hip.get(name), llvm.get(name)) for name in LIMITS]
        texts = [self._row_texts(row) for row in rows]
        if len(texts) == len(self._texts):
            self._rows = rows
            changed = [r for r in range(len(texts)) if texts[r] != self._texts[r]]
            self._texts = texts
            if changed:
                self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], len(COLUMNS) - 1))
            return
        self.beginResetModel()
        self._rows, self._texts = rows, texts
        self.endResetModel()

    @staticmethod
    def _row_texts(row: tuple[str, AmdLimitRow | None, AmdLimitRow | None]) -> tuple[str, ...]:
        name, hip, llvm = row
        binding = any(r is not None and r.binding for r in (hip, llvm))
        either = hip or llvm
        asks = either.requested if either is not None else ""
        return (
            (BINDING_MARK if binding else "") + ROW_TITLES[name],
            _value(hip),
            _value(llvm),
            asks,
            hip.allocated if hip else "",
            hip.capacity if hip else "",
            hip.calculation if hip else "not a HIP limit",
            llvm.allocated if llvm else "",
            llvm.capacity if llvm else "",
            llvm.calculation if llvm else "not an LLVM limit",
        )

    def row_count(self) -> int:
        return len(self._rows)

    def is_binding(self, index: int) -> bool:
        _name, hip, llvm = self._rows[index]
        return any(r is not None and r.binding for r in (hip, llvm))

    def binding_in(self, index: int, column: int) -> bool:
        """Whether the cell at ``column`` of row ``index`` is a binding value (or the row's title)."""
        _name, hip, llvm = self._rows[index]
        rule = {BLOCKS_COLUMN: hip, WAVES_COLUMN: llvm}.get(column)
        return bool(rule.binding) if rule is not None else column == 0 and self.is_binding(index)

    def display_text(self, row_index: int, column: int) -> str:
        return self._texts[row_index][column]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._texts[row][column]
        if role == Qt.ItemDataRole.BackgroundRole and self.is_binding(row):
            return binding_row_color()
        if role == Qt.ItemDataRole.FontRole and self.binding_in(row, column):
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (BLOCKS_COLUMN, WAVES_COLUMN):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(row)
        return None

    def tooltip(self, row_index: int) -> str:
        texts = self._texts[row_index]
        lines = [
            f"{ROW_TITLES[self._rows[row_index][0]]}: the kernel asks {texts[3] or '—'}",
            f"HIP runtime: {texts[1]} blocks — {texts[4]}; of {texts[5]}; {texts[6]}",
            f"Compiler (LLVM): {texts[2]} waves per SIMD — {texts[7]}; of {texts[8]}; {texts[9]}",
        ]
        if self.is_binding(row_index):
            lines.append("Binding (★): this limit's value equals the rule's answer.")
        return "\n".join(lines)

    def to_tsv(self) -> str:
        """The table as tab-separated text with a header line (Edit → Copy table)."""
        lines = ["\t".join(COLUMNS)]
        lines += ["\t".join(texts) for texts in self._texts]
        return "\n".join(lines) + "\n"
