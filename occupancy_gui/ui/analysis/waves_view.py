"""Grid, waves and the whole GPU: how a grid runs in waves of ``resident blocks × SMs``.

The figures come from :func:`occupancy_gui.engine.analyse_waves`; the bar chart shows each wave's
fill (items created once, updated with ``setOpts``).  Installed by ``analysis.docks.install_analysis_docks``.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from ... import units
from ...engine import OccupancyError, WaveAnalysis, analyse_waves
from ...session import Session
from ..calculator.plots.plot_cell import PlotCell
from ..calculator.plots.plot_style import plot_style
from ..support.qt_utils import signals_blocked
from ..support.refresh import RefreshWhenVisible
from ..support.terms import tip

MAX_BARS = 48
"""Waves drawn at most; a longer grid shows its first waves and the last one."""
GRID_LIMITS = (2**31 - 1, 65535, 65535)
"""``gridDim`` limits: x up to 2^31 - 1, y and z up to 65535."""
ASSUMED_SMS = 132
"""The SM count shown for a compute-capability profile until the user enters one (an H100 SXM5's), always
labelled as an assumption wherever a figure depends on it."""


def _spin(maximum: int, value: int, tip: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(1, maximum)
    spin.setValue(value)
    spin.setKeyboardTracking(False)
    spin.setAlignment(Qt.AlignmentFlag.AlignRight)
    spin.setToolTip(tip)
    return spin


class WavesView(RefreshWhenVisible, QWidget):
    """Grid dimensions and (for a compute-capability profile) the SM count in; waves out."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.analysis: WaveAnalysis | None = None
        self._span = (0.0, 0.0)
        self._dirty = True
        self.dims = [_spin(m, v, f"gridDim.{a}") for m, v, a in zip(GRID_LIMITS, (1000, 1, 1), "xyz", strict=True)]
        self.sm_count = _spin(100_000, ASSUMED_SMS, "SMs on the GPU: a compute capability profile has no count")
        self.sm_label = QLabel("SMs:")
        self.sm_label.setBuddy(self.sm_count)
        self.entered_sms: int | None = None
        """The SM count the user entered for a profile that has none; ``None``: none entered (assumed)."""
        for spin in self.dims:
            spin.valueChanged.connect(self._on_spin_value_changed)
        self.sm_count.valueChanged.connect(self._on_sm_count_value_changed)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setToolTip(tip("waves"))
        self._build()
        self.refresh()

    def _build(self) -> None:
        dims = QHBoxLayout()
        for i, spin in enumerate(self.dims):
            if i:
                dims.addWidget(QLabel("×"))
            dims.addWidget(spin)
        form = QFormLayout()
        form.addRow("Grid (x × y × z):", dims)
        dims.addStretch(1)
        form.addRow(self.sm_label, self.sm_count)
        inputs = QVBoxLayout()
        inputs.addLayout(form)
        inputs.addWidget(self.summary, 1)
        self.plot = pg.GraphicsLayoutWidget()
        style = plot_style()
        self.plot.setBackground(style.background)
        self.cell = PlotCell(self.plot.ci, 0, 0)
        self.cell.setLabel("bottom", "wave")
        self.cell.setLabel("left", "wave filled (%)")
        for name in ("left", "bottom"):
            self.cell.getAxis(name).enableAutoSIPrefix(False)
            self.cell.getAxis(name).setPen(style.foreground)
            self.cell.getAxis(name).setTextPen(style.foreground)
        self.cell.view.setYRange(0, 105, padding=0.0)
        self.bars = pg.BarGraphItem(x=[1], height=[0], width=0.8, brush=style.curve_brush, pen=style.curve_pen)
        self.cell.addItem(self.bars)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(inputs, 2)
        layout.addWidget(self.plot, 3)

    def grid(self) -> tuple[int, int, int]:
        x, y, z = (spin.value() for spin in self.dims)
        return x, y, z

    def _on_spin_value_changed(self, value: int) -> None:
        self.refresh()

    def _on_sm_count_value_changed(self, value: int) -> None:
        self.entered_sms = value  # the user's own count: no longer an assumption
        self.refresh()

    @property
    def assumed(self) -> bool:
        """Whether the SM count is an assumption (a profile with none, and none entered)."""
        return self.session.profile.sm_count is None and self.entered_sms is None

    def refresh(self) -> None:
        self._dirty = False
        s = self.session
        known = s.profile.sm_count
        count = known if known is not None else self.entered_sms or ASSUMED_SMS
        with signals_blocked(self.sm_count):
            if self.sm_count.value() != count:
                self.sm_count.setValue(count)
            self.sm_count.setEnabled(known is None)
        label = "SMs:" if known is not None else "SMs (assumed):" if self.assumed else "SMs (entered):"
        if self.sm_label.text() != label:
            self.sm_label.setText(label)
        tip = "A compute capability has no SM count: enter your GPU's (or choose its profile)"
        self.sm_count.setToolTip(f"{s.profile.name} has {known} SMs" if known is not None else tip)
        per_sm = s.result.active_blocks if s.result is not None else 0
        try:
            self.analysis = analyse_waves(self.grid(), per_sm, self.sm_count.value())
        except OccupancyError as exc:
            self.analysis = None
            self.summary.setText(f"<b>No waves:</b> {exc}")
            self.bars.setOpts(x=[1], height=[0])
            return
        text = self.describe(self.analysis)
        if self.assumed:
            text = (
                f"<b>⚠ Assumes {ASSUMED_SMS} SMs</b>: {s.profile.name} is a compute capability, which has no SM "
                "count. Enter your GPU's SM count, or choose your GPU's profile.<br>" + text
            )
        self.summary.setText(text)
        self._show_bars(self.analysis)

    @staticmethod
    def describe(w: WaveAnalysis, unit: str = "SM") -> str:
        """The waves in words; ``unit`` is what holds the blocks (an SM; a CU or WGP on an AMD device)."""
        lines = [
            f"<b>{units.count(w.blocks_per_wave, 'block')}</b> at once ({w.blocks_per_sm} per {unit} × "
            f"{units.count(w.sm_count, unit)})",
            f"Grid of <b>{w.total_blocks}</b> blocks → <b>{w.waves}</b> wave{'s' if w.waves != 1 else ''}"
            + (f" ({w.full_waves} full + a last one)" if not w.fills_whole_waves else " (all full)"),
            f"Last wave: <b>{w.last_wave_blocks}/{w.blocks_per_wave}</b> = {w.last_wave_utilisation * 100:.1f} % of the GPU; "
            f"all waves: {w.efficiency * 100:.1f} % of block slots used",
        ]
        if not w.fills_whole_waves:
            plural = "s" if w.full_waves != 1 else ""
            below = f"{w.grid_below} ({w.full_waves} wave{plural})" if w.grid_below else "none below one wave"
            lines.append(
                f"Whole waves: <b>{units.count(w.grid_above, 'block')}</b> ({units.count(w.waves, 'wave')}) or {below}"
            )
            rest = math.prod(w.grid[1:])
            if rest > 1:
                x_below = f"x = {w.x_below}" if w.x_below else "no smaller x"
                lines.append(f"Holding y × z = {rest}: x = <b>{w.x_above}</b> or {x_below}")
        return "<br>".join(lines)

    def _show_bars(self, w: WaveAnalysis) -> None:
        shown = min(w.waves, MAX_BARS)
        heights = np.full(shown, 100.0)
        heights[-1] = w.last_wave_utilisation * 100.0
        x = np.arange(1, shown + 1, dtype=np.float64)
        if w.waves > MAX_BARS:
            x[-1] = float(w.waves)  # the last wave keeps its number; the ones between are not drawn
        self.bars.setOpts(x=x, height=heights)
        span = (0.4, max(float(x[-1]), 1.0) + 0.6)
        if span != self._span:
            self._span = span
            self.cell.view.setXRange(*span, padding=0.0)
            step = max(1, int(x[-1]) // 8)
            self.cell.getAxis("bottom").setTicks([[(float(v), str(v)) for v in range(1, int(x[-1]) + 1, step)]])
