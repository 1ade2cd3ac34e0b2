"""``--write-docs`` for the benchmark scripts: what a script prints, written to ``docs/benchmarks/<script>.md``.

A benchmark's figures are what it printed in one run, with what they depend on: the date, the command, the
machine (CPU model, CPUs, load average when it started, Python) and the commit.  Each script adds the flag to
its parser with :func:`add_flag` and runs its ``main`` through :func:`run`; without the flag nothing changes.
The file is replaced by the next run with the flag: history is in git, not in the file.
"""

from __future__ import annotations

import argparse
import datetime
import io
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

FLAG = "--write-docs"
ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "benchmarks"


def add_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--write-docs`` to a benchmark's parser (so that ``--help`` shows it; :func:`run` acts on it)."""
    parser.add_argument(
        FLAG,
        action="store_true",
        help="also write what this prints to docs/benchmarks/SCRIPT.md, with the date, the command, the machine "
        "and the commit",
    )


@dataclass(frozen=True)
class Run:
    """What a benchmark's figures depend on, taken when it starts."""

    script: str
    """The file's name: the script's, and the modes it ran in."""
    started: datetime.datetime
    command: str
    cpu: str
    cpus: str
    load: str
    python: str
    system: str
    commit: str

    @classmethod
    def now(cls, script_path: str, modes: list[str]) -> Run:
        script = Path(script_path).resolve()
        relative = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
        main = sys.modules.get("__main__")
        if main is not None and getattr(main, "__spec__", None) is not None:  # python -m tests.benchmarks.X
            program = ["python", "-m", ".".join(relative.with_suffix("").parts)]
        else:
            program = ["python", relative.as_posix()]
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        load = "/".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
        return cls(
            script="-".join([script.stem, *modes]),
            started=datetime.datetime.now(datetime.UTC).replace(microsecond=0),
            command=shlex.join(program + sys.argv[1:]),
            cpu=_cpu_model(),
            cpus=f"{os.cpu_count()} CPUs ({usable} usable by this process)",
            load=load,
            python=f"{platform.python_implementation()} {platform.python_version()}",
            system=platform.platform(),
            commit=_commit(),
        )


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git(*args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _commit() -> str:
    """The commit checked out, and whether tracked files other than documentation differ from it."""
    commit = _git("log", "-1", "--format=%h %s")
    if not commit:
        return "unknown (not a git checkout)"
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs", ":!*.md")
    return commit + (" (with uncommitted changes)" if dirty else "")


class _Tee(io.TextIOBase):
    """Standard output that also keeps what was written."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def render(run: Run, output: str, seconds: float, status: int, doc: str | None) -> str:
    """The Markdown file: what the script measures, the run's facts, then its output verbatim."""
    about = (doc or "").strip().split("\n\n", 1)[0].replace("\n", " ")
    rows = [
        ("date", run.started.strftime("%Y-%m-%d %H:%M UTC")),
        ("command", f"`{run.command}`"),
        ("commit", run.commit),
        ("CPU", run.cpu),
        ("CPUs", run.cpus),
        ("load average at start (1/5/15 min)", run.load),
        ("Python", run.python),
        ("system", run.system),
        ("took", f"{seconds:.0f} s, exit status {status}"),
    ]
    fence = "````" if "```" in output else "```"
    lines = [
        f"# {run.script}",
        "",
        about,
        "",
        "Written by the script itself (`--write-docs`, `tests/benchmarks/publish.py`); rerun the command to "
        "replace it.",
        "",
        "| | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in rows),
        "",
        f"{fence}text",
        output.rstrip("\n"),
        fence,
        "",
    ]
    return "\n".join(lines)


def run(main: Callable[[], int | None], script_path: str, modes: tuple[str, ...] = ()) -> int:
    """Run a benchmark's ``main``; with ``--write-docs`` on the command line, also publish what it printed.

    The file is written whatever ``main`` returns (a missed target is a figure too, and its status is in
    the header), and not when it raises or exits early (``--help``, a bad argument).  ``modes`` are the flags
    that make the script measure something else (``--libraries``): each given one is added to the file's name
    (``bench_responsiveness-libraries.md``), so that one mode's figures do not replace another's.
    """
    if FLAG not in sys.argv[1:]:
        return main() or 0
    facts = Run.now(script_path, [m.lstrip("-") for m in modes if m in sys.argv[1:]])
    start = time.perf_counter()
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    try:
        status = main() or 0
    finally:
        sys.stdout = tee.stream
    doc = getattr(sys.modules.get(getattr(main, "__module__", "")), "__doc__", None)
    DOCS.mkdir(parents=True, exist_ok=True)
    path = DOCS / f"{facts.script}.md"
    path.write_text(render(facts, tee.kept.getvalue(), time.perf_counter() - start, status, doc), encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return status
