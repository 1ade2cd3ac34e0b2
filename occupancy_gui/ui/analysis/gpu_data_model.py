"""``GpuDataModel``: every device profile's limits side by side, each value with its source.

One row per profile (named in the vertical header), one column per figure: the profile's own limits
(the schema's ``LIMIT_FIELDS``, whatever a vendor's schema lists) and the facts the model takes from the
architecture tables (``engine.device_facts``).  A cell's tooltip is where its value comes from — the
profile's ``source:`` text, or the rule of the occupancy model — so no figure is shown unsourced.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QPalette

from ... import REFERENCE_HEADER, units
from ...engine import FACT_SPECS, DeviceFact, device_facts
from ...profiles import LIMIT_FIELDS, Catalog, DeviceProfile
from ..support.qt_utils import blend, palette

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
"""A number to sort by (``-1`` where a figure does not apply), so that 100 KiB sorts after 48 KiB."""
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2
"""The row's words the filter box searches: name, aliases, title, compute capability, architecture."""
SELECTED_MARK = "▸ "
"""Prefix of the selected device's name: the marker that needs no colour (the row is also tinted, bold)."""
NOT_APPLICABLE = "—"
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


def selected_row_color() -> QColor:
    """The selected device's row: the palette's highlight, much softened (not the binding rows' accent)."""
    pal = palette()
    return blend(pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Highlight), 0.22)


@dataclass(frozen=True)
class Cell:
    text: str
    sort: float
    tip: str


@dataclass(frozen=True)
class Column:
    header: str
    tip: str
    cell: Callable[[DeviceProfile, tuple[DeviceFact, ...]], Cell]


def _wrap(header: str) -> str:
    """A header in two lines at the space nearest its middle: the table stays narrow."""
    if len(header) < 14 or " " not in header:
        return header
    middle = len(header) // 2
    cut = min((i for i, c in enumerate(header) if c == " "), key=lambda i: abs(i - middle))
    return header[:cut] + "\n" + header[cut + 1 :]


def _value_text(value: int, unit: str) -> str:
    return units.kib(value) if unit in ("byte", "bytes") else units.group(value)


def _exact(value: int, unit: str) -> str:
    return f" ({units.bytes_tooltip(value)})" if unit in ("byte", "bytes") and value >= units.KIB else ""


def _tip(profile: DeviceProfile, label: str, value: str, source: str) -> str:
    """Rich text, so that Qt wraps a long source instead of drawing one screen-wide line."""
    return f"<b>{html.escape(label)}</b> of {html.escape(profile.name)}: {html.escape(value)}<br>Source: {html.escape(source)}"


