"""Compare on an AMD device: the same kernel on every AMD GPU (AMD devices are compared with one another only: no
rule turns NVIDIA registers into VGPRs), the A / B figures of an AMD configuration, and A's curves for the plots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ...fields import AMD
from ..support.read_only_model import ReadOnlyTableModel

if TYPE_CHECKING:
    from ...engine import StepCurve
    from ...report import AmdGpuRow, Figure
    from ...session import Session

SORT_ROLE = Qt.ItemDataRole.UserRole
AMD_GPU_HEADERS = ("GPU", "Target", "CUs (HIP)", "HIP blocks", "HIP occupancy", "Grid", "LLVM waves")
"""The columns of the every-AMD-GPU table (each row's tooltip adds the binding limit and LLVM's occupancy)."""
OCCUPANCY_COLUMN = AMD_GPU_HEADERS.index("HIP occupancy")
PLOT_KEYS = {"threads": "threads", "vgprs": "registers", "lds": "shared_memory"}
"""AMD curve -> the plot it is drawn in."""


def figures(session: Session) -> tuple[Figure, ...]:
    """Every input and result figure of ``session``'s configuration, of either vendor."""
    from ...report import amd_describe, describe  # noqa: PLC0415 - lazy: the report module loads with the first compare

    if session.vendor == AMD:
        state = session.amd
        return amd_describe(
            session.amd_profile, session.inputs, state.answer if state else None, state.error if state else None
        )
    return describe(session.profile, session.inputs, session.result, session.error)


def kernel_words(session: Session) -> str:
    """The configuration in a few words: device, threads and registers (VGPRs on an AMD device)."""
    i = session.inputs
    registers = f"{i.vgprs} VGPRs" if session.vendor == AMD else f"{i.registers} registers"
    return f"{i.device}, {i.threads} threads, {registers}"


def plot_curves(pinned: Session | None, vendor: str) -> dict[str, StepCurve]:
    """A's curves by plot key, where A's device is of the shown ``vendor`` (else none: other plots)."""
    if pinned is None or pinned.vendor != vendor:
        return {}
    if vendor != AMD:
        return dict(pinned.curves)
    state = pinned.amd
    return {PLOT_KEYS[name]: sweep.runtime for name, sweep in (state.curves.items() if state else ())}


class AmdGpuTableModel(ReadOnlyTableModel):
    """One row per AMD GPU product; ``SORT_ROLE`` gives numbers for the numeric columns."""

    HEADERS = AMD_GPU_HEADERS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[AmdGpuRow] = []
        self.current = ""
        self._bold = QFont()
        self._bold.setBold(True)

    def set_rows(self, rows: list[AmdGpuRow], current: str) -> None:
        if rows == self._rows and current == self.current:
            return
        self.beginResetModel()
        self._rows, self.current = rows, current
        self.endResetModel()

    def gpu_row(self, row: int) -> AmdGpuRow:
        return self._rows[row]

    def row_count(self) -> int:
        return len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self.valid(index):
            return None
        g, column = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                g.name,
                g.target,
                str(g.multiprocessors),
                "—" if g.error else str(g.blocks),
                "—" if g.error else f"{g.occupancy * 100:.4g} %",
                str(g.grid),
                str(g.compiler_waves),
            )[column]
        if role == SORT_ROLE:
            return (g.name.casefold(), g.target, g.multiprocessors, g.blocks, g.occupancy, g.grid, g.compiler_waves)[
                column
            ]
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and g.name == self.current:
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            return g.error or (
                f"{g.name}: HIP runtime {g.blocks} blocks per CU or WGP ({g.occupancy * 100:.4g} %), "
                f"limited by {g.binding}; grid {g.grid}. Compiler (LLVM): {g.compiler_waves} waves per "
                f"SIMD ({g.compiler_occupancy * 100:.4g} %)."
            )
        return None
