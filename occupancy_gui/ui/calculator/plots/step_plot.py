"""``StepCurvePlot``: one sweep drawn as a step curve, its items created once and updated by setData."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem

from .... import units
from ....engine import Cliff, StepCurve
from .plot_cell import PlotCell
from .plot_style import PlotStyle

PERCENT, WARPS = "percent", "warps"
KIB = 1024.0
LABEL_MARGIN_PX = 2
"""Room kept between a cliff label above its point and the top of the plot."""
CURRENT_CLEARANCE_PX = 7
"""Half the side of the square around the current point that no label may cover (its dot is 10 px wide)."""
FloatArray = npt.NDArray[np.float64]


def merge_steps(edges: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The same step function with runs of equal values merged (``len(edges) == len(y) + 1`` kept).

    A sweep samples every block size or register count, but occupancy changes at a few dozen of
    them; drawing only the changes makes each repaint far cheaper and looks identical.
    """
    starts = np.flatnonzero(np.concatenate(([True], y[1:] != y[:-1])))
    return np.concatenate((edges[starts], edges[-1:])), y[starts]


class Marker(QGraphicsEllipseItem):
    """A dot of fixed pixel size at a data position (much lighter than a ScatterPlotItem)."""

    def __init__(self, diameter: float) -> None:
        super().__init__(QRectF(-diameter / 2, -diameter / 2, diameter, diameter))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setZValue(10)

    def set_style(self, pen: QPen, brush: QBrush) -> None:
        self.setPen(pen)
        self.setBrush(brush)


