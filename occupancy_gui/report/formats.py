"""The report's three renderings: a self-contained HTML page, GitHub Markdown and the constraint table as CSV.

``report.data`` decides what a report says (its figures, rows and sources); this module only lays those rows
out, so the three formats cannot disagree.  The GUI's File → Export… and ``occupancy report`` call
:func:`render`, which picks the renderer by the file's extension.
"""

from __future__ import annotations

import csv
import html
import io
import os
from collections.abc import Callable

from .. import REFERENCE_HEADER, __version__, units
from .data import (
    BINDING_MARK,
    CSV_COLUMNS,
    INPUT_LABELS,
    TABLE_HEADERS,
    ReportData,
    advisor_text,
    device_rows,
    format_input,
    input_sources_shown,
    summary_rows,
    table_rows,
)
from .svg import curves_svg

# ----------------------------------------------------------------------------- HTML
CSS = """
:root { color-scheme: light dark; --fg:#1f2328; --bg:#ffffff; --muted:#59636e; --line:#d1d9e0;
  --head:#f6f8fa; --bind:#ddeaff; --bind-fg:#0b3d91; --warn-bg:#fde7e5; --warn-fg:#8c1d18; }
@media (prefers-color-scheme: dark) { :root { --fg:#e6edf3; --bg:#0d1117; --muted:#9198a1; --line:#3d444d;
  --head:#151b23; --bind:#1f3a5f; --bind-fg:#cfe2ff; --warn-bg:#5c1a1a; --warn-fg:#ffdcd8; } }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
  max-width: 72rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 1.8rem; }
.muted { color: var(--muted); }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--head); } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.binding td { background: var(--bind); color: var(--bind-fg); font-weight: 600; }
.big { font-size: 2rem; font-weight: 700; }
.warn { background: var(--warn-bg); color: var(--warn-fg); padding: .6rem 1rem; border-radius: 6px; }
td.source { color: var(--muted); font-size: .85em; max-width: 40rem; }
"""


def _h(text: object) -> str:
    return html.escape(str(text), quote=True)


def to_html(data: ReportData) -> str:
    """A self-contained HTML page (inline CSS, light and dark) with every part of the report."""
    r = data.result
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Occupancy report — {_h(data.profile.name)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>Occupancy report — {_h(data.profile.name)}</h1>",
        f'<p class="muted">Generated {_h(data.generated)} by occupancy_gui {_h(__version__)}; '
        f"model: {_h(REFERENCE_HEADER)}.</p>",
    ]
    if r is not None:
        parts.append(f'<p><span class="big" id="occupancy">{r.occupancy * 100:.4g} %</span> theoretical occupancy</p>')
    parts.append('<h2>Summary</h2><table id="summary">')
    parts += [
        f'<tr><th>{_h(label)}</th><td data-key="{key}">{_h(text)}</td></tr>' for key, label, text in summary_rows(data)
    ]
    parts.append("</table>")
    if data.error:
        parts.append(f'<p class="warn" id="error">The occupancy query fails: {_h(data.error)}</p>')
    if r is not None and r.reasons:
        parts.append(
            '<div class="warn" id="reasons"><strong>No block fits on an SM — this launch would fail:</strong><ul>'
        )
        parts += [f"<li>{_h(reason)}</li>" for reason in r.reasons]
        parts.append("</ul></div>")
    if r is not None:
        parts.append(
            f'<h2>Constraints</h2><p class="muted">{BINDING_MARK} marks the binding limit '
            "(ties all marked); the first-pass estimate uses no allocation rounding.</p>"
        )
        parts.append('<table id="constraints"><tr>' + "".join(f"<th>{_h(h)}</th>" for h in TABLE_HEADERS) + "</tr>")
        for binding, cells in table_rows(r):
            first = (f"{BINDING_MARK} " if binding else "") + cells[0]
            tds = [f"<td>{_h(first)}</td>"] + [
                f'<td class="num">{_h(c)}</td>' if i in (5, 6) else f"<td>{_h(c)}</td>"
                for i, c in enumerate(cells[1:], 1)
            ]
            parts.append(f"<tr{' class=binding' if binding else ''}>" + "".join(tds) + "</tr>")
        parts.append("</table>")
        est = r.estimate
        parts.append(
            f'<h2>First-pass estimate</h2><p id="estimate">{units.count(est.active_blocks, "block")}, '
            f"{units.count(est.active_warps, 'warp')}, {est.occupancy * 100:.4g} % — "
            + (
                "agrees with the exact result."
                if est.active_blocks == r.active_blocks
                else "differs from the exact result: allocation granularity moved the boundary."
            )
            + "</p>"
        )
    if data.curves:
        parts.append('<h2>Step curves</h2><div id="curves">' + curves_svg(data.curves) + "</div>")
    parts.append(f'<h2>Block size advisor</h2><p id="advisor">{_h(advisor_text(data))}</p>')
    parts.append('<h2>Inputs</h2><table id="inputs"><tr><th>Input</th><th>Value</th><th>Source</th></tr>')
    sources = input_sources_shown(data)
    parts += [
        f'<tr><th>{_h(label)}</th><td data-key="{name}">{_h(format_input(name, getattr(data.inputs, name)))}</td>'
        f'<td class="source">{_h(sources[name])}</td></tr>'
        for name, label in INPUT_LABELS.items()
    ]
    parts.append("</table>")
    if data.kernel_source:
        parts.append(f'<p class="muted" id="kernel">Kernel: {_h(data.kernel_source)}</p>')
    if data.kernel_resources:
        parts.append(
            '<table id="kernel_resources">'
            + "".join(f"<tr><th>{_h(a)}</th><td>{_h(b)}</td></tr>" for a, b in data.kernel_resources)
            + "</table>"
        )
    parts.append('<h2>Device</h2><table id="device"><tr><th>Figure</th><th>Value</th><th>Source</th></tr>')
    parts += [
        f'<tr><th>{_h(a)}</th><td>{_h(b)}</td><td class="source">{_h(c)}</td></tr>' for a, b, c in device_rows(data)
    ]
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"


