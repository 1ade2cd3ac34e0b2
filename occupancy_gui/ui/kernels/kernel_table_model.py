"""The imported kernels as a Qt table model: one row per (kernel, architecture), with its occupancy.

:class:`~occupancy_gui.kernel_table.KernelTable` (Qt-free) holds the columns.  :class:`KernelTableModel` adapts it to Qt
and sorts and filters with numpy: a ``QSortFilterProxyModel`` sorting by itself would call ``data()``
from C++ n·log n times (about a minute for 650 000 rows), so :class:`KernelSortFilterProxy` hands
``sort`` and the filter text down to the model and keeps the source order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QFont

from ... import units
from ...kernel_table import FilterMasks, KernelTable, RowLaunch, row_notes, row_tags
from ..support.qt_utils import disabled_text_color, error_color
from ..support.read_only_model import ReadOnlyTableModel
from .amd_cells import amd_display, amd_tooltip, memory_text
from .table_columns import (
    AGPRS,
    AMD_COLUMNS,
    AMD_HEADERS,
    ARCH,
    BARRIERS,
    HEADER_TIPS,
    HEADERS,
    LAUNCH_BOUND,
    LOCAL,
    NAME,
    OCCUPANCY,
    REGISTERS,
    SGPRS,
    SPILLS,
    STATIC_SMEM,
    THREADS,
    WAVE,
)

if TYPE_CHECKING:
    pass

RECORD_ROLE = Qt.ItemDataRole.UserRole + 1
"""The row's index into :attr:`KernelTable.records`."""
NAME_ROLE = Qt.ItemDataRole.UserRole + 2
"""The mangled name (the key a selection is kept by)."""

