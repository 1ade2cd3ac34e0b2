"""Compare: pin the current configuration as A, change device or inputs for B, see both side by side.

Also "Same kernel on every GPU": the current kernel and launch on each named GPU of the catalog.
Built by the main window (its ``compare``).  A's step curves are drawn dashed into
the window's existing plots through their public ``addItem``; the items are created once and updated
with ``setData``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...fields import AMD, NVIDIA
from ...session import INPUT_FIELDS, Inputs, Session
from ..calculator.plots.step_plot import merge_steps
from ..support.deferred import DeferredUpdate
from ..support.qt_utils import blend, is_dark, palette
from ..support.read_only_model import ReadOnlyTableModel
from .amd_gpus import OCCUPANCY_COLUMN, AmdGpuTableModel, figures, kernel_words, plot_curves
from .gpu_rows_model import GPU_HEADERS, SORT_ROLE, GpuTableModel

if TYPE_CHECKING:
    from PySide6.QtGui import QActionGroup

    from ...report import Figure
    from ..calculator.plots.plot_grid import PlotGrid
    from ..support.window_api import WindowApi

DIFF_MARK = "≠"
DOCK_WIDTH = 560
A_PEN_LIGHT, A_PEN_DARK = "#495057", "#ced4da"


def difference_color() -> QColor:
    """Background of rows where A and B differ: an amber tint that reads on light and dark bases."""
    return blend(palette().color(QPalette.ColorRole.Base), QColor("#f08c00"), 0.35 if is_dark() else 0.25)


class CompareTableModel(ReadOnlyTableModel):
    """Rows: every input and result figure; columns: figure, A, B and a ``≠`` marker where they differ."""

    HEADERS = ("Figure", "A (pinned)", "B (current)", "Δ")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, str, str]] = []  # label, A text, B text
        self._bold = QFont()
        self._bold.setBold(True)

    def set_figures(self, a: tuple[Figure, ...] | None, b: tuple[Figure, ...]) -> None:
        a_texts = {f.key: f.text for f in a} if a is not None else {}
        keys = [f.key for f in b] + [f.key for f in a or () if f.key not in {g.key for g in b}]
        labels = {f.key: f.label for f in (*(a or ()), *b)}
        b_texts = {f.key: f.text for f in b}
        rows = [(labels[k], a_texts.get(k, "—" if a is not None else ""), b_texts.get(k, "—")) for k in keys]
        if rows == self._rows:
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def differs(self, row: int) -> bool:
        _label, a, b = self._rows[row]
        return bool(a) and a != b

    def differing_labels(self) -> list[str]:
        return [self._rows[r][0] for r in range(len(self._rows)) if self.differs(r)]

    def row_count(self) -> int:
        return len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self.valid(index):
            return None
        row, column = index.row(), index.column()
        differs = self.differs(row)
        if role == Qt.ItemDataRole.DisplayRole:
            return (DIFF_MARK if differs else "") if column == 3 else self._rows[row][column]
        if role == Qt.ItemDataRole.BackgroundRole and differs:
            return difference_color()
        if role == Qt.ItemDataRole.FontRole and differs:
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole and differs:
            return f"{self._rows[row][0]} differs: A {self._rows[row][1]}, B {self._rows[row][2]}"
        return None


def _table_view(model: QAbstractTableModel | QSortFilterProxyModel, stretch: tuple[int, ...]) -> QTableView:
    """A compact read-only table: columns fit their contents, ``stretch`` columns share the rest."""
    view = QTableView()
    view.setModel(model)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    for column in stretch:
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
    return view


class CompareView(QObject):
    """Owns pinned configuration A, the compare dock, the every-GPU dock and A's dashed curves."""

    pinnedChanged = Signal()

    def __init__(self, window: WindowApi, plots: PlotGrid, mode_group: QActionGroup) -> None:
        super().__init__(window.frame)
        self.window, self.session, self.plots = window, window.session, plots
        self.pinned: Session | None = None
        self.model = CompareTableModel(self)
        self.gpu_model = GpuTableModel(self)
        self.amd_gpu_model = AmdGpuTableModel(self)
        self.gpu_proxy = QSortFilterProxyModel(self)
        self.gpu_proxy.setSourceModel(self.gpu_model)
        self.gpu_proxy.setSortRole(SORT_ROLE)
        self._gpus_dirty = True
        self._table_dirty = True
        self._dark: bool | None = None
        self._build_actions()
        self._build_docks()
        self._build_overlays()
        self.follow = DeferredUpdate(self._on_bridge_result_changed, self)
        window.bridge.resultChanged.connect(self.follow.schedule)
        mode_group.triggered.connect(self._on_mode_triggered)
        window.frame.installEventFilter(self)
        self.refresh()

    # ----------------------------------------------------------------------------- build
    def _build_actions(self) -> None:
        w = self.window.frame
        self.pin_action = QAction("Pin as A", w)
        self.pin_action.setShortcut(QKeySequence("Ctrl+Shift+P"))
        self.pin_action.setToolTip(
            "Pin the current device and inputs as configuration A; "
            "then change anything to compare B against it (Ctrl+Shift+P)"
        )
        self.pin_action.triggered.connect(self._on_pin_triggered)
        self.clear_action = QAction("Clear pinned A", w)
        self.clear_action.triggered.connect(self.clear)
        self.clear_action.setEnabled(False)
        self.gpus_action = QAction("Same kernel on every GPU", w)
        self.gpus_action.setToolTip("This kernel and launch on every named GPU of the catalog")
        self.gpus_action.triggered.connect(self.show_every_gpu)
        self.window.toolbar.addSeparator()
        self.window.toolbar.addAction(self.pin_action)
        for action in (self.pin_action, self.clear_action):  # the every-GPU dock's toggle opens it there
            self.window.analysis_menu.addAction(action)

    def _build_docks(self) -> None:
        w = self.window.frame
        self.a_label = QLabel("Nothing pinned: press “Pin as A”, then change the device or inputs.")
        self.a_label.setWordWrap(True)
        self.pin_button = QPushButton("Pin current as A")
        self.pin_button.clicked.connect(self._on_pin_triggered)
        self.clear_button = QPushButton("Clear A")
        self.clear_button.clicked.connect(self.clear)
        # The buttons share the pinned configuration's row: the bottom docks of a 1024×700 window have
        # little height, and the table is what the dock is for.
        top = QHBoxLayout()
        top.addWidget(self.a_label, 1)
        top.addWidget(self.pin_button)
        top.addWidget(self.clear_button)
        self.table = _table_view(self.model, stretch=(1, 2))
        self.table.setMinimumHeight(
            self.table.horizontalHeader().sizeHint().height() + 2 * self.table.verticalHeader().defaultSectionSize()
        )
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self.dock = QDockWidget("Compare A / B", w)
        self.dock.setObjectName("compare_dock")
        self.dock.setWidget(body)
        self.gpu_table = _table_view(self.gpu_proxy, stretch=(0,))
        self.gpu_table.setSortingEnabled(True)
        self.gpu_table.sortByColumn(6, Qt.SortOrder.DescendingOrder)
        self.gpu_dock = QDockWidget("Same kernel on every GPU", w)
        self.gpu_dock.setObjectName("every_gpu_dock")
        self.gpu_dock.setWidget(self.gpu_table)
        self.gpu_dock.visibilityChanged.connect(self._on_gpu_dock_visibility_changed)
        self.dock.visibilityChanged.connect(self._on_dock_visibility_changed)
        # Both in the bottom tab group with the analysis docks: beside the results they would take the
        # width the constraint table and plots need on a small screen (the user may still move them).
        area = Qt.DockWidgetArea.BottomDockWidgetArea
        for dock in (self.dock, self.gpu_dock):
            others = [
                d
                for d in w.findChildren(QDockWidget)
                if d is not dock and d.objectName() and w.dockWidgetArea(d) == area
            ]
            w.addDockWidget(area, dock)
            if others:
                w.tabifyDockWidget(others[0], dock)
            dock.hide()
            self.window.view_menu.addAction(dock.toggleViewAction())

    def _build_overlays(self) -> None:
        self.overlays: dict[str, pg.PlotCurveItem] = {}
        for key, plot in self.plots.plots.items():
            item = pg.PlotCurveItem(np.array([0.0, 1.0]), np.array([0.0]), stepMode="center", antialias=False)
            item.setZValue(5)
            item.hide()
            plot.plot.addItem(item, ignoreBounds=True)
            self.overlays[key] = item
        self._apply_pen()

    def _apply_pen(self) -> None:
        dark = is_dark()
        if dark == self._dark:
            return
        self._dark = dark
        pen = pg.mkPen(A_PEN_DARK if dark else A_PEN_LIGHT, width=2, style=Qt.PenStyle.DashLine)
        for item in self.overlays.values():
            item.setPen(pen)

    # ----------------------------------------------------------------------------- behaviour
    @property
    def pinned_inputs(self) -> Inputs | None:
        return self.pinned.inputs if self.pinned is not None else None

    @property
    def pinned_vendor(self) -> str:
        return self.pinned.vendor if self.pinned is not None else NVIDIA

    def pin(self, inputs: Inputs | None = None) -> None:
        """Pin ``inputs`` (the current ones by default) as configuration A."""
        inputs = inputs or self.session.inputs
        if self.pinned is not None and self.pinned.inputs == inputs:
            return
        self.pinned = Session(
            self.session.catalog,
            **{n: getattr(inputs, n) for n in INPUT_FIELDS},
            amd_catalog=self.session.amd_catalog if self.session.vendor == AMD else None,
        )
        self.refresh()
        self._show_dock(self.dock)
        self.pinnedChanged.emit()

    def clear(self) -> None:
        if self.pinned is None:
            return
        self.pinned = None
        self.refresh()
        self.pinnedChanged.emit()

    def show_every_gpu(self) -> None:
        self._show_dock(self.gpu_dock)
        self.refresh_gpus()

    def _show_dock(self, dock: QDockWidget) -> None:
        was_hidden = not dock.isVisible()
        dock.show()
        dock.raise_()
        frame = self.window.frame
        side = frame.dockWidgetArea(dock) in (
            Qt.DockWidgetArea.LeftDockWidgetArea,
            Qt.DockWidgetArea.RightDockWidgetArea,
        )
        if (
            was_hidden and side and dock is self.dock and dock.width() < DOCK_WIDTH
        ):  # wide enough for A and B side by side
            frame.resizeDocks([dock], [DOCK_WIDTH], Qt.Orientation.Horizontal)

    def refresh(self) -> None:
        a = self.pinned
        self.clear_action.setEnabled(a is not None)
        self.clear_button.setEnabled(a is not None)
        self._update_overlays()
        self._gpus_dirty = True
        if self.gpu_dock.isVisible():
            self.refresh_gpus()
        # The A/B table is filled when it can be seen: every edit would otherwise describe B for nobody.
        self._table_dirty = True
        if self.dock.isVisible():
            self.refresh_table()

    def refresh_table(self) -> None:
        if not self._table_dirty:
            return
        self._table_dirty = False

        s, a = self.session, self.pinned
        b_figures = figures(s)
        a_figures = figures(a) if a is not None else None
        self.model.set_figures(a_figures, b_figures)
        if a is None:
            self.a_label.setText("Nothing pinned: press “Pin as A”, then change the device or inputs.")
        else:
            diffs = len(self.model.differing_labels())
            dashed = " (dashed in the plots)" if a.vendor == s.vendor else ""
            self.a_label.setText(
                f"<b>A</b>{dashed}: {kernel_words(a)}. <b>B</b>: the current inputs. "
                f"{diffs} figure(s) differ, marked {DIFF_MARK}."
            )

    def refresh_gpus(self) -> None:
        if not self._gpus_dirty:
            return
        self._gpus_dirty = False
        from ...report import every_amd_gpu, every_gpu  # noqa: PLC0415 - lazy: as in refresh_table

        s = self.session
        model: GpuTableModel | AmdGpuTableModel = self.amd_gpu_model if s.vendor == AMD else self.gpu_model
        if self.gpu_proxy.sourceModel() is not model:  # AMD devices are compared with one another only
            self.gpu_proxy.setSourceModel(model)
            column = OCCUPANCY_COLUMN if model is self.amd_gpu_model else GPU_HEADERS.index("Occupancy")
            self.gpu_table.sortByColumn(column, Qt.SortOrder.DescendingOrder)
        if s.vendor == AMD:
            self.amd_gpu_model.set_rows(every_amd_gpu(s.amd_catalog, s.inputs), s.inputs.device)
        else:
            self.gpu_model.set_rows(every_gpu(s.catalog, s.inputs), s.inputs.device)

    def _update_overlays(self) -> None:
        self._apply_pen()
        curves = plot_curves(self.pinned, self.session.vendor)
        for key, item in self.overlays.items():
            plot, curve = self.plots.plots[key], curves.get(key)
            if curve is None:
                item.hide()
                continue
            edges, y = merge_steps(curve.edges / plot.scale, plot.y_values(curve))
            item.setData(edges, y, stepMode="center")
            item.show()

    def overlay_steps(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(edges, values) of A's dashed curve in plot ``key`` as drawn, or ``None`` when hidden."""
        item = self.overlays[key]
        if not item.isVisible():
            return None
        x, y = item.getData()
        return np.asarray(x), np.asarray(y)

    def _on_pin_triggered(self) -> None:
        self.pin()

    def _on_bridge_result_changed(self, changed: frozenset[str]) -> None:
        self.refresh()

    def _on_mode_triggered(self, action: QAction) -> None:
        self._update_overlays()

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        if visible:
            self.refresh_table()

    def _on_gpu_dock_visibility_changed(self, visible: bool) -> None:
        if visible:
            self.refresh_gpus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.PaletteChange and watched is self.window.frame:
            self._apply_pen()
        return False
