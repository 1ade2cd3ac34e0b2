"""How long the window stalls while a big build log (or NVIDIA's libraries) is imported through the
kernel table dock, and how soon Cancel is heard.

    python tests/benchmarks/bench_responsiveness.py [--size-mb 200] [--ptxas-share 0.25] [--repeat 3]
    python tests/benchmarks/bench_responsiveness.py --libraries [--only cublasLt]

``--libraries``: the five vendor libraries of ``bench_vendor_library`` instead of the log (the import
cache is pointed at an empty temporary directory, so every open reads the file); for each, also the
time from ``cancel()`` (one second into the import) to ``importCancelled``.

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


def libraries(window, only: str | None, repeat: int) -> None:
    from tests.toolchains import LIBRARIES, library_file

    for wheel, stem in LIBRARIES:
        if only and only.lower() not in stem.lower():
            continue
        lib = library_file(wheel, stem)  # the newest release: the files #14 measured
        for i in range(repeat):
            shutil.rmtree(os.environ["OCCUPANCY_GUI_CACHE_DIR"], ignore_errors=True)  # read the file, not the cache
            stall, elapsed, rows = measure(window, lib)
            shutil.rmtree(os.environ["OCCUPANCY_GUI_CACHE_DIR"], ignore_errors=True)
            latency = cancel_latency(window, lib)
            shown = "finished first" if latency is None else f"{latency:.0f} ms"
            print(f"{lib.name}: run {i + 1}: {rows} rows, import {elapsed:.2f} s, longest GUI stall "
                  f"{stall:.1f} ms, cancel heard in {shown}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--ptxas-share", type=float, default=0.25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the log here instead of a temporary file")
    parser.add_argument("--libraries", action="store_true", help="NVIDIA's five libraries instead of a log")
    parser.add_argument("--only", help="with --libraries: one of them, e.g. cublasLt")
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
    sys.exit(main())
