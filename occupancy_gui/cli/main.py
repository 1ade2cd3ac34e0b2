"""``occupancy``: the engine from the command line.

Every failure a user can cause prints one line naming what was wrong and exits 2; no tracebacks.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .. import REFERENCE_HEADER, __version__, fields
from ..fields import BYTES, CACHE, CARVEOUT, COUNT, MIN_MAX, MODE
from .common import Parser, fail, min_max
from .common import byte_size as _bytes

_ARG_TYPES: dict[str, Any] = {COUNT: int, BYTES: _bytes, CARVEOUT: str, CACHE: str, MIN_MAX: min_max}
_CLI_DEFAULTS: dict[str, Any] = {CARVEOUT: "default", CACHE: "none"}
"""How a kind reads on the command line (a carveout and a cache preference by name, waves per EU as N or N,M)
and its default's words (``occupancy report``)."""


def _add_field(
    p: argparse._ActionsContainer, f: fields.InputField, *, required: bool, default: Any, words: str
) -> None:
    """One input of the field table as its flag (a mode as its pair of flags, one turning it on, one off)."""
    assert f.flag is not None
    if f.kind == MODE:
        assert f.off_flag is not None
        pair = p.add_mutually_exclusive_group()
        pair.add_argument(f.flag, dest=f.name, action="store_const", const=True, default=None, help=words)
        pair.add_argument(
            f.off_flag,
            dest=f.name,
            action="store_const",
            const=False,
            default=None,
            help=f"not {f.label}: the opposite of {f.flag}",
        )
        return
    metavar = (
        "|".join(map(str, f.choices))
        if f.choices
        else "N[,M]"
        if f.kind == MIN_MAX
        else "N"
        if f.optional and f.kind == COUNT
        else None
    )
    p.add_argument(f.flag, type=_ARG_TYPES[f.kind], required=required, default=default, metavar=metavar, help=words)


_GROUPS = (
    (frozenset(fields.VENDORS), None),
    (frozenset({fields.NVIDIA}), "NVIDIA devices"),
    (frozenset({fields.AMD}), "AMD devices (docs/amd.md)"),
)
"""The flags' groups in ``--help``: those of every vendor, then each vendor's own."""


def _add_kernel_arguments(p: argparse.ArgumentParser, *, threads_required: bool) -> None:
    """The device and every input of the field table with a flag (``fields.FIELDS``, every vendor's), then
    ``--json``.  No flag has a default here: which flags a device takes, and which it needs, is known once the
    device is (``commands``), and an absent flag is then the table's default."""
    p.add_argument("--device", required=True, help="profile name, alias, sm_XY or X.Y; an AMD GPU or gfx target")
    for vendors, title in _GROUPS:
        group = p if title is None else p.add_argument_group(title)
        for f in fields.FIELDS:
            if f.flag is not None and f.vendors == vendors:
                required = f.required and vendors == _GROUPS[0][0] and (threads_required or f.name != "threads")
                _add_field(group, f, required=required, default=None, words=f.help)
    p.add_argument("--json", action="store_true", help="print JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="occupancy", description=f"Exact CUDA occupancy (matches {REFERENCE_HEADER}).")
    parser.add_argument("--version", action="version", version=f"occupancy {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    calc = sub.add_parser("calc", help="occupancy of one launch")
    _add_kernel_arguments(calc, threads_required=True)
    batch = sub.add_parser("batch", help="JSON Lines queries in, JSON Lines results out")
    batch.add_argument("file", nargs="?", default="-", help="a .jsonl file, or - for standard input")
    batch.add_argument(
        "--format",
        choices=("json", "csv"),
        default="json",
        help="JSON Lines (default) or CSV with a header row (keys flattened: limits.warps, ...)",
    )
    batch.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N|auto",
        help="worker processes answering blocks of lines (default: 1, this process; "
        "auto: one per CPU this process may use)",
    )
    devices = sub.add_parser("devices", help="list every device profile (NVIDIA and AMD)")
    devices.add_argument("--json", action="store_true")
    devices.add_argument("--vendor", choices=fields.VENDORS, help="only this vendor's profiles")
    devices.add_argument(
        "--detect",
        action="store_true",
        help="read the local GPUs (needs occupancy_gui[cuda]) and save them as user profiles",
    )
    suggest = sub.add_parser(
        "suggest", help="block size like cudaOccupancyMaxPotentialBlockSize (hipOccupancyMaxPotentialBlockSize on AMD)"
    )
    _add_kernel_arguments(suggest, threads_required=False)
    only = suggest.add_argument_group("NVIDIA devices, suggest only")
    only.add_argument("--blocks", type=int, help="with --threads: dynamic smem available for N blocks per SM")
    only.add_argument("--smem-per-thread", type=int, help="dynamic smem bytes per thread (default 0)")
    imp = sub.add_parser("import", help="list kernels from compiler output or binaries")
    imp.add_argument("file")
    imp.add_argument("--json", action="store_true")
    imp.add_argument("--all-functions", action="store_true", help="list device functions too, not only kernels")
    imp.add_argument("--no-cache", action="store_true", help="read the file afresh, bypassing the import cache")
    _add_compile_arguments(imp, required=False)
    regcap = sub.add_parser(
        "regcap",
        help="compile at each register cap that can change the occupancy: spills and occupancy per -maxrregcount",
    )
    regcap.add_argument("file", help="a .ptx or .cu file")
    _add_compile_arguments(regcap, required=True)
    regcap.add_argument("--kernel", metavar="NAME", help="the kernel (required when the file has several)")
    regcap.add_argument("--threads", type=int, help="threads per block (default: launch bound, else 256)")
    regcap.add_argument("--dynamic-smem", type=_bytes, default=0, help="dynamic shared memory per block")
    regcap.add_argument("--device", help="device profile for the occupancy (default: the --arch's)")
    regcap.add_argument("--jobs", type=int, help="parallel compiles (default: one per CPU)")
    regcap.add_argument("--no-cache", action="store_true", help="recompile even where a cached result exists")
    regcap.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list of {cap, registers, spill_stores, spill_loads, stack_bytes, active_blocks, occupancy}",
    )
    _add_report_arguments(
        sub.add_parser("report", help="write an HTML, Markdown or CSV report of one launch (NVIDIA devices)")
    )
    return parser


