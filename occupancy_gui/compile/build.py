"""Compile one PTX or CUDA file for one architecture and read its resource usage, as ptxas reports it.

``.ptx`` goes through ``ptxas -v`` (no host compiler needed); ``.cu`` through ``nvcc --resource-usage
-cubin --keep``.  The compiler's output is read by the one ptxas log parser (``importers.parse_ptxas_log``);
what its lines leave out — the launch bound, required block size, cluster shape and register cap — is
read from the cubin the compiler wrote (``importers.read_cubin``, as a binary import reads it), and the
minimum blocks per SM (``__launch_bounds__``' second argument, in no binary) from the PTX.  Each compile
runs in its own temporary directory, removed whatever happens (error, cancel, exception), and polls
``cancel()`` while the compiler runs, killing it when asked.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import struct
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..importers import KernelRecord, parse_ptxas_log, read_cubin
from .toolchain import find_tool, supported_archs, tool_version

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
class Compiled:
    """What one compile gave: the compiler's ``-v`` output, the cubin it wrote, and each kernel's
    ``.minnctapersm`` from the PTX it read (the one figure taken from the PTX: a cache entry of every
    cap held the whole PTX before, the same text each time)."""

    log: bytes
    image: bytes
    min_blocks: dict[str, int] = field(default_factory=dict)

    _MAGIC = b"occupancy-compiled-2\n"

    def to_bytes(self) -> bytes:
        """One blob for the result cache: a magic line, three lengths, the log, the cubin, the min blocks (JSON)."""
        blocks = json.dumps(self.min_blocks, sort_keys=True).encode()
        return (
            self._MAGIC
            + struct.pack("<3Q", len(self.log), len(self.image), len(blocks))
            + self.log
            + self.image
            + blocks
        )

    @classmethod
    def from_bytes(cls, blob: bytes) -> Compiled | None:
        """The compile a cache blob holds; ``None`` for anything else (an older cache's file, a torn write)."""
        start = len(cls._MAGIC) + 24
        if not blob.startswith(cls._MAGIC) or len(blob) < start:
            return None
        sizes = struct.unpack_from("<3Q", blob, len(cls._MAGIC))
        if start + sum(sizes) != len(blob):
            return None
        log_end = start + sizes[0]
        image_end = log_end + sizes[1]
        try:
            blocks = json.loads(blob[image_end:])
        except ValueError:
            return None
        if not isinstance(blocks, dict) or not all(isinstance(k, str) and type(v) is int for k, v in blocks.items()):
            return None
        return cls(blob[start:log_end], blob[log_end:image_end], blocks)


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


def make_source(
    path: str | os.PathLike[str],
    arch: str,
    cuda_bin: str | os.PathLike[str] | None = None,
    extra_args: Sequence[str] = (),
) -> Source:
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
    return [
        str(src.tool),
        "--resource-usage",
        "-cubin",
        "--keep",
        f"-arch={src.arch}",
        *capped,
        path,
        "-o",
        output,
        *src.extra_args,
    ]


def cache_key(src: Source, cap: int | None) -> str:
    """What a compile's output depends on: file content, arch, compiler version, cap and arguments."""
    parts = [src.content_hash, src.arch, src.kind, tool_version(src.tool), str(cap), *src.extra_args]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def run_compiler(src: Source, cap: int | None = None, cancel: CancelFn | None = None) -> Compiled:
    """One compile: its output (stdout then stderr), cubin and PTX min blocks; ``CompileError`` when it fails."""
    with tempfile.TemporaryDirectory(prefix="occupancy-compile-") as tmp:
        log_path, cubin_path = os.path.join(tmp, "log.txt"), os.path.join(tmp, "out.cubin")
        cmd = command(src, cubin_path, cap)
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=tmp, stdin=subprocess.DEVNULL)
            except OSError as exc:
                raise CompileError(f"{src.tool}: cannot run: {exc.strerror or exc}") from None
            _wait(proc, cancel)
        output = Path(log_path).read_bytes()
        if proc.returncode != 0:
            lines = output.decode("utf-8", "replace").splitlines()
            raise CompileError(f"{src.path}: {Path(src.tool).name} failed (exit status {proc.returncode})", lines)
        image = Path(cubin_path).read_bytes() if os.path.exists(cubin_path) else b""
        kept = glob.glob(os.path.join(glob.escape(tmp), "*.ptx"))  # nvcc --keep's intermediate PTX
        ptx_path = src.path if src.kind == "ptx" else kept[0] if len(kept) == 1 else None
        ptx = Path(ptx_path).read_text("utf-8", "replace") if ptx_path else ""
    return Compiled(output, image, ptx_min_blocks(ptx))


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


