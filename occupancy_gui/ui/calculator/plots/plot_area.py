"""The plots' place in the window: all four when there is room, one at a time (with tabs) when not.

Each plot keeps at least :data:`MIN_PLOT_HEIGHT` pixels: a 2×2 grid where the area is tall enough
for two rows, four side by side where it is wide enough instead, otherwise one plot at a time with a
tab bar to choose it.  View → One plot at a time makes the single view the user's standing choice.
Rearranging moves the existing plot cells in the layout; no plot item is created again.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QTabBar, QVBoxLayout, QWidget

from ....fields import AMD
from .plot_grid import SWEEPS, PlotGrid

MIN_PLOT_HEIGHT = 180
"""Pixels a plot (axes included) needs to stay readable."""
MIN_PLOT_WIDTH = 240
MARGINS = 12
"""Pixels of the grid's margins and spacing around the plots, over their own height."""
GRID, ROW, SINGLE = "grid", "row", "single"
TAB_TITLES = {
    "threads": "Threads / block",
    "registers": "Registers",
    "shared_memory": "Shared memory",
    "barriers": "Barriers",
}
AMD_TAB_TITLES = {"threads": "Threads / block", "registers": "VGPRs", "shared_memory": "LDS"}
AMD_LEGEND = "Filled: HIP runtime · dashed: LLVM"


def arrangement_for(width: int, height: int, one_at_a_time: bool, plots: int = 4) -> str:
    """How ``plots`` plots fit in ``width`` × ``height`` pixels, each at least the minimum size."""
    if one_at_a_time:
        return SINGLE
    if height >= 2 * MIN_PLOT_HEIGHT + MARGINS and width >= 2 * MIN_PLOT_WIDTH:
        return GRID
    if width >= plots * MIN_PLOT_WIDTH and height >= MIN_PLOT_HEIGHT + MARGINS:
        return ROW
    return SINGLE


class PlotArea(QWidget):
    """The :class:`PlotGrid` and the tab bar that picks the plot shown alone."""

    arrangementChanged = Signal(str)

    def __init__(self, plots: PlotGrid, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plots = plots
        self.one_at_a_time = False
        self.arrangement = GRID
        self.tabs = QTabBar(self)
        self.tabs.setObjectName("plot_tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setExpanding(False)
        for key, *_rest in SWEEPS:
            self.tabs.addTab(TAB_TITLES[key])
        self.tabs.setToolTip(
            "One plot at a time: the window is too short for all four at a readable size\n"
            "(or View → One plot at a time is ticked)."
        )
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.tabs.hide()
        self.legend = QLabel(AMD_LEGEND, self)
        self.legend.setObjectName("amd_plot_legend")
        self.legend.setToolTip(
            "On an AMD device each plot shows both answers over the same input: the HIP runtime's "
            "curve filled,\nthe compiler model's (LLVM's '; Occupancy') dashed."
        )
        self.legend.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        top = QHBoxLayout()  # the legend beside the tabs: on a short screen the plots keep every pixel
        top.setContentsMargins(0, 0, 6, 0)
        top.addWidget(self.tabs)
        top.addStretch(1)
        top.addWidget(self.legend)
        layout.addLayout(top)
        layout.addWidget(plots, 1)
        plots.vendorChanged.connect(self._on_plots_vendor_changed)
        if plots.hidden:  # a window opened on an AMD device: the grid switched vendor before this area listened
            self._on_plots_vendor_changed(plots.vendor)
        _left, top, _right, bottom = plots.ci.layout.getContentsMargins()
        plots.setMinimumHeight(MIN_PLOT_HEIGHT + int(top + bottom))  # the plot itself, axes included, keeps 180 px
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        legend = 0 if self.legend.isHidden() else self.legend.sizeHint().height()
        return QSize(MIN_PLOT_WIDTH, self.plots.minimumHeight() + max(self.tabs.sizeHint().height(), legend))

    @property
    def shown_key(self) -> str:
        return SWEEPS[max(0, self.tabs.currentIndex())][0]

    def set_one_at_a_time(self, on: bool) -> None:
        self.one_at_a_time = on
        self._arrange()

    def show_plot(self, key: str) -> None:
        """Bring ``key`` to the front where one plot is shown at a time."""
        self.tabs.setCurrentIndex([k for k, *_ in SWEEPS].index(key))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._arrange()

    def _on_plots_vendor_changed(self, vendor: str) -> None:
        amd = vendor == AMD
        for i, (key, *_rest) in enumerate(SWEEPS):
            self.tabs.setTabText(i, AMD_TAB_TITLES.get(key, TAB_TITLES[key]) if amd else TAB_TITLES[key])
            self.tabs.setTabVisible(i, key not in self.plots.hidden)
        if self.shown_key in self.plots.hidden:
            self.tabs.setCurrentIndex(0)
        self.legend.setVisible(amd)
        self.updateGeometry()  # its minimum height counts the legend
        self.arrangement = ""  # the same size may want another arrangement, and the cells must move anyway
        self._arrange()

    def _arrange(self) -> None:
        shown = len(SWEEPS) - len(self.plots.hidden)
        wanted = arrangement_for(
            self.width(),
            self.height() - self.legend.sizeHint().height() * (not self.legend.isHidden()),
            self.one_at_a_time,
            shown,
        )
        # (in the single arrangement the legend shares the tabs' row; elsewhere it takes a row of its own)
        if wanted == self.arrangement and (wanted != SINGLE or self.tabs.isVisible()):
            return
        self.arrangement = wanted
        self.tabs.setVisible(wanted == SINGLE)
        self.plots.arrange(wanted, self.shown_key)
        self.arrangementChanged.emit(wanted)

    def _on_tabs_current_changed(self, _index: int) -> None:
        if self.arrangement == SINGLE:
            self.plots.arrange(SINGLE, self.shown_key)
