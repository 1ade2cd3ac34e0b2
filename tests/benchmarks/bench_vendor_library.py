"""Benchmark: list every kernel of NVIDIA's big libraries, our binary reader vs cuobjdump.

The five libraries of the exactness tests (curand, cublas, cublasLt, cufft, cusparse; pinned wheels,
fetched once into the test cache by ``tests/toolchains.py``).  For each, in fresh processes, the
median of ``--repeat`` runs of:

* ``cuobjdump --dump-resource-usage LIB`` (the reference; libcufft, which it refuses, is measured
  on the fatbin of its embedded containers, as the exactness test compares it);
* the listing as the window makes it: ``import_file_detailed`` in a process that has the importer
  modules loaded and has never read this file;
* ``occupancy import LIB --json --no-cache``: the whole command (start-up, JSON of every record, exit);
* the second open from the import cache (a fresh, empty cache directory filled by one first open):
  the listing's open in a fresh process, and the whole command.

Peak RSS of each is the child's ``ru_maxrss``.  The records themselves are compared in
``tests/importers/test_vendor_libraries.py``; this only times and weighs.

    python -m tests.benchmarks.bench_vendor_library [--repeat 3] [--only cublasLt]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from occupancy_gui.importers import import_file_detailed  # noqa: E402
from tests import toolchains  # noqa: E402
from tests.importers.test_vendor_libraries import LIBRARIES, embedded_fatbin, library_file  # noqa: E402

LISTING = """
import resource, sys, time
from occupancy_gui.importers import RecordCache, import_file_detailed, fatbin, elf_cubin  # loaded, as in a window
cache = RecordCache() if sys.argv[2] == "cache" else None
t0 = time.perf_counter()
records = import_file_detailed(sys.argv[1], cache=cache).records
# Peak RSS of this process and of the largest worker process it ran (MiB).
peaks = [resource.getrusage(who).ru_maxrss >> 10 for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(time.perf_counter() - t0, len(records), *peaks)
"""


def measured(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (MiB, the child's own ``ru_maxrss`` from ``wait4``) and stdout of one
    fresh child process."""
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            sys.exit(f"bench_vendor_library: {' '.join(cmd)} exited with {proc.returncode}")
        out.seek(0)
        return wall, usage.ru_maxrss >> 10, out.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="one library, e.g. cublasLt")
    args = parser.parse_args()
    cuobjdump = str(toolchains.cuobjdump())
    print(f"{'library':<20} {'MiB':>5} {'records':>8} {'cuobjdump':>10} {'listing':>8} {'command':>8} "
          f"{'ratio':>6} {'RSS ours/cuobjdump':>19} {'cached open':>11} {'command':>8}  {'RSS all':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for wheel, stem in LIBRARIES:
            if args.only and args.only.lower() not in stem.lower():
                continue
            lib = library_file(wheel, stem)
            target = lib
            if stem.startswith("libcufft"):  # cuobjdump "does not contain device code"
                records = [r for r in import_file_detailed(lib).records if r.embedded]
                target = Path(tmp) / "cufft_embedded.fatbin"
                embedded_fatbin(lib, records, target)
            theirs_cmd = [cuobjdump, "--dump-resource-usage", str(target)]
            ours_cmd = [sys.executable, "-m", "occupancy_gui.cli.main", "import", str(lib), "--json", "--no-cache"]
            cached_cmd = ours_cmd[:-1]
            listing_cmd = [sys.executable, "-c", LISTING, str(lib), "none"]
            os.environ["OCCUPANCY_GUI_CACHE_DIR"] = str(Path(tmp) / f"cache-{stem}")
            measured(cached_cmd)  # fills the cache
            warm_listing = [float(measured(listing_cmd[:-1] + ["cache"])[2].split()[0]) for _ in range(args.repeat)]
            warm_command = [measured(cached_cmd)[0] for _ in range(args.repeat)]
            theirs, ours, listing, rss_theirs, rss_ours, count, rss_all = [], [], [], 0, 0, 0, 0
            for _ in range(args.repeat):
                wall, rss, _out = measured(theirs_cmd)
                theirs.append(wall)
                rss_theirs = max(rss_theirs, rss)
                wall, rss, _out = measured(ours_cmd)
                ours.append(wall)
                rss_ours = max(rss_ours, rss)
                seconds, n, parent, worker = measured(listing_cmd)[2].split()
                listing.append(float(seconds))
                count = int(n)
                # Workers run side by side: their peaks add up (bounded by the largest one's times their number).
                rss_all = max(rss_all, int(parent) + int(worker) * min(8, os.cpu_count() or 1) * (int(worker) > 0))
            c, o, li = (statistics.median(t) for t in (theirs, ours, listing))
            wl, wc = statistics.median(warm_listing), statistics.median(warm_command)
            print(f"{lib.name:<20} {lib.stat().st_size >> 20:>5} {count:>8} {c:>9.2f}s {li:>7.2f}s {o:>7.2f}s "
                  f"{o / c:>5.2f}x {rss_ours:>8} / {rss_theirs:<8} {wl * 1000:>9.0f}ms {wc:>7.2f}s  {rss_all:>6}")
    print("ratio: the whole command / cuobjdump (target <= 1x); peak RSS in MiB, the command's and cuobjdump's\n"
          "(the largest of its processes); cached: the second open from the import cache (target <= 50 ms) and the\n"
          "whole command then; RSS all: the listing's process plus its worker processes' peaks, summed as if at once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