class StepCurvePlot:
    """Occupancy (or active warps) against one input.

    Parameters
    ----------
    plot
        The cell of the plot grid to draw into.
    key
        The sweep: ``"threads"``, ``"registers"``, ``"shared_memory"`` or ``"barriers"``.
    label, unit, scale
        Axis label, unit word for hover text, and divisor of x (1024 shows bytes as KiB).
    """

    def __init__(self, plot: PlotCell, key: str, label: str, unit: str, style: PlotStyle, scale: float = 1.0) -> None:
        self.plot, self.key, self.unit, self.scale = plot, key, unit, scale
        self.curve_model: StepCurve | None = None
        self.mode, self.max_warps = PERCENT, 64
        self.count_word = "warp"
        """What the y axis counts in the warps mode ("wave" on an AMD device)."""
        self.hover_extra: Callable[[int], str] | None = None
        """More lines for the hover text at a swept value (the compiler's answer on an AMD device)."""
        self._shown: tuple[FloatArray, FloatArray] | None = None
        self._x_range: tuple[float, float] | None = None
        self._visible = True
        self._labels_placed_for: tuple[object, ...] = ()
        self._placed: dict[pg.TextItem, tuple[bool, tuple[float, float]]] = {}
        """Each cliff label's place for :attr:`_labels_placed_for`: shown or not, and its anchor."""
        self._build_axes(label, style)
        self._build_items(style)
        self.set_mode(PERCENT, 64)

    def _build_axes(self, label: str, style: PlotStyle) -> None:
        plot = self.plot
        plot.setLabel("bottom", label)
        for name in ("left", "bottom"):
            axis = plot.getAxis(name)
            axis.enableAutoSIPrefix(False)
            # Axes change only with the device or the unit; caching them as pixmaps spares replaying
            # their tick text and grid on every repaint of the curves.
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            axis.label.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        vb = plot.getViewBox()
        vb.disableAutoRange()
        vb.setDefaultPadding(0.0)
        vb.sigResized.connect(self._on_view_resized)

    def _build_items(self, style: PlotStyle) -> None:
        self.curve = pg.PlotCurveItem(
            np.array([0.0, 1.0]), np.array([0.0]), stepMode="center", fillLevel=0.0, antialias=False
        )
        self.current_line = pg.InfiniteLine(angle=90, movable=False)
        self.current_point = Marker(10)
        self.cliff_markers = (Marker(9), Marker(9))
        self.cliff_above = pg.TextItem("", anchor=(0.0, 1.0))
        self.cliff_below = pg.TextItem("", anchor=(1.0, 1.0))
        self.hover_text = pg.TextItem("", anchor=(0.0, 0.0))
        self.hover_point = Marker(7)
        self.message = pg.TextItem("", anchor=(0.5, 0.5))
        # Block sizes that cannot launch (above the kernel's launch bound, or off its required size):
        # shaded, labelled, and 0 on the curve.  ``cannot_launch_below`` is the part under a required size.
        self.cannot_launch = pg.LinearRegionItem((0.0, 1.0), movable=False)
        self.cannot_launch_below = pg.LinearRegionItem((0.0, 1.0), movable=False)
        self.cannot_launch_text = pg.TextItem("cannot launch", anchor=(0.0, 0.0))
        for region in (self.cannot_launch, self.cannot_launch_below):
            region.setZValue(-5)
        for item in (self.cannot_launch, self.cannot_launch_below, self.cannot_launch_text):
            self.plot.addItem(item, ignoreBounds=True)
            item.hide()
        for item in (
            self.curve,
            self.current_line,
            *self.cliff_markers,
            self.current_point,
            self.cliff_above,
            self.cliff_below,
            self.hover_point,
            self.hover_text,
            self.message,
        ):
            self.plot.addItem(item, ignoreBounds=True)
        self.hover_text.setZValue(20)
        self.hover_point.setZValue(19)
        for item in (self.hover_text, self.hover_point, self.message):
            item.hide()
        self.apply_style(style)

    def apply_style(self, style: PlotStyle) -> None:
        """Colour every item from ``style`` (at start and when the system palette changes)."""
        self.plot.showGrid(alpha=style.grid_alpha)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(style.foreground)
            axis.setTextPen(style.foreground)
        self.curve.setPen(style.curve_pen)
        self.curve.setBrush(style.curve_brush)
        self.current_line.setPen(style.current_pen)
        for region in (self.cannot_launch, self.cannot_launch_below):
            region.setBrush(style.cannot_launch_brush)
            for line in region.lines:
                line.setPen(pg.mkPen(None))
        self.cannot_launch_text.setColor(style.disabled_text)
        self.current_point.set_style(pg.mkPen(style.background, width=1.5), style.current_brush)
        for marker in self.cliff_markers:
            marker.set_style(style.cliff_pen, style.cliff_brush)
        self.hover_point.set_style(pg.mkPen(style.foreground), style.cliff_brush)
        for text, color, fill, border in (
            (self.cliff_above, style.cliff_text, style.label_fill, None),
            (self.cliff_below, style.cliff_text, style.label_fill, None),
            (self.hover_text, style.hover_text, style.hover_fill, style.foreground),
            (self.message, style.disabled_text, None, None),
        ):
            text.setColor(color)
            text.fill = pg.mkBrush(fill)
            text.border = pg.mkPen(border)
            text.update()

    # ----------------------------------------------------------------------------- data
    def y_values(self, curve: StepCurve) -> FloatArray:
        return curve.occupancy * 100.0 if self.mode == PERCENT else curve.active_warps.astype(np.float64)

    def y_of(self, occupancy: float) -> float:
        # Occupancy is warps / max warps exactly, so the warp count follows from it.
        return occupancy * 100.0 if self.mode == PERCENT else float(round(occupancy * self.max_warps))

    def set_mode(self, mode: str, max_warps: int) -> None:
        """Show occupancy in % or active warps (y range fixed for the mode)."""
        self.mode, self.max_warps = mode, max_warps
        if mode == PERCENT:
            self.plot.setLabel("left", "occupancy (%)")
            self.plot.getAxis("left").setTicks([[(v, str(v)) for v in range(0, 101, 25)]])
            top = 100.0
        else:
            self.plot.setLabel("left", f"active {self.count_word}s")
            step = max(1, max_warps // 4)
            self.plot.getAxis("left").setTicks([[(v, str(v)) for v in range(0, max_warps + 1, step)]])
            top = float(max_warps)
        self.plot.getViewBox().setYRange(-0.03 * top, top * 1.1, padding=0.0)
        self._centre_message()
        self._shown = None  # force a redraw of the curve in the new unit
        if self.curve_model is not None:
            self.update(self.curve_model)

    def update(self, curve: StepCurve | None, message: str = "") -> None:
        """Show ``curve`` (or ``message`` instead of a curve)."""
        self.curve_model = curve
        if curve is None:
            self._set_visible(False)
            if self._x_range is None:  # never had a curve: a neutral span rather than pyqtgraph's 0..1
                self._x_range = (0.0, 32.0)
                self.plot.getViewBox().setXRange(*self._x_range, padding=0.0)
            self.message.setText(message)
            self._centre_message()
            self.message.show()
            return
        self.message.hide()
        self._set_visible(True)
        edges, y = merge_steps(curve.edges / self.scale, self.y_values(curve))
        # The x range starts at 0 whatever the curve's first sample (shared memory starts at the static
        # size), so that it changes only with the device and the cached axes stay valid.
        x_range = (min(0.0, float(edges[0])), float(edges[-1]))
        if x_range != self._x_range:
            self._x_range = x_range
            self.plot.getViewBox().setXRange(*x_range, padding=0.0)
        if self._shown is None or not (np.array_equal(self._shown[0], edges) and np.array_equal(self._shown[1], y)):
            self.curve.setData(edges, y, stepMode="center")
            self._shown = (edges, y)
        self._show_launch_bound(curve)
        x_now = curve.current_x / self.scale
        y_now = float(self.y_values(curve)[curve.index_of(curve.current_x)])
        self.current_line.setValue(x_now)
        self.current_point.setPos(x_now, y_now)
        self._show_cliffs(curve.cliff_above(), curve.cliff_below())

    def _show_launch_bound(self, curve: StepCurve) -> None:
        bound, required = curve.launch_bound, curve.reqntid
        top = required if required is not None else bound
        shown = top is not None and self._visible
        if shown:
            assert top is not None
            span = ((top + 0.5) / self.scale, float(curve.edges[-1]) / self.scale)
            words = (
                f"cannot launch\n(≠ {required} threads)"
                if required is not None
                else f"cannot launch\n(> {bound} threads)"
            )
            if self.cannot_launch.getRegion() != span or self.cannot_launch_text.textItem.toPlainText() != words:
                self.cannot_launch.setRegion(span)
                self.cannot_launch_text.setText(words)
                (_, _), (y0, y1) = self.plot.getViewBox().viewRange()
                # At the bound, half way up: the cliff labels sit by the curve at the top and the bottom.
                self.cannot_launch_text.setPos(span[0], y0 + 0.6 * (y1 - y0))
            below = (float(curve.edges[0]) / self.scale, (top - 0.5) / self.scale)
            if required is not None and self.cannot_launch_below.getRegion() != below:
                self.cannot_launch_below.setRegion(below)
        if self.cannot_launch.isVisible() != shown:
            self.cannot_launch.setVisible(shown)
            self.cannot_launch_text.setVisible(shown)
        below_shown = shown and required is not None and required > 1
        if self.cannot_launch_below.isVisible() != below_shown:
            self.cannot_launch_below.setVisible(below_shown)

    def _centre_message(self) -> None:
        (x0, x1), (y0, y1) = self.plot.getViewBox().viewRange()
        self.message.setPos((x0 + x1) / 2, (y0 + y1) / 2)

    def _show_cliffs(self, above: Cliff | None, below: Cliff | None) -> None:
        curve = self.curve_model
        limit = None if curve is None else curve.reqntid if curve.reqntid is not None else curve.launch_bound
        if above is not None and limit is not None and above.x > limit:
            above = None  # the step into "cannot launch": the shaded region says it, with its reason
        pairs = (
            (above, self.cliff_above, self.cliff_markers[0], "→ {}"),
            (below, self.cliff_below, self.cliff_markers[1], "{} ←"),
        )
        for cliff, text, marker, label in pairs:
            if cliff is None:
                text.hide()
                marker.hide()
                continue
            x, y = cliff.x / self.scale, self.y_of(cliff.occupancy)
            words = label.format(units.count(cliff.active_blocks, "block"))
            if text.textItem.toPlainText() != words:
                text.setText(words)
            text.setPos(x, y)
            marker.setPos(x, y)
            text.show()
            marker.show()
        self._place_labels()

    def _to_pixels(self, x: float, y: float) -> tuple[float, float]:
        vb = self.plot.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        return (x - x0) / (x1 - x0) * vb.width(), (y1 - y) / (y1 - y0) * vb.height()

    def obstacles(self) -> list[QRectF]:
        """What a cliff label must not cover, in pixels of the plot area: the current point, and the "cannot
        launch" region with its words."""
        out = []
        if self.current_point.isVisible():
            px, py = self._to_pixels(self.current_point.pos().x(), self.current_point.pos().y())
            r = CURRENT_CLEARANCE_PX
            out.append(QRectF(px - r, py - r, 2 * r, 2 * r))
        vb = self.plot.getViewBox()
        for region in (self.cannot_launch, self.cannot_launch_below):
            if region.isVisible():
                lo, hi = region.getRegion()
                left, right = self._to_pixels(lo, 0.0)[0], self._to_pixels(hi, 0.0)[0]
                out.append(QRectF(left, 0.0, right - left, vb.height()))
        return out

    def label_rects(self) -> dict[str, QRectF]:
        """Each shown cliff label's rectangle in pixels of the plot area (for the placement and its tests)."""
        out = {}
        for name, text in (("above", self.cliff_above), ("below", self.cliff_below)):
            if text.isVisible():
                px, py = self._to_pixels(text.pos().x(), text.pos().y())
                w, h = text.boundingRect().width(), text.boundingRect().height()
                out[name] = QRectF(px - text.anchor.x() * w, py - text.anchor.y() * h, w, h)
        return out

    def _place_labels(self) -> None:
        """Each cliff label on its own side of its point: "→ N" to the right, "N ←" to the left (the arrow
        starts at the point it names), above the point, else below it, else a line further up or down.

        A place must lie inside the plot and clear of the other label, the current point and the "cannot
        launch" region; a label with no such place is hidden (its point stays, and hovering it tells).
        """
        vb = self.plot.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        width, height = vb.width(), vb.height()
        if x1 <= x0 or y1 <= y0 or width <= 0 or height <= 0:
            return
        key = (
            x0,
            x1,
            y0,
            y1,
            width,
            height,
            self.current_point.pos().x(),
            self.current_point.pos().y(),
            self.cannot_launch.isVisible(),
            self.cannot_launch.getRegion(),
            *(
                (m.isVisible(), t.pos().x(), t.pos().y(), t.textItem.toPlainText())
                for t, m in zip((self.cliff_above, self.cliff_below), self.cliff_markers)
            ),
        )
        if key == self._labels_placed_for:  # most edits move the current point, not the cliffs: the same places
            for text, (visible, anchor) in self._placed.items():
                text.setVisible(visible)
                if visible and (text.anchor.x(), text.anchor.y()) != anchor:
                    text.setAnchor(anchor)
            return
        self._labels_placed_for = key
        self._placed = {}
        bounds = QRectF(0.0, LABEL_MARGIN_PX, width, height - LABEL_MARGIN_PX)
        if self.cannot_launch.isVisible():  # its words only where the region holds them whole
            lo, hi = self.cannot_launch.getRegion()
            room = self._to_pixels(hi, 0.0)[0] - self._to_pixels(lo, 0.0)[0]
            fits = self.cannot_launch_text.boundingRect().width() <= min(room, width - self._to_pixels(lo, 0.0)[0])
            self.cannot_launch_text.setVisible(fits)
        blocked = self.obstacles()
        for text, marker, side in (
            (self.cliff_above, self.cliff_markers[0], 0.0),
            (self.cliff_below, self.cliff_markers[1], 1.0),
        ):
            if not marker.isVisible():
                continue
            px, py = self._to_pixels(text.pos().x(), text.pos().y())
            w, h = text.boundingRect().width(), text.boundingRect().height()
            best = None
            for ay in (1.0, 0.0, 2.0, -1.0):
                rect = QRectF(px - side * w, py - ay * h, w, h)
                if bounds.contains(rect) and not any(rect.intersects(b) for b in blocked):
                    best = (side, ay, rect)
                    break
            text.setVisible(best is not None)
            self._placed[text] = (best is not None, best[:2] if best is not None else (0.0, 0.0))
            if best is None:
                continue
            blocked.append(best[2])
            if (text.anchor.x(), text.anchor.y()) != best[:2]:
                text.setAnchor(best[:2])

    def _on_view_resized(self) -> None:
        self._place_labels()

    def _set_visible(self, visible: bool) -> None:
        if visible == self._visible:
            return
        self._visible = visible
        # The cliff items are shown or hidden by _show_cliffs on every update.
        for item in (self.curve, self.current_line, self.current_point):
            item.setVisible(visible)
        if not visible:
            for item in (*self.cliff_markers, self.cliff_above, self.cliff_below):
                item.hide()

    def drawn_steps(self) -> tuple[FloatArray, FloatArray]:
        """(edges, values) as drawn (runs merged); for tests and the benchmark."""
        x, y = self.curve.getData()
        return np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)

    def drawn_value_at(self, x: float) -> float:
        """The drawn curve's value at ``x`` (in plot units)."""
        edges, y = self.drawn_steps()
        return float(y[int(np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(y) - 1))])

    # ----------------------------------------------------------------------------- hover
    def describe(self, x_view: float) -> tuple[float, float, str] | None:
        """(x, y, text) of the step under ``x_view`` (view coordinates), or ``None`` off the curve."""
        c = self.curve_model
        if c is None:
            return None
        edges = c.edges / self.scale
        if not edges[0] <= x_view <= edges[-1]:
            return None
        i = int(np.clip(np.searchsorted(edges, x_view, side="right") - 1, 0, len(c.x) - 1))
        x = int(c.x[i])
        if self.key == "shared_memory":
            first = int(c.x[i - 1]) + 1 if i > 0 else x
            where = f"{first}–{x} B" if first != x else f"{x} B"
            where += f" ({x / KIB:.2f} KiB)"
        else:
            where = f"{x} {self.unit}"
        if c.reqntid is not None and x != c.reqntid:
            return (
                float(c.x[i]) / self.scale,
                0.0,
                f"{where}\ncannot launch: the kernel requires exactly {c.reqntid} threads per block (.reqntid)",
            )
        if c.launch_bound is not None and x > c.launch_bound:
            return (
                float(c.x[i]) / self.scale,
                0.0,
                f"{where}\ncannot launch: above the kernel's launch bound of {c.launch_bound}",
            )
        text = (
            f"{where}\n{units.count(int(c.active_blocks[i]), 'block')} · "
            f"{units.count(int(c.active_warps[i]), self.count_word)}\n{c.occupancy[i] * 100:.4g} % occupancy"
        )
        if self.hover_extra is not None:
            text += "\n" + self.hover_extra(x)
        return float(c.x[i]) / self.scale, float(self.y_values(c)[i]), text

    def hover(self, x_view: float | None) -> None:
        found = self.describe(x_view) if x_view is not None else None
        if found is None:
            self.hover_text.hide()
            self.hover_point.hide()
            return
        x, y, text = found
        self.hover_point.setPos(x, y)
        self.hover_text.setText(text)
        (x0, x1), (_y0, y1) = self.plot.getViewBox().viewRange()
        self.hover_text.setAnchor((1.0, 0.0) if x > (x0 + x1) / 2 else (0.0, 0.0))
        self.hover_text.setPos(x, y1)
        self.hover_point.show()
        self.hover_text.show()