def _limit_column(name: str, label: str, unit: str, description: str) -> Column:
    def cell(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
        value = profile.values.get(name)
        if value is None:
            return Cell(NOT_APPLICABLE, -1, _tip(profile, label, "not stated", "the profile does not state it"))
        source = profile.sources.get(name, "no source recorded")
        return Cell(
            _value_text(value, unit),
            value,
            _tip(profile, label, _value_text(value, unit) + _exact(value, unit), source),
        )

    return Column(_wrap(label), description, cell)


def _fact_column(index: int) -> Column:
    spec = FACT_SPECS[index]
    model = f"the occupancy model ({REFERENCE_HEADER}): {spec.source}"

    def cell(profile: DeviceProfile, facts: tuple[DeviceFact, ...]) -> Cell:
        value = facts[index].value
        if value is None:
            return Cell(NOT_APPLICABLE, -1, _tip(profile, spec.label, "does not apply to this architecture", model))
        if isinstance(value, tuple):
            sizes = ", ".join(_value_text(v, spec.unit) for v in value)
            text = f"{_value_text(value[0], spec.unit)}–{_value_text(value[-1], spec.unit)} ({len(value)} sizes)"
            return Cell(text, value[-1], _tip(profile, spec.label, sizes, model))
        text = _value_text(value, spec.unit)
        return Cell(text, value, _tip(profile, spec.label, text + _exact(value, spec.unit), model))

    return Column(_wrap(spec.label), f"{spec.label}: from {model}", cell)


def _cc(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
    major, minor = profile.compute_capability
    source = (
        f"the profile's compute_capability ({profile.path})"
        if profile.kind == "compute_capability"
        else f"inherited from sm_{major}{minor}"
    )
    return Cell(profile.cc_string, major * 100 + minor, _tip(profile, "Compute capability", profile.cc_string, source))


def _architecture(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
    return Cell(profile.architecture, 0, _tip(profile, "Architecture", profile.architecture, profile.path))


def _sm_count(profile: DeviceProfile, _facts: tuple[DeviceFact, ...]) -> Cell:
    if profile.sm_count is None:
        return Cell(NOT_APPLICABLE, -1, _tip(profile, "SMs", "none", "a compute capability profile has no SM count"))
    source = profile.sources.get("sm_count", "no source recorded")
    return Cell(
        units.group(profile.sm_count), profile.sm_count, _tip(profile, "SMs", units.group(profile.sm_count), source)
    )


COLUMNS: tuple[Column, ...] = (
    Column("CC", "Compute capability", _cc),
    Column("Architecture", "Architecture (generation)", _architecture),
    Column("SMs", "Streaming multiprocessors on the GPU (a compute capability profile has none)", _sm_count),
    *(_limit_column(f.name, f.label or f.name, f.unit, f.description) for f in LIMIT_FIELDS),
    *(_fact_column(i) for i in range(len(FACT_SPECS))),
)
ARCHITECTURE_COLUMN = 1


def search_text(profile: DeviceProfile) -> str:
    """What the filter matches: name, aliases, title, ``9.0`` / ``sm_90``, architecture, segment, kind."""
    major, minor = profile.compute_capability
    words = [
        profile.name,
        *profile.aliases,
        profile.title,
        profile.cc_string,
        f"sm_{major}{minor}",
        profile.architecture,
        profile.segment or "",
        profile.kind.replace("_", " "),
        str(profile.info.get("chip", "")),
    ]
    return " ".join(words).casefold()


class GpuDataModel(QAbstractTableModel):
    """Read-only: profiles as rows, figures as columns; the selected device's row is marked."""

    SCROLLS_HORIZONTALLY = True
    """A data sheet of 21 figures: it scrolls sideways, every column whole, the names (row headers) always shown."""

    def __init__(self, catalog: Catalog, selected: str, parent: Any = None) -> None:
        super().__init__(parent)
        self._bold = QFont()
        self._bold.setBold(True)
        self._selected = selected
        self._set_rows(catalog)

    def _set_rows(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._profiles = list(catalog.profiles)
        self._cells = [
            [column.cell(p, device_facts(p.device_properties())) for column in COLUMNS] for p in self._profiles
        ]
        self._search = [search_text(p) for p in self._profiles]

    def set_catalog(self, catalog: Catalog) -> None:
        if catalog is self.catalog:
            return
        self.beginResetModel()
        self._set_rows(catalog)
        self.endResetModel()

    def set_selected(self, name: str) -> None:
        """Mark profile ``name`` as the session's device; emits for the two rows that change, if any."""
        if name == self._selected:
            return
        rows = [r for r in (self.row_of(self._selected), self.row_of(name)) if r is not None]
        self._selected = name
        for row in rows:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
            self.headerDataChanged.emit(Qt.Orientation.Vertical, row, row)

    def row_of(self, name: str) -> int | None:
        return next((r for r, p in enumerate(self._profiles) if p.name == name), None)

    def name_of(self, row: int) -> str:
        return self._profiles[row].name

    def profile(self, row: int) -> DeviceProfile:
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
        return 0 if parent.isValid() else len(COLUMNS)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal:
            if not 0 <= section < len(COLUMNS):
                return None
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section].header
            if role == Qt.ItemDataRole.ToolTipRole:
                return COLUMNS[section].tip
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
        if not index.isValid() or not 0 <= index.row() < len(self._profiles) or not 0 <= index.column() < len(COLUMNS):
            return None
        cell, row = self._cells[index.row()][index.column()], index.row()
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell.tip
        if role == SORT_ROLE:
            return cell.text.casefold() if index.column() == ARCHITECTURE_COLUMN else cell.sort
        if role == SEARCH_ROLE:
            return self._search[row]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() != ARCHITECTURE_COLUMN:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if self.is_selected(row):
            if role == Qt.ItemDataRole.BackgroundRole:
                return selected_row_color()
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
        return None
