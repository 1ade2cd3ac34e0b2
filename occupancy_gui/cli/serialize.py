"""Results as JSON-ready dicts and as a readable table; one shape for ``calc --json`` and ``batch``."""

from __future__ import annotations

import csv
import io
import json
from json.encoder import encode_basestring_ascii  # json.dumps's own string encoder (in C)
from typing import Any

from ..engine import INT_MAX, LIMIT_FLAGS, Limit, OccupancyResult
from ..units import count, quantities

JSON_LIMITS = (Limit.WARPS, Limit.BLOCKS, Limit.REGISTERS, Limit.SHARED_MEMORY, Limit.BARRIERS)


def result_to_json(result: OccupancyResult) -> dict[str, Any]:
    """The documented result keys; ``null`` where a limit does not apply."""
    limits = {limit.value: result.limits[limit] for limit in JSON_LIMITS}
    if result.limits[Limit.VIRTUAL_RESOURCES] is not None:
        limits[Limit.VIRTUAL_RESOURCES.value] = result.limits[Limit.VIRTUAL_RESOURCES]
    return {
        "active_blocks": result.active_blocks,
        "active_warps": result.active_warps,
        "active_threads": result.active_threads,
        "occupancy": result.occupancy,
        "limits": limits,
        "binding": [limit.value for limit in result.binding],
        "allocated_registers_per_block": result.allocated_registers_per_block,
        "allocated_shared_memory_per_block": result.allocated_shared_memory_per_block,
        "reasons": list(result.reasons),
        "estimate": {
            "active_blocks": result.estimate.active_blocks,
            "occupancy": result.estimate.occupancy,
            "limits": {limit.value: result.estimate.limits[limit] for limit in JSON_LIMITS},
        },
    }


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join([line, "  ".join("-" * w for w in widths), *body])


def result_to_text(result: OccupancyResult, device_title: str) -> str:
    """The constraint table and summary, as a terminal reader wants them."""
    binding = set(result.binding)
    rows = [
        [
            ("* " if row.limit in binding else "  ") + row.limit.value,
            quantities(row.per_block_nominal),
            quantities(row.per_block_allocated),
            quantities(row.sm_capacity),
            row.calculation,
            "-" if row.blocks is None else str(row.blocks),
            "-"
            if row.estimate_blocks is None
            else str(row.estimate_blocks) + (" (differs)" if row.rounding_changed_ceiling else ""),
        ]
        for row in result.rows
    ]
    table = _table(["limit", "per block", "allocated", "SM capacity", "calculation", "blocks", "estimate"], rows)
    summary = (
        f"{device_title}: {count(result.active_blocks, 'block')}, {count(result.active_warps, 'warp')}, "
        f"{count(result.active_threads, 'thread')} per SM; occupancy {result.occupancy:.1%} "
        f"({result.active_warps}/{result.max_warps_per_multiprocessor} warps)"
    )
    limited = ", ".join(limit.value for limit in result.binding)
    lines = [
        summary,
        f"limited by: {limited}  (* marks the binding limit)",
        f"first-pass estimate: {count(result.estimate.active_blocks, 'block')}, {result.estimate.occupancy:.1%}",
        "",
        table,
    ]
    if result.reasons:
        lines += ["", "The launch cannot fit a single block:", *(f"  - {r}" for r in result.reasons)]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ batch answers
_ALL_LIMITS = tuple(Limit)
_JSON_LIMIT_INDEX = tuple(_ALL_LIMITS.index(limit) for limit in JSON_LIMITS)
_VIRTUAL_INDEX = _ALL_LIMITS.index(Limit.VIRTUAL_RESOURCES)
assert tuple(range(len(JSON_LIMITS))) == _JSON_LIMIT_INDEX and len(JSON_LIMITS) == _VIRTUAL_INDEX  # _row_json's order


