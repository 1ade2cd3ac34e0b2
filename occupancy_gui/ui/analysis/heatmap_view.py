"""Heat maps: occupancy over block size × registers and block size × shared memory per block.

The current point is marked, the regions where one limit binds are outlined and named, and a click
on a cell moves the session's inputs there.  Items are created once; updates call ``setImage`` /
``setData``.  Installed by ``analysis.docks.install_analysis_docks``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QFontMetrics
from PySide6.QtWidgets import QWidget

from ... import units
from ...engine import (
    BINDING_ORDER,
    CANNOT_LAUNCH,
    NO_BLOCK_FITS,
    Limit,
    OccupancyError,
    grid_block_size_registers,
    grid_block_size_shared_memory,
)
from ...session import InputRefused, Session
from ..calculator.plots.plot_cell import PlotCell
from ..calculator.plots.plot_style import plot_style
from ..support.refresh import RefreshWhenVisible

if TYPE_CHECKING:
    from pyqtgraph.GraphicsScene.mouseEvents import MouseClickEvent


KIB = 1024.0
SHORT_NAMES = {
    Limit.WARPS: "warps",
    Limit.BLOCKS: "block slots",
    Limit.REGISTERS: "registers",
    Limit.SHARED_MEMORY: "shared memory",
    Limit.BARRIERS: "barriers",
    Limit.VIRTUAL_RESOURCES: "virtual",
}
REGION_CODES = (*range(len(BINDING_ORDER)), NO_BLOCK_FITS, CANNOT_LAUNCH)
"""``LimitGrid.binding`` codes in label order: each limit, then no block fits (resources), then cannot launch."""
REGION_NAMES = {
    **{i: SHORT_NAMES[limit] for i, limit in enumerate(BINDING_ORDER)},
    NO_BLOCK_FITS: "no block fits",
    CANNOT_LAUNCH: "cannot launch",
}
SMEM_MARGIN = 1.25
"""The shared memory map runs to this multiple of the largest launchable size (beyond it every launch fails)."""
MIN_LABELLED_SHARE = 0.03
"""Regions smaller than this share of the map are outlined but not named (the labels would pile up)."""
LABEL_TRIES = 400
"""Cells of a region tried for its name, nearest the centroid first."""


def boundary_segments(codes: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Line segments (as ``connect="pairs"`` x, y arrays) between cells of different code."""
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    i, j = np.nonzero(codes[1:, :] != codes[:-1, :])  # a vertical edge between columns i and i + 1
    xs.append(np.repeat(x_edges[i + 1], 2))
    ys.append(np.column_stack([y_edges[j], y_edges[j + 1]]).reshape(-1))
    i, j = np.nonzero(codes[:, 1:] != codes[:, :-1])  # a horizontal edge between rows j and j + 1
    xs.append(np.column_stack([x_edges[i], x_edges[i + 1]]).reshape(-1))
    ys.append(np.repeat(y_edges[j + 1], 2))
    return np.concatenate(xs).astype(np.float64), np.concatenate(ys).astype(np.float64)


class Grid(Protocol):
    """What a map draws: NVIDIA's ``LimitGrid`` or the AMD engine's ``AmdGrid`` (the same fields)."""

    @property
    def block_sizes(self) -> np.ndarray: ...
    @property
    def values(self) -> np.ndarray: ...
    @property
    def active_blocks(self) -> np.ndarray: ...
    @property
    def occupancy(self) -> np.ndarray: ...
    @property
    def binding(self) -> np.ndarray: ...


