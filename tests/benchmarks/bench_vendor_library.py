"""Benchmark: list every kernel of NVIDIA's big libraries, our binary reader vs cuobjdump.

The five libraries of the exactness tests (curand, cublas, cublasLt, cufft, cusparse; pinned wheels,
fetched once into the test cache by ``tests/helpers/toolchains.py``).  For each, in fresh processes, the
median of ``--repeat`` runs of:

* ``cuobjdump --dump-resource-usage LIB`` (the reference; libcufft, which it refuses, is measured
  on a fatbin of its embedded containers, as the exactness test compares it and issue #14 measured
  it, and, stricter, on those of them that hold ELF images);
* the listing as the window makes it: ``import_file_detailed`` in a process that has the importer
  modules loaded and has never read this file;
* ``occupancy import LIB --json --no-cache``: the whole command (start-up, JSON of every record, exit);
* the second open from the import cache (a fresh, empty cache directory filled by one first open):
  the listing's open in a fresh process, and the whole command.

Peak RSS of each is the command's ``ru_maxrss`` from ``wait4`` (its largest process), started from a
bare launcher so that it does not inherit this process's size (see :data:`LAUNCHER`).  The records themselves are compared in
``tests/importers/test_vendor_libraries.py``; this only times and weighs.

    python -m tests.benchmarks.bench_vendor_library [--repeat 3] [--only cublasLt]
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from occupancy_gui.importers import KernelRecord  # noqa: E402
from occupancy_gui.importers.binary.blob import FileImage  # noqa: E402
from occupancy_gui.importers.binary.host import read_host_binary  # noqa: E402
from occupancy_gui.importers.files import open_regular  # noqa: E402
from tests.benchmarks import publish  # noqa: E402
from tests.helpers import toolchains  # noqa: E402
from tests.helpers.fatbin_containers import embedded_containers, write_fatbin  # noqa: E402

LISTING = """
import resource, sys, time
from occupancy_gui.importers import RecordCache, import_file_detailed  # loaded (the binary readers too), as in a window
cache = RecordCache() if sys.argv[2] == "cache" else None
t0 = time.perf_counter()
records = import_file_detailed(sys.argv[1], cache=cache).records
# Peak RSS of this process and of the largest worker process it ran (MiB).
peaks = [resource.getrusage(who).ru_maxrss >> 10 for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(time.perf_counter() - t0, len(records), *peaks)
"""


# Runs one command and reports its wall time and peak RSS.  A child's ru_maxrss starts at the RSS of
# the process it was forked from (Linux carries the parent's high-water mark over at exec): measured
# from this benchmark, which holds libcufft's records, every child read >= 166 MiB, so cufft's
# "172 / 172 MiB" of earlier runs was this process's size for both.  This launcher is a bare
# interpreter (-I -S, ~9 MiB), so what it reports is the command's own.
LAUNCHER = """
import os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_pid, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{time.perf_counter() - t0} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def measured(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (MiB: the largest of the command's processes, its workers too, as
    ``wait4`` gives it) and stdout of one fresh run of ``cmd``, started from :data:`LAUNCHER`."""
    with tempfile.TemporaryFile("w+") as out, tempfile.NamedTemporaryFile("r") as report:
        subprocess.run(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, report.name, *cmd],
            stdout=out,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            check=True,
        )
        wall, rss, code = report.read().split()
        if int(code):
            sys.exit(f"bench_vendor_library: {' '.join(cmd)} exited with {code}")
        out.seek(0)
        return float(wall), int(rss) >> 10, out.read()


def embedded_fatbin(lib: Path, out: Path) -> int:
    """The embedded containers that hold an ELF image (those our reader lists records of), laid end
    to end in ``out``; their count."""
    records = unmerged_embedded(lib)
    starts = sorted({int(_CONTAINER.search(r.source).group(1), 16) for r in records})  # type: ignore[union-attr]  # embedded sources name it
    with open(lib, "rb") as src:
        spans = []
        for at in starts:
            src.seek(at + 8)
            spans.append((at, 16 + int.from_bytes(src.read(8), "little")))
    return write_fatbin(lib, spans, out)


_CONTAINER = re.compile(r" container \d+ @0x([0-9a-f]+): ")


def unmerged_embedded(lib: Path) -> list[KernelRecord]:
    """Every embedded record of ``lib`` before identical copies merge: their sources name every
    container that holds an ELF image (a merged record names only its first copy's)."""
    with open_regular(lib) as stream:
        image = FileImage(stream, os.fstat(stream.fileno()).st_size, str(lib))
        return [r for r in read_host_binary(image.view, str(lib), image=image).records if r.embedded]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="one library, e.g. cublasLt")
    parser.add_argument(
        "--release",
        choices=tuple(toolchains.LIBRARY_RELEASES),
        default="newest",
        help="the wheels' release (newest: the files issue #14 measured)",
    )
    publish.add_flag(parser)
    args = parser.parse_args()
    # As installed: pip compiles a package's bytecode at install.  A checkout run with
    # PYTHONDONTWRITEBYTECODE=1 (as this machine's shells are) would compile the importer modules in
    # every process, each worker too: ~40 ms of every command here.
    compileall.compile_dir(ROOT / "occupancy_gui", quiet=1)
    cuobjdump = str(toolchains.cuobjdump())
    print(
        f"{'library':<20} {'MiB':>5} {'records':>8} {'cuobjdump':>10} {'listing':>8} {'command':>8} "
        f"{'ratio':>6} {'RSS ours/cuobjdump':>19} {'cached open':>11} {'command':>8}  {'RSS all':>6}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for wheel, stem in toolchains.LIBRARIES:
            if args.only and args.only.lower() not in stem.lower():
                continue
            lib = toolchains.library_file(wheel, stem, args.release)
            target = lib
            if stem.startswith("libcufft"):  # cuobjdump "does not contain device code"
                # Its reference, as issue #14 measured it, is cuobjdump on its extracted fatbins: every
                # container outside .nv_fatbin (found by its header, not by our reader: 18,227 of
                # libcufft 12.5.0.14's), laid end to end in one fatbin.  A stricter one is printed too:
                # only the containers that hold an ELF image (3,519), which spares cuobjdump the
                # containers of PTX alone that our command still has to pass over.
                target = Path(tmp) / "cufft_embedded.fatbin"
                containers = write_fatbin(lib, embedded_containers(lib), target)
                elf_only = Path(tmp) / "cufft_elf_only.fatbin"
                elf_containers = embedded_fatbin(lib, elf_only)
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
            print(
                f"{lib.name:<20} {lib.stat().st_size >> 20:>5} {count:>8} {c:>9.2f}s {li:>7.2f}s {o:>7.2f}s "
                f"{o / c:>5.2f}x {rss_ours:>8} / {rss_theirs:<8} {wl * 1000:>9.0f}ms {wc:>7.2f}s  {rss_all:>6}"
            )
            if target != lib:
                strict = statistics.median(
                    measured([cuobjdump, "--dump-resource-usage", str(elf_only)])[0] for _ in range(args.repeat)
                )
                same = [measured(ours_cmd[:4] + [str(elf_only)] + ours_cmd[5:]) for _ in range(args.repeat)]
                wall = statistics.median(t for t, _rss, _out in same)
                print(
                    f"  {lib.name}: cuobjdump read the fatbin of its {containers} embedded containers; on the "
                    f"{elf_containers} of them that hold ELF images it takes {strict:.2f}s, against which the "
                    f"command is {o / strict:.2f}x (ours on that fatbin: {wall:.2f}s, "
                    f"{max(rss for _t, rss, _out in same)} MiB)"
                )
    print(
        "ratio: the whole command / cuobjdump (target <= 1x); peak RSS in MiB, the command's and cuobjdump's\n"
        "(the largest of its processes); cached: the second open from the import cache (target <= 50 ms) and the\n"
        "whole command then; RSS all: the listing's process plus its worker processes' peaks, summed as if at once"
    )
    return 0


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
