"""Benchmark: list every kernel of ``xla_rocm_plugin.so`` (jax-rocm7-pjrt==0.12.0: 45 CCOB v3 bundles, 1,215
code objects, 409,773 kernel entries, 2.4 GB inflated), our reader vs ``llvm-readelf-19 --notes``.

In fresh processes, the median of ``--repeat`` runs of:

* the reader as the window would run it: ``importers.amd.iter_batches`` (the first batch of rows: its time),
  then every batch, then the merge of identical copies (``read_amd``'s records): the whole listing's time;
* ``occupancy import FILE --json --no-cache``: the whole command (start-up, JSON of every record, exit);
* the window: a main window (offscreen Qt) opening the file in its kernel table dock, as a user does
  (``import_panel.load``): the time until the model holds its first rows, until the whole table is shown
  (``importFinished``), the longest stall of the GUI thread meanwhile (a 5 ms timer's longest gap), the
  occupancy column's recompute when threads per block change, and the window process's peak RSS;
* the reference: ``llvm-readelf-19 --notes`` over the same code objects, extracted beforehand (not timed)
  into a temporary folder by the test suite's own bundle reading (``tests/importers/amd/reference.py``:
  clang-offload-bundler-19 cannot inflate CCOB v3), its output read and thrown away.  It decodes the
  metadata notes only: no kernel descriptors, no merging, no demangling.

Peak RSS is the command's ``ru_maxrss`` from ``wait4``, started from a bare launcher
(``bench_vendor_library.measured``).  The records are compared in
``tests/importers/amd/test_real_libraries.py``; this only times and weighs.

    python -m tests.benchmarks.bench_amd_import [--repeat 3] [--file PATH]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks import publish  # noqa: E402
from tests.benchmarks.bench_vendor_library import measured  # noqa: E402
from tests.helpers import toolchains  # noqa: E402
from tests.importers.amd.reference import extract_bundle, section  # noqa: E402

JAX_ROCM = "jax-rocm7-pjrt==0.12.0"

LISTING = """
import sys, time
from occupancy_gui.importers.amd.bundles import Walk
from occupancy_gui.importers.amd.reader import iter_batches
from occupancy_gui.importers.amd.record import merge_copies
t0 = time.perf_counter()
first, entries, records = None, 0, []
for batch in iter_batches(sys.argv[1], "host", Walk(sys.argv[1], 0)):
    if first is None and batch:
        first = time.perf_counter() - t0
    records.extend(batch)
read = time.perf_counter() - t0
merged = merge_copies(records)
print(first, read, time.perf_counter() - t0, len(records), len(merged))
"""

WINDOW = """
import os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import default_catalog
from occupancy_gui.session import Session
from occupancy_gui.ui.main_window import MainWindow
window = MainWindow(Session(default_catalog(data_dir("device_profiles")), device="sm_90"), settings=None)
window.resize(1400, 900)
window.show()
app.processEvents()
panel = window.import_panel
marks, last, worst = {}, [0.0], [0.0]
def tick():
    now = time.perf_counter()
    worst[0] = max(worst[0], now - last[0])
    last[0] = now
    if "first" not in marks and panel.model.rowCount():
        marks["first"] = now
timer = QTimer()
timer.setInterval(5)
timer.timeout.connect(tick)
panel.importFinished.connect(lambda _p: marks.setdefault("whole", time.perf_counter()))
panel.importFailed.connect(lambda m: sys.exit(m))
t0 = last[0] = time.perf_counter()
timer.start()
panel.load(sys.argv[1])
while "whole" not in marks:
    app.processEvents()
    time.sleep(0.002)
timer.stop()
first = marks.get("first", marks["whole"]) - t0
rows = panel.model.rowCount()
t1 = time.perf_counter()
window.session.replace(threads=128)
panel.on_session_changed(frozenset({"threads"}))
recompute = time.perf_counter() - t1
print(first, marks["whole"] - t0, worst[0], recompute, rows)
"""
"""The window's path, run in a fresh process (``measured``): first rows, whole table, longest GUI stall (s),
the occupancy column's recompute for a new threads per block (s), rows listed."""