class HeatMap:
    """One map: image, region outlines, region names and the current-point marker, all created once.

    ``names`` names the grid's binding codes (NVIDIA's limits by default); :meth:`set_names` renames them (the AMD
    view switches between the runtime's limits and the compiler's), ``counts`` is what a cell counts."""

    def __init__(
        self, cell: PlotCell, y_labels: tuple[str, str], scale: float, names: Mapping[int, str] = REGION_NAMES
    ) -> None:
        self.cell, self.scale = cell, scale
        self.y_labels = y_labels
        """The y axis title, long and short: the long one where the plot is tall enough to hold it."""
        self.names: Mapping[int, str] = names
        self.counts: tuple[str, str | None] = ("block", None)
        self.x_words = "threads"
        self.grid: Grid | None = None
        self.launch_bound: int | None = None
        self.reqntid: int | None = None
        self.x_edges = self.y_edges = np.zeros(1)
        self._rect: tuple[float, ...] = ()
        cell.setLabel("bottom", "threads per block")
        cell.setLabel("left", y_labels[0])
        for name in ("left", "bottom"):
            cell.getAxis(name).enableAutoSIPrefix(False)
        cell.view.setDefaultPadding(0.0)
        # Cells that cannot launch are drawn as nothing over a hatched ground: unlike 0 % ones (no block fits).
        self.cannot_launch = pg.QtWidgets.QGraphicsRectItem(0.0, 0.0, 1.0, 1.0)
        self.cannot_launch.setZValue(-10)
        self.image = pg.ImageItem(axisOrder="col-major")
        self.outline = pg.PlotCurveItem(connect="pairs", antialias=False)
        self.marker = pg.ScatterPlotItem(size=13, symbol="o")
        self.codes = tuple(names)
        self.labels = [pg.TextItem(names[code], anchor=(0.5, 0.5)) for code in self.codes]
        cell.addItem(self.cannot_launch, ignoreBounds=True)
        for item in (self.image, self.outline, self.marker, *self.labels):
            cell.addItem(item)
        cell.view.sigResized.connect(self._on_view_resized)
        self.outline.setZValue(5)
        self.marker.setZValue(10)
        for label in self.labels:
            label.setZValue(8)

    def apply_style(self) -> None:
        style = plot_style()
        for name in ("left", "bottom"):
            self.cell.getAxis(name).setPen(style.foreground)
            self.cell.getAxis(name).setTextPen(style.foreground)
        self.outline.setPen(pg.mkPen("w", width=1.5))
        self.marker.setPen(pg.mkPen("w", width=2))
        self.marker.setBrush(style.current_brush)
        hatch = QBrush(style.disabled_text, Qt.BrushStyle.BDiagPattern)
        self.cannot_launch.setBrush(hatch)
        self.cannot_launch.setPen(pg.mkPen(None))
        for label in self.labels:
            label.setColor("w")
            label.fill = pg.mkBrush(0, 0, 0, 110)

    def set_names(self, names: Mapping[int, str], counts: tuple[str, str | None], x_label: str, x_words: str) -> None:
        """Name the binding codes ``names`` (at most as many as the map was made with), cells counting ``counts``
        over an x axis titled ``x_label`` (``x_words`` in a cell's description)."""
        self.names, self.counts, self.x_words = names, counts, x_words
        self.codes = tuple(names) + tuple(c for c in self.codes if c not in names)[: len(self.labels) - len(names)]
        for code, label in zip(self.codes, self.labels):
            text = names.get(code, "")
            if label.textItem.toPlainText() != text:
                label.setText(text)
        if self.cell.getAxis("bottom").labelText != x_label:
            self.cell.setLabel("bottom", x_label)

    def update(
        self, grid: Grid, current: tuple[float, float], launch_bound: int | None = None, reqntid: int | None = None
    ) -> None:
        self.grid = grid
        self.launch_bound, self.reqntid = launch_bound, reqntid  # rows that cannot launch: the hover says why
        step_x = float(grid.block_sizes[1] - grid.block_sizes[0]) if len(grid.block_sizes) > 1 else 1.0
        step_y = float(grid.values[1] - grid.values[0]) if len(grid.values) > 1 else 1.0
        # Cells are centred on block sizes; a shared memory column spans its allocation step (its top byte last).
        y0 = grid.values[0] - (step_y if self.scale != 1.0 else step_y / 2)
        self.x_edges = grid.block_sizes[0] - step_x / 2 + step_x * np.arange(len(grid.block_sizes) + 1)
        self.y_edges = (y0 + step_y * np.arange(len(grid.values) + 1)) / self.scale
        shown = np.where(grid.binding == CANNOT_LAUNCH, np.nan, grid.occupancy * 100.0)  # NaN: transparent
        self.image.setImage(shown, autoLevels=False, levels=(0.0, 100.0))
        rect = tuple(
            float(v)
            for v in (
                self.x_edges[0],
                self.y_edges[0],
                self.x_edges[-1] - self.x_edges[0],
                self.y_edges[-1] - self.y_edges[0],
            )
        )
        self.image.setRect(*rect)
        self.cannot_launch.setRect(*rect)
        if rect != self._rect:  # the span changes only with the device or the static size
            self._rect = rect
            self.cell.view.setRange(
                xRange=(rect[0], rect[0] + rect[2]), yRange=(rect[1], rect[1] + rect[3]), padding=0.0
            )
        self.outline.setData(*boundary_segments(grid.binding, self.x_edges, self.y_edges))
        self.marker.setData([current[0]], [current[1] / self.scale])
        self._place_labels(grid)

    def _place_labels(self, grid: Grid) -> None:
        """Name each region large enough where its name fits whole: on the region's cell nearest its centroid whose
        label lies inside the map and clear of the marker and the other names; a region with no such cell is
        outlined but not named (hovering it tells)."""
        codes = grid.binding
        vb = self.cell.view
        if vb.width() <= 0 or vb.height() <= 0:
            return
        area = vb.sceneBoundingRect()
        marker = (
            vb.mapViewToScene(QPointF(float(self.marker.data["x"][0]), float(self.marker.data["y"][0])))
            if len(self.marker.data)
            else None
        )
        taken = [QRectF(marker.x() - 8, marker.y() - 8, 16, 16)] if marker is not None else []
        for code, label in zip(self.codes, self.labels):
            i, j = np.nonzero(codes == code)
            if code not in self.names or i.size < MIN_LABELLED_SHARE * codes.size:
                label.hide()
                continue
            near = np.argsort((i - i.mean()) ** 2 / codes.shape[0] ** 2 + (j - j.mean()) ** 2 / codes.shape[1] ** 2)
            w, h = label.boundingRect().width(), label.boundingRect().height()
            spot = None
            for k in near[:LABEL_TRIES]:
                x = (self.x_edges[i[k]] + self.x_edges[i[k] + 1]) / 2
                y = (self.y_edges[j[k]] + self.y_edges[j[k] + 1]) / 2
                centre = vb.mapViewToScene(QPointF(x, y))
                rect = QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h)
                if area.contains(rect) and not any(rect.intersects(t) for t in taken):
                    spot = (x, y, rect)
                    break
            label.setVisible(spot is not None)
            if spot is not None:
                label.setPos(spot[0], spot[1])
                taken.append(spot[2])

    def _on_view_resized(self) -> None:
        self.fit_axis_label()
        if self.grid is not None:
            self._place_labels(self.grid)

    def fit_axis_label(self) -> None:
        """The y axis title, long where the plot is tall enough to hold it, else short."""
        vb = self.cell.view
        long_label, short_label = self.y_labels
        fits = QFontMetrics(self.cell.getAxis("left").label.font()).horizontalAdvance(long_label) <= vb.height()
        wanted = long_label if fits else short_label
        if self.cell.getAxis("left").labelText != wanted:
            self.cell.setLabel("left", wanted)

    def cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        """(block size, column value) of the cell at view position ``pos``, or ``None`` outside the map."""
        if self.grid is None:
            return None
        i = int(np.searchsorted(self.x_edges, pos.x(), side="right") - 1)
        j = int(np.searchsorted(self.y_edges, pos.y(), side="right") - 1)
        if not (0 <= i < len(self.grid.block_sizes) and 0 <= j < len(self.grid.values)):
            return None
        return int(self.grid.block_sizes[i]), int(self.grid.values[j])

    def describe(self, pos: QPointF, unit: str) -> str | None:
        found = self.cell_at(pos)
        if found is None or self.grid is None:
            return None
        i = int(np.searchsorted(self.grid.block_sizes, found[0]))
        j = int(np.searchsorted(self.grid.values, found[1]))
        code = int(self.grid.binding[i, j])
        where = f"{found[0]} {self.x_words} · {found[1]} {unit}"
        if code == CANNOT_LAUNCH and self.reqntid is not None and found[0] != self.reqntid:
            return f"{where}\ncannot launch: the kernel requires exactly {self.reqntid} threads per block (.reqntid)"
        if code == CANNOT_LAUNCH and self.launch_bound is not None:
            return f"{where}\ncannot launch: above the kernel's launch bound of {self.launch_bound}"
        return (
            f"{where}\n{units.count(int(self.grid.active_blocks[i, j]), *self.counts)} · "
            f"{self.grid.occupancy[i, j] * 100:.4g} % · limited by {self.names.get(code, '?')}\n"
            "click to use these inputs"
        )


