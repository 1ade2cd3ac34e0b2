"""AMD reports and figures: both answers of one AMD question (the HIP runtime's and the compiler model's) as rows
that every rendering shares, the compare table's figures, and the same kernel on every AMD GPU.

Pure Python (no Qt).  The numbers are the AMD engine's (through ``amd_question``); nothing here recomputes them.
"""

from __future__ import annotations

import csv
import html
import io
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .. import __version__, fields
from ..amd_question import AmdAnswer, AmdFieldError, answer, applies, kernel_and_launch, target_problem, target_values
from ..engine.amd import AmdInputError, AmdSweep
from ..units import format_bytes_long
from .data import BINDING_MARK, Figure
from .formats import CSS
from .svg import curve_svg

if TYPE_CHECKING:
    from ..profiles import AmdCatalog, AmdProfile
    from ..session import Inputs, Session

AMD_INPUT_LABELS = {f.name: f.label for f in fields.for_vendor(fields.AMD)} | {"dynamic_smem": "Dynamic LDS"}
"""The AMD inputs' names (the dynamic shared memory both vendors take is AMD's dynamic LDS)."""
HIP_TITLES = {
    "workgroup_size": "Workgroup size",
    "waves": "Wave cap",
    "vgprs": "VGPRs",
    "sgprs": "SGPRs",
    "lds": "LDS",
    "waves_per_eu": "amdgpu_waves_per_eu",
}
MODEL = "HIP runtime: hipOccupancyMaxActiveBlocksPerMultiprocessor (ROCm 7.x hip_platform.cpp); compiler: LLVM's AMDGPU model"
CSV_COLUMNS = ("rule", "limit", "binding", "value", "unit", "requested", "allocated", "capacity", "calculation")


def format_amd_input(name: str, value: object) -> str:
    """An AMD input as a reader wants it (bytes with KiB, a mode by its name, waves per EU as ``N, M``)."""
    f = fields.FIELD[name]
    if value is None and f.optional:
        return f.none_text
    if f.kind == fields.BYTES and isinstance(value, int):
        return format_bytes_long(value)
    if f.kind == fields.MODE:
        return "WGP mode" if value else "CU mode"
    if isinstance(value, tuple):
        return str(value[0]) if value[1] is None else f"{value[0]}, {value[1]}"
    if name == "allocated_vgprs" and value == 0:
        return "as VGPRs"
    return str(value)


def binding_words(names: tuple[str, ...]) -> str:
    return " + ".join(HIP_TITLES[n] for n in names) or "—"


# ----------------------------------------------------------------------------- figures (compare A / B)
def amd_describe(
    profile: AmdProfile, inputs: Inputs, result: AmdAnswer | None, error: str | None = None
) -> tuple[Figure, ...]:
    """Every input and result figure of one AMD configuration, in a fixed order (the compare table's rows)."""
    target = profile.target
    out = [
        Figure("device", "Device", profile.name, "input"),
        Figure("target", "Target", target.name, "input"),
        Figure("cus", "CUs", "—" if profile.compute_units is None else str(profile.compute_units), "input"),
    ]
    out += [
        Figure(n, label, format_amd_input(n, getattr(inputs, n)), "input")
        for n, label in AMD_INPUT_LABELS.items()
        if applies(n, target)
    ]
    texts: dict[str, tuple[str, str]] = {}
    if result is None:
        out.append(Figure("error", "Error", error or "no result", "result"))
    else:
        h, c = result.hip, result.compiler
        where = result.multiprocessor
        texts = {
            "hip_occupancy": ("HIP runtime: occupancy", "—" if h.error else f"{h.occupancy * 100:.4g} %"),
            "hip_blocks": (f"HIP runtime: blocks per {where}", h.error or str(h.active_blocks)),
            "hip_waves": (f"HIP runtime: waves per {where}", "—" if h.error else f"{h.active_waves} of {h.max_waves}"),
            "hip_binding": ("HIP runtime: binding limit", binding_words(h.binding)),
            "grid": ("HIP runtime: grid (CUs × blocks)", "—" if h.grid_blocks is None else str(h.grid_blocks)),
            "best_block": ("HIP runtime: best block size", str(h.best_block_size)),
            "llvm_waves": ("Compiler (LLVM): waves per SIMD", f"{c.waves_per_simd} of {c.max_waves_per_simd}"),
            "llvm_occupancy": ("Compiler (LLVM): occupancy", f"{c.occupancy * 100:.4g} %"),
            "llvm_binding": ("Compiler (LLVM): binding limit", binding_words(c.binding)),
        }
    out += [Figure(k, label, text, "result") for k, (label, text) in texts.items()]
    return tuple(out)


