"""Register-cap sweep: parallel compiles against one compile at a time, and a cached rerun.

    python tests/benchmarks/bench_regcap.py [FILE.ptx|FILE.cu] [--arch sm_80] [--kernel NAME] [--cuda-bin DIR]

Defaults to tests/data/compile/pressure.ptx for sm_80 with the pinned CUDA 13.5 ptxas (fetched into
the test cache).  Prints the wall time of the same sweep with ``jobs=1``, with one job per CPU, and
again from a warm result cache, and the ratios against the serial sweep measured in this run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from occupancy_gui.cli.devices import load_catalog  # noqa: E402
from occupancy_gui.compile import make_source  # noqa: E402
from occupancy_gui.compile.regcap import ResultCache, sweep  # noqa: E402
from tests.benchmarks import publish  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file", nargs="?", default=str(ROOT / "tests" / "data" / "compile" / "pressure.ptx"))
    parser.add_argument("--arch", default="sm_80")
    parser.add_argument("--kernel", default="pressure")
    parser.add_argument("--cuda-bin")
    publish.add_flag(parser)
    args = parser.parse_args()
    cuda_bin = args.cuda_bin
    if cuda_bin is None:
        from tests.helpers import toolchains

        cuda_bin = str(toolchains.nvcc13_bin())
    src = make_source(args.file, args.arch, cuda_bin)
    device = load_catalog().get(args.arch.rstrip("af")).device_properties()
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, jobs, cache in (
            ("serial", 1, ResultCache(None)),
            ("parallel", os.cpu_count(), ResultCache(tmp)),
            ("cached", os.cpu_count(), ResultCache(tmp)),
        ):
            start = time.perf_counter()
            result = sweep(src, device, kernel=args.kernel, jobs=jobs, cache=cache)
            times[label] = time.perf_counter() - start
            print(f"{label:9s} jobs={jobs}: {times[label]:.2f} s for {len(result.points) + 1} compiles")
    print(
        f"parallel/serial = {times['parallel'] / times['serial']:.2f}   cached/serial = "
        f"{times['cached'] / times['serial']:.3f}   ({os.cpu_count()} CPUs)"
    )


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
