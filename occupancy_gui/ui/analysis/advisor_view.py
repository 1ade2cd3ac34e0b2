"""The advisor dock: what to change — block size, the nearest cliffs, shared memory headroom, a register cap.

Every number comes from :func:`occupancy_gui.engine.advise`; the view only lays the answer out.
Installed by ``analysis.docks.install_analysis_docks``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ... import units
from ...engine import Advice, DynamicSmem, OccupancyError, advise, suggest_launch_bounds
from ...session import Session
from ..support.qt_utils import signals_blocked
from ..support.quantity import QuantitySpinBox
from ..support.refresh import RefreshWhenVisible
from ..support.wrap_columns import WrapColumns

INPUT_NAMES = {"registers": "Registers", "shared_memory": "Shared memory", "threads": "Block size"}
SMEM_MODES = ("as launched (constant)", "bytes per thread", "bytes per warp")
SIZE_T_WRAP = 1 << 62
"""Header figures above this are a wrapped ``size_t`` subtraction, not a size."""
GROUP_MIN_WIDTH = 260
"""A group narrower than this would squeeze its table's columns."""
ONE_ROW_WIDTH = 1700
"""From this width the four groups stand in one row; below it, two rows of two."""


class RowsModel(QAbstractTableModel):
    """A read-only table of text rows; ``bold`` rows are drawn bold, ``tips`` give each row a tooltip."""

    def __init__(self, headers: tuple[str, ...], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.headers = headers
        self.rows: Sequence[tuple[str, ...]] = []
        self.bold: set[int] = set()
        self.tips: list[str] = []
        self._bold_font = QFont()
        self._bold_font.setBold(True)

    def set_rows(
        self, rows: Sequence[tuple[str, ...]], bold: set[int] | None = None, tips: list[str] | None = None
    ) -> None:
        self.beginResetModel()
        self.rows, self.bold, self.tips = rows, bold or set(), tips or []
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.FontRole and index.row() in self.bold:
            return self._bold_font
        if role == Qt.ItemDataRole.ToolTipRole and index.row() < len(self.tips):
            return self.tips[index.row()]
        return None


def _table(model: RowsModel, wrapping: set[int]) -> QTableView:
    """A read-only table whose ``wrapping`` columns wrap to the view's width (nothing cut, no side scroll)."""
    view = QTableView()
    view.setModel(model)
    view.verticalHeader().hide()
    view.verticalHeader().setMinimumSectionSize(view.fontMetrics().lineSpacing() + 6)
    view.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
    view.setSelectionMode(QTableView.SelectionMode.NoSelection)
    WrapColumns(view, wrapping)  # the view's child: it lives as long as the view
    return view


def _least_width(view: QTableView) -> int:
    """The narrowest ``view`` can be with nothing cut (its ``WrapColumns`` knows)."""
    fit = view.findChild(WrapColumns)
    return fit.least_width() if fit is not None else view.minimumWidth()


def _group(title: str, *widgets: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(6, 4, 6, 4)
    for widget in widgets:
        layout.addWidget(widget, 1 if isinstance(widget, QTableView) else 0)
    return box


def _pct(occupancy: float) -> str:
    return f"{occupancy * 100:.4g} %"


class AdvisorView(RefreshWhenVisible, QWidget):
    """Reads the session; writes nothing back except through the user's own choices here."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.advice: Advice | None = None
        self._dirty = True
        self.ranking_model = RowsModel(("threads", "dyn. smem", "blocks/SM", "warps", "occupancy", ""), self)
        self.cliffs_model = RowsModel(("input", "nearest change", "cost"), self)
        self.headroom_model = RowsModel(("blocks/SM", "max dynamic\n(exact)", "header's\nfigure", "note"), self)
        self._build()
        self.refresh()

    def _build(self) -> None:
        self.smem_mode = QComboBox()
        self.smem_mode.addItems(SMEM_MODES)
        self.smem_mode.setMinimumWidth(self.smem_mode.sizeHint().width())  # its longest choice whole
        self.smem_mode.setToolTip(
            "Dynamic shared memory for the block size search: the launch's bytes, or bytes that grow with the block"
        )
        self.smem_bytes = QuantitySpinBox("bytes", 0, 1 << 20)
        self.smem_bytes.setEnabled(False)
        self.smem_mode.currentIndexChanged.connect(self._on_smem_mode_changed)
        self.smem_bytes.valueChanged.connect(self._on_smem_bytes_changed)
        self.heuristic = QLabel()
        self.heuristic.setWordWrap(True)
        self.heuristic.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(QLabel("Dynamic smem:"))
        row.addWidget(self.smem_mode, 1)
        row.addWidget(self.smem_bytes)
        modes = QWidget()
        modes.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        self.ranking = _table(self.ranking_model, {5})
        self.cliffs = _table(self.cliffs_model, {1, 2})
        self.headroom = _table(self.headroom_model, {1, 2, 3})
        self.target = QComboBox()
        self.target.setToolTip("Resident blocks per SM to reach by capping registers at the current block size")
        self.target.currentIndexChanged.connect(self._on_target_changed)
        self.bounds = QLabel()
        self.bounds.setWordWrap(True)
        self.bounds.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bounds.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.groups = (
            _group("Block size", modes, self.heuristic, self.ranking),
            _group("Cliffs: the nearest value that gains / loses a block", self.cliffs),
            _group("Shared memory headroom", self.headroom),
            _group("Register cap for a target occupancy", self.target, self.bounds),
        )
        self._tables = ((self.ranking,), (self.cliffs,), (self.headroom,), ())
        for group in self.groups:
            group.setMinimumWidth(GROUP_MIN_WIDTH)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(4, 4, 4, 4)
        self.per_row = 0
        self._arrange(len(self.groups))

    def _arrange(self, per_row: int) -> None:
        """The four groups in one row on a wide dock, two rows of two on a narrow one (nothing squeezed)."""
        if per_row == self.per_row:
            return
        self.per_row = per_row
        for group in self.groups:
            self.grid.removeWidget(group)
        stretch = (3, 5, 3, 2) if per_row == 4 else (1, 1)
        for i, group in enumerate(self.groups):
            self.grid.addWidget(group, i // per_row, i % per_row)
        for column in range(4):
            self.grid.setColumnStretch(column, stretch[column] if column < len(stretch) else 0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        # The room the dock gives (its scroll area's viewport), not this view's own width, which the groups'
        # minimums may have widened.
        parent = self.parentWidget()
        room = parent.width() if parent is not None else event.size().width()
        needed = (
            sum(
                max(GROUP_MIN_WIDTH, max((_least_width(t) for t in self._tables[i]), default=0) + 30)
                for i in range(len(self.groups))
            )
            + 40
        )  # group frames and the grid's spacing
        self._arrange(4 if room >= max(ONE_ROW_WIDTH, needed) else 2)
        super().resizeEvent(event)

    # ----------------------------------------------------------------------------- behaviour
    def dynamic_smem(self) -> DynamicSmem:
        mode, value = self.smem_mode.currentIndex(), self.smem_bytes.value()
        if mode == 1:
            return DynamicSmem(per_thread=value)
        if mode == 2:
            return DynamicSmem(per_warp=value)
        return DynamicSmem(self.session.inputs.dynamic_smem)

    def _on_smem_mode_changed(self, index: int) -> None:
        self.smem_bytes.setEnabled(index != 0)
        self.refresh()

    def _on_smem_bytes_changed(self, value: int) -> None:
        self.refresh()

    def _on_target_changed(self, index: int) -> None:
        self._show_bounds()

    def refresh(self) -> None:
        self._dirty = False
        s = self.session
        record = getattr(s, "imported", None)  # an imported kernel may carry its spill figures
        try:
            self.advice = advise(
                s.device,
                s.function_attributes,
                s.launch,
                s.device_state,
                self.dynamic_smem(),
                getattr(record, "spill_stores", None),
                getattr(record, "spill_loads", None),
            )
        except OccupancyError as exc:
            self.advice = None
            self.heuristic.setText(f"No advice for these inputs: {exc}")
            for model in (self.ranking_model, self.cliffs_model, self.headroom_model):
                model.set_rows([])
            with signals_blocked(self.target):
                self.target.clear()
            self._show_bounds()
            return
        if self.smem_mode.currentIndex() == 0:
            with signals_blocked(self.smem_bytes):
                self.smem_bytes.setValue(min(s.inputs.dynamic_smem, self.smem_bytes.maximum()))
        self._show_block_size(self.advice)
        self._show_cliffs(self.advice)
        self._show_headroom(self.advice)
        self._show_targets(self.advice)

    def _show_block_size(self, advice: Advice) -> None:
        bs = advice.block_size
        sug = bs.suggestion
        if sug is None:
            self.heuristic.setText(f"cudaOccMaxPotentialBlockSize refuses: {bs.error}")
        else:
            occ = next((r.occupancy for r in bs.ranking if r.block_size == sug.block_size), 0.0)
            ties = ", ".join(str(r.block_size) for r in sorted(bs.ties(), key=lambda r: r.block_size))
            self.heuristic.setText(
                f"Runtime heuristic: <b>{sug.block_size} threads</b> → {sug.blocks_per_sm} "
                f"block{'s' if sug.blocks_per_sm != 1 else ''}/SM, {_pct(occ)}; min grid "
                f"{sug.min_grid_size}. Ties at the best occupancy: {ties}"
            )
        chosen = sug.block_size if sug else None
        rows, bold = [], set()
        best = bs.ranking[0].active_warps if bs.ranking else 0
        for i, r in enumerate(bs.ranking):
            marks = (("★ heuristic", r.block_size == chosen), ("◀ current", r.block_size == bs.current))
            mark = " ".join(m for m, on in marks if on)
            rows.append(
                (
                    str(r.block_size),
                    units.kib(r.dynamic_smem),
                    str(r.active_blocks),
                    str(r.active_warps),
                    _pct(r.occupancy),
                    mark,
                )
            )
            if r.active_warps == best:
                bold.add(i)
        self.ranking_model.set_rows(rows, bold)

    def _show_cliffs(self, advice: Advice) -> None:
        rows, tips, bold = [], [], set()
        for name, title in INPUT_NAMES.items():
            for gains in (True, False):
                cliff = next((c for c in advice.cliffs if c.input == name and c.gains == gains), None)
                verb = "gains" if gains else "loses"
                if cliff is None:
                    rows.append((title, f"no value {verb} a block", "—"))
                    tips.append("")
                    continue
                arrow = "↓" if cliff.value < cliff.current else "↑"
                rows.append((title, units.quantities(f"{arrow} {cliff.describe()}"), units.quantities(cliff.cost)))
                tips.append(units.quantities(cliff.cost))
                if gains:
                    bold.add(len(rows) - 1)
        self.cliffs_model.set_rows(rows, bold, tips)

    def _show_headroom(self, advice: Advice) -> None:
        rows, bold = [], set()
        now = self.session.result.active_blocks if self.session.result else 0
        for h in advice.headroom:
            exact = "none" if h.exact is None else units.kib(h.exact)
            if h.header is None:
                header = "refused"
            elif h.header >= SIZE_T_WRAP:
                header = "wraps (size_t)"
            else:
                header = units.kib(h.header)
            notes = []
            if h.capped:
                notes.append("capped by the max dynamic attribute")
            if h.blocks_at_exact > h.num_blocks:
                notes.append(f"{units.count(h.blocks_at_exact, 'block')} there")
            if h.differs:
                notes.append("header's figure differs")
            rows.append((str(h.num_blocks), exact, header if h.differs else "same", "; ".join(notes)))
            if h.num_blocks == now:
                bold.add(len(rows) - 1)
        self.headroom_model.set_rows(rows, bold)

    def _show_targets(self, advice: Advice) -> None:
        wanted = self.target.currentData()
        now = self.session.result.active_blocks if self.session.result else 0
        with signals_blocked(self.target):
            self.target.clear()
            for t in advice.targets:
                self.target.addItem(f"{units.count(t.min_blocks, 'block')} · {_pct(t.occupancy)}", t.min_blocks)
            keep = self.target.findData(wanted) if wanted is not None else -1
            above = next((i for i, t in enumerate(advice.targets) if t.min_blocks > now), len(advice.targets) - 1)
            self.target.setCurrentIndex(keep if keep >= 0 else above)
        self._show_bounds()

    def _show_bounds(self) -> None:
        s, blocks = self.session, self.target.currentData()
        target = (
            None
            if blocks is None
            else suggest_launch_bounds(s.device, s.function_attributes, s.launch, blocks, s.device_state)
        )
        if target is None:
            self.bounds.setText("No register count changes the resident blocks here.")
            return
        regs = s.inputs.registers
        change = (
            "the current count already fits"
            if target.max_registers >= regs
            else f"{regs - target.max_registers} fewer than now: may spill, and can be slower"
        )
        self.bounds.setText(
            f"<code>{target.launch_bounds}</code><br><code>{target.maxrregcount}</code><br>"
            f"At most <b>{target.max_registers}</b> registers per thread keep {target.min_blocks} "
            f"blocks of {target.block_size} threads ({_pct(target.occupancy)}); {change}."
        )