# ----------------------------------------------------------------------------- every AMD GPU
@dataclass(frozen=True)
class AmdGpuRow:
    """The same kernel on one AMD GPU product."""

    name: str
    target: str
    multiprocessors: int
    """CUs as HIP counts them (``multiProcessorCount``: WGPs in WGP mode)."""
    blocks: int
    occupancy: float
    binding: str
    grid: int
    compiler_waves: int
    compiler_occupancy: float
    error: str | None = None


def every_amd_gpu(catalog: AmdCatalog, inputs: Inputs) -> list[AmdGpuRow]:
    """``inputs`` (AMD's, as each target takes them) on every AMD GPU product of ``catalog``, in catalog order."""
    rows = []
    for profile in catalog.gpus():
        values = target_values(inputs, profile.target)
        count = profile.hip_multiprocessor_count or 0
        problem = target_problem(values, profile.target)
        try:
            if problem is not None:
                raise AmdFieldError(problem)
            result = answer(profile, *kernel_and_launch(values))
        except (AmdInputError, AmdFieldError) as exc:
            rows.append(AmdGpuRow(profile.name, profile.target.name, count, 0, 0.0, "error", 0, 0, 0.0, str(exc)))
            continue
        h, c = result.hip, result.compiler
        rows.append(
            AmdGpuRow(
                profile.name,
                profile.target.name,
                count,
                h.active_blocks,
                0.0 if h.error else h.occupancy,
                "error" if h.error else binding_words(h.binding),
                h.grid_blocks or 0,
                c.waves_per_simd,
                c.occupancy,
                h.error,
            )
        )
    return rows


# ----------------------------------------------------------------------------- the report
@dataclass(frozen=True)
class AmdReportData:
    """Everything an AMD report shows.  Build it with :func:`amd_report_data`."""

    profile: AmdProfile
    inputs: Inputs
    answer: AmdAnswer | None
    error: str | None
    generated: str = ""
    kernel_source: str | None = None
    curves: dict[str, AmdSweep] = field(default_factory=dict)


def amd_report_data(session: Session, kernel_source: str | None = None) -> AmdReportData:
    """The report of ``session``'s current AMD question."""
    state = session.amd
    stamp = datetime.now(UTC).astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return AmdReportData(
        session.amd_profile,
        session.inputs,
        state.answer if state else None,
        state.error if state else "no answer",
        stamp,
        kernel_source,
        dict(state.curves) if state else {},
    )


def summary_rows(data: AmdReportData) -> list[tuple[str, str, str]]:
    """(key, label, text) of the summary: both answers and the explanation."""
    if data.answer is None:
        return [("error", "Error", data.error or "no result")]
    rows = [
        (f.key, f.label, f.text) for f in amd_describe(data.profile, data.inputs, data.answer) if f.group == "result"
    ]
    return [*rows, ("explanation", "Why they differ", data.answer.explanation)]


def limit_rows(data: AmdReportData) -> list[list[str]]:
    """Both rules' limit rows as :data:`CSV_COLUMNS`."""
    if data.answer is None:
        return []
    rows = [*data.answer.hip_rows(), *data.answer.compiler_rows()]
    return [
        [
            r.rule,
            r.name,
            "yes" if r.binding else "",
            "" if r.value is None else str(r.value),
            r.unit,
            r.requested,
            r.allocated,
            r.capacity,
            r.calculation,
        ]
        for r in rows
    ]


def input_rows(data: AmdReportData) -> list[tuple[str, str, str]]:
    target = data.profile.target
    return [
        (n, label, format_amd_input(n, getattr(data.inputs, n)))
        for n, label in AMD_INPUT_LABELS.items()
        if applies(n, target)
    ]


def device_rows(data: AmdReportData) -> list[tuple[str, str, str]]:
    """The device's figures (its target's limits) with their sources."""
    p, t = data.profile, data.profile.target
    rows = [
        ("Profile", p.name if p.title in ("", p.name) else f"{p.name} ({p.title})", "bundled AMD profile"),
        ("Target", f"{t.name} ({p.architecture})", "profile"),
        ("CUs", "—" if p.compute_units is None else str(p.compute_units), p.sources.get("compute_units", "profile")),
        (
            "HIP multiProcessorCount",
            "—" if p.hip_multiprocessor_count is None else str(p.hip_multiprocessor_count),
            p.sources.get("hip_multiprocessor_count", "profile"),
        ),
    ]
    for name, source in p.sources.items():
        if hasattr(t, name):
            rows.append((name, str(getattr(t, name)), source))
    return rows


