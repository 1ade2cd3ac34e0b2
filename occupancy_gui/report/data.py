"""Reports: what one occupancy question and its answer say, as rows that every rendering shares.

Pure Python (no Qt).  ``report.formats`` lays these rows out as HTML, Markdown or CSV.
The figures come from the engine's result as they are; nothing here recomputes occupancy except
:func:`every_gpu`, which asks the engine the same question for each named GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import fields, units
from ..compatibility import mismatch_message
from ..engine import (
    CARVEOUT_DEFAULT,
    BlockSizeSuggestion,
    CacheConfig,
    DeviceProperties,
    DeviceState,
    Launch,
    Limit,
    OccupancyError,
    OccupancyResult,
    StepCurve,
    compute_occupancy,
    max_potential_block_size,
    min_blocks_shortfall,
    supports_cache_config,
    supports_carveout,
)
from ..importers import STACK_UNKNOWN
from ..profiles import LIMIT_FIELDS
from ..record_launch import record_inputs as _record_inputs
from ..record_launch import threads_reason
from ..session import Inputs, function_attributes
from ..units import format_bytes_long

if TYPE_CHECKING:
    from ..importers import KernelRecord
    from ..profiles import Catalog, DeviceProfile
    from ..session import Session

BINDING_MARK = "★"
LIMIT_TITLES = {
    Limit.BLOCKS: "Resident blocks",
    Limit.WARPS: "Warps / threads",
    Limit.REGISTERS: "Registers",
    Limit.SHARED_MEMORY: "Shared memory",
    Limit.BARRIERS: "Block barriers",
    Limit.VIRTUAL_RESOURCES: "Virtual resources",
}
INPUT_LABELS = {f.name: f.label for f in fields.for_vendor(fields.NVIDIA)}  # the session's inputs (NVIDIA's for now)
BYTE_INPUTS = fields.BYTE_FIELDS
CSV_COLUMNS = (
    "limit",
    "binding",
    "per_block_nominal",
    "allocated",
    "sm_capacity",
    "calculation",
    "blocks",
    "first_pass_estimate",
    "rounding_changed",
)


def format_input(name: str, value: object) -> str:
    """An input value as a reader wants it (bytes with KiB, carveout and cache preference by meaning)."""
    if value is None and fields.FIELD[name].optional:
        return fields.FIELD[name].none_text
    if name in BYTE_INPUTS and isinstance(value, int):
        return format_bytes_long(value)
    if name == "carveout":
        return "default (no preference)" if value == CARVEOUT_DEFAULT else f"{value} %"
    if name == "cache_config" and isinstance(value, int):
        return CacheConfig(value).name.lower()
    return str(value)


def binding_text(result: OccupancyResult | None) -> str:
    if result is None or result.active_blocks == 0:
        return "—"
    return " + ".join(LIMIT_TITLES[limit] for limit in result.binding) or "—"


# ----------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Figure:
    """One labelled value of a configuration: an input, a device figure or a result."""

    key: str
    label: str
    text: str
    group: str


def describe(
    profile: DeviceProfile, inputs: Inputs, result: OccupancyResult | None, error: str | None = None
) -> tuple[Figure, ...]:
    """Every input and result figure of one configuration, in a fixed order (the compare table's rows)."""
    sms = profile.sm_count
    out = [
        Figure("device", "Device", profile.name, "input"),
        Figure("cc", "Compute capability", profile.cc_string, "input"),
        Figure("sms", "SMs", "—" if sms is None else str(sms), "input"),
    ]
    out += [Figure(n, INPUT_LABELS[n], format_input(n, getattr(inputs, n)), "input") for n in INPUT_LABELS]
    if result is None:
        out.append(Figure("error", "Error", error or "no result", "result"))
        result_texts = dict.fromkeys(
            ("active_blocks", "active_warps", "active_threads", "occupancy", "binding", "blocks_per_gpu", "estimate"),
            "—",
        )
        limit_texts = dict.fromkeys(LIMIT_TITLES, "—")
    else:
        result_texts = {
            "active_blocks": str(result.active_blocks),
            "active_warps": str(result.active_warps),
            "active_threads": str(result.active_threads),
            "occupancy": f"{result.occupancy * 100:.4g} %",
            "binding": binding_text(result),
            "blocks_per_gpu": "—" if sms is None else str(result.active_blocks * sms),
            "estimate": f"{units.count(result.estimate.active_blocks, 'block')}, {result.estimate.occupancy * 100:.4g} %",
        }
        limit_texts = {lim: "—" if result.limits.get(lim) is None else str(result.limits[lim]) for lim in LIMIT_TITLES}
    labels = {
        "active_blocks": "Active blocks per SM",
        "active_warps": "Active warps per SM",
        "active_threads": "Active threads per SM",
        "occupancy": "Theoretical occupancy",
        "binding": "Binding limit",
        "blocks_per_gpu": "Blocks per GPU at once",
        "estimate": "First-pass estimate",
    }
    out += [Figure(k, labels[k], result_texts[k], "result") for k in labels]
    out += [
        Figure(f"limit_{lim.value}", f"Blocks allowed by {LIMIT_TITLES[lim].lower()}", limit_texts[lim], "result")
        for lim in LIMIT_TITLES
    ]
    return tuple(out)


# ----------------------------------------------------------------------------- every GPU
@dataclass(frozen=True)
class GpuRow:
    """The same kernel on one named GPU."""

    name: str
    cc: tuple[int, int]
    sms: int
    blocks_per_sm: int
    occupancy: float
    binding: str
    error: str | None = None

    @property
    def blocks_per_gpu(self) -> int:
        return self.blocks_per_sm * self.sms


def every_gpu(catalog: Catalog, inputs: Inputs) -> list[GpuRow]:
    """``inputs`` (all but the device) on every ``kind: gpu`` profile of ``catalog``, in catalog order.

    Carveout and cache preference apply only where the architecture has them, as in the session.
    """
    func = function_attributes(inputs)
    launch = Launch(block_size=inputs.threads, dynamic_smem=inputs.dynamic_smem)
    rows = []
    for profile in catalog.profiles:
        if profile.kind != "gpu":
            continue
        cc = profile.compute_capability
        state = DeviceState(
            cache_config=inputs.cache_config if supports_cache_config(cc) else CacheConfig.PREFER_NONE,
            carveout_config=inputs.carveout if supports_carveout(cc) else CARVEOUT_DEFAULT,
        )
        sms = profile.sm_count or 1
        try:
            result = compute_occupancy(profile.device_properties(), func, launch, state)
        except OccupancyError as exc:
            rows.append(GpuRow(profile.name, cc, sms, 0, 0.0, "error", str(exc)))
            continue
        rows.append(GpuRow(profile.name, cc, sms, result.active_blocks, result.occupancy, binding_text(result)))
    return rows


# ----------------------------------------------------------------------------- report data
@dataclass(frozen=True)
class ReportData:
    """Everything a report shows.  Build it with :func:`report_data`."""

    profile: DeviceProfile
    inputs: Inputs
    result: OccupancyResult | None
    error: str | None
    suggestion: BlockSizeSuggestion | None
    suggestion_error: str | None = None
    input_sources: dict[str, str] = field(default_factory=dict)
    kernel_source: str | None = None
    generated: str = ""
    curves: dict[str, StepCurve] = field(default_factory=dict)
    kernel_resources: tuple[tuple[str, str], ...] = ()
    """(label, value) of the imported kernel's other figures: local memory, spills, launch bounds."""


def report_data(
    session: Session,
    input_sources: dict[str, str] | None = None,
    kernel_source: str | None = None,
    record: KernelRecord | None = None,
) -> ReportData:
    """The report of ``session``'s current question (the advisor's block size computed here).

    ``record`` (the imported kernel, if any) adds its local memory and spills; ``input_sources``
    defaults to each input's provenance against it (see :func:`provenance`).
    """
    suggestion, suggestion_error = None, None
    try:
        suggestion = max_potential_block_size(
            session.device, session.function_attributes, session.inputs.dynamic_smem, session.device_state
        )
    except OccupancyError as exc:
        suggestion_error = str(exc)
    stamp = datetime.now(UTC).astimezone().strftime("%Y-%m-%d %H:%M %Z")
    if input_sources is None:
        input_sources = provenance(session.inputs, record, kernel_source, device=session.device)
    resources: tuple[tuple[str, str], ...] = ()
    if record is not None:
        resources = kernel_resources(record)
        cannot = mismatch_message(record.arch, session.device.compute_capability, session.catalog)
        if cannot is not None:
            resources += (("Runs on the selected device", cannot),)
    return ReportData(
        session.profile,
        session.inputs,
        session.result,
        session.error,
        suggestion,
        suggestion_error,
        dict(input_sources),
        kernel_source,
        stamp,
        dict(session.curves),
        resources,
    )


# ----------------------------------------------------------------------------- provenance
TYPED, DEFAULT = "typed", "default"


def record_inputs(record: KernelRecord, device: DeviceProperties, threads: int) -> dict[str, Any]:
    """The session inputs an imported kernel sets with ``threads`` per block on ``device`` (the window's one rule,
    ``record_launch.record_inputs``); threads only where the kernel decides them (not where it keeps them)."""
    changes = _record_inputs(record, device, threads)
    if threads_reason(record, threads) is None and not (
        record.block_size or record.req_threads or record.max_threads == threads
    ):
        del changes["threads"]
    return changes


def provenance(
    inputs: Inputs,
    record: KernelRecord | None = None,
    origin: str | None = None,
    typed: frozenset[str] = frozenset(),
    device: DeviceProperties | None = None,
) -> dict[str, str]:
    """Where each input's value came from: ``imported from FILE:kernel``, ``typed`` or ``default``.

    A value equal to the imported kernel's is imported (unless named in ``typed``); one equal to the
    :class:`Inputs` default is the default; anything else was typed.
    """
    defaults = Inputs(device=inputs.device)
    imported = record_inputs(record, device, inputs.threads) if record is not None and device is not None else {}
    out = {}
    for name in INPUT_LABELS:
        value = getattr(inputs, name)
        if name not in typed and imported.get(name) is not None and imported[name] == value:
            out[name] = f"imported from {origin or 'the imported kernel'}"
        elif name not in typed and value == getattr(defaults, name):
            out[name] = DEFAULT
        else:
            out[name] = TYPED
    return out


def kernel_resources(record: KernelRecord) -> tuple[tuple[str, str], ...]:
    """The imported kernel's figures beside its inputs: local memory (stack and spills), spills, bounds."""
    rows: list[tuple[str, str]] = [
        ("Architecture", record.arch),
        ("Registers per thread", str(record.registers)),
        (
            "Stack per thread",
            STACK_UNKNOWN
            if record.stack_bytes is None
            else f"{units.kib(record.stack_bytes)} (stack frame and spills)",
        ),
    ]
    if record.spill_stores is not None or record.spill_loads is not None:
        rows.append(("Spills", f"{record.spill_stores or 0} B stores, {record.spill_loads or 0} B loads"))
    else:
        rows.append(("Spills", "not recorded by this source (ptxas -v logs record them)"))
    if record.max_threads:
        rows.append(("__launch_bounds__ max threads", str(record.max_threads)))
    if record.min_blocks:
        rows.append(("__launch_bounds__ min blocks per SM", str(record.min_blocks)))
    if record.req_threads:
        rows.append(("Required block size (.reqntid)", "×".join(str(v) for v in record.req_threads)))
    return tuple(rows)


def input_sources_shown(data: ReportData) -> dict[str, str]:
    return {name: data.input_sources.get(name, TYPED) for name in INPUT_LABELS}


def device_rows(data: ReportData) -> list[tuple[str, str, str]]:
    """The device's figures with readable names, each with its source; the profile named by its file, never by
    the path it was installed at (a report travels)."""
    p = data.profile
    title = p.name if p.title in ("", p.name) else f"{p.name} ({p.title})"
    origin = f"{'your' if p.user else 'bundled'} profile {Path(p.path).name}" if p.path else "profile"
    rows = [
        ("Profile", title, origin),
        ("Compute capability", p.cc_string, "profile"),
        ("Architecture", p.architecture, "profile"),
        ("SMs", "—" if p.sm_count is None else str(p.sm_count), p.sources.get("sm_count", "profile")),
    ]
    for spec in LIMIT_FIELDS:
        value = p.values[spec.name]
        text = (
            units.kib(value) + (f" ({units.bytes_tooltip(value)})" if value >= 1024 else "")
            if spec.unit == "bytes"
            else units.group(value)
        )
        rows.append((spec.label or spec.name, text, p.sources.get(spec.name, "")))
    return rows


def _min_blocks_rows(data: ReportData) -> list[tuple[str, str, str]]:
    """The kernel's ``__launch_bounds__`` minimum blocks per SM against the launch, where it has one."""
    wanted, r = data.inputs.min_blocks_per_sm, data.result
    if wanted is None or r is None:
        return []
    shortfall = min_blocks_shortfall(r.active_blocks, wanted)
    return [
        (
            "min_blocks",
            "Min blocks per SM (__launch_bounds__)",
            shortfall if shortfall is not None else f"{wanted} asked for, {r.active_blocks} resident: met",
        )
    ]


def summary_rows(data: ReportData) -> list[tuple[str, str, str]]:
    """(key, label, text) of the summary; the keys are stable (tests and scripts read them)."""
    r = data.result
    if r is None:
        return [("error", "Error", data.error or "no result")]
    sms = data.profile.sm_count
    return [
        ("active_blocks", "Active blocks per SM", str(r.active_blocks)),
        ("active_warps", "Active warps per SM", f"{r.active_warps} of {r.max_warps_per_multiprocessor}"),
        ("active_threads", "Active threads per SM", str(r.active_threads)),
        ("occupancy", "Theoretical occupancy", f"{r.occupancy * 100:.4g} %"),
        ("binding", "Binding limit", binding_text(r)),
        ("blocks_per_gpu", "Blocks per GPU at once", "—" if sms is None else f"{r.active_blocks * sms} ({sms} SMs)"),
        (
            "estimate",
            "First-pass estimate",
            f"{units.count(r.estimate.active_blocks, 'block')}, {r.estimate.occupancy * 100:.4g} %"
            + ("" if r.estimate.active_blocks == r.active_blocks else " (≠ exact: allocation rounding)"),
        ),
        *_min_blocks_rows(data),
    ]


def table_rows(result: OccupancyResult | None) -> list[tuple[bool, list[str]]]:
    if result is None:
        return []
    binding = set(result.binding) if result.active_blocks > 0 else set()
    return [
        (
            row.limit in binding,
            [
                LIMIT_TITLES[row.limit],
                units.quantities(row.per_block_nominal),
                units.quantities(row.per_block_allocated),
                units.quantities(row.sm_capacity),
                row.calculation,
                "—" if row.blocks is None else str(row.blocks),
                "—" if row.estimate_blocks is None else str(row.estimate_blocks),
                "≠ estimate" if row.rounding_changed_ceiling else "",
            ],
        )
        for row in result.rows
    ]


TABLE_HEADERS = (
    "Limit",
    "Per block (nominal)",
    "Allocated",
    "SM capacity",
    "Calculation",
    "Blocks allowed",
    "First-pass estimate",
    "Note",
)


def advisor_text(data: ReportData) -> str:
    s = data.suggestion
    if s is None:
        return f"No suggestion: {data.suggestion_error or 'unavailable'}"
    grid = units.count(s.min_grid_size, "block") + ("" if data.profile.sm_count is not None else " per SM")
    return (
        f"{s.block_size} threads per block ({units.count(s.blocks_per_sm, 'block')} per SM); minimum grid to fill the GPU "
        f"once: {grid} (cudaOccupancyMaxPotentialBlockSize)"
    )
