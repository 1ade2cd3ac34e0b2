"""Peak memory of importing a huge build log: it must not grow with the size of the log.

    python tests/benchmarks/bench_import_memory.py [--sizes-mb 250 1024] [--kernels 2000]

Writes, in a temporary directory that is deleted afterwards, logs of each size made of repeated
builds of the same ``--kernels`` kernels (5 architectures each, 25 % ptxas lines, the rest compiler
noise), imports each in a fresh subprocess and prints the subprocess's peak resident set size
(``ru_maxrss``), its worker process's (``parallel_log``: a log of 64 MiB or more is read by two) and
the time.  A streaming importer holds one chunk buffer plus one entry per distinct
kernel, so the figures for 250 MiB and 1 GiB should be about the same.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks import publish  # noqa: E402
from tests.benchmarks.bench_import import generate  # noqa: E402

_CHILD = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[2])
from occupancy_gui.importers import import_file
t0 = time.perf_counter()
seen = []
records = import_file(sys.argv[1], progress=lambda done, total: seen.append(done))
elapsed = time.perf_counter() - t0
kernels = sum(1 for r in records if r.registers >= 0)  # reads every record's fields
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the log's worker process, if it had one
print(len(records), kernels, peak, worker, f"{elapsed:.2f}", len(seen))
"""


def baseline_rss() -> int:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, sys; sys.path.insert(0, sys.argv[1]);"
            "import occupancy_gui.importers;"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mb", type=int, nargs="+", default=[250, 1024])
    ap.add_argument("--kernels", type=int, default=2000, help="distinct kernels (x5 architectures)")
    publish.add_flag(ap)
    args = ap.parse_args()
    print(f"interpreter with the importers loaded: {baseline_rss() / 1024:.0f} MiB peak RSS")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes_mb:
            path = Path(tmp) / f"build_{size}.log"
            generate(path, size, 0.25, kernels=args.kernels)
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, str(path), str(ROOT)], capture_output=True, text=True, check=True
            ).stdout.split()
            records, _, peak_kib, worker_kib, elapsed, calls = out
            print(
                f"{size:5d} MiB log: {records} records, peak RSS {int(peak_kib) / 1024:.0f} MiB "
                f"(its worker process: {int(worker_kib) / 1024:.0f} MiB), {elapsed} s, {calls} progress calls"
            )
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
