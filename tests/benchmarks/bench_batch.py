"""Benchmark: ``occupancy batch`` on 1,000,000 mixed queries against the C harness on the same queries.

The queries (random devices, every field, ~5 % invalid lines; ``tests/cli/batch_queries.py``) are
generated with a fixed seed and cached.  ``occupancy batch`` runs as a separate process reading the
JSON Lines file and writing JSON Lines (parsing and writing included); its wall time, the time to its
first answer and its peak RSS are measured.  The C harness (``tests/harness``, compiled against
``cuda_occupancy.h`` from the pinned wheel) answers the same valid queries, one process per device,
from binary records; both its wall time (process start, record I/O, loop) and its loop alone are
printed.  Every answer the batch gives is compared with the header's, field by field.

    python tests/benchmarks/bench_batch.py [--queries 1000000] [--seed 20261202] [--format json|csv]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from occupancy_gui.cli.devices import DeviceLookupError, device_from_query, load_catalog
from occupancy_gui.cli.inputs import QueryError, kernel_query
from occupancy_gui.engine import INT_MAX
from tests.cli.batch_queries import random_lines
from tests.harness.reference import KERNEL_FIELDS, Reference

CACHE = Path(__file__).resolve().parent / "_cache"


def query_file(seed: int, n: int) -> Path:
    path = CACHE / f"batch-{seed}-{n}.jsonl"
    if not path.exists():
        CACHE.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text("\n".join(random_lines(seed, n, load_catalog().names())) + "\n")
        tmp.replace(path)
    return path


def run_batch(path: Path, out: Path, fmt: str) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, seconds to the first answer, peak RSS bytes) of one ``occupancy batch``."""
    cmd = [sys.executable, "-m", "occupancy_gui.cli.main", "batch", str(path), "--format", fmt]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    with out.open("wb") as sink:
        first = proc.stdout.readline()
        t_first = time.perf_counter() - t0
        sink.write(first)
        while block := proc.stdout.read(1 << 20):
            sink.write(block)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, f"occupancy batch exited {proc.returncode}"
    return wall, usage.ru_utime + usage.ru_stime, t_first, usage.ru_maxrss * 1024


def harness_inputs(path: Path) -> dict[object, tuple[object, list[int], list[list[int]]]]:
    """Per device: (device, line indices, rows of KERNEL_FIELDS + block size + dynamic smem)."""
    catalog = load_catalog()
    groups: dict[object, tuple[object, list[int], list[list[int]]]] = {}
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
                row = [f.num_regs, f.shared_size_bytes, f.max_threads_per_block, int(f.partitioned_gc_config),
                       int(f.shmem_limit_config), f.resolved_max_dynamic_smem(device), f.num_block_barriers,
                       f.virtual_resource_count, int(s.cache_config), s.carveout_config, q.launch.block_size,
                       q.launch.dynamic_smem]  # fmt: skip
                np.asarray(row, dtype=np.int64)
            except OverflowError:
                continue
            entry = groups.setdefault(device, (device, [], []))
            entry[1].append(i)
            entry[2].append(row)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--format", choices=("json", "csv"), default="json")
    args = parser.parse_args()
    path = query_file(args.seed, args.queries)
    out = CACHE / f"batch-{args.seed}-{args.queries}.out.{args.format}"

    wall, cpu, first, rss = run_batch(path, out, args.format)

    reference = Reference.build()
    groups = harness_inputs(path)
    c_wall = c_loop = 0.0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    header: dict[int, tuple[int, ...]] = {}
    for device, indices, rows in groups.values():
        q = np.asarray(rows, dtype=np.int64)
        t0 = time.perf_counter()
        r = reference.occupancy(device, q[:, : len(KERNEL_FIELDS)], q[:, -2], q[:, -1])  # type: ignore[arg-type]
        c_wall += time.perf_counter() - t0
        c_loop += reference.last_loop_ns / 1e9
        fields = np.column_stack([r[k] for k in ("status", "active_blocks", "block_limit_warps", "block_limit_blocks",
                                                 "block_limit_regs", "block_limit_shared_mem",
                                                 "allocated_registers_per_block", "allocated_shared_mem_per_block")])  # fmt: skip
        header.update(zip(indices, map(tuple, fields.tolist())))

    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    c_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    compared = errors = no_fit = 0
    if args.format == "json":
        with out.open() as answers:
            for i, line in enumerate(answers):
                a = json.loads(line)
                if "error" in a:
                    errors += 1
                    continue
                lim = a["limits"]
                mine = (0, a["active_blocks"], *(INT_MAX if lim[k] is None else lim[k]
                                                 for k in ("warps", "blocks", "registers", "shared_memory")),
                        a["allocated_registers_per_block"], a["allocated_shared_memory_per_block"])  # fmt: skip
                assert header.get(i) == mine, f"line {i + 1}: header {header.get(i)}, occupancy batch {mine}"
                compared += 1
                no_fit += a["active_blocks"] == 0
        assert i + 1 == args.queries, "one answer per line"

    print(f"queries: {args.queries} lines ({path.stat().st_size / 2**20:.0f} MiB), {errors} error lines, "
          f"{no_fit} launches where no block fits, {len(groups)} devices; "
          f"{compared} answers equal to cuda_occupancy.h field by field")
    print(f"occupancy batch --format {args.format}: {wall:.2f} s wall, {cpu:.2f} s CPU, {args.queries / wall:,.0f} "
          f"queries/s (wall), first answer after {first:.2f} s, peak RSS {rss / 2**20:.0f} MiB")
    print(f"C harness: {c_wall:.2f} s wall, {c_cpu:.2f} s CPU (one process per device, binary records), "
          f"loop alone {c_loop:.3f} s")
    print(f"ratio batch / C harness: {wall / c_wall:.2f}x wall, {cpu / c_cpu:.2f}x CPU (target <= 3x); "
          f"{wall / c_loop:.0f}x the C loop alone")

if __name__ == "__main__":
    main()
