"""Heat maps on an AMD device: occupancy over block size × VGPRs and block size × LDS per workgroup, by the HIP
runtime's rule or, chosen above the maps, the compiler model's (LLVM).

The runtime's maps have the launched block as rows; the compiler model's have the kernel's maximum flat workgroup
size (its launch bound), since LLVM sizes a kernel for that and never sees the block launched, and it counts static
LDS only: the note above the maps says so while the compiler model is shown.  Every cell is the AMD engine's
(``engine.amd`` grids, checked cell by cell against its scalar rules).  The compiler's maps depend on the kernel
alone, so they are kept while only the launch (block, dynamic LDS) changes.  A click moves the session's inputs to
the cell: block and VGPRs, or block and dynamic LDS (the runtime's), or launch bound and VGPRs / static LDS (the
compiler's).  Items are created once (``HeatMap``), as on NVIDIA devices.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ...engine.amd import (
    FAILS,
    NO_BLOCK_FITS,
    AmdDevice,
    AmdGrid,
    AmdInputError,
    AmdKernel,
    compiler_grid_lds,
    compiler_grid_vgprs,
    hip_grid_lds,
    hip_grid_vgprs,
)
from ...session import InputRefused, Session
from ..calculator.plots.plot_cell import PlotCell
from ..calculator.plots.plot_style import plot_style
from ..support.qt_utils import signals_blocked
from ..support.refresh import RefreshWhenVisible
from .heatmap_view import KIB, SMEM_MARGIN, HeatMap, map_at

if TYPE_CHECKING:
    from pyqtgraph.GraphicsScene.mouseEvents import MouseClickEvent

RULES = ("HIP runtime", "Compiler model (LLVM)")
HIP_NAMES = {
    0: "workgroup size",
    1: "wave slots",
    2: "VGPRs",
    3: "SGPRs",
    4: "LDS",
    NO_BLOCK_FITS: "no block fits",
    FAILS: "runtime error",
}
"""The runtime's binding codes (``HIP_LIMITS`` order) as the maps name them."""
COMPILER_NAMES = {
    0: "wave cap",
    1: "workgroup slots",
    2: "LDS",
    3: "VGPRs",
    4: "SGPRs",
    5: "waves per EU",
    NO_BLOCK_FITS: "no wave fits",
}
"""The compiler model's binding codes (``COMPILER_LIMITS`` order)."""
COMPILER_NOTE = (
    "Compiler model: rows are the kernel's maximum flat workgroup size (its launch bound), not the block "
    "launched; it counts static LDS only (dynamic LDS is not known when LLVM compiles)."
)


