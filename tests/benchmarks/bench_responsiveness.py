"""How long the window stalls while a big build log (or NVIDIA's libraries) is imported through the
kernel table dock, and how soon Cancel is heard.

    python tests/benchmarks/bench_responsiveness.py [--size-mb 200] [--ptxas-share 0.25] [--repeat 3]
    python tests/benchmarks/bench_responsiveness.py --libraries [--only cublasLt]
    python tests/benchmarks/bench_responsiveness.py --filter LIBRARY [--repeat 3]

``--filter``: open LIBRARY (libtorch_cuda.so, say) and type each of :data:`FILTER_TEXTS` into the kernel
filter a key every 100 ms; prints the longest stall from the first key until the rows are shown, and
the time from the last key to the rows shown.

``--libraries``: the five vendor libraries of ``bench_vendor_library`` instead of the log (the import
cache is pointed at an empty temporary directory, so every first open reads the file); for each, also the
second open, from the record cache the first filled, and the time from ``cancel()`` (one second into the
import) to ``importCancelled``.

A 5 ms QTimer ticks on the GUI thread while ``window.import_panel.load(log)`` reads the log on its
worker thread; the longest gap between two ticks is the worst stall a user would feel (Qt's timer
resolution and the offscreen platform add a millisecond or two).  Also prints the wall time from
``load()`` to the table being shown.  The log is the one ``bench_import.py`` generates: compile
lines, warnings and ``ptxas -v`` blocks for ~10^5 distinct kernels.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_import import generate
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from tests.benchmarks import publish


def measure(window, log: Path) -> tuple[float, float, int]:
    """(longest gap between ticks in ms, import wall time in s, rows) for one import."""
    app = QApplication.instance()
    panel = window.import_panel
    last = [time.perf_counter()]
    worst = [0.0]

    def tick() -> None:
        now = time.perf_counter()
        worst[0] = max(worst[0], now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    loop = QEventLoop()
    panel.importFinished.connect(loop.quit)
    panel.importFailed.connect(loop.quit)
    timer.start()
    for _ in range(20):  # settle
        app.processEvents()
    last[0], worst[0] = time.perf_counter(), 0.0
    t0 = time.perf_counter()
    panel.load(log)
    loop.exec()
    elapsed = time.perf_counter() - t0
    for _ in range(10):  # paints after the table arrived count too
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        time.sleep(0.005)
    tick()
    timer.stop()
    panel.importFinished.disconnect(loop.quit)
    panel.importFailed.disconnect(loop.quit)
    return worst[0] * 1000, elapsed, panel.model.rowCount()


def cancel_latency(window, path: Path, after_s: float = 1.0) -> float | None:
    """Milliseconds from ``cancel()``, ``after_s`` into an import, to ``importCancelled``; ``None``
    if the import finished first."""
    app = QApplication.instance()
    panel = window.import_panel
    loop = QEventLoop()
    heard = [0.0]

    def cancelled() -> None:
        heard[0] = time.perf_counter()
        loop.quit()

    panel.importCancelled.connect(cancelled)
    panel.importFinished.connect(loop.quit)
    asked = [0.0]

    def ask() -> None:
        asked[0] = time.perf_counter()
        panel.cancel()

    # A timer of its own, stopped after: one left pending (an import that finished first) would
    # cancel the next measurement's import, which then waited for ever.
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(ask)
    timer.start(int(after_s * 1000))
    panel.load(path)
    loop.exec()
    timer.stop()
    panel.importCancelled.disconnect(cancelled)
    panel.importFinished.disconnect(loop.quit)
    app.processEvents()
    return (heard[0] - asked[0]) * 1000 if heard[0] else None


FILTER_TEXTS = ("flash", "gemm", "cutlass", "xyzzy", "at::native", "void")
KEY_MS = 100


def type_filter(window, text: str) -> tuple[float, float, int]:
    """(longest gap between ticks in ms, ms from the last key to its rows shown, rows) for ``text`` typed
    into the kernel filter one key every :data:`KEY_MS` ms, from an empty filter."""
    app = QApplication.instance()
    panel = window.import_panel
    panel.set_filter("")
    for _ in range(20):
        app.processEvents()
    last = [time.perf_counter()]
    worst = [0.0]
    done = [0.0]
    typed = [0.0]
    loop = QEventLoop()
    wanted = text.strip().casefold()

    def tick() -> None:
        now = time.perf_counter()
        worst[0] = max(worst[0], now - last[0])
        last[0] = now
        if typed[0] and not done[0] and panel.model.filter_text == wanted:
            done[0] = now
            QTimer.singleShot(300, loop.quit)  # paints after the rows arrived count too

    def key(n: int) -> None:
        panel.filter_edit.setText(text[:n])  # as typing does: textChanged per key
        if n == len(text):
            typed[0] = time.perf_counter()
        else:
            QTimer.singleShot(KEY_MS, lambda: key(n + 1))

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    last[0] = time.perf_counter()
    QTimer.singleShot(KEY_MS, lambda: key(1))
    loop.exec()
    timer.stop()
    return worst[0] * 1000, (done[0] - typed[0]) * 1000, panel.model.rowCount()


def filter_typing(window, library: Path, repeat: int) -> None:
    panel = window.import_panel
    t0 = time.perf_counter()
    panel.load(library)
    panel.wait_for_import(10 * 60 * 1000)
    print(f"{library.name}: {len(panel.model.table or ())} rows in {time.perf_counter() - t0:.1f} s")
    for i in range(repeat):
        panel.model.table.filter_masks.clear()  # forget the filter texts' rows: every scan is a first
        for text in FILTER_TEXTS:
            stall, latency, rows = type_filter(window, text)
            print(
                f"run {i + 1}: {text!r}: {rows} rows, longest GUI stall {stall:.1f} ms, "
                f"rows shown {latency:.0f} ms after the last key"
            )


def libraries(window, only: str | None, repeat: int) -> None:
    from tests.helpers.toolchains import LIBRARIES, library_file

    for wheel, stem in LIBRARIES:
        if only and only.lower() not in stem.lower():
            continue
        lib = library_file(wheel, stem)  # the newest release: the files #14 measured
        for i in range(repeat):
            shutil.rmtree(os.environ["OCCUPANCY_GUI_CACHE_DIR"], ignore_errors=True)  # read the file, not the cache
            stall, elapsed, rows = measure(window, lib)
            cached_stall, cached, cached_rows = measure(window, lib)  # the second open: from the record cache
            shutil.rmtree(os.environ["OCCUPANCY_GUI_CACHE_DIR"], ignore_errors=True)
            latency = cancel_latency(window, lib)
            shown = "finished first" if latency is None else f"{latency:.0f} ms"
            print(
                f"{lib.name}: run {i + 1}: {rows} rows, import {elapsed:.2f} s, longest GUI stall "
                f"{stall:.1f} ms, cancel heard in {shown}; reopened from the record cache: {cached_rows} rows "
                f"in {cached:.3f} s, longest GUI stall {cached_stall:.1f} ms"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--ptxas-share", type=float, default=0.25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the log here instead of a temporary file")
    parser.add_argument("--libraries", action="store_true", help="NVIDIA's five libraries instead of a log")
    parser.add_argument("--only", help="with --libraries: one of them, e.g. cublasLt")
    parser.add_argument("--filter", type=Path, metavar="LIBRARY", help="type kernel filters on this file's table")
    publish.add_flag(parser)
    args = parser.parse_args()
    # As installed (pip compiles bytecode at install): with PYTHONDONTWRITEBYTECODE=1 the first import
    # compiled the importer modules on the import thread, each compile() one C call holding the GIL.
    compileall.compile_dir(Path(__file__).resolve().parents[2] / "occupancy_gui", quiet=1)

    from occupancy_gui.paths import data_dir
    from occupancy_gui.profiles import default_catalog
    from occupancy_gui.session import Session
    from occupancy_gui.ui.app import application, close_without_asking
    from occupancy_gui.ui.main_window import MainWindow

    app = application()
    with tempfile.TemporaryDirectory() as tmp:
        if args.filter:
            os.environ["OCCUPANCY_GUI_CACHE_DIR"] = str(Path(tmp) / "cache")
            window = MainWindow(Session(default_catalog(data_dir("device_profiles")), device="sm_90"), settings=None)
            window.resize(1400, 900)
            window.show()
            filter_typing(window, args.filter, args.repeat)
            close_without_asking(window)
            return 0
        if args.libraries:
            os.environ["OCCUPANCY_GUI_CACHE_DIR"] = str(Path(tmp) / "cache")  # every open reads the file
            window = MainWindow(Session(default_catalog(data_dir("device_profiles")), device="sm_90"), settings=None)
            window.resize(1400, 900)
            window.show()
            libraries(window, args.only, args.repeat)
            close_without_asking(window)  # the imports changed the inputs: no "save changes?" to wait on
            return 0
        log = args.keep or Path(tmp) / "build.log"
        t0 = time.perf_counter()
        generate(log, args.size_mb, args.ptxas_share)
        print(f"generated {log.stat().st_size / 2**20:.0f} MiB log in {time.perf_counter() - t0:.2f} s")
        window = MainWindow(Session(default_catalog(data_dir("device_profiles")), device="sm_90"), settings=None)
        window.resize(1400, 900)
        window.show()
        for _ in range(20):
            app.processEvents()
        for i in range(args.repeat):
            stall, elapsed, rows = measure(window, log)
            print(f"run {i + 1}: {rows} kernels, import {elapsed:.2f} s, longest GUI stall {stall:.1f} ms")
        close_without_asking(window)
    return 0


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__, modes=("--libraries", "--filter")))
