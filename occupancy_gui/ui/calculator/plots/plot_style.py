"""Pens, brushes and colours of the plots in one place, derived from the system palette.

Pens are cosmetic (pyqtgraph's default), created once per palette and reused by every update.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtGui import QBrush, QColor, QPalette, QPen

from ...support.qt_utils import is_dark, palette

CURRENT_LIGHT, CURRENT_DARK = "#d9480f", "#ffa94d"
CLIFF_LIGHT, CLIFF_DARK = "#7048e8", "#b197fc"


@dataclass(frozen=True)
class PlotStyle:
    background: QColor
    foreground: QColor
    grid_alpha: float
    curve_pen: QPen
    curve_brush: QBrush
    current_pen: QPen
    current_brush: QBrush
    cliff_pen: QPen
    cliff_brush: QBrush
    cliff_text: QColor
    hover_text: QColor
    hover_fill: object
    disabled_text: QColor
    label_fill: object
    cannot_launch_brush: object


def plot_style() -> PlotStyle:
    """The style for the current palette (light or dark)."""
    pal = palette()
    dark = is_dark()
    base = pal.color(QPalette.ColorRole.Base)
    text = pal.color(QPalette.ColorRole.Text)
    accent = QColor(pal.color(QPalette.ColorRole.Highlight))
    fill = QColor(accent)
    fill.setAlpha(60 if dark else 45)
    current = QColor(CURRENT_DARK if dark else CURRENT_LIGHT)
    cliff = QColor(CLIFF_DARK if dark else CLIFF_LIGHT)
    hover_bg = QColor(pal.color(QPalette.ColorRole.ToolTipBase))
    hover_bg.setAlpha(235)
    label_bg = QColor(base)
    label_bg.setAlpha(200)
    return PlotStyle(
        background=base,
        foreground=text,
        grid_alpha=0.18,
        curve_pen=pg.mkPen(accent, width=2),
        curve_brush=pg.mkBrush(fill),
        current_pen=pg.mkPen(current, width=1.5, style=pg.QtCore.Qt.PenStyle.DashLine),
        current_brush=pg.mkBrush(current),
        cliff_pen=pg.mkPen(cliff, width=1.5),
        cliff_brush=pg.mkBrush(base),
        cliff_text=cliff,
        hover_text=pal.color(QPalette.ColorRole.ToolTipText),
        hover_fill=pg.mkBrush(hover_bg),
        disabled_text=pal.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text),
        label_fill=pg.mkBrush(label_bg),
        cannot_launch_brush=pg.mkBrush(_alpha(pal.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text), 40)),
    )


def _alpha(color: QColor, alpha: int) -> QColor:
    out = QColor(color)
    out.setAlpha(alpha)
    return out
