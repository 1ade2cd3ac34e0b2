"""``occupancy import``'s table of NVIDIA records (the AMD one is ``importers.amd_table``): one row per record,
its cells from the record's JSON row, so that the table and ``--json`` say the same."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..importers import KernelRecord, json_records, printable

_COLUMNS = (
    ("arch", "arch"),
    ("registers", "regs"),
    ("static_smem", "smem"),
    ("stack_bytes", "stack"),
    ("spill_stores", "spill st"),
    ("spill_loads", "spill ld"),
    ("barriers", "bars"),
    ("const_bytes", "cmem[0]"),
    ("max_threads", "max thr"),
    ("note", "note"),
    ("demangled", "kernel"),
)


def _note(row: Any) -> str:
    """What a reader should know of a record, from its JSON row: device function, impossible figures, pre-link
    (-rdc) copy, embedded fatbin, identical copies merged, cluster shape."""
    parts = [] if row.kind == "kernel" else ["device fn"]
    if row.impossible is not None:
        parts.append("IMPOSSIBLE")
    if row.relocatable:
        parts.append("pre-link")
    if row.embedded:
        parts.append("embedded")
    if row.copies > 1:
        parts.append(f"x{row.copies}")
    if row.cluster_dims:
        parts.append("cluster {}x{}x{}".format(*row.cluster_dims))
    return ",".join(parts) or "-"


def _cell(value: object) -> str:
    return "-" if value is None else printable(str(value))


_LAUNCH_COLUMNS = (("threads_per_block", "threads"), ("dynamic_smem", "dyn smem"))
"""Shown when a record carries its launch (a Triton cache)."""


def _row(row: Any, columns: tuple[tuple[str, str], ...], bounds_unknown: bool) -> list[str]:
    """One table row from the record's JSON row (:func:`json_records`); a stack that cannot be bounded reads
    "unknown", and a launch bound the source does not record "?" (the reasons are notes)."""
    cells = []
    for key, _ in columns:
        value = getattr(row, key) if key != "note" else None
        if key == "note":
            cells.append(_note(row))
        elif key == "stack_bytes" and row.stack_note:
            cells.append("unknown")
        elif key == "max_threads" and value is None and bounds_unknown:
            cells.append("?")
        else:
            cells.append(_cell(value))
    return cells


def format_table(records: Sequence[KernelRecord], bounds_unknown: bool = False) -> str:
    """``occupancy import``'s table; ``bounds_unknown``: the source does not record launch bounds (a build
    log), so a missing one reads "?" rather than "-" (none).  Made from the JSON rows alone: an import's
    10^5 records are never made one by one (``importers.Records``)."""
    json_rows = json_records(records)
    columns: tuple[tuple[str, str], ...] = _COLUMNS
    if any(row.block_size is not None for row in json_rows):
        columns = _COLUMNS[:-2] + _LAUNCH_COLUMNS + _COLUMNS[-2:]
    rows = [_row(row, columns, bounds_unknown) for row in json_rows]
    heads = [title for _, title in columns]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(heads)]
    lines = []
    for row in [heads, *rows]:
        cells: list[str] = []
        for i, cell in enumerate(row):
            last = i == len(row) - 1
            if last:
                cells.append(cell)
            elif i == 0:
                cells.append(cell.ljust(widths[i]))
            else:
                cells.append(cell.rjust(widths[i]))
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