# ----------------------------------------------------------------------------- Markdown
def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(headers: tuple[str, ...] | list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(_md(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return lines + ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]


def to_markdown(data: ReportData) -> str:
    """The report as GitHub-flavoured Markdown (binding rows bold and marked ★)."""
    r = data.result
    out = [
        f"# Occupancy report — {data.profile.name}",
        "",
        f"Generated {data.generated} by occupancy_gui {__version__}; model: {REFERENCE_HEADER}.",
        "",
        "## Summary",
        "",
    ]
    out += _md_table(["Figure", "Value"], [[label, text] for _key, label, text in summary_rows(data)])
    if r is not None and r.reasons:
        out += ["", "**No block fits on an SM — this launch would fail:**", ""] + [f"- {x}" for x in r.reasons]
    if r is not None:
        rows = [[(f"**{BINDING_MARK} {c[0]}**" if b else c[0]), *c[1:]] for b, c in table_rows(r)]
        out += ["", "## Constraints", "", f"{BINDING_MARK} marks the binding limit.", ""]
        out += _md_table(TABLE_HEADERS, rows)
        est = r.estimate
        out += [
            "",
            "## First-pass estimate",
            "",
            f"{units.count(est.active_blocks, 'block')}, {units.count(est.active_warps, 'warp')}, "
            f"{est.occupancy * 100:.4g} % "
            "(no allocation rounding).",
        ]
    out += ["", "## Block size advisor", "", advisor_text(data), "", "## Inputs", ""]
    sources = input_sources_shown(data)
    inputs = [[label, format_input(n, getattr(data.inputs, n)), sources[n]] for n, label in INPUT_LABELS.items()]
    out += _md_table(["Input", "Value", "Source"], inputs)
    if data.kernel_source:
        out += ["", f"Kernel: {data.kernel_source}"]
    if data.kernel_resources:
        out += [""] + _md_table(["Kernel figure", "Value"], [list(row) for row in data.kernel_resources])
    out += ["", "## Device", ""] + _md_table(["Figure", "Value", "Source"], [list(row) for row in device_rows(data)])
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- CSV
def to_csv(data: ReportData) -> str:
    """The constraint table as CSV (header row; ``binding`` is ``yes`` on binding rows)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    if data.result is not None:
        for (binding, cells), row in zip(table_rows(data.result), data.result.rows):
            writer.writerow(
                [
                    row.limit.value,
                    "yes" if binding else "",
                    *cells[1:5],
                    "" if row.blocks is None else row.blocks,
                    "" if row.estimate_blocks is None else row.estimate_blocks,
                    "yes" if row.rounding_changed_ceiling else "",
                ]
            )
    return buffer.getvalue()


RENDERERS: dict[str, Callable[[ReportData], str]] = {
    ".html": to_html,
    ".htm": to_html,
    ".md": to_markdown,
    ".markdown": to_markdown,
    ".csv": to_csv,
}
"""File extension -> renderer."""


def render(data: ReportData, path: str | os.PathLike[str]) -> str:
    """The report text for ``path``'s extension; ``ValueError`` names the supported ones."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in RENDERERS:
        raise ValueError(
            f"{os.fspath(path)}: unknown report format {suffix or '(no extension)'!r}; "
            f"use one of {', '.join(sorted(RENDERERS))}"
        )
    return RENDERERS[suffix](data)