Figures = tuple[Any, ...]
"""One answer as the engine's columns give it: (active blocks, active warps, active threads, max warps per
SM, limits in ``Limit`` order with ``INT_MAX`` where one does not apply, ``LIMIT_FLAGS`` bits of the binding
ones, allocated registers, allocated shared memory, reasons, estimated blocks, estimated warps, estimated
limits).  Written straight to text, exactly as ``json.dumps(result_to_json(...))`` (the tests hold it to that)."""

BatchAnswer = dict[str, Any] | Figures
"""A finished JSON object (an error, or an answer of ``compute_occupancy``) or the engine's figures."""


def figures_to_json(values: Figures) -> dict[str, Any]:
    """The figures as ``result_to_json`` shapes them."""
    ab, aw, at, max_warps, limits, binding, regs, smem, reasons, est, est_warps, est_limits = values
    shown = {limit.value: _none(limits[i]) for limit, i in zip(JSON_LIMITS, _JSON_LIMIT_INDEX)}
    if limits[_VIRTUAL_INDEX] < INT_MAX:
        shown[Limit.VIRTUAL_RESOURCES.value] = limits[_VIRTUAL_INDEX]
    return {
        "active_blocks": ab,
        "active_warps": aw,
        "active_threads": at,
        "occupancy": aw / max_warps,
        "limits": shown,
        "binding": list(binding_names(binding)),
        "allocated_registers_per_block": regs,
        "allocated_shared_memory_per_block": smem,
        "reasons": list(reasons),
        "estimate": {
            "active_blocks": est,
            "occupancy": est_warps / max_warps,
            "limits": {limit.value: _none(est_limits[i]) for limit, i in zip(JSON_LIMITS, _JSON_LIMIT_INDEX)},
        },
    }


def _none(value: int) -> int | None:
    return None if value >= INT_MAX else value


_BINDING_NAMES: dict[int, tuple[str, ...]] = {}


def binding_names(flags: int) -> tuple[str, ...]:
    names = _BINDING_NAMES.get(flags)
    if names is None:
        names = _BINDING_NAMES[flags] = tuple(limit.value for limit, bit in LIMIT_FLAGS.items() if flags & bit)
    return names


_TEXT = [str(i) for i in range(4096)]


def _text(value: int) -> str:
    if 0 <= value < 4096:
        return _TEXT[value]
    return "null" if value >= INT_MAX else str(value)


LIMITS_JSON = "{" + ", ".join(f'"{limit.value}": %s' for limit in JSON_LIMITS) + "%s}"
RESULT_JSON = (
    '{"active_blocks": %s, "active_warps": %s, "active_threads": %s, "occupancy": %s, "limits": %s, '
    '"binding": %s, "allocated_registers_per_block": %s, "allocated_shared_memory_per_block": %s, '
    '"reasons": %s, "estimate": {"active_blocks": %s, "occupancy": %s, "limits": %s}}'
)
_BINDING_JSON: dict[int, str] = {}
_OCCUPANCY_JSON: dict[tuple[int, int], str] = {}


_FRAGMENTS: dict[tuple[int, ...], str] = {}


def limits_json(limits: tuple[int, ...]) -> str:
    """The ``limits`` object of one answer; few distinct ones occur, so each is written once."""
    text = _FRAGMENTS.get(limits)
    if text is None:
        virtual = "" if len(limits) < 6 or limits[5] >= INT_MAX else f', "virtual_resources": {limits[5]}'
        text = LIMITS_JSON % (*(_text(v) for v in limits[:5]), virtual)
        if len(_FRAGMENTS) > 65536:
            _FRAGMENTS.clear()
        _FRAGMENTS[limits] = text
    return text


def _occupancy_json(warps: int, max_warps: int) -> str:
    text = _OCCUPANCY_JSON.get((warps, max_warps))
    if text is None:
        text = _OCCUPANCY_JSON[(warps, max_warps)] = repr(warps / max_warps)
    return text


