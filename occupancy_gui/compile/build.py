"""Compile one PTX or CUDA file for one architecture and read its resource usage, as ptxas reports it.

``.ptx`` goes through ``ptxas -v`` (no host compiler needed); ``.cu`` through ``nvcc --resource-usage
-cubin``.  The compiler's output is read by the one ptxas log parser (``importers.ptxas_log``).  Each
compile runs in its own temporary directory, removed whatever happens (error, cancel, exception), and
polls ``cancel()`` while the compiler runs, killing it when asked.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..importers.ptxas_log import parse_bytes
from ..importers.records import KernelRecord
from .toolchain import find_tool, tool_version

SOURCE_KINDS = {".ptx": "ptx", ".cu": "cu"}
_ARCH = re.compile(r"sm_\d{2,3}[af]?\Z")
_POLL_S = 0.05
CancelFn = Callable[[], bool]


class CompileError(RuntimeError):
    """The compiler failed.  ``lines``: its output as it wrote it; ``str()``: one summary line."""

    def __init__(self, summary: str, lines: Sequence[str] = ()):
        super().__init__(summary)
        self.lines = list(lines)


class CompileCancelled(RuntimeError):
    """``cancel()`` returned true while the compiler ran; it was killed."""


@dataclass(frozen=True)
class Source:
    """A file to compile: what it is, for which arch, with which compiler and extra nvcc arguments."""

    path: str
    arch: str
    kind: str
    tool: Path
    extra_args: tuple[str, ...] = ()

    @property
    def content_hash(self) -> str:
        with open(self.path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()


def source_kind(path: str) -> str | None:
    """``"ptx"`` or ``"cu"`` from a file's extension; ``None`` for anything else."""
    return SOURCE_KINDS.get(os.path.splitext(path)[1].lower())


def check_arch(arch: str) -> str:
    """``sm_80`` / ``sm_90a`` as given; ``ValueError`` naming the expected spelling otherwise."""
    value = arch.strip().lower()
    if value.isdigit():
        value = f"sm_{value}"
    if not _ARCH.match(value):
        raise ValueError(f"--arch: expected sm_XY (e.g. sm_80, sm_90a), got {arch!r}")
    return value


def make_source(path: str | os.PathLike[str], arch: str, cuda_bin: str | os.PathLike[str] | None = None,
                extra_args: Sequence[str] = ()) -> Source:
    """A :class:`Source` with its compiler found (``CompilerNotFound`` otherwise)."""
    name = os.fspath(path)
    kind = source_kind(name)
    if kind is None:
        raise ValueError(f"{name}: not a .ptx or .cu file")
    if not os.path.isfile(name):
        raise ValueError(f"{name}: no such file")
    if kind == "ptx" and extra_args:
        raise ValueError(f"{name}: compiler arguments after -- are for nvcc (.cu files); ptxas takes none here")
    tool = find_tool("ptxas" if kind == "ptx" else "nvcc", cuda_bin)
    return Source(name, check_arch(arch), kind, tool, tuple(extra_args))


def command(src: Source, output: str, cap: int | None) -> list[str]:
    """The compiler's command line for one compile."""
    capped = [f"-maxrregcount={cap}"] if cap is not None else []
    path = os.path.abspath(src.path)  # the compiler runs in its temporary directory
    if src.kind == "ptx":
        return [str(src.tool), "-v", f"-arch={src.arch}", *capped, path, "-o", output]
    return [str(src.tool), "--resource-usage", "-cubin", f"-arch={src.arch}", *capped, path, "-o", output,
            *src.extra_args]