def map_at(maps: tuple[HeatMap, ...], scene_pos: QPointF) -> tuple[HeatMap, QPointF] | None:
    """The heat map under ``scene_pos`` (a click or hover in the dock's scene) and the point in its data."""
    for heat_map in maps:
        view = heat_map.cell.view
        if view.sceneBoundingRect().contains(scene_pos):
            return heat_map, view.mapSceneToView(scene_pos)
    return None


class HeatmapView(RefreshWhenVisible, pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph is untyped
    """Both maps and one colour bar; a click moves ``threads`` and ``registers`` / ``dynamic_smem``."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._dirty = True
        self.setBackground(plot_style().background)
        self.ci.layout.setSpacing(6)
        self.registers = HeatMap(PlotCell(self.ci, 0, 0), ("registers per thread", "registers"), 1.0)
        self.shared_memory = HeatMap(PlotCell(self.ci, 0, 1), ("shared memory per block (KiB)", "smem (KiB)"), KIB)
        self.color_bar = pg.ColorBarItem(
            values=(0, 100), colorMap=pg.colormap.get("viridis"), label="occupancy (%)", interactive=False, width=14
        )
        self.color_bar.setImageItem([self.registers.image, self.shared_memory.image])
        self.color_bar.getAxis("right").enableAutoSIPrefix(False)
        self.ci.addItem(self.color_bar, row=0, col=2)
        for heat_map in (self.registers, self.shared_memory):
            heat_map.apply_style()
        self.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        self.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self.setMinimumHeight(100)  # the bottom docks must fit a 1024×700 window with the results, with room
        self.refresh()

    def refresh(self) -> None:
        self._dirty = False
        s = self.session
        i = s.inputs
        try:
            by_regs = grid_block_size_registers(s.device, s.function_attributes, s.launch, s.device_state)
            upto = int((i.static_smem + s.resolved_max_dynamic_smem) * SMEM_MARGIN) + 1
            by_smem = grid_block_size_shared_memory(s.device, s.function_attributes, s.launch, s.device_state, upto)
        except OccupancyError:
            return  # the summary's banner says why; the maps keep their last picture
        bound, required = i.max_threads_per_block, i.required_block_size
        self.registers.update(by_regs, (i.threads, i.registers), bound, required)
        self.shared_memory.update(by_smem, (i.threads, i.static_smem + i.dynamic_smem), bound, required)

    def _hit(self, scene_pos: QPointF) -> tuple[HeatMap, QPointF] | None:
        return map_at((self.registers, self.shared_memory), scene_pos)

    def _on_scene_mouse_clicked(self, event: MouseClickEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self._hit(event.scenePos())
        found = hit[0].cell_at(hit[1]) if hit else None
        if hit is None or found is None:
            return
        threads, value = found
        try:
            if hit[0] is self.registers:
                self.session.replace(threads=threads, registers=value)
            else:
                self.session.replace(threads=threads, dynamic_smem=max(0, value - self.session.inputs.static_smem))
        except InputRefused:
            pass  # a block size that cannot launch: its tooltip says why, and the inputs stay
        event.accept()

    def _on_scene_mouse_moved(self, pos: QPointF) -> None:
        hit = self._hit(pos)
        text = hit[0].describe(hit[1], "registers" if hit[0] is self.registers else "B") if hit else None
        self.setToolTip(text or "")
