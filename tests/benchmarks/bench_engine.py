"""Benchmark: the 262,144-query block size × registers sweep, vectorised engine vs the C harness.

Both answer the same queries (block size 1..1024 × registers 0..255) on the same device; the C time
is the harness's own query loop (no process start, no I/O).  Target: engine ≤ 1.5× the C time.

    python -m tests.benchmarks.bench_engine [--device sm_90] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from occupancy_gui.engine import FunctionAttributes, build_query, max_active_blocks
from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog
from tests.benchmarks import publish
from tests.harness.reference import KERNEL_FIELDS, Reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="sm_90")
    parser.add_argument("--repeat", type=int, default=7)
    publish.add_flag(parser)
    args = parser.parse_args()
    device = Catalog.load([data_dir("device_profiles")]).get(args.device).device_properties()
    sizes = np.arange(1, 1025, dtype=np.int64)[:, None]
    regs = np.arange(0, 256, dtype=np.int64)[None, :]
    func = FunctionAttributes(num_regs=0)

    engine_times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        result = max_active_blocks(device, build_query(device, func, state=_state(), block_size=sizes, num_regs=regs))
        engine_times.append(time.perf_counter() - t0)

    reference = Reference.build()
    block, reg = (a.ravel() for a in np.broadcast_arrays(sizes, regs))
    kernel = np.zeros((block.size, len(KERNEL_FIELDS)), dtype=np.int64)
    kernel[:, 0], kernel[:, 2], kernel[:, 4] = reg, 2**31 - 1, 1
    kernel[:, 5], kernel[:, 6], kernel[:, 9] = device.shared_mem_per_block, 1, -1
    c_times = []
    for _ in range(args.repeat):
        ref = reference.occupancy(device, kernel, block, np.zeros_like(block))
        c_times.append(reference.last_loop_ns / 1e9)
    assert np.array_equal(ref["active_blocks"], result.active_blocks.ravel()), "engine and header disagree"

    engine, c = statistics.median(engine_times), statistics.median(c_times)
    print(f"queries: {block.size} on {args.device}")
    print(f"engine (numpy, vectorised): median {engine * 1e3:.2f} ms over {args.repeat} runs")
    print(f"C harness (cuda_occupancy.h, -O2 loop): median {c * 1e3:.2f} ms over {args.repeat} runs")
    print(f"ratio engine / C: {engine / c:.2f}x (target <= 1.5x)")


def _state():
    from occupancy_gui.engine import DeviceState

    return DeviceState()


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