def answer_json(answer: BatchAnswer) -> str:
    """One answer as one JSON line (no newline)."""
    if isinstance(answer, dict):
        if len(answer) == 1 and type(answer.get("error")) is str:  # what json.dumps writes, without its machinery
            return '{"error": ' + encode_basestring_ascii(answer["error"]) + "}"
        return json.dumps(answer)
    ab, aw, at, max_warps, limits, binding, regs, smem, reasons, est, est_warps, est_limits = answer
    binding_json = _BINDING_JSON.get(binding)
    if binding_json is None:
        binding_json = _BINDING_JSON[binding] = json.dumps(list(binding_names(binding)))
    return RESULT_JSON % (
        ab,
        aw,
        at,
        _occupancy_json(aw, max_warps),
        limits_json(limits),
        binding_json,
        regs,
        smem,
        json.dumps(list(reasons)) if reasons else "[]",
        est,
        _occupancy_json(est_warps, max_warps),
        limits_json(est_limits[:5]),
    )


def answers_to_jsonl(numbers: list[int], answers: list[BatchAnswer]) -> str:
    """The answers as JSON Lines (``numbers``, the input line numbers, are not written)."""
    return "\n".join([answer_json(a) for a in answers]) + "\n" if answers else ""


_HIP_RUNTIME_LIMITS = ("workgroup_size", "waves", "vgprs", "sgprs", "lds")
_COMPILER_LIMITS = ("waves", "workgroup_size", "lds", "vgprs", "sgprs", "waves_per_eu")
"""The limit keys of an AMD answer's ``hip_runtime`` and ``compiler`` objects (``engine.amd.HIP_LIMITS`` and
``COMPILER_LIMITS``, written out so that an NVIDIA ``occupancy calc`` starts without the AMD engine; a test holds
them equal)."""
NVIDIA_CSV_FIELDS = (
    "line",
    "active_blocks",
    "active_warps",
    "active_threads",
    "occupancy",
    *(f"limits.{limit.value}" for limit in JSON_LIMITS),
    "binding",
    "allocated_registers_per_block",
    "allocated_shared_memory_per_block",
    "reasons",
    "estimate.active_blocks",
    "estimate.occupancy",
    *(f"estimate.limits.{limit.value}" for limit in JSON_LIMITS),
)
AMD_CSV_FIELDS = (
    "vendor",
    "device",
    "hip_runtime.active_blocks",
    "hip_runtime.active_waves",
    "hip_runtime.occupancy",
    *(f"hip_runtime.limits.{k}" for k in _HIP_RUNTIME_LIMITS),
    "hip_runtime.binding",
    "hip_runtime.best_block_size",
    "hip_runtime.grid_blocks",
    "hip_runtime.error",
    "compiler.waves_per_simd",
    "compiler.occupancy",
    *(f"compiler.limits.{k}" for k in _COMPILER_LIMITS),
    "compiler.binding",
    "explanation",
)
"""An AMD answer's keys flattened: empty on an NVIDIA line's row, as NVIDIA's are on an AMD line's."""
CSV_FIELDS = (*NVIDIA_CSV_FIELDS, *AMD_CSV_FIELDS, "error")
"""The JSON keys flattened with dots, plus the input line number first and the error text last."""
CSV_HEADER = ",".join(CSV_FIELDS) + "\r\n"


def _flatten(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in obj.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[prefix + key] = value
    return flat


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return value


def answers_to_csv(numbers: list[int], answers: list[BatchAnswer]) -> str:
    """The answers as CSV rows under ``CSV_HEADER``: empty cells where JSON has ``null``, lists joined by "; "."""
    return "".join(answers_to_csv_rows(numbers, answers))


def answers_to_csv_rows(numbers: list[int], answers: list[BatchAnswer]) -> list[str]:
    """Each answer's CSV row, as ``answers_to_csv`` writes them: one writer for all, each row cut at the
    offset it reports (a writer per row costs ~2 µs more)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    ends = []
    for number, answer in zip(numbers, answers):
        flat = _flatten(answer if isinstance(answer, dict) else figures_to_json(answer))
        flat["line"] = number
        writer.writerow([_cell(flat.get(name)) for name in CSV_FIELDS])
        ends.append(buffer.tell())
    text = buffer.getvalue()
    return [text[start:end] for start, end in zip([0, *ends], ends)]