class AmdHeatmapView(RefreshWhenVisible, QWidget):
    """Both maps for the session's AMD question, by the rule chosen in ``rule``."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("amd_heatmap")
        self.session = session
        self._dirty = True
        self._compiler_key: tuple[AmdDevice, AmdKernel, int] | None = None
        self._compiler_grids: tuple[AmdGrid, AmdGrid] | None = None
        self.rule = QComboBox(self)
        self.rule.addItems(RULES)
        self.rule.setToolTip(
            "Whose answer the maps show: the HIP runtime's (hipOccupancyMaxActiveBlocksPerMultiprocessor)"
            "\nor the compiler's (LLVM's ; Occupancy, waves per SIMD)"
        )
        self.note = QLabel(self)
        self.note.setObjectName("amd_heatmap_note")
        self.note.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Rule:", self))
        top.addWidget(self.rule)
        top.addWidget(self.note, 1)
        self.plots = pg.GraphicsLayoutWidget(self)
        self.plots.setBackground(plot_style().background)
        self.plots.ci.layout.setSpacing(6)
        self.vgprs = HeatMap(PlotCell(self.plots.ci, 0, 0), ("VGPRs per lane", "VGPRs"), 1.0, HIP_NAMES)
        self.lds = HeatMap(PlotCell(self.plots.ci, 0, 1), ("LDS per workgroup (KiB)", "KiB"), KIB, HIP_NAMES)
        self.color_bar = pg.ColorBarItem(
            values=(0, 100), colorMap=pg.colormap.get("viridis"), label="occupancy (%)", interactive=False, width=14
        )
        self.color_bar.setImageItem([self.vgprs.image, self.lds.image])
        self.color_bar.getAxis("right").enableAutoSIPrefix(False)
        self.plots.ci.addItem(self.color_bar, row=0, col=2)
        for heat_map in (self.vgprs, self.lds):
            heat_map.apply_style()
            heat_map.set_names(HIP_NAMES, ("block", None), "threads per block", "threads")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(top)
        column.addWidget(self.plots, 1)
        self.plots.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        self.plots.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self.rule.currentIndexChanged.connect(self._on_rule_changed)
        self.plots.setMinimumHeight(100)  # as NVIDIA's: the bottom docks must fit a 1024×700 window
        self.refresh()

    @property
    def compiler(self) -> bool:
        return self.rule.currentIndex() == 1

    def grids(self) -> tuple[AmdGrid, AmdGrid] | None:
        """(VGPR map, LDS map) for the session's question by the chosen rule; ``None`` without an answer."""
        state = self.session.amd
        result = state.answer if state is not None else None
        if result is None:
            return None
        device, kernel, launch = result.device, result.kernel, result.launch
        pool = device.target.lds_per_workgroup
        if not self.compiler:
            upto = int(max(pool, kernel.static_lds + launch.dynamic_lds) * SMEM_MARGIN)
            return hip_grid_vgprs(device, kernel, launch), hip_grid_lds(device, kernel, upto)
        upto = int(max(pool, kernel.static_lds) * SMEM_MARGIN)
        key = (device, kernel, upto)
        if key != self._compiler_key or self._compiler_grids is None:
            self._compiler_grids = compiler_grid_vgprs(device, kernel), compiler_grid_lds(device, kernel, upto)
            self._compiler_key = key
        return self._compiler_grids

    def refresh(self) -> None:
        self._dirty = False
        try:
            grids = self.grids()
        except AmdInputError:
            grids = None
        state = self.session.amd
        if grids is None or state is None or state.answer is None:
            return  # the answer card says why; the maps keep their last picture
        result = state.answer
        kernel = result.kernel
        if self.compiler:
            x = kernel.flat_workgroup_sizes(result.device.target)[1]
            self.vgprs.update(grids[0], (x, kernel.vgprs))
            self.lds.update(grids[1], (x, kernel.static_lds))
        else:
            x = result.launch.threads_per_block
            self.vgprs.update(grids[0], (x, kernel.vgprs))
            self.lds.update(grids[1], (x, kernel.static_lds + result.launch.dynamic_lds))

    def _on_rule_changed(self) -> None:
        names, counts = (
            (COMPILER_NAMES, ("wave per SIMD", "waves per SIMD")) if self.compiler else (HIP_NAMES, ("block", None))
        )
        x_label, x_words = (
            ("max flat workgroup size", "max workgroup") if self.compiler else ("threads per block", "threads")
        )
        for heat_map in (self.vgprs, self.lds):
            heat_map.set_names(names, counts, x_label, x_words)
        self.lds.y_labels = (
            ("static LDS per workgroup (KiB)", "KiB") if self.compiler else ("LDS per workgroup (KiB)", "KiB")
        )
        self.lds.fit_axis_label()
        text = COMPILER_NOTE if self.compiler else ""
        if self.note.text() != text:
            self.note.setText(text)
        self.refresh()

    def set_rule(self, compiler: bool) -> None:
        """Show the compiler model's maps (``True``) or the runtime's, as the combo box does."""
        with signals_blocked(self.rule):
            self.rule.setCurrentIndex(1 if compiler else 0)
        self._on_rule_changed()

    def _hit(self, scene_pos: QPointF) -> tuple[HeatMap, QPointF] | None:
        return map_at((self.vgprs, self.lds), scene_pos)

    def _on_scene_mouse_clicked(self, event: MouseClickEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self._hit(event.scenePos())
        found = hit[0].cell_at(hit[1]) if hit else None
        if hit is None or found is None:
            return
        self.choose(hit[0] is self.vgprs, *found)
        event.accept()

    def choose(self, vgpr_map: bool, x: int, value: int) -> None:
        """Move the session's inputs to a cell of the VGPR map (``vgpr_map``) or of the LDS map."""
        if self.compiler:
            changes = {"max_flat_workgroup_size": x, "vgprs" if vgpr_map else "lds": value}
        elif vgpr_map:
            changes = {"threads": x, "vgprs": value}
        else:
            changes = {"threads": x, "dynamic_smem": max(0, value - self.session.inputs.lds)}
        with contextlib.suppress(InputRefused):  # an input the target refuses: the inputs stay
            self.session.replace(**changes)

    def _on_scene_mouse_moved(self, pos: QPointF) -> None:
        hit = self._hit(pos)
        text = hit[0].describe(hit[1], "VGPRs" if hit[0] is self.vgprs else "B") if hit else None
        self.plots.setToolTip(text or "")
