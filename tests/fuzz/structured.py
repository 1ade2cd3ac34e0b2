"""Structure-aware generators for the text inputs, and the session and CLI targets (issue 15).

Byte mutations of small fixtures never found the bugs of issue 15: they need a *valid* file with one
hostile figure in it.  The generators here build such files from scratch:

* :func:`number` -- figures of every length (0 to 100,000 digits, around CPython's 4,300-digit limit)
  and script (Arabic-Indic, Devanagari, fullwidth, mathematical digits, superscripts), with signs,
  exponents (``1e999999999``), separators and hex;
* :func:`ptxas_log`, :func:`cuobjdump_text`, :func:`ncu_csv` -- compiler and profiler output whose
  figure slots hold such numbers, sometimes with a very long row;
* :func:`yaml_hostile` -- deep (to 100,000), aliased (billion laughs), duplicated, tagged, multi-document
  YAML, spliced into a valid profile (:func:`profile`) or session file (:func:`session`);
* :func:`cli_args` -- argument lists for the ``occupancy`` command with such numbers.

Every input must end in records / a state / an exit status, or the module's own one-line error
naming the file; anything else, more than ``MAX_SECONDS`` or more than ``MEMORY_BUDGET`` of memory
for one input is a failure (:func:`run_structured`).  Shared by ``test_fuzz_structured.py`` (a short
deterministic run) and ``long_run.py --structured`` (the long run).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import resource
import time

from occupancy_gui.importers import ImportCancelled, ImportFailure, import_file_detailed
from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog, ProfileError, parse_profile
from occupancy_gui.session import file as sf

from .harness import DATA, Crash, _direct, _records

MAX_SECONDS = 10.0
"""Longest one input may take (the issue's time budget)."""
MEMORY_BUDGET = 1 << 30
"""Most resident memory the process may reach with one input (the issue's memory budget)."""
MAX_MESSAGE = 1000
"""Longest error message: a message never formats a whole value of the file."""

STRUCTURED_TARGETS = ("ptxas_gen", "cuobjdump_gen", "ncu_gen", "profile_gen", "session", "cli")

# -- numbers -------------------------------------------------------------------------------------------------
_ZEROS = [0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xE50, 0xFF10, 0x1D7CE, 0x1D7EC, 0x1040, 0x17E0]
"""Digit zero of ASCII, Arabic-Indic, Extended Arabic-Indic, NKo, Devanagari, Bengali, Thai, fullwidth,
mathematical bold and monospace, Myanmar and Khmer: ``str.isdigit`` and ``int()`` take them all."""
_LENGTHS = [0, 1, 1, 2, 3, 4, 6, 9, 10, 17, 18, 19, 20, 21, 39, 64, 65, 100]
_LONG_LENGTHS = [309, 310, 1000, 4299, 4300, 4301, 5000, 20_000, 100_000]
"""Around the float limit (309 digits) and CPython's 4,300-digit limit; drawn for one figure in ten."""
_SPECIAL = [
    "1e999999999",
    "-1e999999999",
    "1e-999999999",
    "1E+99999999999999999999",
    "inf",
    "-inf",
    "nan",
    ".inf",
    ".nan",
    "NaN",
    "0x7fffffff",
    "0xFFFFFFFFFFFFFFFF",
    "0o777",
    "0b1011",
    "1_000",
    "1,024",
    "1 024",
    "1\u202f024",
    "00000000000000000000000012",
    "+12",
    "-0",
    "-12",
    "- 12",
    "12.",
    ".5",
    "1.5e3",
    "1e18",
    "1e19",
    "9" * 18,
    "9" * 19,
    "2147483648",
    "4294967296",
    "18446744073709551616",
    "\u00b2",
    "\u2460",
    "\u00bd",
    "1:30",
    "1:" + "9" * 5000,
    "٤٢",
    "１２",
    "𝟏𝟐",
]


_SCRIPTS = [str.maketrans("0123456789", "".join(chr(zero + i) for i in range(10))) for zero in _ZEROS]


def digits(rng: random.Random, length: int) -> str:
    """``length`` digits, of one script or, now and then, of two mixed (random for the first 64)."""
    if length == 0:
        return ""
    head = min(length, 64)
    text = f"{rng.getrandbits(4 * head) % 10**head:0{head}d}" + "9" * (length - head)
    if rng.random() < 0.7:
        return text
    cut = rng.randrange(len(text) + 1) if rng.random() < 0.2 else 0
    return text[:cut].translate(rng.choice(_SCRIPTS)) + text[cut:].translate(rng.choice(_SCRIPTS))


def number(rng: random.Random, longest: int = 100_000) -> str:
    """A figure as a stranger's file may write it (see the module docstring), of at most about ``longest``
    digits (a list of thousands of figures takes short ones: the input stays around a megabyte)."""
    r = rng.random()
    if r < 0.35:
        return str(rng.choice([0, 1, 2, 32, 48, 64, 128, 255, 256, 1024, 2048, 49152, 65536]))
    if r < 0.55:
        return rng.choice(_SPECIAL)
    text = digits(rng, min(rng.choice(_LONG_LENGTHS if rng.random() < 0.1 else _LENGTHS), longest))
    if rng.random() < 0.2:
        text = rng.choice(["-", "+", "- ", "\u2212"]) + text
    if rng.random() < 0.1:
        text += rng.choice(["e", "e-", "e+", "."]) + digits(rng, rng.choice([1, 3, 9, 10, 20]))
    return text or "0"


# -- compiler and profiler output ----------------------------------------------------------------------------
def _name(rng: random.Random) -> str:
    return rng.choice(
        [
            "_Z6kernelPf",
            "_ZN3occ9tiled_sumILi512EEEvPKfPfi",
            "k",
            "_Z5heavyPKfi",
            "_Z" + "N" * 300,
            "ker\u0661nel",
            "x" * rng.choice([1, 100, 5000]),
        ]
    )


def _arch(rng: random.Random) -> str:
    return rng.choice(["sm_80", "sm_90a", "sm_120", "sm_86", "compute_75", "sm_" + digits(rng, rng.choice([1, 2, 30]))])


def ptxas_log(rng: random.Random) -> bytes:
    """A build log of standard and odd ptxas/nvlink blocks with hostile figures in their slots."""
    n = number
    out: list[str] = []
    for _ in range(rng.randrange(1, 6)):
        name, arch = _name(rng), _arch(rng)
        prefix = rng.choice(["", "", "1>", "\x1b[01m"])
        figure = [n(rng) if rng.random() < 0.3 else str(rng.randrange(256)) for _ in range(8)]
        extra = rng.choice(
            [
                "",
                f", {figure[5]} bytes cmem[{figure[6]}]",
                f", {figure[5]}+{figure[6]} bytes lmem",
                f", {figure[7]} bytes cumulative stack size",
                "",
            ]
        )
        if rng.random() < 0.8:
            out += [
                f"{prefix}ptxas info    : {figure[0]} bytes gmem" if rng.random() < 0.3 else "",
                f"{prefix}ptxas info    : Compiling entry function '{name}' for '{arch}'",
                f"{prefix}ptxas info    : Function properties for {name}",
                f"    {figure[1]} bytes stack frame, {figure[2]} bytes spill stores, {figure[3]} bytes spill loads",
                f"{prefix}ptxas info    : Used {figure[4]} registers, used {figure[6]} barriers, "
                f"{figure[7]} bytes smem, {figure[5]} bytes cmem[0]{extra}",
            ]
            if rng.random() < 0.3:
                out.append(f"{prefix}ptxas info    : Compile time = {n(rng)} ms")
        else:
            out += [
                f"nvlink info    : Function properties for '{name}': (target: {arch})",
                f"nvlink info    : used {figure[4]} registers, used {figure[6]} barriers, {figure[1]} stack, "
                f"{figure[7]} bytes smem, {figure[5]} bytes cmem[0], {figure[2]} bytes lmem",
            ]
    text = ("\r\n" if rng.random() < 0.2 else "\n").join(out) + "\n"
    if rng.random() < 0.1:
        return b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass")
    return text.encode("utf-8", "surrogatepass")


def cuobjdump_text(rng: random.Random) -> bytes:
    """``cuobjdump --dump-resource-usage`` output with hostile figures."""
    out = [
        "",
        "Fatbin elf code:",
        "================",
        f"arch = {_arch(rng)}",
        "code version = [1,7]",
        "host = linux",
        "compile_size = 64bit",
        "",
        "Resource usage:",
        " Common:",
        f"  GLOBAL:{number(rng)} CONSTANT[3]:{number(rng)}",
    ]
    for _ in range(rng.randrange(1, 5)):
        f = [number(rng) if rng.random() < 0.3 else str(rng.randrange(1024)) for _ in range(6)]
        out += [
            f" Function {_name(rng)}:",
            f"  REG:{f[0]} STACK:{f[1]} SHARED:{f[2]} LOCAL:{f[3]} CONSTANT[{f[4] if rng.random() < 0.2 else 0}]:"
            f"{f[5]} TEXTURE:0 SURFACE:0 SAMPLER:0",
        ]
    return ("\n".join(out) + "\n").encode("utf-8", "surrogatepass")


_NCU_HEAD = None


def ncu_csv(rng: random.Random) -> bytes:
    """An ``ncu --csv --page raw`` report whose metric cells hold hostile figures, now and then a huge row."""
    global _NCU_HEAD
    if _NCU_HEAD is None:
        _NCU_HEAD = (DATA / "ncu" / "raw_base_units.csv").read_text().splitlines()
    header, units, row = _NCU_HEAD[0], _NCU_HEAD[1], _NCU_HEAD[2]
    cells = row.split('","')
    lines = [header, units]
    for i in range(rng.randrange(1, 4)):
        new = list(cells)
        new[0] = f'"{i}'
        for j in range(11, len(new)):
            if rng.random() < 0.4:
                new[j] = number(rng).replace('"', "")
        if rng.random() < 0.2:
            j = rng.randrange(7, 9)  # Block Size / Grid Size "(x, y, z)"
            new[j] = f"({number(rng)}, {number(rng)}, {number(rng)})"
        lines.append('","'.join(new) + ('"' if not new[-1].endswith('"') else ""))
    if rng.random() < 0.02:  # a very long row: past the reader's cap, or just below it
        lines.append('"9",' * rng.choice([1 << 20, 1 << 21, 3 << 20]))
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


# -- YAML: profiles and sessions -----------------------------------------------------------------------------
def yaml_hostile(rng: random.Random) -> str:
    """A YAML value that is deep, aliased, duplicated, tagged or huge."""
    kind = rng.randrange(9)
    depth = rng.choice([1, 2, 31, 32, 33, 100, 1000]) if rng.random() < 0.8 else rng.choice([10_000, 100_000])
    if kind == 0:
        return rng.choice(["[", "{a: ", "[{b: "]) * depth
    if kind == 1:
        return "\n" + "".join("  " * (i + 1) + "- \n" for i in range(min(depth, 3000)))
    if kind == 2:  # billion laughs: k levels of 9 aliases
        levels = rng.randrange(1, 10)
        text = '&a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'
        for i in range(1, levels):
            text = f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + f"]  # {text}"
        return rng.choice([text, "*a0", "&x 1", "[&x 1, *x]", "{? &k a : 1, *k : 2}"])
    if kind == 3:
        return "{" + ", ".join(f"k{rng.randrange(3)}: {number(rng)}" for _ in range(rng.randrange(1, 6))) + "}"
    if kind == 4:
        return rng.choice(
            [
                "!!python/object/apply:os.system ['true']",
                "!!binary aGVsbG8=",
                "!!set {a, b}",
                "!!omap [a: 1]",
                "!!timestamp 2001-12-14",
                "!custom x",
                "!!int " + digits(rng, 5000),
                "!!float " + digits(rng, 5000),
            ]
        )
    if kind == 5:
        return repr("x" * (rng.choice([10, 1000]) if rng.random() < 0.9 else rng.choice([100_000, 900_000])))
    if kind == 6:
        count = rng.choice([1, 10, 100, 5001]) if rng.random() < 0.9 else 20_000
        return "[" + ", ".join(number(rng, 30 if count > 10 else 100_000) for _ in range(count)) + "]"
    if kind == 7:
        return rng.choice(
            [
                "\n---\nb: 2",
                "\n...\n---\n",
                "\n%YAML 1.1\n---\n",
                "|\n  text",
                ">-\n  folded",
                "'unterminated",
                '"\\ud800"',
                "\t1",
                "\x00",
                "\ufeff1",
            ]
        )
    return number(rng)


_PROFILES = None


def profile(rng: random.Random) -> bytes:
    """A bundled profile with one value (or key) made hostile."""
    global _PROFILES
    if _PROFILES is None:
        _PROFILES = [p.read_text(encoding="utf-8") for p in sorted(data_dir("device_profiles").glob("*.yaml"))]
    lines = rng.choice(_PROFILES).splitlines()
    for _ in range(rng.choice([1, 1, 2, 3])):
        i = rng.randrange(len(lines))
        key, sep, _value = lines[i].partition(":")
        if rng.random() < 0.15:
            lines.insert(i, lines[i])  # a duplicate key
        elif sep:
            lines[i] = f"{key}: {number(rng) if rng.random() < 0.5 else yaml_hostile(rng)}"
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


_SESSION_KEYS = (
    "threads",
    "registers",
    "static_smem",
    "dynamic_smem",
    "max_dynamic_smem",
    "barriers",
    "carveout",
    "cache_config",
)
_AMD_SESSION_KEYS = (
    "threads",
    "dynamic_smem",
    "vgprs",
    "agprs",
    "sgprs",
    "lds",
    "wave_size",
    "wgp_mode",
    "max_flat_workgroup_size",
    "waves_per_eu",
    "allocated_vgprs",
)
_AMD_DEVICES = ("MI300X", "RX 7900 XTX", "gfx1100", "gfx908", "AMD Instinct MI250X (one GCD)")


def session(rng: random.Random) -> bytes:
    """A session file: a valid one with hostile values, keys, nesting or aliases in it."""

    def value() -> str:
        r = rng.random()
        return (
            number(rng)
            if r < 0.5
            else yaml_hostile(rng)
            if r < 0.7
            else rng.choice(
                [
                    "256",
                    "null",
                    "none",
                    "l1",
                    "true",
                    "-1",
                    "100",
                    "16384",
                    "16385",
                    "4194304",
                    "4194305",
                    "false",
                    "32",
                    "64",
                    "[2, 4]",
                    "[4, 2]",
                    "[1, 2, 3]",
                    "[1, null]",
                    "2048",
                    "2049",
                    "800",
                ]
            )
        )

    amd = rng.random() < 0.4
    devices = _AMD_DEVICES if amd else ("H100 SXM5", "sm_90", "sm_80", "A10")
    keys = _AMD_SESSION_KEYS if amd else _SESSION_KEYS
    if rng.random() < 0.1:
        keys = _SESSION_KEYS + _AMD_SESSION_KEYS  # the other vendor's keys too
    lines = [
        f"occupancy_session: {rng.choice(['1', '2', '2', '3', '0', number(rng)])}",
        f"device: {rng.choice([*devices, value()])}",
        "inputs:",
    ]
    for key in rng.sample(keys, rng.randrange(len(keys) + 1)):
        lines.append(f"  {key}: {value()}")
    if rng.random() < 0.1:
        lines.append(f"  {rng.choice(keys)}: {value()}")  # a duplicate
    if rng.random() < 0.3:
        lines += [
            "import:",
            f"  path: {rng.choice(['logs/k.log', '/abs/k.log', '..', '', value()])}",
            f"  kernel: {rng.choice(['_Z1kv', '', value()])}",
        ]
    if rng.random() < 0.3:
        lines += [
            "compare:",
            f"  device: {rng.choice(['sm_86', 'MI300X', value()])}",
            f"  inputs: {{threads: {value()}, {rng.choice(['registers', 'vgprs'])}: {value()}}}",
        ]
    if rng.random() < 0.15:
        lines.insert(rng.randrange(len(lines) + 1), f"{rng.choice(['x', 'inputs', 'device'])}: {yaml_hostile(rng)}")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


# -- the command line ----------------------------------------------------------------------------------------
_NUMERIC_OPTIONS = (
    "--threads",
    "--registers",
    "--static-smem",
    "--dynamic-smem",
    "--barriers",
    "--carveout",
    "--max-dynamic-smem",
)


def cli_args(rng: random.Random, workdir: str) -> list[str]:
    """An ``occupancy`` argument list with hostile figures (files go to ``workdir``)."""

    def figure() -> str:
        text = number(rng)
        if rng.random() < 0.2:
            text += rng.choice(["k", "K", "KiB", " KiB", "MiB", "M", "b", "kB", "GiB"])
        return text

    command = rng.choice(["calc", "calc", "suggest", "report", "devices", "import"])
    if command == "devices":
        return ["devices"] + (["--json"] if rng.random() < 0.5 else [])
    if command == "import":
        return ["import", os.path.join(workdir, "input_cli.log")] + (["--json"] if rng.random() < 0.5 else [])
    argv = [command, "--device", rng.choice(["sm_90", "sm_80", "H100", "sm_35", figure()])]
    for option in rng.sample(_NUMERIC_OPTIONS, rng.randrange(2, len(_NUMERIC_OPTIONS) + 1)):
        argv += [option, figure() if rng.random() < 0.7 else rng.choice(["256", "32", "0", "default"])]
    if "--registers" not in argv:
        argv += ["--registers", figure()]
    if command == "suggest" and rng.random() < 0.5:
        argv += [rng.choice(["--blocks", "--smem-per-thread"]), figure()]
    if command == "report":
        if "--threads" not in argv:
            argv += ["--threads", figure()]
        argv += ["-o", os.path.join(workdir, "report." + rng.choice(["html", "md", "csv"]))]
    if rng.random() < 0.2:
        argv += ["--cache-config", rng.choice(["l1", "none", figure()])]
    if rng.random() < 0.3:
        argv.append("--json")
    return argv


# -- running -------------------------------------------------------------------------------------------------
_CATALOG: Catalog | None = None


def catalog() -> Catalog:
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = Catalog.load([data_dir("device_profiles")])
    return _CATALOG


def _check_message(text: str, path: str) -> None:
    if "\n" in text or "\r" in text:
        raise Crash(f"multi-line message: {text[:300]!r}")
    if not text.startswith(path):
        raise Crash(f"message does not start with the file name: {text[:300]!r}")
    if len(text) > MAX_MESSAGE + len(path):
        raise Crash(f"a message of {len(text)} characters (at most {MAX_MESSAGE}): {text[:200]!r}")


def _run_file(target: str, data: bytes, path: str) -> str:
    """``harness.run_one`` without its wall-clock limit (the budget here is CPU time, see run_structured)."""
    if target == "profile":
        try:
            parse_profile(data, path)
        except ProfileError as exc:
            _check_message(str(exc), path)
            return "error"
        return "records"
    with open(path, "wb") as fh:
        fh.write(data)
    outcome = "records"
    for call in (lambda: _records(import_file_detailed(path).records), lambda: _direct(target, data, path)):
        try:
            call()
        except ImportFailure as exc:
            _check_message(str(exc), path)
            outcome = "error"
        except ImportCancelled as exc:
            raise Crash(f"ImportCancelled without a cancel callback: {exc!r}") from exc
    return outcome


def _run_session(data: bytes, path: str) -> str:
    with open(path, "wb") as fh:
        fh.write(data)
    try:
        sf.load(path, catalog())
    except sf.SessionFileError as exc:
        _check_message(str(exc), path)
        return "error"
    return "state"


def _run_cli(argv: list[str], workdir: str) -> str:
    from occupancy_gui.cli.main import main

    with open(os.path.join(workdir, "input_cli.log"), "wb") as fh:
        fh.write(ptxas_log(random.Random(len(argv))))
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            status = main(argv, out=out)
    except SystemExit as exc:  # argparse: --help, or a usage error (exit 2)
        status = exc.code if isinstance(exc.code, int) else 2
    if status not in (0, 1, 2):
        raise Crash(f"exit status {status!r}")
    message = err.getvalue()
    if "Traceback" in message or message.count("\n") > 3:
        raise Crash(f"stderr: {message[:400]!r}")
    if len(message) > 2 * MAX_MESSAGE:
        raise Crash(f"an error of {len(message)} characters on stderr: {message[:200]!r}")
    return "ok" if status == 0 else "error"


def generate(target: str, rng: random.Random, workdir: str) -> bytes | list[str]:
    """One input for ``target`` (bytes for a file; an argument list for ``cli``)."""
    if target == "cli":
        return cli_args(rng, workdir)
    return {
        "ptxas_gen": ptxas_log,
        "cuobjdump_gen": cuobjdump_text,
        "ncu_gen": ncu_csv,
        "profile_gen": profile,
        "session": session,
    }[target](rng)


_RUNNERS = {"ptxas_gen": "ptxas_log", "cuobjdump_gen": "cuobjdump_text", "ncu_gen": "ncu_csv", "profile_gen": "profile"}


def max_rss() -> int:
    """Peak resident memory of this process so far, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_structured(target: str, data: bytes | list[str], workdir: str) -> str:
    """Feed one generated input to ``target``; its outcome, or :class:`Crash` for an exception, more than
    ``MAX_SECONDS`` of CPU time (wall time would blame a busy machine, the long run runs at nice 19) or a
    peak resident memory past ``MEMORY_BUDGET``."""
    start = time.process_time()
    try:
        if target == "cli":
            assert isinstance(data, list)
            outcome = _run_cli(data, workdir)
        elif target == "session":
            assert isinstance(data, bytes)
            outcome = _run_session(data, os.path.join(workdir, "input.occsession"))
        else:
            assert isinstance(data, bytes)
            outcome = _run_file(_RUNNERS[target], data, os.path.join(workdir, f"input_{target}"))
    except Crash:
        raise
    except MemoryError as exc:
        raise Crash(f"MemoryError: {exc}") from exc
    except Exception as exc:
        raise Crash(f"{type(exc).__name__}: {exc}"[:500]) from exc
    elapsed = time.process_time() - start
    if elapsed > MAX_SECONDS:
        raise Crash(f"took {elapsed:.2f} s of CPU time (limit {MAX_SECONDS} s)")
    if max_rss() > MEMORY_BUDGET:
        raise Crash(f"peak resident memory {max_rss() >> 20} MiB (budget {MEMORY_BUDGET >> 20} MiB)")
    return outcome


def describe(data: bytes | list[str]) -> bytes:
    """A failing input as bytes, to write next to its reason."""
    return ("\0".join(data)).encode("utf-8", "surrogatepass") if isinstance(data, list) else data
