"""``ProfileSheet``: device profiles as rows, their figures as columns, each cell with its source.

What the GPU data dock shows for either vendor (``GpuDataModel`` for NVIDIA's profiles, ``AmdGpuDataModel`` for
AMD's): one row per profile, named in the vertical header and marked when it is the session's device; a cell's
text, sort key and tooltip (the value's source) are computed once, when the rows are set; the filter box searches
each row's words (:data:`SEARCH_ROLE`) and the proxy sorts by :data:`SORT_ROLE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QPalette

from ..support.qt_utils import blend, palette

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
"""A number to sort by (``-1`` where a figure does not apply), so that 100 KiB sorts after 48 KiB."""
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2
"""The row's words the filter box searches: name, aliases, title, compute capability or target, architecture."""
SELECTED_MARK = "▸ "
"""Prefix of the selected device's name: the marker that needs no colour (the row is also tinted, bold)."""
NOT_APPLICABLE = "—"
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


def selected_row_color() -> QColor:
    """The selected device's row: the palette's highlight, much softened (not the binding rows' accent)."""
    pal = palette()
    return blend(pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Highlight), 0.22)


def wrap_header(header: str) -> str:
    """A header in two lines at the space nearest its middle: the table stays narrow."""
    if len(header) < 14 or " " not in header:
        return header
    middle = len(header) // 2
    cut = min((i for i, c in enumerate(header) if c == " "), key=lambda i: abs(i - middle))
    return header[:cut] + "\n" + header[cut + 1 :]


@dataclass(frozen=True)
class Cell:
    text: str
    sort: float
    tip: str


class Profile(Protocol):
    """What a row's header needs of a profile, NVIDIA's or AMD's."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def aliases(self) -> tuple[str, ...]: ...
    @property
    def path(self) -> str: ...


P = TypeVar("P", bound=Profile)


class ProfileSheet(QAbstractTableModel, Generic[P]):
    """Read-only: profiles as rows, figures as columns; the selected device's row is marked.

    A subclass names its columns (``HEADERS``: header text and tooltip) and the columns sorted and aligned as text
    (``TEXT_COLUMNS``), and hands its rows to :meth:`_set_sheet`.
    """

    HEADERS: ClassVar[tuple[tuple[str, str], ...]] = ()
    TEXT_COLUMNS: ClassVar[frozenset[int]] = frozenset()
    SCROLLS_HORIZONTALLY = True
    """A data sheet of about twenty figures: it scrolls sideways, every column whole, the names always shown."""

    def __init__(self, selected: str, parent: Any = None) -> None:
        super().__init__(parent)
        self._bold = QFont()
        self._bold.setBold(True)
        self._selected = selected
        self._profiles: list[P] = []
        self._cells: list[list[Cell]] = []
        self._search: list[str] = []

    def _set_sheet(self, profiles: list[P], cells: list[list[Cell]], search: list[str]) -> None:
        self._profiles, self._cells, self._search = profiles, cells, search

    def set_selected(self, name: str) -> None:
        """Mark profile ``name`` as the session's device; emits for the two rows that change, if any."""
        if name == self._selected:
            return
        rows = [r for r in (self.row_of(self._selected), self.row_of(name)) if r is not None]
        self._selected = name
        for row in rows:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
            self.headerDataChanged.emit(Qt.Orientation.Vertical, row, row)

    def row_of(self, name: str) -> int | None:
        return next((r for r, p in enumerate(self._profiles) if p.name == name), None)

    def name_of(self, row: int) -> str:
        return self._profiles[row].name

    def profile(self, row: int) -> P:
        return self._profiles[row]

    def cell(self, row: int, column: int) -> Cell:
        return self._cells[row][column]

    def is_selected(self, row: int) -> bool:
        return self._profiles[row].name == self._selected

    def vertical_label(self, row: int) -> str:
        return (SELECTED_MARK if self.is_selected(row) else "") + self._profiles[row].name

    # -- QAbstractItemModel
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._profiles)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal:
            if not 0 <= section < len(self.HEADERS):
                return None
            if role == Qt.ItemDataRole.DisplayRole:
                return self.HEADERS[section][0]
            if role == Qt.ItemDataRole.ToolTipRole:
                return self.HEADERS[section][1]
            return None
        if not 0 <= section < len(self._profiles):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.vertical_label(section)
        if role == Qt.ItemDataRole.FontRole and self.is_selected(section):
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            p = self._profiles[section]
            aliases = f" (also {', '.join(p.aliases)})" if p.aliases else ""
            mine = "\nThe device you are calculating for." if self.is_selected(section) else ""
            return f"{p.title}{aliases}\n{p.path}{mine}\nDouble-click a row to calculate for that device."
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row, column = index.row(), index.column()
        if not index.isValid() or not 0 <= row < len(self._profiles) or not 0 <= column < len(self.HEADERS):
            return None
        cell = self._cells[row][column]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell.tip
        if role == SORT_ROLE:
            return cell.text.casefold() if column in self.TEXT_COLUMNS else cell.sort
        if role == SEARCH_ROLE:
            return self._search[row]
        if role == Qt.ItemDataRole.TextAlignmentRole and column not in self.TEXT_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if self.is_selected(row):
            if role == Qt.ItemDataRole.BackgroundRole:
                return selected_row_color()
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
        return None