def cache_key(src: Source, cap: int | None) -> str:
    """What a compile's log depends on: file content, arch, compiler version, cap and arguments."""
    parts = [src.content_hash, src.arch, src.kind, tool_version(src.tool), str(cap), *src.extra_args]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def run_compiler(src: Source, cap: int | None = None, cancel: CancelFn | None = None) -> bytes:
    """The compiler's output (stdout then stderr) for one compile; ``CompileError`` when it fails."""
    with tempfile.TemporaryDirectory(prefix="occupancy-compile-") as tmp:
        log_path = os.path.join(tmp, "log.txt")
        cmd = command(src, os.path.join(tmp, "out.cubin"), cap)
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
                                        stdin=subprocess.DEVNULL)
            except OSError as exc:
                raise CompileError(f"{src.tool}: cannot run: {exc.strerror or exc}") from None
            _wait(proc, cancel)
        with open(log_path, "rb") as log:
            output = log.read()
    if proc.returncode != 0:
        lines = output.decode("utf-8", "replace").splitlines()
        raise CompileError(f"{src.path}: {Path(src.tool).name} failed (exit status {proc.returncode})", lines)
    return output


def _wait(proc: subprocess.Popen[bytes], cancel: CancelFn | None) -> None:
    try:
        while True:
            try:
                proc.wait(timeout=_POLL_S)
                return
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel():
                    raise CompileCancelled("cancelled") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def parse_log(src: Source, log: bytes, cap: int | None = None) -> list[KernelRecord]:
    """The records of a compile's output (every kernel and device function it reports); a PTX
    file's kernels also get the launch bounds its ``.entry`` directives state (ptxas -v prints none)."""
    what = os.path.basename(src.path) + f" [{src.arch}" + (f", -maxrregcount={cap}]" if cap is not None else "]")
    records = parse_bytes(log, what)
    if src.kind != "ptx":
        return records
    with open(src.path, "rb") as fh:
        bounds = ptx_launch_bounds(fh.read().decode("utf-8", "replace"))
    out = []
    for rec in records:
        b = bounds.get(rec.name) if rec.is_kernel else None
        out.append(rec if b is None else replace(rec, max_threads=b.max_threads, req_threads=b.req_threads,
                                                   min_blocks=b.min_blocks))
    return out


@dataclass(frozen=True)
class PtxBounds:
    """A PTX kernel's performance-tuning directives, as the record fields they give."""

    max_threads: int | None = None
    req_threads: tuple[int, int, int] | None = None
    min_blocks: int | None = None


_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$%]*)\s*\([^)]*\)([^{]*)\{")
_DIMS = r"\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?"
_MAXNTID, _REQNTID = re.compile(r"\.maxntid" + _DIMS), re.compile(r"\.reqntid" + _DIMS)
_MINNCTAPERSM = re.compile(r"\.minnctapersm\s+(\d+)")


def ptx_launch_bounds(ptx: str) -> dict[str, PtxBounds]:
    """Kernel name -> what its PTX performance-tuning directives give: ``.maxntid`` (``max_threads``,
    x·y·z, as the cubin's EIATTR_MAX_THREADS), ``.reqntid`` (``req_threads``; the bound too where there
    is no ``.maxntid``) and ``.minnctapersm`` (``min_blocks``: ``__launch_bounds__``' second argument,
    which no binary records)."""
    out: dict[str, PtxBounds] = {}
    for entry in _ENTRY.finditer(ptx):
        directives = entry.group(2)
        req = _REQNTID.search(directives)
        most = _MAXNTID.search(directives)
        blocks = _MINNCTAPERSM.search(directives)
        if not (req or most or blocks):
            continue
        req_threads = _dims(req) if req else None
        bound = _dims(most) if most else req_threads
        out[entry.group(1)] = PtxBounds(max_threads=bound[0] * bound[1] * bound[2] if bound else None,
                                        req_threads=req_threads,
                                        min_blocks=int(blocks.group(1)) if blocks else None)
    return out


def _dims(match: re.Match[str]) -> tuple[int, int, int]:
    x, y, z = (int(d) if d else 1 for d in match.groups())
    return x, y, z


def compile_resources(src: Source, cap: int | None = None, cancel: CancelFn | None = None) -> list[KernelRecord]:
    """Compile once and return what ptxas reported."""
    return parse_log(src, run_compiler(src, cap, cancel), cap)
