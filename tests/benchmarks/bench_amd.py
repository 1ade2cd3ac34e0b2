"""Benchmark: the AMD rules' cost per answer and per step curve, against NVIDIA's vectorised block-size sweep.

The AMD sweeps call the scalar rules once per point (no numpy form of the two rules exists); this prints
what that costs so the window's budget can be judged, and the NVIDIA block-size sweep measured in the same
run as the reference.

    python -m tests.benchmarks.bench_amd [--device "RX 7900 XTX"] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from occupancy_gui.engine import FunctionAttributes, Launch, sweep_block_size
from occupancy_gui.engine.amd import AmdKernel, AmdLaunch, compiler_occupancy, hip_occupancy
from occupancy_gui.engine.amd import sweeps as amd_sweeps
from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog
from occupancy_gui.profiles.amd_catalog import AmdCatalog
from tests.benchmarks import publish


def timed(call: Callable[[], object], repeat: int, inner: int = 1) -> float:
    """Median seconds per call over ``repeat`` runs of ``inner`` calls."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            call()
        runs.append((time.perf_counter() - t0) / inner)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="RX 7900 XTX")
    parser.add_argument("--repeat", type=int, default=7)
    publish.add_flag(parser)
    args = parser.parse_args()
    device = AmdCatalog.from_profile_root(data_dir("device_profiles")).get(args.device).device()
    kernel, launch = AmdKernel(vgprs=100, sgprs=40, static_lds=4000), AmdLaunch(256, 1000)
    nvidia = Catalog.load([data_dir("device_profiles")]).get("sm_90").device_properties()
    reference = timed(lambda: sweep_block_size(nvidia, FunctionAttributes(num_regs=64), Launch(256, 0)), args.repeat)
    print(f"NVIDIA block-size sweep (vectorised, 1024 points): {reference * 1e3:.1f} ms")
    hip = timed(lambda: hip_occupancy(device, kernel, launch), args.repeat, 2000)
    compiler = timed(lambda: compiler_occupancy(device.target, kernel), args.repeat, 2000)
    print(f"HIP runtime rule, one answer:   {hip * 1e6:.1f} µs")
    print(f"compiler model, one answer:     {compiler * 1e6:.1f} µs")
    for name in ("sweep_block_size", "sweep_vgprs", "sweep_lds"):
        sweep = getattr(amd_sweeps, name)
        points = len(sweep(device, kernel, launch).runtime.x)
        seconds = timed(lambda sweep=sweep: sweep(device, kernel, launch), args.repeat)
        print(f"AMD {name} ({points} points, both rules): {seconds * 1e3:.1f} ms = {seconds / reference:.1f}× NVIDIA's")


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
