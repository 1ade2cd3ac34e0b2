"""Results as JSON-ready dicts and as a readable table; one shape for ``calc --json`` and ``batch``."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ..engine import INT_MAX, Limit, OccupancyResult
from ..engine.types import LIMIT_FLAGS

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
        [("* " if row.limit in binding else "  ") + row.limit.value, row.per_block_nominal, row.per_block_allocated,
         row.sm_capacity, row.calculation, "-" if row.blocks is None else str(row.blocks),
         "-" if row.estimate_blocks is None else str(row.estimate_blocks) + (" (differs)" if row.rounding_changed_ceiling else "")]
        for row in result.rows
    ]  # fmt: skip
    table = _table(["limit", "per block", "allocated", "SM capacity", "calculation", "blocks", "estimate"], rows)
    summary = (
        f"{device_title}: {result.active_blocks} blocks, {result.active_warps} warps, "
        f"{result.active_threads} threads per SM; occupancy {result.occupancy:.1%} "
        f"({result.active_warps}/{result.max_warps_per_multiprocessor} warps)"
    )
    limited = ", ".join(limit.value for limit in result.binding)
    lines = [summary, f"limited by: {limited}  (* marks the binding limit)",
             f"first-pass estimate: {result.estimate.active_blocks} blocks, {result.estimate.occupancy:.1%}", "", table]  # fmt: skip
    if result.reasons:
        lines += ["", "The launch cannot fit a single block:", *(f"  - {r}" for r in result.reasons)]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ batch answers
_ALL_LIMITS = tuple(Limit)
_JSON_LIMIT_INDEX = tuple(_ALL_LIMITS.index(limit) for limit in JSON_LIMITS)
_VIRTUAL_INDEX = _ALL_LIMITS.index(Limit.VIRTUAL_RESOURCES)
assert _JSON_LIMIT_INDEX == tuple(range(len(JSON_LIMITS))) and _VIRTUAL_INDEX == len(JSON_LIMITS)  # _row_json's order


class BatchRow:
    """One ``occupancy batch`` answer: the engine's figures (fast path), or a finished JSON object.

    The figures are kept as the columns gave them (``limits`` in ``Limit`` order, ``INT_MAX`` where a
    limit does not apply, ``binding`` as ``LIMIT_FLAGS`` bits) and written straight to text; the
    writers produce exactly what ``json.dumps(result_to_json(...))`` would (the tests hold them to it).
    """

    __slots__ = ("obj", "values")

    def __init__(self, *values: Any) -> None:
        self.values = values
        self.obj: dict[str, Any] | None = None

    @classmethod
    def result(cls, obj: dict[str, Any]) -> BatchRow:
        row = cls()
        row.obj = obj
        return row

    @classmethod
    def error(cls, message: str) -> BatchRow:
        return cls.result({"error": message})

    def to_json(self) -> dict[str, Any]:
        """The answer as ``result_to_json`` shapes it (or the error object)."""
        if self.obj is not None:
            return self.obj
        ab, aw, at, max_warps, limits, binding, regs, smem, reasons, est, est_warps, est_limits = self.values
        shown = {limit.value: _none(limits[i]) for limit, i in zip(JSON_LIMITS, _JSON_LIMIT_INDEX)}
        if limits[_VIRTUAL_INDEX] < INT_MAX:
            shown[Limit.VIRTUAL_RESOURCES.value] = limits[_VIRTUAL_INDEX]
        return {
            "active_blocks": ab, "active_warps": aw, "active_threads": at, "occupancy": aw / max_warps,
            "limits": shown, "binding": list(_binding_names(binding)), "allocated_registers_per_block": regs,
            "allocated_shared_memory_per_block": smem, "reasons": list(reasons),
            "estimate": {"active_blocks": est, "occupancy": est_warps / max_warps,
                         "limits": {limit.value: _none(est_limits[i]) for limit, i in zip(JSON_LIMITS, _JSON_LIMIT_INDEX)}},
        }  # fmt: skip


def _none(value: int) -> int | None:
    return None if value >= INT_MAX else value


_BINDING_NAMES: dict[int, tuple[str, ...]] = {}


def _binding_names(flags: int) -> tuple[str, ...]:
    names = _BINDING_NAMES.get(flags)
    if names is None:
        names = _BINDING_NAMES[flags] = tuple(limit.value for limit, bit in LIMIT_FLAGS.items() if flags & bit)
    return names


_TEXT = [str(i) for i in range(4096)]


def _text(value: int) -> str:
    if 0 <= value < 4096:
        return _TEXT[value]
    return "null" if value >= INT_MAX else str(value)


_LIMITS_JSON = "{" + ", ".join(f'"{limit.value}": %s' for limit in JSON_LIMITS) + "%s}"
_RESULT_JSON = ('{"active_blocks": %s, "active_warps": %s, "active_threads": %s, "occupancy": %s, "limits": %s, '
                '"binding": %s, "allocated_registers_per_block": %s, "allocated_shared_memory_per_block": %s, '
                '"reasons": %s, "estimate": {"active_blocks": %s, "occupancy": %s, "limits": %s}}')  # fmt: skip
_BINDING_JSON: dict[int, str] = {}
_OCCUPANCY_JSON: dict[tuple[int, int], str] = {}


def _row_json(row: BatchRow) -> str:
    if row.obj is not None:
        return json.dumps(row.obj)
    ab, aw, at, max_warps, limits, binding, regs, smem, reasons, est, est_warps, est_limits = row.values
    w, b, r, s, bar, v = (_text(limits[i]) for i in range(6))
    ew, eb, er, es, ebar, _ = (_text(est_limits[i]) for i in range(6))
    binding_json = _BINDING_JSON.get(binding)
    if binding_json is None:
        binding_json = _BINDING_JSON[binding] = json.dumps(list(_binding_names(binding)))
    occupancy = _OCCUPANCY_JSON.get((aw, max_warps))
    if occupancy is None:
        occupancy = _OCCUPANCY_JSON[(aw, max_warps)] = repr(aw / max_warps)
    est_occupancy = _OCCUPANCY_JSON.get((est_warps, max_warps))
    if est_occupancy is None:
        est_occupancy = _OCCUPANCY_JSON[(est_warps, max_warps)] = repr(est_warps / max_warps)
    virtual = "" if v == "null" else f', "virtual_resources": {v}'
    return _RESULT_JSON % (
        ab, aw, at, occupancy, _LIMITS_JSON % (w, b, r, s, bar, virtual), binding_json, regs, smem,
        json.dumps(list(reasons)) if reasons else "[]", est, est_occupancy, _LIMITS_JSON % (ew, eb, er, es, ebar, ""),
    )  # fmt: skip


def rows_to_jsonl(numbers: list[int], rows: list[BatchRow]) -> str:
    """The answers as JSON Lines (``numbers``, the input line numbers, are not written)."""
    return "".join([_row_json(row) + "\n" for row in rows])


CSV_FIELDS = ("line", "active_blocks", "active_warps", "active_threads", "occupancy",
              *(f"limits.{limit.value}" for limit in JSON_LIMITS), "binding", "allocated_registers_per_block",
              "allocated_shared_memory_per_block", "reasons", "estimate.active_blocks", "estimate.occupancy",
              *(f"estimate.limits.{limit.value}" for limit in JSON_LIMITS), "error")  # fmt: skip
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


def rows_to_csv(numbers: list[int], rows: list[BatchRow]) -> str:
    """The answers as CSV rows under ``CSV_HEADER``: empty cells where JSON has ``null``, lists joined by "; "."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for number, row in zip(numbers, rows):
        flat = _flatten(row.to_json())
        flat["line"] = number
        writer.writerow([_cell(flat.get(name)) for name in CSV_FIELDS])
    return buffer.getvalue()
