"""The main window: the composition root of panels, table, plots and features; menus; title; geometry.

Every feature (compare, session files, analysis docks, the kernel table, GPU detection) is built here,
in the order they depend on each other, held as a typed attribute, and sees the window only as the
:class:`~.window_api.WindowApi` protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QScrollArea, QSplitter, QToolBar, QVBoxLayout, QWidget

from ..fields import AMD, NVIDIA
from ..session import Session
from .analysis.docks import install_analysis_docks
from .analysis.gpu_data_dock import install_gpu_data_dock
from .analysis.utilization_dock import install_utilization_dock
from .calculator.constraint_model import ConstraintTableModel
from .calculator.constraint_view import ConstraintTableView
from .calculator.device_panel import DevicePanel
from .calculator.kernel_panel import KernelPanel
from .calculator.plots.plot_area import PlotArea
from .calculator.plots.plot_grid import PlotGrid
from .calculator.plots.step_plot import PERCENT, WARPS
from .calculator.summary_panel import SummaryPanel
from .compare.compare_view import CompareView
from .detect.detect_action import DetectGpuAction, install_detect_action
from .help.about import AboutDialog
from .help.help_menu import TourTargets, install_help
from .kernels.import_dock import install_import_panel
from .kernels.import_panel import ImportPanel
from .session_files.history_actions import HistoryActions, install_history_actions
from .session_files.session_io import UNTITLED, SessionIO
from .source.source_dock import install_source_view
from .support.fit_scroll import FitScrollWidth
from .support.qt_utils import app_icon, icon
from .support.quantity import ErrorLabel
from .support.session_bridge import SessionBridge
from .support.settings import forget_inputs, save_inputs
from .support.wheel_guard import install_wheel_guard
from .support.window_layout import install_window_layout

if TYPE_CHECKING:
    from .calculator.amd_calculator import AmdCalculator

TITLE = "Occupancy calculator"


class MainWindow(QMainWindow):
    """Everything on one screen; results follow every committed input change (no Calculate button).

    Parameters
    ----------
    session
        The view-model; the window binds to it and never computes anything itself.
    settings
        Where geometry, layout and last inputs are saved on close; ``None`` saves nothing.
    """

    def __init__(self, session: Session, settings: QSettings | None = None) -> None:
        super().__init__()
        self.session = session
        self.settings = settings
        self._document = (UNTITLED, False)
        self.setWindowIcon(app_icon())
        app = QApplication.instance()
        if isinstance(app, QApplication):
            install_wheel_guard(app)  # the wheel edits a value only in the field that has the focus
        self.bridge = SessionBridge(session, self)
        self._build_inputs()
        self._build_results()
        self._build_central()
        self._build_actions()
        self._build_menus()
        self.bridge.resultChanged.connect(self._on_bridge_result_changed)
        self._show_vendor(session.vendor)
        self._build_features()
        self._update_title()
        self.resize(1400, 900)
        if settings is not None:
            self._restore_layout(settings)

    # ----------------------------------------------------------------------------- build
    def _build_inputs(self) -> None:
        self.device_panel = DevicePanel(self.session)
        self.kernel_panel = KernelPanel(self.session)
        self.amd: AmdCalculator | None = None
        """The AMD kernel panel, answer card and table: made the first time an AMD device is selected."""
        self.history: HistoryActions | None = None
        self.vendor = NVIDIA
        inputs = QWidget()
        self.inputs_layout = layout = QVBoxLayout(inputs)
        layout.addWidget(self.device_panel)
        layout.addWidget(self.kernel_panel)
        layout.addStretch(1)
        self.inputs_scroll = QScrollArea()
        self.inputs_scroll.setWidget(inputs)
        self.inputs_scroll.setWidgetResizable(True)
        self.inputs_width = FitScrollWidth(self.inputs_scroll)  # never cut at the side, whatever the notes say

    def _build_results(self) -> None:
        self.summary = SummaryPanel(self.session)
        self.table_model = ConstraintTableModel(self)
        self.table_model.set_result(self.session.result)
        self.table = ConstraintTableView(self.table_model)
        self.plots = PlotGrid(self.session)
        self.plot_area = PlotArea(self.plots)

    def _build_central(self) -> None:
        top = QWidget()
        self.results_layout = layout = QVBoxLayout(top)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        # Fixed heights above the plots: edits repaint contents but never re-lay out the window.
        self.table.setFixedHeight(self.table.fitting_height())
        self.results_splitter = QSplitter(Qt.Orientation.Vertical)
        self.results_splitter.addWidget(top)
        self.results_splitter.addWidget(self.plot_area)
        self.results_splitter.setStretchFactor(0, 0)
        self.results_splitter.setStretchFactor(1, 1)
        self.results_splitter.setChildrenCollapsible(False)
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.addWidget(self.inputs_scroll)
        self.main_splitter.addWidget(self.results_splitter)
        self.main_splitter.setStretchFactor(0, 0)
        self.main_splitter.setStretchFactor(1, 1)
        self.main_splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.main_splitter)
        self.main_splitter.setSizes([self.inputs_scroll.minimumWidth(), 1400])
        self.results_splitter.setSizes([top.sizeHint().height(), 1000])

    def _build_actions(self) -> None:
        self.quit_action = QAction(icon("quit"), "&Quit", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)
        self.copy_action = QAction(icon("copy"), "&Copy table", self)
        self.copy_action.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.copy_action.setToolTip("Copy the constraint table as tab-separated text (Ctrl+Shift+C)")
        self.copy_action.triggered.connect(self.copy_table)
        self.mode_group = QActionGroup(self)
        self.percent_action = QAction(icon("percent"), "Occupancy in &%", self, checkable=True, checked=True)
        self.percent_action.setShortcut(QKeySequence("Ctrl+1"))
        self.percent_action.setToolTip("Plot theoretical occupancy in percent (Ctrl+1)")
        self.warps_action = QAction(icon("warps"), "Active &warps", self, checkable=True)
        self.warps_action.setShortcut(QKeySequence("Ctrl+2"))
        self.warps_action.setToolTip("Plot active warps per SM (Ctrl+2)")
        for action in (self.percent_action, self.warps_action):
            self.mode_group.addAction(action)
        self.mode_group.triggered.connect(self._on_mode_triggered)
        self.one_plot_action = QAction("&One plot at a time", self, checkable=True)
        self.one_plot_action.setToolTip(
            "Show one step curve at a time, chosen by its tab, at full height "
            "(automatic where the window is too short for all four)"
        )
        self.one_plot_action.toggled.connect(self.plot_area.set_one_at_a_time)
        self.about_action = QAction(icon("about"), "&About", self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        toolbar = QToolBar("Main toolbar", self)
        toolbar.setObjectName("main_toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.setMovable(False)
        toolbar.addAction(self.percent_action)
        toolbar.addAction(self.warps_action)
        toolbar.addSeparator()
        toolbar.addAction(self.copy_action)
        self.addToolBar(toolbar)
        self.toolbar = toolbar

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.file_quit_separator = self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.edit_menu = bar.addMenu("&Edit")
        self.edit_menu.addAction(self.copy_action)
        self.view_menu = bar.addMenu("&View")
        self.view_menu.addAction(self.percent_action)
        self.view_menu.addAction(self.warps_action)
        self.view_menu.addAction(self.one_plot_action)
        self.view_menu.addSeparator()
        self.analysis_menu = bar.addMenu("A&nalysis")
        self.help_menu = bar.addMenu("&Help")
        self.help_menu.addAction(self.about_action)

    def _build_features(self) -> None:
        """The features, in the order they need: the import panel and compare exist before the session file
        handling (a session names a kernel and a pinned A); docks tab in the order they are added."""
        self.import_panel = ImportPanel(self, self.kernel_panel)
        self.compare = CompareView(self, self.plots, self.mode_group)
        self.session_io = SessionIO(self, self.compare, self.import_panel, self.plots)
        self.advisor_dock, self.heatmap_dock, self.waves_dock = install_analysis_docks(self)
        self.utilization_dock = install_utilization_dock(self)
        self.gpu_data_dock = install_gpu_data_dock(self)
        self.kernel_dock, self.import_action = install_import_panel(self, self.import_panel)
        self.source = install_source_view(self, self.import_panel, self.kernel_panel.set_origin_note)
        self.detect_gpu: DetectGpuAction = install_detect_action(self, self.device_panel)
        self.history = install_history_actions(self, self.kernel_panel.threads_slider)
        if self.amd is not None:
            self.history.watch_inputs(self.amd.panel, self.amd.panel.threads_slider)
        self.help = install_help(
            self, self.help_menu, TourTargets(self.inputs_scroll, self._tour_answer, self._tour_table, self.plot_area)
        )
        install_window_layout(self, self.analysis_menu)  # last: it sees every dock

    def _tour_answer(self) -> QWidget:
        """The answer card the tour points at: the selected vendor's."""
        return self.amd.summary if self.amd is not None and self.vendor == AMD else self.summary

    def _tour_table(self) -> QWidget:
        return self.amd.table if self.amd is not None and self.vendor == AMD else self.table

    # ----------------------------------------------------------------------------- WindowApi
    @property
    def frame(self) -> QMainWindow:
        return self

    def set_document(self, name: str, modified: bool) -> None:
        if (name, modified) != self._document:
            self._document = (name, modified)
            self._update_title()

    # ----------------------------------------------------------------------------- behaviour
    def _on_bridge_result_changed(self, changed: frozenset[str]) -> None:
        if self.session.vendor != self.vendor:
            self._show_vendor(self.session.vendor)
        self.device_panel.on_session_changed(changed)
        if self.amd is not None and self.vendor == AMD:
            self.amd.sync(changed)
        else:
            self.kernel_panel.on_session_changed(changed)
            self.summary.on_session_changed(changed)
            self.table_model.set_result(self.session.result)
        self.plots.on_session_changed(changed)
        if "device" in changed:
            self._update_title()

    def _show_vendor(self, vendor: str) -> None:
        """The calculator's widgets for ``vendor``'s devices: AMD's made the first time, the other's hidden."""
        amd = vendor == AMD
        if amd and self.amd is None:
            from .calculator.amd_calculator import AmdCalculator  # noqa: PLC0415 - lazy: an NVIDIA start loads no AMD

            self.amd = AmdCalculator(self.session, self)
            self.inputs_layout.insertWidget(self.inputs_layout.indexOf(self.kernel_panel) + 1, self.amd.panel)
            self.results_layout.insertWidget(self.results_layout.indexOf(self.summary) + 1, self.amd.summary)
            self.results_layout.insertWidget(self.results_layout.indexOf(self.table) + 1, self.amd.table)
            if self.history is not None:  # made after the window: its inputs join Undo / Redo now
                self.history.watch_inputs(self.amd.panel, self.amd.panel.threads_slider)
        self.vendor = vendor
        for widget in (self.kernel_panel, self.summary, self.table):
            widget.setVisible(not amd)
        for amd_widget in self.amd.widgets() if self.amd is not None else ():
            amd_widget.setVisible(amd)
        if not amd:  # caught up: they were not updated while an AMD device was selected
            self.kernel_panel.sync_from_session()
            self.summary.sync_from_session()
            self.table_model.set_result(self.session.result)
        elif self.amd is not None:
            self.amd.sync()
        self.warps_action.setText("Active &waves" if amd else "Active &warps")
        self.warps_action.setToolTip(
            "Plot active waves per CU or WGP (HIP's count; LLVM's waves per SIMD × SIMDs dashed) (Ctrl+2)"
            if amd
            else "Plot active warps per SM (Ctrl+2)"
        )

    def _update_title(self) -> None:
        """The one writer of the title: device, session file (``*`` when modified), application."""
        name, modified = self._document
        self.setWindowTitle(f"{self.session.inputs.device} — {name}{'*' if modified else ''} — {TITLE}")

    def _on_mode_triggered(self, action: QAction) -> None:
        self.set_plot_mode(WARPS if action is self.warps_action else PERCENT)

    def set_plot_mode(self, mode: str) -> None:
        """Switch every plot between occupancy in % and active warps."""
        (self.warps_action if mode == WARPS else self.percent_action).setChecked(True)
        self.plots.set_mode(mode)

    def copy_table(self) -> None:
        model = self.amd.table_model if self.amd is not None and self.vendor == AMD else self.table_model
        QGuiApplication.clipboard().setText(model.to_tsv())
        self.statusBar().showMessage("Constraint table copied as tab-separated text", 3000)

    def show_about(self) -> None:
        dialog = AboutDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        self.about_dialog = dialog

    # ----------------------------------------------------------------------------- persistence
    def _restore_layout(self, settings: QSettings) -> None:
        for key, restore in (
            ("geometry", self.restoreGeometry),
            ("window_state", self.restoreState),
            ("main_splitter", self.main_splitter.restoreState),
            ("results_splitter", self.results_splitter.restoreState),
        ):
            value = settings.value(f"window/{key}")
            if isinstance(value, QByteArray):
                restore(value)
        if settings.value("view/plot_mode") == WARPS:
            self.set_plot_mode(WARPS)
        if settings.value("view/one_plot") in (True, "true"):
            self.one_plot_action.setChecked(True)

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/window_state", self.saveState())
        settings.setValue("window/main_splitter", self.main_splitter.saveState())
        settings.setValue("window/results_splitter", self.results_splitter.saveState())
        settings.setValue("view/plot_mode", self.plots.mode)
        settings.setValue("view/one_plot", self.one_plot_action.isChecked())
        if self.session_io.discarded_at_quit:
            forget_inputs(settings)
        else:
            save_inputs(settings, self.session.inputs)
        settings.sync()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.PaletteChange:
            self.apply_palette()
        super().changeEvent(event)

    def apply_palette(self) -> None:
        """Follow a light/dark switch of the system palette in the colours set by hand."""
        self.plots.apply_style()
        self.summary.banner.apply_palette()
        for label in self.findChildren(ErrorLabel):
            label.apply_palette()
        self.table.viewport().update()  # binding rows: their colour is read at paint time

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        if self.settings is not None:
            self.save_settings(self.settings)
        self.bridge.detach()
        super().closeEvent(event)
