"""``occupancy import FILE.ptx|FILE.cu --arch sm_XY`` and ``occupancy regcap``: kernels compiled for real.

Compiler failures print the compiler's own lines to stderr as it wrote them, then one summary line;
a missing compiler is one line saying how to get one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TextIO

from ..compile import (
    CompileCancelled,
    CompileError,
    CompilerNotFound,
    Source,
    compile_resources,
    make_source,
)
from ..compile.regcap import ResultCache, Sweep, sweep
from ..importers import record_json
from .common import fail
from .devices import load_catalog
from .record_table import format_table


def _source(args: argparse.Namespace) -> Source:
    """The file to compile, its arch and compiler (errors: ``ValueError``, ``CompilerNotFound``)."""
    return make_source(args.file, args.arch, args.cuda_bin, args.compiler_args)


def _guarded(prog: str, run: Callable[[argparse.Namespace, TextIO], int], args: argparse.Namespace, out: TextIO) -> int:
    try:
        return run(args, out)
    except CompileError as exc:
        for line in exc.lines:
            print(line, file=sys.stderr)
        return fail(prog, str(exc))
    except (CompilerNotFound, ValueError, KeyError) as exc:  # KeyError: no device profile for --device/--arch
        return fail(prog, str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
    except (CompileCancelled, KeyboardInterrupt):
        return fail(prog, f"{args.file}: cancelled")


def run_compiled_import(args: argparse.Namespace, out: TextIO) -> int:
    """``occupancy import FILE.ptx|.cu --arch sm_XY``: the kernels as ptxas reports them."""
    return _guarded("occupancy import", _compiled_import, args, out)


def _compiled_import(args: argparse.Namespace, out: TextIO) -> int:
    records = compile_resources(_source(args))
    if not args.all_functions:
        records = [r for r in records if r.is_kernel]
    if args.json:
        rows = ",\n ".join(json.dumps(record_json(rec)) for rec in records)
        print(f"[\n {rows}\n]" if rows else "[]", file=out)
    else:
        print(format_table(records), file=out)
    return 0


def run_regcap(args: argparse.Namespace, out: TextIO) -> int:
    """``occupancy regcap``: one compile per register cap that can change the answer."""
    return _guarded("occupancy regcap", _regcap, args, out)


def _regcap(args: argparse.Namespace, out: TextIO) -> int:
    src = _source(args)
    profile = load_catalog().get(args.device or src.arch.rstrip("af"))
    cache = ResultCache(None) if args.no_cache else ResultCache.default()
    result = sweep(
        src,
        profile.device_properties(),
        kernel=args.kernel,
        threads=args.threads,
        dynamic_smem=args.dynamic_smem,
        jobs=args.jobs,
        cache=cache,
    )
    if args.json:
        print(json.dumps([p.to_json() for p in result.points]), file=out)
    else:
        print(sweep_text(result, profile.name), file=out)
    return 0


def sweep_text(result: Sweep, device: str) -> str:
    """The sweep as a table, the sweet spot and the price of each further occupancy step."""
    head = ["cap", "regs", "spill st", "spill ld", "stack", "blocks", "occupancy"]
    rows = [
        [
            "none" if p.cap is None else str(p.cap),
            str(p.registers),
            str(p.spill_stores),
            str(p.spill_loads),
            "unknown" if p.stack_bytes is None else str(p.stack_bytes),
            str(p.active_blocks),
            f"{p.occupancy:.1%}",
        ]
        for p in result.points
    ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    title = (
        f"{result.kernel} ({result.arch}) on {device}, {result.threads} threads per block; "
        f"ptxas accepts caps down to {result.lower_bound}"
    )
    lines = [title, ""]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in [head, *rows]]
    best = result.sweet_spot
    cap = "no cap" if best.cap is None else f"-maxrregcount={best.cap}"
    lines += ["", f"sweet spot: {cap} ({best.registers} registers), occupancy {best.occupancy:.1%} without spills"]
    for p in result.further_steps():
        lines.append(
            f"  {p.occupancy:.1%} needs -maxrregcount={p.cap}: {p.spill_bytes} B of spill stores+loads "
            f"per thread, {'an unbounded' if p.stack_bytes is None else f'{p.stack_bytes} B'} stack"
        )
    return "\n".join(lines)