def parse_log(src: Source, compiled: Compiled, cap: int | None = None) -> list[KernelRecord]:
    """The records of a compile (every kernel and device function its ``-v`` output reports), each kernel
    with the launch attributes of the cubin it wrote and the minimum blocks per SM its PTX states."""
    what = os.path.basename(src.path) + f" [{src.arch}" + (f", -maxrregcount={cap}]" if cap is not None else "]")
    records = parse_ptxas_log(compiled.log, what)
    image = {rec.name: rec for rec in read_cubin(compiled.image, what) if rec.is_kernel} if compiled.image else {}
    min_blocks = compiled.min_blocks
    out = []
    for rec in records:
        kernel = image.get(rec.name) if rec.is_kernel else None
        if kernel is not None:
            const = rec if rec.const_bytes is not None else kernel  # -v lines often print no cmem[0]
            rec = replace(
                rec,
                max_threads=kernel.max_threads,
                req_threads=kernel.req_threads,
                cluster_dims=kernel.cluster_dims,
                max_registers=kernel.max_registers,
                reserved_smem=kernel.reserved_smem,
                min_blocks=min_blocks.get(rec.name),
                const_bytes=const.const_bytes,
                const_banks=const.const_banks,
            )
        out.append(rec)
    return out


_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$%]*)\s*\([^)]*\)([^{]*)\{")
_MINNCTAPERSM = re.compile(r"\.minnctapersm\s+(\d+)")


def ptx_min_blocks(ptx: str) -> dict[str, int]:
    """Kernel name -> its ``.minnctapersm`` (``__launch_bounds__``' second argument, which no binary
    records)."""
    out: dict[str, int] = {}
    for entry in _ENTRY.finditer(ptx):
        if blocks := _MINNCTAPERSM.search(entry.group(2)):
            out[entry.group(1)] = int(blocks.group(1))
    return out


def compile_resources(src: Source, cap: int | None = None, cancel: CancelFn | None = None) -> list[KernelRecord]:
    """Compile once and return what ptxas reported, with the launch attributes of the cubin it wrote."""
    return parse_log(src, run_compiler(src, cap, cancel), cap)


_ARCH_SPECIFIC = re.compile(r"not supported on \.target '(sm_\d+)'")


@dataclass(frozen=True)
class DeviceCompile:
    """A compile for a device: its records, the arch it was compiled for, and why, where that is not plain."""

    records: list[KernelRecord]
    arch: str
    note: str | None = None
    """Why ``arch`` is not the device's plain ``sm_XY`` (an arch-specific retry), in words; ``None`` otherwise."""


def arch_refusal(src: Source) -> str | None:
    """Why ``src.arch`` is below what its compiler supports, naming the lowest it can compile for; ``None`` if it is
    not (or the compiler cannot say)."""
    supported = supported_archs(src.tool)
    if not supported:
        return None
    plain = src.arch.rstrip("af")
    lowest = supported[0]
    if plain in supported or _number(plain) >= _number(lowest):
        return None
    release = re.search(r"release (\d+\.\d+)", tool_version(src.tool))
    toolkit = f"CUDA {release.group(1)}" if release else "its CUDA toolkit"
    return f"{src.arch} is below what this {Path(src.tool).name} ({toolkit}) compiles for: the lowest is {lowest}"


def _number(arch: str) -> int:
    digits = "".join(ch for ch in arch[3:] if ch.isdigit())
    return int(digits or 0)


def compile_for_device(src: Source, cancel: CancelFn | None = None) -> DeviceCompile:
    """Compile for ``src.arch``; where ptxas rejects the plain target because the source uses instructions of the
    arch-specific one (``setmaxnreg`` on sm_90), compile for ``sm_XYa`` instead and say so.  Below the compiler's
    lowest arch: ``CompileError`` naming it, in one line."""
    refusal = arch_refusal(src)
    if refusal is not None:
        raise CompileError(refusal)
    try:
        return DeviceCompile(compile_resources(src, cancel=cancel), src.arch)
    except CompileError as exc:
        specific = next((m for m in map(_ARCH_SPECIFIC.search, exc.lines) if m), None)
        if specific is None or src.arch.endswith(("a", "f")) or specific.group(1) != src.arch:
            raise
        first = next(line.strip() for line in exc.lines if _ARCH_SPECIFIC.search(line))
        retry = replace(src, arch=src.arch + "a")
        note = (
            f"Compiled for {retry.arch}: {src.arch} cannot hold this source's arch-specific instructions "
            f"({first.split('error', 1)[-1].lstrip(' :')})"
        )
        return DeviceCompile(compile_resources(retry, cancel=cancel), retry.arch, note)
