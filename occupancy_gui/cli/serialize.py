"""Results as JSON-ready dicts and as a readable table; one shape for ``calc --json`` and ``batch``."""

from __future__ import annotations

from typing import Any

from ..engine import Limit, OccupancyResult

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
         "-" if row.estimate_blocks is None
         else str(row.estimate_blocks) + (" (differs)" if row.rounding_changed_ceiling else "")]
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
             f"first-pass estimate: {result.estimate.active_blocks} blocks, {result.estimate.occupancy:.1%}", "", table]
    if result.reasons:
        lines += ["", "The launch cannot fit a single block:", *(f"  - {r}" for r in result.reasons)]
    return "\n".join(lines)
