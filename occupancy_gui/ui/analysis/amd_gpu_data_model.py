"""``AmdGpuDataModel``: every AMD profile's values side by side — targets and products — each with its source.

One row per profile (named in the vertical header): the target it runs, its CUs as the hardware has them and as HIP
reports ``multiProcessorCount`` (WGPs in WGP mode), the WGP-mode default, then every limit of the target's schema
(``profiles.amd_schema.TARGET_FIELDS``: SIMDs per CU, granules, VGPRs and SGPRs per SIMD, LDS, the runtime's and the
hardware's wave caps, default wave size, …).  A cell's tooltip is the profile's ``source:`` text for that value,
so no figure is shown unsourced.  The cells reuse NVIDIA's sheet's roles (sort, search) and marks.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ... import units
from ...profiles import AmdCatalog, AmdProfile
from ...profiles.amd_schema import TARGET_FIELDS, AmdField
from .gpu_data_model import NOT_APPLICABLE, SEARCH_ROLE, SELECTED_MARK, SORT_ROLE, Cell, _wrap, selected_row_color

_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
TEXT_COLUMNS = frozenset({0, 1})
"""Target and architecture: sorted as text, left-aligned."""


def _tip(profile: AmdProfile, label: str, value: str, source: str) -> str:
    """Rich text, so that Qt wraps a long source."""
    return f"<b>{html.escape(label)}</b> of {html.escape(profile.name)}: {html.escape(value)}<br>Source: {html.escape(source)}"


def _value(value: object, unit: str, choices: tuple[str, ...] = ()) -> tuple[str, float]:
    """The cell's text and sort key: sizes in KiB, flags yes/no, a choice by its place in the schema's list."""
    if value is None:
        return NOT_APPLICABLE, -1
    if isinstance(value, bool):
        return ("yes" if value else "no"), float(value)
    if isinstance(value, int):
        return (units.kib(value) if unit == "bytes" else units.group(value)), value
    return str(value), choices.index(str(value)) if str(value) in choices else 0


def _field_cell(profile: AmdProfile, f: AmdField) -> Cell:
    text, sort = _value(getattr(profile.target, f.name), f.unit, f.choices)
    source = profile.sources.get(f.name, "no source recorded")
    exact = f" ({units.bytes_tooltip(int(sort))})" if f.unit == "bytes" and sort >= units.KIB else ""
    return Cell(text, sort, _tip(profile, f.name.replace("_", " "), text + exact, source))


def _count_cell(profile: AmdProfile, name: str, label: str, value: int | None) -> Cell:
    if value is None:
        return Cell(NOT_APPLICABLE, -1, _tip(profile, label, "none", "a gfx target profile has no CU count"))
    return Cell(
        units.group(value),
        value,
        _tip(profile, label, units.group(value), profile.sources.get(name, "no source recorded")),
    )


def _row(p: AmdProfile) -> list[Cell]:
    target = p.target
    wgp = target.has_wgp
    return [
        Cell(target.name, 0, _tip(p, "Target", target.name, p.path)),
        Cell(p.architecture, 0, _tip(p, "Architecture", p.architecture, p.path)),
        _count_cell(p, "compute_units", "CUs (hardware)", p.compute_units),
        _count_cell(p, "hip_multiprocessor_count", "multiProcessorCount (HIP)", p.hip_multiprocessor_count),
        Cell(
            "WGP" if wgp else "CU",
            float(wgp),
            _tip(
                p,
                "Default mode",
                "WGP mode" if wgp else "CU mode (no WGPs)",
                "ROCclr enableWgpMode_ (GPU_ENABLE_WGP_MODE): on by default on gfx10 and later; "
                + p.sources.get("has_wgp", "no source recorded"),
            ),
        ),
        *(_field_cell(p, f) for f in TARGET_FIELDS),
    ]


HEADERS: tuple[tuple[str, str], ...] = (
    ("Target", "The gfx target (LLVM's processor name)"),
    ("Architecture", "Architecture (generation)"),
    ("CUs", "Compute units as the hardware has them (one GCD of an MI250X: 110)"),
    ("HIP multi-\nprocessors", "hipDeviceProp_t::multiProcessorCount: CUs, halved in WGP mode on RDNA"),
    ("Default\nmode", "WGP or CU mode as the driver runs the device by default"),
    *(
        (_wrap(f.name.replace("_", " ")), f"{f.description} ({f.unit})" if f.unit else f.description)
        for f in TARGET_FIELDS
    ),
)


def search_text(profile: AmdProfile) -> str:
    """What the filter matches: names, aliases, title, target, architecture, segment, kind."""
    words = [
        *profile.lookup_names(),
        profile.title,
        profile.target.name,
        profile.architecture,
        profile.segment or "",
        profile.kind.replace("_", " "),
    ]
    return " ".join(words).casefold()


class AmdGpuDataModel(QAbstractTableModel):
    """Read-only: AMD profiles as rows, their values as columns; the selected device's row is marked."""

    SCROLLS_HORIZONTALLY = True

    def __init__(self, catalog: AmdCatalog, selected: str, parent: Any = None) -> None:
        super().__init__(parent)
        self._bold = QFont()
        self._bold.setBold(True)
        self._selected = selected
        self.catalog = catalog
        self._profiles = list(catalog)
        self._cells = [_row(p) for p in self._profiles]
        self._search = [search_text(p) for p in self._profiles]

    def set_selected(self, name: str) -> None:
        """Mark profile ``name`` as the session's device; emits for the two rows that change, if any."""
        if name == self._selected:
            return
        rows = [r for r in (self.row_of(self._selected), self.row_of(name)) if r is not None]
        self._selected = name
        for row in rows:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(HEADERS) - 1))
            self.headerDataChanged.emit(Qt.Orientation.Vertical, row, row)

    def row_of(self, name: str) -> int | None:
        return next((r for r, p in enumerate(self._profiles) if p.name == name), None)

    def name_of(self, row: int) -> str:
        return self._profiles[row].name

    def profile(self, row: int) -> AmdProfile:
        return self._profiles[row]

    def cell(self, row: int, column: int) -> Cell:
        return self._cells[row][column]

    def is_selected(self, row: int) -> bool:
        return self._profiles[row].name == self._selected

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._profiles)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(HEADERS)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal:
            if not 0 <= section < len(HEADERS) or role not in (
                Qt.ItemDataRole.DisplayRole,
                Qt.ItemDataRole.ToolTipRole,
            ):
                return None
            return HEADERS[section][0 if role == Qt.ItemDataRole.DisplayRole else 1]
        if not 0 <= section < len(self._profiles):
            return None
        p = self._profiles[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return (SELECTED_MARK if self.is_selected(section) else "") + p.name
        if role == Qt.ItemDataRole.FontRole and self.is_selected(section):
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            aliases = f" (also {', '.join(p.aliases)})" if p.aliases else ""
            mine = "\nThe device you are calculating for." if self.is_selected(section) else ""
            return f"{p.title}{aliases}\n{p.path}{mine}\nDouble-click a row to calculate for that device."
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._profiles) or not 0 <= index.column() < len(HEADERS):
            return None
        cell, row = self._cells[index.row()][index.column()], index.row()
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell.tip
        if role == SORT_ROLE:
            return cell.text.casefold() if index.column() in TEXT_COLUMNS else cell.sort
        if role == SEARCH_ROLE:
            return self._search[row]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() not in TEXT_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if self.is_selected(row):
            if role == Qt.ItemDataRole.BackgroundRole:
                return selected_row_color()
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
        return None
