"""Benchmark: list every kernel of a real vendor library, our binary reader vs cuobjdump.

Downloads NVIDIA's curand wheel (pinned) once into ``tests/benchmarks/_cache``, then times, each run
in a fresh process:

* ``cuobjdump --dump-resource-usage libcurand.so`` (the reference);
* the listing as the window makes it: ``import_file`` of the library in a process that has the
  importer modules loaded (as a running window has) and has never read this file;
* ``occupancy import libcurand.so --json``: a whole command, Python's start-up, imports, JSON
  encoding of 2 MB and exit included.

It checks both list the same (kernel, arch) records with the same registers, shared memory, local
memory and constant bank 0, and prints the times and ratios (target: the listing ≤ 1× cuobjdump).

    python tests/benchmarks/bench_vendor_library.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from occupancy_gui.importers.cuobjdump_text import parse_text  # noqa: E402

WHEEL = "nvidia-curand==10.4.4.72"
CACHE = Path(__file__).resolve().parent / "_cache"


def library() -> Path:
    target = CACHE / "libcurand.so.10"
    if target.exists():
        return target
    CACHE.mkdir(exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(CACHE), WHEEL], check=True)
    wheel = next(CACHE.glob("nvidia_curand-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        member = next(n for n in zf.namelist() if n.endswith("libcurand.so.10"))
        target.write_bytes(zf.read(member))
    wheel.unlink()
    return target


def cuobjdump() -> str:
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for candidate in Path(root).glob("cu*/bin/cuobjdump"):
            return str(candidate)
    sys.exit("bench_vendor_library: cuobjdump not found (pip install nvidia-cuda-cuobjdump, a test extra)")


def timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t0, out


LISTING = """
import sys, time
from occupancy_gui.importers import import_file_detailed, fatbin, elf_cubin  # loaded, as in a window
t0 = time.perf_counter()
records = import_file_detailed(sys.argv[1]).records
print(time.perf_counter() - t0, len(records))
"""


def listing_time(lib: Path) -> tuple[float, int]:
    """Seconds to list the library in a fresh process with the importers loaded, and the records."""
    out = subprocess.run([sys.executable, "-c", LISTING, str(lib)], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.split()
    return float(out[0]), int(out[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    lib = library()
    ours_cmd = [sys.executable, "-m", "occupancy_gui.cli.main", "import", str(lib), "--json"]
    theirs_cmd = [cuobjdump(), "--dump-resource-usage", str(lib)]
    ours_times, theirs_times, listing_times = [], [], []
    for _ in range(args.repeat):
        t, ours_out = timed(ours_cmd)
        ours_times.append(t)
        t, theirs_out = timed(theirs_cmd)
        theirs_times.append(t)
        t, listed = listing_time(lib)
        listing_times.append(t)
    ours = {(r["name"], r["arch"]): r for r in json.loads(ours_out)}
    theirs = {(r.name, r.arch): r for r in parse_text(theirs_out, lib.name)}
    missing = sorted(set(theirs) - set(ours))
    extra = sorted(set(ours) - set(theirs))
    differ = [k for k in set(ours) & set(theirs)
              if (ours[k]["registers"], ours[k]["static_smem"], ours[k]["local_bytes"])
              != (theirs[k].registers, theirs[k].static_smem, theirs[k].local_bytes)]  # fmt: skip
    o, c, li = (statistics.median(t) for t in (ours_times, theirs_times, listing_times))
    print(f"library: {lib.name} ({lib.stat().st_size / 2**20:.0f} MiB) from {WHEEL}")
    print(f"records: ours {len(ours)}, cuobjdump {len(theirs)} distinct (kernel, arch); "
          f"missing {len(missing)}, extra {len(extra)}, differing figures {len(differ)}")
    print(f"cuobjdump --dump-resource-usage: median {c * 1e3:.0f} ms over {args.repeat} runs")
    print(f"listing (import_file, importers loaded): median {li * 1e3:.0f} ms, {listed} records")
    print(f"occupancy import --json (whole command): median {o * 1e3:.0f} ms")
    print(f"ratio listing / cuobjdump: {li / c:.2f}x (target <= 1x)")
    print(f"ratio whole command / cuobjdump: {o / c:.2f}x")
    return 1 if missing or differ or listed != len(ours) else 0


if __name__ == "__main__":
    sys.exit(main())
