"""The GPU data dock: every profile's limits side by side (Nsight Compute's "GPU Data" tab, the
spreadsheet's physical-limits table), filtered by a text box, sortable by any column, each value's source
in its tooltip, the device being calculated marked.  Double-clicking a profile calculates for it.

Installed by ``gpu_data_dock``; the rows and cells are ``gpu_data_model``'s.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ... import units
from ...session import Session
from ..support.qt_utils import signals_blocked
from ..support.refresh import RefreshWhenVisible
from .amd_gpu_data_model import AmdGpuDataModel
from .gpu_data_model import GpuDataModel
from .profile_sheet import SEARCH_ROLE, SORT_ROLE

PLACEHOLDER = "Filter: a name (H100), an architecture (Hopper) or a compute capability (8.6, sm_86)"
AMD_PLACEHOLDER = "Filter: a name (MI300X, RX 7900 XTX), an architecture (CDNA 3, RDNA 3) or a target (gfx942)"


class GpuDataFilter(QSortFilterProxyModel):
    """Keeps the profiles whose words contain every word of the filter text (any case, any order)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._needles: tuple[str, ...] = ()
        self.setSortRole(SORT_ROLE)

    def set_text(self, text: str) -> None:
        needles = tuple(text.casefold().split())
        if needles != self._needles:
            self.beginFilterChange()  # Qt 6.10's pair; invalidateFilter() is deprecated there
            self._needles = needles
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        if not self._needles:
            return True
        words = self.sourceModel().index(source_row, 0, source_parent).data(SEARCH_ROLE) or ""
        return all(needle in words for needle in self._needles)


class GpuDataView(RefreshWhenVisible, QWidget):
    """Filter box, a count of what it shows, and the table; double-click writes the session's device."""

    def __init__(self, session: Session, parent: QWidget | None = None, amd: bool = False) -> None:
        super().__init__(parent)
        self.session = session
        self.model: GpuDataModel | AmdGpuDataModel = (
            AmdGpuDataModel(session.amd_catalog, session.amd_profile.name, self)
            if amd
            else GpuDataModel(session.catalog, session.profile.name, self)
        )
        self.proxy = GpuDataFilter(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText(AMD_PLACEHOLDER if amd else PLACEHOLDER)
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip(
            "Shows the profiles whose name, aliases, compute capability or architecture contain every word typed"
        )
        self.filter.textChanged.connect(self._on_filter_text_changed)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.table = self._build_table()
        top = QHBoxLayout()
        top.addWidget(self.filter, 3)
        top.addWidget(self.status, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self._update_status()
        self.refresh()

    def _build_table(self) -> QTableView:
        table = QTableView(self)
        table.setModel(self.proxy)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setWordWrap(False)
        table.setSortingEnabled(True)
        table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the catalog's own order until a header is clicked
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.doubleClicked.connect(self._on_table_double_clicked)
        table.setMinimumHeight(header.sizeHint().height() + 3 * table.verticalHeader().defaultSectionSize())
        return table

    # ----------------------------------------------------------------------------- behaviour
    def refresh(self) -> None:
        self._dirty = False
        if isinstance(self.model, GpuDataModel):
            self.model.set_catalog(self.session.catalog)
        self.model.set_selected(self.selected_name())
        self._update_status()
        self.scroll_to_selected()

    def selected_name(self) -> str:
        """The session's device: an NVIDIA profile for NVIDIA's sheet, an AMD one for AMD's."""
        return self.session.amd_profile.name if isinstance(self.model, AmdGpuDataModel) else self.session.profile.name

    def scroll_to_selected(self) -> None:
        row = self.model.row_of(self.selected_name())
        if row is None:
            return
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid():
            self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)

    def set_filter(self, text: str) -> None:
        """Filter as if ``text`` had been typed (tests, and a caller that wants one architecture)."""
        with signals_blocked(self.filter):
            self.filter.setText(text)
        self._apply_filter(text)

    def _on_filter_text_changed(self, text: str) -> None:
        self._apply_filter(text)

    def _apply_filter(self, text: str) -> None:
        self.proxy.set_text(text)
        self._update_status()

    def _update_status(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        text = self.filter.text().strip()
        if not text:
            status = units.count(total, "profile")
        elif shown:
            status = f"{shown} of {units.count(total, 'profile')}"
        else:
            status = f"No profile matches “{text}”"
        if self.status.text() != status:
            self.status.setText(status)
        self.status.setToolTip(
            ""
            if shown or not text
            else "Try a GPU name (A100), an architecture (Ampere) or a "
            "compute capability (8.0); clear the box to see all."
        )

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        source = self.proxy.mapToSource(index)
        if source.isValid():
            self.session.replace(device=self.model.name_of(source.row()))
