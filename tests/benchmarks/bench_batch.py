"""Benchmark: ``occupancy batch`` on 1,000,000 mixed queries against the C harness on the same queries.

The queries (random devices, every field, ~5 % invalid lines; ``tests/cli/batch_queries.py``) are
generated with a fixed seed and cached.  ``occupancy batch`` runs as a separate process reading the
JSON Lines file and writing JSON Lines (parsing and writing included); its wall time, the time to its
first answer and its peak RSS are measured.  The C harness (``tests/harness``, compiled against
``cuda_occupancy.h`` from the pinned wheel) answers the same valid queries, one process per device,
from binary records; both its wall time (process start, record I/O, loop) and its loop alone are
printed.  Every answer the batch gives is compared with the header's, field by field (where the launch
cannot happen at all — above the kernel's bound, off its ``.reqntid``, which the header does not check —
with no block resident and a warps limit of 0, as ``engine.warps.launchable`` decides).

    python -m tests.benchmarks.bench_batch [--queries 1000000] [--seed 20261202] [--format json|csv] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from occupancy_gui.cli.batch_plain import PlainQuery
from occupancy_gui.cli.devices import DeviceLookupError, device_from_query, load_catalog
from occupancy_gui.cli.inputs import QueryError, kernel_query
from occupancy_gui.engine import INT_MAX
from occupancy_gui.engine.warps import launchable
from tests.benchmarks import publish
from tests.harness.reference import KERNEL_FIELDS, Reference

CACHE = Path(__file__).resolve().parent / "_cache"


def query_file(seed: int, n: int) -> Path:
    """The cached query file, generated in a child process: this one stays small, because a child's peak
    RSS as the kernel reports it starts from its parent's at the fork."""
    path = CACHE / f"batch-{seed}-{n}.jsonl"
    if not path.exists():
        CACHE.mkdir(exist_ok=True)
        code = (
            "import sys; from pathlib import Path; from tests.cli.batch_queries import random_lines; "
            "from occupancy_gui.cli.devices import load_catalog; "
            "Path(sys.argv[1]).write_text(chr(10).join(random_lines(int(sys.argv[2]), int(sys.argv[3]), "
            "load_catalog().names())) + chr(10))"
        )
        tmp = path.with_suffix(".tmp")
        subprocess.run([sys.executable, "-c", code, str(tmp), str(seed), str(n)], check=True)
        tmp.replace(path)
    return path


_LAUNCHER = (
    "import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
    "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(u.ru_utime + u.ru_stime, u.ru_maxrss, file=sys.stderr); sys.exit(code)"
)
"""Runs the batch and reports its CPU time and peak RSS: a child's peak RSS as the kernel counts it starts
from its parent's at the fork, so the batch is started by this small process, not by the benchmark."""


