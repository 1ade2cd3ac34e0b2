"""The register-cap sweep: compile at each ``-maxrregcount`` that can change the answer, and report spills
and occupancy per cap.

Registers are allocated per warp in units of ``reg_allocation_granularity`` (256 on every CUDA GPU,
8 per thread), so only the top of each allocation step below the kernel's own count can change the
occupancy: caps ``8k`` from just below the current step down to the lowest cap ptxas accepts for the
arch (it warns "adjusting ... to lower bound of N" and uses N; a cap it refuses ends the sweep).
Compiles run in parallel; each compile's output (its ``-v`` lines, cubin and the PTX's min blocks) is
cached on disk by (file content, arch, compiler version, cap, arguments), so a second sweep of an
unchanged file compiles nothing; the folder holds at most :data:`DEFAULT_CAP` bytes, least recently
used compiles removed first.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path

from platformdirs import user_cache_path

from .._process.cache_trim import touch, trim
from .._process.child_process import usable_cpus
from ..engine import (
    DeviceProperties,
    DeviceState,
    FunctionAttributes,
    Launch,
    compute_occupancy,
    reg_allocation_granularity,
)
from ..importers import KernelRecord
from .build import (
    CancelFn,
    CompileCancelled,
    Compiled,
    CompileError,
    Source,
    cache_key,
    parse_log,
    run_compiler,
)

MAX_CAP = 255
_LOWER_BOUND = re.compile(rb"adjusting per thread register count of \d+ to lower bound of (\d+)")
ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class CapPoint:
    """One compile of the sweep; ``cap`` ``None`` is the compile without ``-maxrregcount``."""

    cap: int | None
    registers: int
    spill_stores: int
    spill_loads: int
    stack_bytes: int | None
    """The stack per thread, ``None`` where it cannot be bounded (recursion or indirect calls)."""
    active_blocks: int
    occupancy: float

    @property
    def spill_bytes(self) -> int:
        return self.spill_stores + self.spill_loads

    def to_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class Sweep:
    kernel: str
    arch: str
    threads: int
    points: list[CapPoint]  # the uncapped compile first, then caps from high to low
    lower_bound: int
    static_smem: int = 0
    barriers: int | None = None
    dynamic_smem: int = 0

    def rescored(self, device: DeviceProperties, threads: int, dynamic_smem: int = 0) -> Sweep:
        """The same compiles, their occupancy on another device or block size (nothing recompiled)."""
        points = []
        for p in self.points:
            blocks, occ = occupancy_at(device, self.static_smem, self.barriers, p.registers, threads, dynamic_smem)
            points.append(dataclasses.replace(p, active_blocks=blocks, occupancy=occ))
        return dataclasses.replace(self, threads=threads, points=points, dynamic_smem=dynamic_smem)

    @property
    def sweet_spot(self) -> CapPoint:
        """The highest occupancy reached without spills (the highest such cap on ties)."""
        clean = [p for p in self.points if p.spill_bytes == 0] or self.points[:1]
        return max(clean, key=lambda p: p.occupancy)

    def further_steps(self) -> list[CapPoint]:
        """Each occupancy step above the sweet spot, at the cap that reaches it with the fewest spill bytes."""
        best: dict[float, CapPoint] = {}
        for p in self.points:
            if p.occupancy > self.sweet_spot.occupancy:
                kept = best.get(p.occupancy)
                if kept is None or p.spill_bytes < kept.spill_bytes:
                    best[p.occupancy] = p
        return [best[k] for k in sorted(best)]


DEFAULT_CAP = 256 << 20
"""Bytes of compiles kept on disk: a sweep of a kernel whose cubin is 1 MB writes ~35 MB."""


class ResultCache:
    """Compiles by :func:`build.cache_key`, one small file each, at most ``cap`` bytes of them
    (``folder=None``: memory only)."""

    SUFFIX = ".compiled"

    def __init__(self, folder: str | os.PathLike[str] | None = None, cap: int = DEFAULT_CAP):
        self.folder = Path(folder) if folder is not None else None
        self.cap = cap
        self._memory: dict[str, Compiled] = {}
        self._lock = threading.Lock()

    @classmethod
    def default(cls) -> ResultCache:
        return cls(os.environ.get("OCCUPANCY_COMPILE_CACHE") or user_cache_path("occupancy_gui") / "regcap")

    def get(self, key: str) -> Compiled | None:
        """The cached compile; ``None`` where there is none or its file is not one (torn, or an older format)."""
        with self._lock:
            if key in self._memory:
                return self._memory[key]
        if self.folder is not None:
            entry = self.folder / f"{key}{self.SUFFIX}"
            try:
                compiled = Compiled.from_bytes(entry.read_bytes())
            except OSError:
                return None
            if compiled is not None:
                touch(entry)  # least recently *used* is what the cap evicts
            return compiled
        return None

    def put(self, key: str, compiled: Compiled) -> None:
        with self._lock:
            self._memory[key] = compiled
        if self.folder is not None:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                tmp = self.folder / f"{key}.{os.getpid()}.{threading.get_ident()}.tmp"
                tmp.write_bytes(compiled.to_bytes())
                os.replace(tmp, self.folder / f"{key}{self.SUFFIX}")
            except OSError:
                return  # a read-only cache folder: the sweep still answers, it just recompiles next time
            trim(self.folder, self.cap, lambda name: name.endswith((self.SUFFIX, ".tmp")))


def compiled_output(src: Source, cap: int | None, cache: ResultCache | None, cancel: CancelFn | None) -> Compiled:
    key = cache_key(src, cap)
    compiled = cache.get(key) if cache is not None else None
    if compiled is None:
        compiled = run_compiler(src, cap, cancel)
        if cache is not None:
            cache.put(key, compiled)
    return compiled


def pick_kernel(records: list[KernelRecord], name: str | None, path: str) -> KernelRecord:
    """The kernel called (or whose name contains) ``name``; the only kernel when ``name`` is None."""
    kernels = [r for r in records if r.is_kernel]
    if name is not None:
        exact = [r for r in kernels if r.name == name or r.demangled == name]
        kernels = exact or [r for r in kernels if name in r.name or name in r.demangled]
    if len(kernels) == 1:
        return kernels[0]
    names = ", ".join(sorted({r.name for r in (kernels or [r for r in records if r.is_kernel])}))
    if not kernels:
        raise ValueError(
            f"{path}: no kernel" + (f" matching {name!r}" if name else "") + f" (kernels: {names or 'none'})"
        )
    raise ValueError(
        f"{path}: {len(kernels)} kernels"
        + (f" match {name!r}" if name else "")
        + f"; choose one with --kernel NAME ({names})"
    )


def candidate_caps(registers: int, lower_bound: int, step: int) -> list[int]:
    """Allocation-step tops below ``registers``' step, down to ``lower_bound``, high to low (≤ 255)."""
    top = -(-registers // step) * step
    caps = [c for c in range(top - step, lower_bound - 1, -step) if c < registers]
    caps = [min(c, MAX_CAP) for c in caps]
    if lower_bound < registers and lower_bound not in caps and (not caps or caps[-1] > lower_bound):
        caps.append(lower_bound)
    return caps


def occupancy_at(
    device: DeviceProperties,
    static_smem: int,
    barriers: int | None,
    registers: int,
    threads: int,
    dynamic_smem: int = 0,
) -> tuple[int, float]:
    """(active blocks, occupancy) of a kernel with these figures (barriers ``None``: the runtime's 1)."""
    func = FunctionAttributes(
        num_regs=registers, shared_size_bytes=static_smem, num_block_barriers=1 if barriers is None else barriers
    )
    result = compute_occupancy(device, func, Launch(threads, dynamic_smem), DeviceState())
    return result.active_blocks, result.occupancy


def _point(cap: int | None, rec: KernelRecord, device: DeviceProperties, threads: int, dynamic: int) -> CapPoint:
    blocks, occ = occupancy_at(device, rec.static_smem, rec.barriers, rec.registers, threads, dynamic)
    return CapPoint(cap, rec.registers, rec.spill_stores or 0, rec.spill_loads or 0, rec.stack_bytes, blocks, occ)


def sweep(
    src: Source,
    device: DeviceProperties,
    kernel: str | None = None,
    threads: int | None = None,
    dynamic_smem: int = 0,
    jobs: int | None = None,
    cache: ResultCache | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> Sweep:
    """Compile ``src`` uncapped, then once per candidate cap (in parallel), and report each."""
    jobs = max(1, jobs or usable_cpus())
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="regcap") as pool:
        first = [pool.submit(compiled_output, src, cap, cache, cancel) for cap in (None, 1)]
        base = pick_kernel(parse_log(src, first[0].result()), kernel, src.path)
        lower = _lower_bound(first[1])
        step = reg_allocation_granularity(device.compute_capability) // device.warp_size
        caps = candidate_caps(base.registers, lower, step)
        total, done = len(caps) + 2, 2
        if progress is not None:
            progress(done, total)
        futures = {pool.submit(compiled_output, src, cap, cache, cancel): cap for cap in caps}
        compiles: dict[int, Compiled] = {}
        failed: list[int] = []
        pending = set(futures)
        try:
            while pending:
                finished, pending = wait(pending, timeout=0.1, return_when=FIRST_EXCEPTION)
                for fut in finished:
                    done += 1
                    try:
                        compiles[futures[fut]] = fut.result()
                    except CompileError:
                        failed.append(futures[fut])  # a cap ptxas refuses: the sweep ends above it
                if progress is not None and finished:
                    progress(done, total)
                if cancel is not None and cancel():
                    raise CompileCancelled("cancelled")
        finally:
            for fut in pending:
                fut.cancel()
    threads = threads or base.max_threads or 256
    points = [_point(None, base, device, threads, dynamic_smem)]
    floor = max(failed, default=0)
    for cap in caps:
        if cap <= floor:
            break
        rec = pick_kernel(parse_log(src, compiles[cap], cap), base.name, src.path)
        points.append(_point(cap, rec, device, threads, dynamic_smem))
    return Sweep(base.name, src.arch, threads, points, lower, base.static_smem, base.barriers, dynamic_smem)


def _lower_bound(probe: Future[Compiled]) -> int:
    """The lowest cap ptxas accepts, from its warning at ``-maxrregcount=1`` (1 when it says nothing)."""
    try:
        log = probe.result().log
    except CompileError:
        return 1
    m = _LOWER_BOUND.search(log)
    return int(m.group(1)) if m else 1


def sweep_to_json(result: Sweep) -> str:
    return json.dumps([p.to_json() for p in result.points])
