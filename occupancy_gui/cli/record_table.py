"""``occupancy import``'s table of NVIDIA records (the AMD one is ``importers.amd_table``): one row per record,
its cells from the record's JSON row, so that the table and ``--json`` say the same."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..importers import KernelRecord, json_records, printable

_COLUMNS = (
    ("arch", "arch"), ("registers", "regs"), ("static_smem", "smem"), ("stack_bytes", "stack"),
    ("spill_stores", "spill st"), ("spill_loads", "spill ld"), ("barriers", "bars"),
    ("const_bytes", "cmem[0]"), ("max_threads", "max thr"), ("note", "note"), ("demangled", "kernel"),
)


def _note(rec: KernelRecord, impossible: str | None) -> str:
    """What a reader should know of a row: device function, pre-link (-rdc) copy, embedded fatbin,
    identical copies merged, cluster shape (``impossible``: its :func:`impossible_figure`)."""
    parts = [] if rec.is_kernel else ["device fn"]
    if impossible is not None:
        parts.append("IMPOSSIBLE")
    if rec.relocatable:
        parts.append("pre-link")
    if rec.embedded:
        parts.append("embedded")
    if rec.copies > 1:
        parts.append(f"x{rec.copies}")
    if rec.cluster_dims:
        parts.append("cluster {}x{}x{}".format(*rec.cluster_dims))
    return ",".join(parts) or "-"


def _cell(value: object) -> str:
    return "-" if value is None else printable(str(value))


_LAUNCH_COLUMNS = (("threads_per_block", "threads"), ("dynamic_smem", "dyn smem"))
"""Shown when a record carries its launch (a Triton cache)."""


def _row(rec: KernelRecord, row: Any, columns: tuple[tuple[str, str], ...], bounds_unknown: bool) -> list[str]:
    """One table row from the record's JSON row (:func:`json_records`); a stack that cannot be bounded reads
    "unknown", and a launch bound the source does not record "?" (the reasons are notes)."""
    cells = []
    for key, _ in columns:
        value = getattr(row, key) if key != "note" else None
        if key == "note":
            cells.append(_note(rec, row.impossible))
        elif key == "stack_bytes" and row.stack_note:
            cells.append("unknown")
        elif key == "max_threads" and value is None and bounds_unknown:
            cells.append("?")
        else:
            cells.append(_cell(value))
    return cells


def format_table(records: Iterable[KernelRecord], bounds_unknown: bool = False) -> str:
    """``occupancy import``'s table; ``bounds_unknown``: the source does not record launch bounds (a build
    log), so a missing one reads "?" rather than "-" (none)."""
    records = list(records)
    columns: tuple[tuple[str, str], ...] = _COLUMNS
    if any(rec.block_size is not None for rec in records):
        columns = _COLUMNS[:-2] + _LAUNCH_COLUMNS + _COLUMNS[-2:]
    rows = [_row(rec, row, columns, bounds_unknown) for rec, row in zip(records, json_records(records))]
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