_NUMERIC = (Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value


class KernelTableModel(ReadOnlyTableModel):
    """Rows of a :class:`KernelTable` in a filtered, sorted order kept as a numpy index array."""

    HEADERS: tuple[str, ...] = HEADERS
    HEADER_TIPS = HEADER_TIPS
    ELIDED_COLUMNS = frozenset({NAME})
    """Elided on purpose where the column is narrower than a name (C++ names run to 1,865 characters): the whole
    name, mangled name and source are the cell's tooltip.  Every other column is sized to its figures."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.table: KernelTable | None = None
        self.launch = RowLaunch(np.zeros(0, np.int64), np.zeros(0))
        """Each row's threads per block and occupancy once chosen (``kernel_table.occupancy_column``)."""
        self.threads = 0
        """The calculator's threads per block the rows were computed with."""
        self._rows = np.zeros(0, dtype=np.int64)  # view row -> record index
        self._filter = ""
        self._all_functions = False  # device functions listed beside the kernels
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._name_rank: np.ndarray | None = None
        self._arch_rank: np.ndarray | None = None
        self._masks: FilterMasks | None = None  # the filter texts' matching rows, of this table
        self._amd_keys: dict[int, np.ndarray] = {}  # an AMD column's sort key over every row
        self.unavailable: str | None = None

    # ----------------------------------------------------------------------------- content
    @property
    def occupancy(self) -> np.ndarray:
        return self.launch.occupancy

    def set_table(self, table: KernelTable | None, launch: RowLaunch | None = None, threads: int = 0) -> None:
        self.beginResetModel()
        self.table = table
        self._name_rank = self._arch_rank = None
        self._amd_keys = {}
        headers = AMD_HEADERS if table is not None and table.vendors == {"amd"} else HEADERS
        if headers != self.HEADERS:
            self.HEADERS = headers
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(headers) - 1)
        self._masks = FilterMasks(table) if table is not None else None
        n = len(table) if table is not None else 0
        self.launch = launch if launch is not None else RowLaunch(np.zeros(n, np.int64), np.full(n, np.nan))
        self.threads = threads
        self.unavailable = None
        self._rows = self._ordered_rows()
        self.endResetModel()

    def set_launch(self, launch: RowLaunch, threads: int, unavailable: str | None = None) -> None:
        """New figures for every row (the device or the launch changed); ``unavailable`` says why there are none
        (an AMD device is selected: these NVIDIA kernels have no figure on it), shown as "—"."""
        self.launch, self.threads, self.unavailable = launch, threads, unavailable
        if self._sort is not None and self._sort[0] in (THREADS, OCCUPANCY):
            self.sort(*self._sort)
        elif self._rows.size:
            self.dataChanged.emit(
                self.index(0, THREADS),
                self.index(self.rowCount() - 1, OCCUPANCY),
                [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole],
            )

    def set_filter(self, text: str) -> None:
        text = _needle(text)
        if text == self._filter:
            return
        self.beginResetModel()
        self._filter = text
        self._rows = self._ordered_rows()
        self.endResetModel()

    def filter_steps(self, text: str) -> Iterator[int]:
        """The scan :meth:`set_filter` would run for ``text``, as steps (``FilterMasks.steps``): run them
        between events first and :meth:`set_filter` then scans nothing."""
        text = _needle(text)
        if not text or self._masks is None:
            return iter(())
        return self._masks.steps(text)

    @property
    def filter_text(self) -> str:
        return self._filter

    def set_all_functions(self, shown: bool) -> None:
        """List device functions too (by default only kernels, as ``occupancy import`` does)."""
        if shown == self._all_functions:
            return
        self.beginResetModel()
        self._all_functions = shown
        self._rows = self._ordered_rows()
        self.endResetModel()

    def listable(self) -> int:
        """Rows shown without a name filter: the kernels, or every function."""
        t = self.table
        if t is None:
            return 0
        return len(t) if self._all_functions else int(t.is_kernel.sum())

    def record_index(self, row: int) -> int:
        return int(self._rows[row])

    def row_of(self, record: int) -> int | None:
        hits = np.flatnonzero(self._rows == record)
        return int(hits[0]) if hits.size else None

    def find(self, name: str, arch: str | None = None, processor: str | None = None) -> int | None:
        """Record index of ``name`` (mangled), preferring the same ``arch``, else an AMD row of ``processor``
        (``gfx942``: a restored session's AMD device); ``None`` when absent.

        The names are searched by ``list.index`` (in C): a Python loop over libtorch_cuda's 143,409 names
        took 18 ms, and the dock looked its selected kernel up so at each filter change and each edit
        (it now keeps the kernel's record index)."""
        if self.table is None:
            return None
        names = self.table.names
        matches: list[int] = []
        with contextlib.suppress(ValueError):
            while True:
                matches.append(names.index(name, matches[-1] + 1 if matches else 0))
        if arch is not None:
            matches = [i for i in matches if self.table.arch[i] == arch] or matches
        elif processor is not None:
            matches = [i for i in matches if self.table.arch[i].split(":", 1)[0] == processor] or matches
        return matches[0] if matches else None

    # ----------------------------------------------------------------------------- order
    def _sort_key(self, column: int) -> np.ndarray:
        t = self.table
        assert t is not None
        if column == NAME:
            if self._name_rank is None:
                self._name_rank = _rank([d.casefold() for d in t.demangled])
            return self._name_rank
        if column == ARCH:
            if self._arch_rank is None:
                self._arch_rank = _rank(t.arch)
            ranked: np.ndarray = np.where(t.arch_number >= 0, t.arch_number * 1e6, 1e12) + self._arch_rank
            return ranked
        if column in AMD_COLUMNS:
            return self._amd_key(t, column)
        columns: dict[int, np.ndarray] = {
            REGISTERS: t.registers,
            LOCAL: t.local_bytes,
            STATIC_SMEM: t.static_smem,
            SPILLS: t.spill_stores + t.spill_loads,
            BARRIERS: t.barriers,
            LAUNCH_BOUND: np.where(t.required > 0, t.required, t.max_threads),
            THREADS: self.launch.threads,
        }
        if column in columns:
            return columns[column]
        occupancy: np.ndarray = np.nan_to_num(self.occupancy, nan=-1.0)
        return occupancy

    def _amd_key(self, t: KernelTable, column: int) -> np.ndarray:
        """An AMD-only column over every row (-1 on NVIDIA rows and where a record does not say)."""
        if column not in self._amd_keys:
            key = np.full(len(t), -1, np.int64)
            own = t.amd
            if own is not None:
                key[own.rows] = {AGPRS: own.agprs, SGPRS: own.sgprs, WAVE: own.wave_size * 2 + (own.wgp > 0)}[column]
            self._amd_keys[column] = key
        return self._amd_keys[column]

    def _ordered_rows(self) -> np.ndarray:
        t = self.table
        if t is None:
            return np.zeros(0, dtype=np.int64)
        order = np.arange(len(t), dtype=np.int64)
        if self._sort is not None:
            column, sort_order = self._sort
            key = self._sort_key(column)
            order = np.argsort(-key if sort_order == Qt.SortOrder.DescendingOrder else key, kind="stable")
        if not self._all_functions:
            order = order[t.is_kernel[order]]
        if self._filter and self._masks is not None:
            order = order[self._masks.mask(self._filter)[order]]
        return order

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if column >= len(HEADERS):
            return
        self._sort = (column, order) if column >= 0 else None  # -1: the file's order
        if self.table is None:
            return
        self.layoutAboutToBeChanged.emit()
        old_rows = self._rows
        self._rows = self._ordered_rows()
        position = np.empty(len(self.table), dtype=np.int64)
        position[self._rows] = np.arange(self._rows.size)
        old = self.persistentIndexList()
        new = [self.index(int(position[old_rows[i.row()]]), i.column()) for i in old]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    # ----------------------------------------------------------------------------- Qt model
    def row_count(self) -> int:
        return int(self._rows.size)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        t = self.table
        if t is None or not index.isValid() or not 0 <= index.row() < self._rows.size:
            return None
        i, column = int(self._rows[index.row()]), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(t, i, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(t, i, column)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _NUMERIC if column not in (NAME, ARCH) else None
        if role == RECORD_ROLE:
            return i
        if role == NAME_ROLE:
            return t.names[i]
        if role == Qt.ItemDataRole.FontRole and (
            (column == NAME and not t.is_kernel[i]) or (column == THREADS and self._threads_moved(i))
        ):
            font = QFont()
            font.setItalic(True)
            return font
        spilling = (column == SPILLS and (t.spill_stores[i] > 0 or t.spill_loads[i] > 0)) or (
            column == LOCAL and (t.local_bytes[i] > 0 or t.stack_bytes[i] < 0)
        )
        if role == Qt.ItemDataRole.ForegroundRole and spilling:
            return error_color()
        if (
            role == Qt.ItemDataRole.ForegroundRole
            and column == OCCUPANCY
            and i < self.occupancy.size
            and np.isnan(self.occupancy[i])
        ):
            return disabled_text_color()
        if role == Qt.ItemDataRole.BackgroundRole and spilling:
            tint = QColor(error_color())
            tint.setAlpha(40)
            return tint
        return None

    def _display(self, t: KernelTable, i: int, column: int) -> str:
        from ...importers import printable  # noqa: PLC0415 - lazy: a table exists, so the importers are loaded

        if column == NAME:
            rec = t.records[i]
            name = printable(t.demangled[i])  # a name holding a newline (CSV quoting allows it) stays one row
            tags = row_tags(rec) if t.is_amd(i) or _tagged(rec) else None  # the tooltip says what each means
            return f"[{' · '.join(tags)}] {name}" if tags else name  # first: long names are elided
        if column == ARCH:
            return t.arch[i]
        if t.is_amd(i):
            amd = amd_display(t, i, column)
            if amd is not None:
                return amd
        elif column in AMD_COLUMNS:
            return ""
        if column == REGISTERS:
            return str(int(t.registers[i]))
        shared = memory_text(t, i, column)
        if shared is not None:
            return shared
        if column == BARRIERS:
            return "—" if t.barriers[i] < 0 else str(int(t.barriers[i]))
        if column == LAUNCH_BOUND:
            if t.required[i] > 0:
                return f"= {int(t.required[i])}"
            if t.max_threads[i] > 0:
                return f"≤ {int(t.max_threads[i])}"
            return "?" if t.launch_bounds_unknown else "—"
        if column in (THREADS, OCCUPANCY) and self._no_figure(t, i) is not None:
            return "—"
        if column == THREADS:
            return str(int(self.launch.threads[i])) if i < self.launch.threads.size else "—"
        occ = self.occupancy[i] if i < self.occupancy.size else np.nan
        if np.isnan(occ):
            return "cannot launch"  # not 0 %: no block of this size can start at all
        return f"{occ * 100:.1f}".rstrip("0").rstrip(".") + " %"  # as the summary: 12.5 %

    def _tooltip(self, t: KernelTable, i: int, column: int) -> str | None:
        from ...importers import LAUNCH_BOUNDS_NOTE, STACK_UNKNOWN  # noqa: PLC0415 - lazy: as in _display

        if column == NAME:
            return "\n".join([t.demangled[i], t.names[i], *row_notes(t.records[i])])
        if column in (THREADS, OCCUPANCY) and self._no_figure(t, i) is not None:
            return self._no_figure(t, i)
        if t.is_amd(i):
            tip = amd_tooltip(t, i, column)
            if tip is not None or column not in (THREADS, OCCUPANCY):
                return tip
        if column == LOCAL:
            if t.stack_bytes[i] < 0:
                return f"Stack: {STACK_UNKNOWN} (cuobjdump: STACK:UNKNOWN); the stack the GPU needs is set at launch"
            return f"{units.bytes_tooltip(int(t.local_bytes[i]))} of local memory per thread (stack frame and spills)"
        if column == STATIC_SMEM:
            return units.bytes_tooltip(int(t.static_smem[i]))
        if column == SPILLS:
            spills = t.spills(i)
            if spills is None:
                local = int(t.local_bytes[i])
                return "This source does not record spills (binaries do not; ptxas -v logs do)" + (
                    f"; it uses {local} B of local memory per thread (see Local)." if local else "."
                )
            return f"{spills[0]} bytes spill stores, {spills[1]} bytes spill loads"
        if column == LAUNCH_BOUND:
            if t.required[i] > 0:
                return f"Required block size (.reqntid): exactly {int(t.required[i])} threads per block"
            if t.max_threads[i] > 0:
                return f"Launch bound (__launch_bounds__ / .maxntid): at most {int(t.max_threads[i])} threads per block"
            if t.launch_bounds_unknown:
                return f"Not known: {LAUNCH_BOUNDS_NOTE}."
            return "No launch bound: the kernel's binary records none."
        if column in (THREADS, OCCUPANCY) and i < self.launch.threads.size:
            return self._threads_tip(t, i)
        return None

    def _no_figure(self, t: KernelTable, i: int) -> str | None:
        """Why row ``i`` has no threads and occupancy: an NVIDIA row while an AMD device is selected, an AMD row
        whose target has no profile; ``None`` where it has them."""
        if not t.is_amd(i):
            return self.unavailable
        own = t.amd
        if own is None or not self.launch.missing:
            return None
        return self.launch.missing.get(own.processors[int(own.processor[i - t.nvidia_rows])])

    def _threads_moved(self, i: int) -> bool:
        return i < self.launch.threads.size and int(self.launch.threads[i]) != self.threads

    def _threads_tip(self, t: KernelTable, i: int) -> str:
        threads = int(self.launch.threads[i])
        occ = self.occupancy[i] if i < self.occupancy.size else np.nan
        figure = "cannot launch" if np.isnan(occ) else "occupancy once chosen"
        if t.is_amd(i) and t.amd is not None:
            processor = t.amd.processors[int(t.amd.processor[i - t.nvidia_rows])]
            figure += f" on {self.launch.devices.get(processor, processor)} (the HIP runtime's answer)"
        if t.launch_block[i] > 0:
            why = "the launch recorded with the kernel"
        elif t.required[i] > 0:
            why = "the kernel's required block size" + (" (.reqd_workgroup_size)" if t.is_amd(i) else " (.reqntid)")
        elif self._threads_moved(i):
            why = f"the kernel's launch bound ({self.threads} is above it)"
        else:
            why = "the calculator's threads per block"
        return f"{threads} threads per block, {why}: {figure}"


def _tagged(rec: Any) -> bool:
    """Whether an NVIDIA record carries a tag before its name (checked first: most carry none)."""
    return bool(rec.relocatable or rec.embedded or rec.copies > 1 or rec.cluster_dims)


def _rank(values: list[str]) -> np.ndarray:
    """Each value's position in sorted order (ties keep their original order)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values))
    return rank


class KernelSortFilterProxy(QSortFilterProxyModel):
    """The view's model: sorting and filtering are done by :class:`KernelTableModel` with numpy.

    The proxy itself keeps the source order (its own sort column stays -1), so it never calls
    ``data()`` per comparison; ``sort`` and :meth:`set_filter_text` are forwarded.
    """

    def __init__(self, source: KernelTableModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        self.kernels = source

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.kernels.sort(column, order)

    def set_filter_text(self, text: str) -> None:
        self.kernels.set_filter(text)


def _needle(text: str) -> str:
    """What a filter text is looked for as in the rows' search text (``KernelTable.haystack``, case-folded)."""
    return text.strip().casefold()
