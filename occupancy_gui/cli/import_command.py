"""``occupancy import FILE [--json]``: list the kernels a log or binary describes (the importers' JSON rows,
``importers.json_records``, one per line; or ``record_table``'s table)."""

from __future__ import annotations

import argparse
import os
import sys

import msgspec

from .._process.collector import collection_paused
from ..importers import (
    LAUNCH_BOUNDS_NOTE,
    STACK_UNKNOWN,
    AmdKernelRecord,
    ImportCancelled,
    ImportFailure,
    Records,
    amd_json_rows,
    amd_table,
    import_file_detailed,
    impossible_figures,
    json_records,
    printable,
)
from .record_table import format_table

JSON_SLICE = 16384
"""Records encoded at a time: the text held at once is a slice's (~10 MB), whatever the listing's size."""


def _write_json(records: Records, reasons: list[str | None], amd: list[AmdKernelRecord] | None = None) -> None:
    """One record per line: still one JSON list, readable.  msgspec writes a slice's rows in one call
    (``encode_lines``; a JSON string holds no raw newline, so each newline ends a row): libcusparse's
    40,667 rows (54 MB) took 0.15 s encoded one by one, 0.07 s so.  Where stdout takes UTF-8 bytes
    as they are, they go to it without a text copy.  A slice at a time: a 200 MB log's 137,987 rows
    (80 MB of text) held the whole text four times over (0.77 s of system time for its pages)."""
    amd = amd or []
    if not records and not amd:
        print("[]")
        return
    out = getattr(sys.stdout, "buffer", None)  # a caller's StringIO has none
    if out is None or os.linesep != "\n" or (sys.stdout.encoding or "").lower().replace("-", "") != "utf8":

        def write(data: bytes) -> object:
            return sys.stdout.write(data.decode())
    else:
        sys.stdout.flush()
        write = out.write
    encode = msgspec.json.Encoder().encode_lines
    for at in range(0, len(records), JSON_SLICE):
        rows = json_records(records[at : at + JSON_SLICE], reasons[at : at + JSON_SLICE])
        write(b",\n " if at else b"[\n ")
        write(encode(rows)[:-1].replace(b"\n", b",\n "))
    for at in range(0, len(amd), JSON_SLICE):  # AMD records (importers.amd): their own keys, "vendor": "amd"
        write(b",\n " if at or records else b"[\n ")
        write(encode(amd_json_rows(amd[at : at + JSON_SLICE]))[:-1].replace(b"\n", b",\n "))
    write(b"\n]\n")
    sys.stdout.flush()


def _stack_notes(records: Records) -> None:
    """Say which listed functions have a stack no bound is known for (cuobjdump's ``STACK:UNKNOWN``)."""
    unknown = [records[i] for i, state in enumerate(records.states()) if state["stack_bytes"] is None]
    if unknown:
        named = ", ".join(f"{printable(rec.name)} ({printable(rec.arch)})" for rec in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        print(
            f'occupancy import: note: stack {STACK_UNKNOWN}, so no figure is given ("stack_bytes": null): '
            f"{named}{more}",
            file=sys.stderr,
        )


def run_import(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="occupancy import",
        description="List kernel resource usage from a build log, cuobjdump output, .cubin, .fatbin or host binary.",
    )
    parser.add_argument("file")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.add_argument(
        "--all-functions",
        action="store_true",
        help="list device functions too (by default only kernels, the __global__ entry points)",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="read the file even if the import cache holds it (and do not store it)"
    )
    args = parser.parse_args(argv)
    with collection_paused():  # 10^4-10^5 records (a cache's built here), none in a cycle
        return _listed(args)


def _listed(args: argparse.Namespace) -> int:
    try:
        cache = None
        if not args.no_cache:
            from ..importers import RecordCache  # noqa: PLC0415 - lazy: --no-cache never loads it (25 ms)

            cache = RecordCache()
        result = import_file_detailed(args.file, cache=cache)
    except ImportFailure as exc:
        reason = exc.reason
        if exc.line is not None:
            reason = f"line {exc.line}: {reason}"
        elif exc.offset is not None:
            reason = f"byte {exc.offset}: {reason}"
        print(f"occupancy import: error: {printable(args.file)}: {reason}", file=sys.stderr)
        return 2
    except ImportCancelled:
        print(f"occupancy import: error: {printable(args.file)}: cancelled", file=sys.stderr)
        return 2
    for note in result.notes:
        print(f"occupancy import: note: {printable(note)}", file=sys.stderr)
    if result.launch_bounds_unknown:
        print(f"occupancy import: note: {printable(args.file)}: {LAUNCH_BOUNDS_NOTE}", file=sys.stderr)
    records = result.records if args.all_functions else result.records.kernels()
    reasons = impossible_figures(records)
    for i in [i for i, flag in enumerate(reasons) if flag is not None]:  # (a record is made only where needed)
        rec = records[i]
        print(
            f"occupancy import: note: {printable(rec.name)} ({printable(rec.arch)}): {reasons[i]}; its figures are "
            "damaged",
            file=sys.stderr,
        )
    _stack_notes(records)
    amd = [rec for rec in result.amd_records if args.all_functions or rec.is_kernel]
    hidden = len(result.records) - len(records) + len(result.amd_records) - len(amd)
    if hidden:
        print(
            f"occupancy import: note: {hidden} device function{'s' if hidden != 1 else ''} not listed "
            "(--all-functions lists them)",
            file=sys.stderr,
        )
    if args.json:
        _write_json(records, reasons, amd)
    else:
        if records or not amd:
            print(format_table(records, result.launch_bounds_unknown))
        if amd:
            print(("\n" if records else "") + amd_table(amd))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run_import(sys.argv[1:]))