def to_html(data: AmdReportData) -> str:
    """A self-contained HTML page: both answers, both rules' limits, the runtime's curves, inputs and device."""
    h = html.escape
    title = f"Occupancy report — {h(data.profile.name)}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        f'<p class="muted">Generated {h(data.generated)} by occupancy_gui {h(__version__)}; {h(MODEL)}.</p>',
        '<h2>Both answers</h2><table id="summary">',
    ]
    parts += [
        f'<tr><th>{h(label)}</th><td data-key="{key}">{h(text)}</td></tr>' for key, label, text in summary_rows(data)
    ]
    parts.append("</table>")
    if data.answer is not None:
        parts.append(
            f'<h2>Limits</h2><p class="muted">{BINDING_MARK} marks a binding limit of its rule. The compiler '
            "model uses the launch bound, not the launched block, and leaves out dynamic LDS.</p>"
        )
        parts.append('<table id="constraints"><tr>' + "".join(f"<th>{h(c)}</th>" for c in CSV_COLUMNS[1:]) + "</tr>")
        for row in limit_rows(data):
            first = (f"{BINDING_MARK} " if row[2] else "") + f"{row[0]}: {row[1]}"
            cells = [first, *row[3:]]
            parts.append(
                f"<tr{' class=binding' if row[2] else ''}>" + "".join(f"<td>{h(c)}</td>" for c in cells) + "</tr>"
            )
        parts.append("</table>")
    if data.curves:
        svgs = [curve_svg(name, sweep.runtime) for name, sweep in data.curves.items()]
        parts.append('<h2>Step curves (HIP runtime)</h2><div id="curves">' + "\n".join(svgs) + "</div>")
    parts.append('<h2>Inputs</h2><table id="inputs"><tr><th>Input</th><th>Value</th></tr>')
    parts += [f'<tr><th>{h(label)}</th><td data-key="{n}">{h(text)}</td></tr>' for n, label, text in input_rows(data)]
    parts.append("</table>")
    if data.kernel_source:
        parts.append(f'<p class="muted" id="kernel">Kernel: {h(data.kernel_source)}</p>')
    parts.append('<h2>Device</h2><table id="device"><tr><th>Figure</th><th>Value</th><th>Source</th></tr>')
    parts += [f'<tr><th>{h(a)}</th><td>{h(b)}</td><td class="source">{h(c)}</td></tr>' for a, b, c in device_rows(data)]
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(_md(x) for x in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return lines + ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]


def to_markdown(data: AmdReportData) -> str:
    """The report as GitHub-flavoured Markdown (binding limits bold and marked ★)."""
    out = [
        f"# Occupancy report — {data.profile.name}",
        "",
        f"Generated {data.generated} by occupancy_gui {__version__}; {MODEL}.",
        "",
        "## Both answers",
        "",
    ]
    out += _md_table(["Figure", "Value"], [[label, text] for _k, label, text in summary_rows(data)])
    if data.answer is not None:
        rows = [[f"**{BINDING_MARK} {r[0]}: {r[1]}**" if r[2] else f"{r[0]}: {r[1]}", *r[3:]] for r in limit_rows(data)]
        out += ["", "## Limits", "", f"{BINDING_MARK} marks a binding limit of its rule.", ""]
        out += _md_table(["Limit", *CSV_COLUMNS[3:]], rows)
    out += ["", "## Inputs", ""] + _md_table(
        ["Input", "Value"], [[label, text] for _n, label, text in input_rows(data)]
    )
    if data.kernel_source:
        out += ["", f"Kernel: {data.kernel_source}"]
    out += ["", "## Device", ""] + _md_table(["Figure", "Value", "Source"], [list(r) for r in device_rows(data)])
    return "\n".join(out) + "\n"


def to_csv(data: AmdReportData) -> str:
    """Both rules' limits as CSV (header row; ``binding`` is ``yes`` on binding rows)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(limit_rows(data))
    return buffer.getvalue()


RENDERERS: dict[str, Any] = {
    ".html": to_html,
    ".htm": to_html,
    ".md": to_markdown,
    ".markdown": to_markdown,
    ".csv": to_csv,
}


def render_amd(data: AmdReportData, path: str | os.PathLike[str]) -> str:
    """The AMD report text for ``path``'s extension; ``ValueError`` names the supported ones."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in RENDERERS:
        raise ValueError(
            f"{os.fspath(path)}: unknown report format {suffix or '(no extension)'!r}; "
            f"use one of {', '.join(sorted(RENDERERS))}"
        )
    text: str = RENDERERS[suffix](data)
    return text
