"""The step curves as inline SVG for the HTML report: plain text, no script, no font or network fetch.

Pure Python + numpy (no Qt): the report is written by the command line as well as by the window.
Each curve is drawn from the engine's :class:`StepCurve` as it is (runs of equal occupancy merged),
with the current value marked and, on the block-size curve, the sizes above the kernel's launch bound
shaded "cannot launch".
"""

from __future__ import annotations

import html
import math

import numpy as np

from ..engine import StepCurve

WIDTH, HEIGHT = 360, 210
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 22, 36
TITLES = {
    "threads": "threads per block",
    "registers": "registers per thread",
    "shared_memory": "shared memory per block (KiB)",
    "barriers": "block barriers",
}
SCALES = {"shared_memory": 1024.0}


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = max(high - low, 1e-9)
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if step * factor >= raw:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def _fmt(value: float) -> str:
    return f"{value:g}"


def curve_svg(key: str, curve: StepCurve) -> str:
    """One ``<svg>`` element: occupancy (%) against the swept input."""
    scale = SCALES.get(key, 1.0)
    edges = curve.edges / scale
    y = curve.occupancy * 100.0
    starts = np.flatnonzero(np.concatenate(([True], y[1:] != y[:-1])))
    x0, x1 = min(0.0, float(edges[0])), float(edges[-1])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0 or 1.0) * plot_w

    def py(v: float) -> float:
        return TOP + (1.0 - v / 100.0) * plot_h

    points = []
    bounds = np.concatenate((edges[starts], edges[-1:]))
    for i, start in enumerate(starts):
        value = float(y[start])
        points += [(px(float(bounds[i])), py(value)), (px(float(bounds[i + 1])), py(value))]
    path = " ".join(f"{a:.1f},{b:.1f}" for a, b in points)
    area = f"{px(float(bounds[0])):.1f},{py(0):.1f} {path} {px(float(bounds[-1])):.1f},{py(0):.1f}"
    title = TITLES.get(key, curve.name)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="curve" data-key="{html.escape(key)}" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="occupancy against {html.escape(title)}">',
        f"<title>Occupancy against {html.escape(title)}</title>",
    ]
    top = curve.reqntid if curve.reqntid is not None else curve.launch_bound
    if top is not None:
        left = px((top + 0.5) / scale)
        words = f"≠ {curve.reqntid}" if curve.reqntid is not None else f"&gt; {curve.launch_bound}"
        out.append(
            f'<rect class="cannot-launch" x="{left:.1f}" y="{TOP}" width="{max(0.0, LEFT + plot_w - left):.1f}" '
            f'height="{plot_h}" fill="currentColor" fill-opacity="0.12"/>'
            f'<text x="{(left + LEFT + plot_w) / 2:.1f}" y="{TOP + 14}" text-anchor="middle" font-size="10" '
            f'fill="currentColor">cannot launch ({words})</text>'
        )
    if curve.reqntid is not None and curve.reqntid > 1:  # below the required size too
        right = px((curve.reqntid - 0.5) / scale)
        out.append(
            f'<rect class="cannot-launch" x="{LEFT}" y="{TOP}" width="{max(0.0, right - LEFT):.1f}" '
            f'height="{plot_h}" fill="currentColor" fill-opacity="0.12"/>'
        )
    for v in (0, 25, 50, 75, 100):
        out.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="currentColor" '
            f'stroke-opacity="0.15"/><text x="{LEFT - 4}" y="{py(v) + 3:.1f}" text-anchor="end" '
            f'font-size="10" fill="currentColor">{v}</text>'
        )
    for t in _nice_ticks(x0, x1):
        out.append(
            f'<text x="{px(t):.1f}" y="{TOP + plot_h + 13}" text-anchor="middle" font-size="10" '
            f'fill="currentColor">{_fmt(t)}</text>'
        )
    out.append(
        f'<polygon points="{area}" fill="#1f6feb" fill-opacity="0.18" stroke="none"/>'
        f'<polyline class="steps" points="{path}" fill="none" stroke="#1f6feb" stroke-width="1.6"/>'
    )
    current = curve.current_x / scale
    value = float(y[curve.index_of(curve.current_x)])
    out.append(
        f'<line class="current" x1="{px(current):.1f}" x2="{px(current):.1f}" y1="{TOP}" y2="{TOP + plot_h}" '
        f'stroke="#d9480f" stroke-dasharray="4 3"/><circle cx="{px(current):.1f}" cy="{py(value):.1f}" r="3.5" '
        f'fill="#d9480f"/>'
    )
    out.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle" font-size="11" '
        f'fill="currentColor">{html.escape(title)}</text><text x="{LEFT}" y="{TOP - 8}" font-size="10" '
        f'fill="currentColor">occupancy (%)</text></svg>'
    )
    return "".join(out)


def curves_svg(curves: dict[str, StepCurve]) -> str:
    """Every curve, in the window's order."""
    return "\n".join(curve_svg(key, curves[key]) for key in TITLES if key in curves)