def run_batch(path: Path, out: Path, fmt: str, jobs: int) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds of it and its workers, seconds to the first answer, peak RSS bytes of its
    largest process) of one ``occupancy batch``."""
    cmd = [
        sys.executable,
        "-c",
        _LAUNCHER,
        sys.executable,
        "-m",
        "occupancy_gui.cli.main",
        "batch",
        str(path),
        "--format",
        fmt,
        "--jobs",
        str(jobs),
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    with out.open("wb") as sink:
        first = proc.stdout.readline()
        t_first = time.perf_counter() - t0
        sink.write(first)
        while block := proc.stdout.read(1 << 20):
            sink.write(block)
    report = proc.stderr.read().decode()
    wall = time.perf_counter() - t0
    assert proc.wait() == 0, f"occupancy batch failed: {report}"
    cpu, maxrss = report.split()[-2:]
    return wall, float(cpu), t_first, int(maxrss) * 1024


def harness_inputs(path: Path) -> tuple[dict[object, tuple[object, list[int], list[list[int]]]], set[int]]:
    """Per device: (device, line indices, rows of KERNEL_FIELDS + block size + dynamic smem); and the
    indices of the launches that cannot happen (above the kernel's bound, off its ``.reqntid``), which
    ``cudaOccMaxActiveBlocksPerMultiprocessor`` does not check: no block resides there, the warps limit is 0."""
    catalog = load_catalog()
    groups: dict[object, tuple[object, list[int], list[list[int]]]] = {}
    unlaunchable: set[int] = set()
    with path.open() as lines:
        for i, line in enumerate(lines):
            try:
                data = json.loads(line)
                device = device_from_query(data.get("device"), catalog, "bench")
                q = kernel_query(data)
            except (ValueError, RecursionError, AttributeError, QueryError, DeviceLookupError):
                continue
            f, s = q.func, q.state
            try:
                row = [
                    f.num_regs,
                    f.shared_size_bytes,
                    f.max_threads_per_block,
                    int(f.partitioned_gc_config),
                    int(f.shmem_limit_config),
                    f.resolved_max_dynamic_smem(device),
                    f.num_block_barriers,
                    f.virtual_resource_count,
                    int(s.cache_config),
                    s.carveout_config,
                    q.launch.block_size,
                    q.launch.dynamic_smem,
                ]
                np.asarray(row, dtype=np.int64)
            except OverflowError:
                continue
            entry = groups.setdefault(device, (device, [], []))
            entry[1].append(i)
            entry[2].append(row)
            if not launchable(device, q.launch.block_size, f.max_threads_per_block, f.reqntid):
                unlaunchable.add(i)
    return groups, unlaunchable


last_results: list[dict[str, np.ndarray]] = []


def run_harness(reference: Reference, groups: list[tuple[object, list[int], np.ndarray]]) -> tuple[float, float, float]:
    """(wall, CPU of the harness processes, loop alone) seconds for every device's queries."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = loop = 0.0
    last_results.clear()
    for device, _, q in groups:
        t0 = time.perf_counter()
        last_results.append(reference.occupancy(device, q[:, : len(KERNEL_FIELDS)], q[:, -2], q[:, -1]))  # type: ignore[arg-type]  # numpy int64 columns
        wall += time.perf_counter() - t0
        loop += reference.last_loop_ns / 1e9
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, loop


class _Limits(msgspec.Struct, gc=False):
    warps: Any
    blocks: Any
    registers: Any
    shared_memory: Any
    barriers: Any


class _Estimate(msgspec.Struct, gc=False):
    active_blocks: Any
    occupancy: Any
    limits: _Limits


class _Answer(msgspec.Struct, gc=False, omit_defaults=True):
    """An answer line as msgspec's fastest path holds it (a struct, not a dict: 1M encode in ~1.1 s, not ~1.9)."""

    active_blocks: Any = None
    active_warps: Any = None
    active_threads: Any = None
    occupancy: Any = None
    limits: _Limits | None = None
    binding: Any = None
    allocated_registers_per_block: Any = None
    allocated_shared_memory_per_block: Any = None
    reasons: Any = None
    estimate: _Estimate | None = None
    error: Any = None


def codec_floor(path: Path, out: Path) -> tuple[float, float]:
    """Seconds msgspec (compiled; the fastest JSON codec Python has) takes to decode every query line
    as the batch does (``PlainQuery``, line by line in one ``map``) and to encode every answer line from
    ready-made structs: what any batch written in Python pays before it answers a single query."""
    texts = path.read_text().splitlines()
    decode = msgspec.json.Decoder(PlainQuery).decode
    start = time.perf_counter()
    queries: list[PlainQuery] = []
    pending = iter(texts)
    while True:  # as the batch decodes: a refused line ends one map, the next resumes after it
        try:
            queries.extend(map(decode, pending))
            break
        except (msgspec.DecodeError, ValueError):
            continue
    decoding = time.perf_counter() - start
    del texts, queries
    answers = msgspec.json.Decoder(_Answer).decode_lines(out.read_bytes())
    start = time.perf_counter()
    msgspec.json.Encoder().encode_lines(answers)
    return decoding, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--format", choices=("json", "csv"), default="json")
    parser.add_argument("--pairs", type=int, default=3, help="batch and C harness runs, in turn")
    parser.add_argument("--jobs", type=int, default=1, help="occupancy batch --jobs N (worker processes)")
    publish.add_flag(parser)
    args = parser.parse_args()
    path = query_file(args.seed, args.queries)
    out = CACHE / f"batch-{args.seed}-{args.queries}.out.{args.format}"

    reference = Reference.build()
    inputs, unlaunchable = harness_inputs(path)
    groups = [(device, indices, np.asarray(rows, dtype=np.int64)) for device, indices, rows in inputs.values()]
    pairs = []
    for _ in range(args.pairs):  # batch then C, in turn, so that a drift in the machine's speed hits both
        batch = run_batch(path, out, args.format, args.jobs)
        pairs.append((batch, run_harness(reference, groups)))
    header: dict[int, tuple[int, ...]] = {}
    for (_device, indices, _q), r in zip(groups, last_results):
        fields = np.column_stack(
            [
                r[k]
                for k in (
                    "status",
                    "active_blocks",
                    "block_limit_warps",
                    "block_limit_blocks",
                    "block_limit_regs",
                    "block_limit_shared_mem",
                    "allocated_registers_per_block",
                    "allocated_shared_mem_per_block",
                )
            ]
        )
        header.update(zip(indices, map(tuple, fields.tolist())))
    for i in unlaunchable.intersection(header):
        status, _, _, *rest = header[i]
        header[i] = (status, 0, 0, *rest)

    compared = errors = no_fit = 0
    if args.format == "json":
        with out.open() as answers:
            for i, line in enumerate(answers):
                a = json.loads(line)
                if "error" in a:
                    errors += 1
                    continue
                lim = a["limits"]
                mine = (
                    0,
                    a["active_blocks"],
                    *(INT_MAX if lim[k] is None else lim[k] for k in ("warps", "blocks", "registers", "shared_memory")),
                    a["allocated_registers_per_block"],
                    a["allocated_shared_memory_per_block"],
                )
                assert header.get(i) == mine, f"line {i + 1}: header {header.get(i)}, occupancy batch {mine}"
                compared += 1
                no_fit += a["active_blocks"] == 0
        assert i + 1 == args.queries, "one answer per line"

    print(
        f"queries: {args.queries} lines ({path.stat().st_size / 2**20:.0f} MiB), {errors} error lines, "
        f"{no_fit} launches where no block fits, {len(groups)} devices; "
        f"{compared} answers equal to cuda_occupancy.h field by field"
    )
    for (wall, cpu, first, rss), (c_wall, c_cpu, c_loop) in pairs:
        print(
            f"occupancy batch --format {args.format} --jobs {args.jobs}: {wall:.2f} s wall, {cpu:.2f} s CPU, "
            f"{args.queries / wall:,.0f} queries/s ({cpu / args.queries * 1e6:.1f} µs CPU each), "
            f"first answer after {first:.2f} s, peak RSS {rss / 2**20:.0f} MiB; "
            f"C harness: {c_wall:.2f} s wall, {c_cpu:.2f} s CPU, loop alone {c_loop:.3f} s; "
            f"ratio {wall / c_wall:.2f}x wall, {cpu / c_cpu:.2f}x CPU"
        )
    wall_ratio = statistics.median(b[0] / c[0] for b, c in pairs)
    cpu_ratio = statistics.median(b[1] / c[1] for b, c in pairs)
    print(
        f"median of {len(pairs)} pairs: batch / C harness {wall_ratio:.2f}x wall, {cpu_ratio:.2f}x CPU (target <= 3x); "
        f"{statistics.median(args.queries / b[0] for b, _ in pairs):,.0f} queries/s; "
        f"peak RSS {max(b[3] for b, _ in pairs) / 2**20:.0f} MiB"
    )
    if args.format == "json":
        decoding, encoding = codec_floor(path, out)
        c_wall = statistics.median(c[0] for _, c in pairs)
        print(
            f"codec floor (msgspec alone, no query answered): decoding the lines {decoding:.2f} s + encoding "
            f"the answers {encoding:.2f} s = {decoding + encoding:.2f} s, "
            f"{(decoding + encoding) / c_wall:.2f}x the C harness's median wall"
        )


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