def _jobs(text: str) -> int:
    """``--jobs``: a count of worker processes, 1 to ``MAX_JOBS``, or ``auto``: the CPUs this process may
    run on (its affinity, not the machine's count: a container or ``taskset`` gets what it was given)."""
    from .._process.child_process import usable_cpus  # noqa: PLC0415 - lazy: as below
    from .batch_parallel import MAX_JOBS  # noqa: PLC0415 - lazy: its pipes' modules cost every command ~25 ms

    if text == "auto":
        return min(usable_cpus(), MAX_JOBS)
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_JOBS}, got {value}")
    return value


def _add_compile_arguments(p: argparse.ArgumentParser, *, required: bool) -> None:
    p.add_argument(
        "--arch",
        required=required,
        metavar="sm_XY",
        help="compile a .ptx (ptxas -v) or .cu (nvcc --resource-usage) for this architecture",
    )
    p.add_argument(
        "--cuda-bin",
        metavar="DIR",
        help="the CUDA bin folder (default: CUDA_HOME, PATH, or the nvidia-cuda-nvcc wheel)",
    )
    p.epilog = "Arguments after -- go to nvcc (.cu files only)."


def _add_report_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="compiler output: registers, static smem and barriers from its first kernel",
    )
    p.add_argument("--kernel", metavar="NAME", help="with FILE: the first kernel whose name contains NAME")
    p.add_argument("--device", required=True, help="profile name, alias, sm_XY or X.Y; an AMD GPU or gfx target")
    for f in fields.for_vendor(fields.NVIDIA):  # a kernel's own figures come from FILE unless given
        default = None if f.kernel or f.optional else _CLI_DEFAULTS.get(f.kind, f.default)
        words = (
            f"{f.help} (default: FILE's"
            + (f", else {f.none_text or f.default})" if f.name != "registers" else "; required without FILE)")
            if f.kernel
            else f.help
        )
        _add_field(p, f, required=f.name == "threads", default=default, words=words)
    amd = p.add_argument_group("AMD devices (docs/amd.md)")
    for f in fields.only_for(fields.AMD):  # an AMD device's report: both answers (--vgprs is required then)
        _add_field(amd, f, required=False, default=None, words=f.help)
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="report file: .html, .md or .csv")


def _import(args: argparse.Namespace, out: TextIO) -> int:
    if args.arch is not None or args.compiler_args or args.file.lower().endswith((".ptx", ".cu")):
        if args.arch is None:
            return fail("occupancy import", f"{args.file}: --arch sm_XY is required to compile it")
        from .compile_commands import run_compiled_import  # noqa: PLC0415 - lazy: only sources need the compiler

        return run_compiled_import(args, out)
    from .import_command import run_import  # noqa: PLC0415 - lazy: `occupancy calc` starts without the importers

    argv = (
        [args.file]
        + (["--json"] if args.json else [])
        + (["--all-functions"] if args.all_functions else [])
        + (["--no-cache"] if args.no_cache else [])
    )
    return run_import(argv)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of the ``occupancy`` console script."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:  # what follows goes to the compiler (import / regcap of a .cu file)
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    args = parser.parse_args(argv)
    if extra and args.command not in ("import", "regcap"):
        parser.error(f"arguments after -- are for the compiler (import, regcap), not {args.command}")
    args.compiler_args = extra
    try:
        return _dispatch(args, out or sys.stdout)
    except BrokenPipeError:  # `occupancy ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _dispatch(args: argparse.Namespace, out: TextIO) -> int:
    prog = f"occupancy {args.command}"
    if args.command == "import":  # needs neither numpy nor the device profiles: start fast
        return _import(args, out)
    if args.command == "regcap":
        from .compile_commands import run_regcap  # noqa: PLC0415 - lazy: as `import`

        return run_regcap(args, out)
    from .commands import COMMANDS, USER_ERRORS  # noqa: PLC0415 - lazy: `import` and --help start without numpy

    try:
        return COMMANDS[args.command](args, out)
    except USER_ERRORS as exc:
        return fail(prog, str(exc))
    except KeyError as exc:
        return fail(prog, str(exc.args[0]) if exc.args else "unknown device")


if __name__ == "__main__":
    sys.exit(main())