def _extract(plugin: Path, out: Path) -> list[Path]:
    data = section(plugin, ".hip_fatbin")
    starts = [at for at in range(0, len(data), 4096) if data[at : at + 4] in (b"CCOB", b"__CL")]
    files = []
    for i, (a, b) in enumerate(zip(starts, starts[1:] + [len(data)])):
        for entry, body in extract_bundle(data[a:b]):
            if entry.startswith("hip"):
                files.append(out / f"{i + 1}.{entry.rsplit('--', 1)[1]}.co")
                files[-1].write_bytes(body)
    return files


def _readelf(files: list[Path]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MiB) of ``llvm-readelf-19 --notes`` over ``files`` (in batches of 200
    files a process: the command line's limit), output discarded."""
    wall, peak = 0.0, 0
    for at in range(0, len(files), 200):
        seconds, rss, _ = measured(
            [shutil.which("llvm-readelf-19") or "llvm-readelf-19", "--notes", *map(str, files[at : at + 200])]
        )
        wall += seconds
        peak = max(peak, rss)
    return wall, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--file", type=Path, help="another host library (default: the pinned xla_rocm_plugin.so)")
    publish.add_flag(parser)
    args = parser.parse_args()
    plugin = args.file or toolchains.wheel_tree(JAX_ROCM) / "jax_plugins" / "xla_rocm7" / "xla_rocm_plugin.so"
    print(f"{plugin.name}: {plugin.stat().st_size / 1e6:.0f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        files = _extract(plugin, Path(tmp))
        size = sum(f.stat().st_size for f in files)
        print(
            f"extracted {len(files)} code objects, {size / 1e9:.2f} GB, in {time.perf_counter() - start:.1f} s "
            "(not timed below)"
        )
        rows = []
        for _ in range(args.repeat):
            seconds, rss, out = measured([sys.executable, "-c", LISTING, str(plugin)])
            first, read, whole, entries, merged = out.split()
            command, command_rss, _ = measured(
                [sys.executable, "-m", "occupancy_gui.cli.main", "import", "--json", "--no-cache", str(plugin)]
            )
            ref, ref_rss = _readelf(files)
            _wall, window_rss, shown = measured([sys.executable, "-c", WINDOW, str(plugin)])
            w_first, w_whole, w_stall, w_recompute, w_rows = shown.split()
            rows.append(
                (
                    float(first),
                    float(whole),
                    rss,
                    command,
                    command_rss,
                    ref,
                    ref_rss,
                    float(w_first),
                    float(w_whole),
                    window_rss,
                    float(w_stall),
                    float(w_recompute),
                )
            )
            print(
                f"  first rows {float(first):.2f} s, all {float(whole):.1f} s ({entries} entries, {merged} distinct), "
                f"{rss} MiB; occupancy import --json {command:.1f} s, {command_rss} MiB; "
                f"window: first rows {float(w_first):.2f} s, whole table {float(w_whole):.1f} s ({w_rows} rows), "
                f"longest GUI stall {float(w_stall) * 1e3:.0f} ms, occupancy column on a threads change "
                f"{float(w_recompute) * 1e3:.0f} ms, {window_rss} MiB; "
                f"llvm-readelf-19 --notes {ref:.1f} s, {ref_rss} MiB",
                flush=True,
            )
    med = [statistics.median(column) for column in zip(*rows)]
    print(
        f"median of {args.repeat}: first rows {med[0]:.2f} s; the whole listing {med[1]:.1f} s, peak {med[2]:.0f} MiB "
        f"({med[1] / med[5]:.2f}x llvm-readelf-19 --notes' {med[5]:.1f} s, peak {med[6]:.0f} MiB); "
        f"occupancy import --json {med[3]:.1f} s, peak {med[4]:.0f} MiB"
    )
    print(
        f"window (offscreen, kernel table dock): first rows {med[7]:.2f} s, whole table {med[8]:.1f} s "
        f"({med[8] / med[5]:.2f}x llvm-readelf-19 --notes), peak {med[9]:.0f} MiB, longest GUI stall "
        f"{med[10] * 1e3:.0f} ms, occupancy column on a threads change {med[11] * 1e3:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(publish.run(main, __file__))
