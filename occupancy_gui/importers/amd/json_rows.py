"""``occupancy import``'s output for AMD records: the fixed JSON contract (issue #41) and the text table.

JSON keys, in order, every one always written (``null`` where the source does not say)::

    vendor ("amd"), name, demangled, kind, arch, target, code_object_version, vgprs, agprs, sgprs,
    allocated_vgprs, static_lds, scratch_bytes, dynamic_stack, wave_size, wgp_mode, max_threads,
    required_block, spills {vgpr, sgpr}, copies, source, block_size, dynamic_lds, launch_source

The last three are the launch a Triton cache records (``null`` elsewhere).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from .record import VENDOR, AmdKernelRecord, padded_vgprs

JSON_KEYS = (
    "vendor",
    "name",
    "demangled",
    "kind",
    "arch",
    "target",
    "code_object_version",
    "vgprs",
    "agprs",
    "sgprs",
    "allocated_vgprs",
    "static_lds",
    "scratch_bytes",
    "dynamic_stack",
    "wave_size",
    "wgp_mode",
    "max_threads",
    "required_block",
    "spills",
    "copies",
    "source",
    "block_size",
    "dynamic_lds",
    "launch_source",
)


@functools.cache
def _types() -> tuple[Any, Any]:
    """The JSON row types (msgspec, imported here: the window need not load it)."""
    import msgspec  # noqa: PLC0415 - lazy: see above

    spills = msgspec.defstruct("AmdSpills", [("vgpr", Any), ("sgpr", Any)], gc=False)
    row = msgspec.defstruct("AmdJsonRecord", [(key, Any) for key in JSON_KEYS], gc=False)
    return row, spills


def amd_json_rows(records: Iterable[AmdKernelRecord]) -> list[Any]:
    """The JSON rows (msgspec structs, keys in :data:`JSON_KEYS` order) of ``records``."""
    row, spills = _types()
    return [
        row(
            VENDOR,
            r.name,
            r.demangled,
            r.kind,
            r.arch or None,
            r.target or None,
            r.code_object_version,
            r.vgprs,
            r.agprs,
            r.sgprs,
            r.allocated_vgprs,
            r.static_lds,
            r.scratch_bytes,
            r.dynamic_stack,
            r.wave_size,
            r.wgp_mode,
            r.max_threads,
            r.required_block,
            spills(r.spills.vgpr, r.spills.sgpr),
            r.copies,
            r.source,
            r.block_size,
            r.dynamic_lds,
            r.launch_source,
        )
        for r in records
    ]


def amd_record_json(rec: AmdKernelRecord) -> dict[str, Any]:
    """One record as ``occupancy import --json`` writes it, as JSON reads it back."""
    import msgspec  # noqa: PLC0415 - lazy: as in _types

    decoded: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(amd_json_rows([rec])[0]))
    return decoded


_COLUMNS = (
    "target",
    "vgprs",
    "alloc",
    "agprs",
    "sgprs",
    "lds",
    "scratch",
    "wave",
    "wgp",
    "max thr",
    "spills v/s",
    "note",
    "kernel",
)
_LAUNCH = ("threads", "dyn lds")


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _note(rec: AmdKernelRecord) -> str:
    """What a reader should know of a row: device function, a descriptor allocating more VGPRs than the
    metadata states (beyond its granule), a dynamic stack, required block, copies merged."""
    parts = [] if rec.is_kernel else ["device fn"]
    if padded_vgprs(rec):
        parts.append("padded")
    if rec.dynamic_stack:
        parts.append("dyn stack")
    if rec.required_block is not None:
        parts.append("reqd {}x{}x{}".format(*rec.required_block))
    if rec.copies > 1:
        parts.append(f"x{rec.copies}")
    return ",".join(parts) or "-"


def amd_table(records: list[AmdKernelRecord]) -> str:
    """The text table ``occupancy import`` prints for AMD records."""
    launch = any(rec.block_size is not None for rec in records)
    heads = list(_COLUMNS[:-2] + (_LAUNCH if launch else ()) + _COLUMNS[-2:])
    rows = []
    for r in records:
        spills = (
            "-" if r.spills.vgpr is None and r.spills.sgpr is None else f"{_cell(r.spills.vgpr)}/{_cell(r.spills.sgpr)}"
        )
        cells = [
            r.target or r.arch or "?",
            _cell(r.vgprs),
            _cell(r.allocated_vgprs),
            _cell(r.agprs),
            _cell(r.sgprs),
            _cell(r.static_lds),
            _cell(r.scratch_bytes),
            _cell(r.wave_size),
            _cell(r.wgp_mode),
            _cell(r.max_threads),
            spills,
        ]
        if launch:
            cells += [_cell(r.block_size), _cell(r.dynamic_lds)]
        rows.append([*cells, _note(r), r.demangled])
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(heads)]
    lines = []
    for row in [heads, *rows]:
        cells = [
            cell if i == len(row) - 1 else cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
