"""A big build log is read off the GUI thread: the event loop keeps turning while it is imported.

No timing assertion here (timings vary with the machine); ``tests/benchmarks/bench_responsiveness.py``
measures the longest stall.  This test proves the mechanism: the import runs on a pool thread and
a 5 ms timer keeps firing on the GUI thread until the table arrives.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QEvent, QObject, QTimer

BLOCK_KERNELS = 200


def write_big_log(path, megabytes: int) -> int:
    """A ptxas -v log of ``megabytes`` MiB: one block of kernels repeated (fast to write)."""
    lines = []
    for i in range(BLOCK_KERNELS):
        name = f"_ZN6module{i}7kernel{i}ILi{(i % 7) * 32}EEEvPKfPfi"
        lines += [
            f"ptxas info    : Compiling entry function '{name}' for 'sm_{80 + (i % 3) * 5}'\n",
            f"ptxas info    : Function properties for {name}\n",
            f"    {i % 3 * 8} bytes stack frame, {i % 5} bytes spill stores, {i % 5} bytes spill loads\n",
            f"ptxas info    : Used {16 + i % 200} registers, used {i % 3} barriers, {(i % 16) * 1024} bytes smem, "
            "380 bytes cmem[0]\n",
            "[ 42%] Building CUDA object src/CMakeFiles/lib.dir/module.cu.o -O3 -Xptxas -v " + "x" * 200 + "\n",
        ]
    block = "".join(lines).encode()
    repeats = (megabytes << 20) // len(block) + 1
    with open(path, "wb") as fh:
        for _ in range(repeats):
            fh.write(block)
    return repeats * len(block)


def test_big_log_is_imported_while_the_event_loop_runs(qtbot, tmp_path, window):
    log = tmp_path / "big_build.log"
    write_big_log(log, 48)
    panel = window.import_panel
    # Warm up: the first import shows the kernel dock and re-lays out the window (a one-time paint on
    # the GUI thread, unrelated to the import); measure the second one.
    small = tmp_path / "small.log"
    write_big_log(small, 1)
    with qtbot.waitSignal(panel.importFinished, timeout=60000):
        panel.load(small)
    qtbot.wait(300)
    ticks = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(panel.loading))
    worker_threads = set()
    import occupancy_gui.ui.kernels.import_tasks as module

    original = module.import_task

    def spying_task(path, **options):
        run = original(path, **options)

        def wrapped(cancelled, progress):
            worker_threads.add(threading.get_ident())
            return run(cancelled, progress)

        return wrapped

    module.import_task = spying_task
    try:
        timer.start()
        with qtbot.waitSignal(panel.importFinished, timeout=60000):
            panel.load(log)
            assert panel.loading  # load() returned at once: the work is elsewhere
        timer.stop()
    finally:
        module.import_task = original
    assert worker_threads and threading.get_ident() not in worker_threads
    assert sum(ticks) >= 3  # the GUI thread kept handling timer events during the import
    assert panel.model.rowCount() == BLOCK_KERNELS
    assert panel.progress.value() > 0


def test_the_first_import_lays_the_window_out_once(qtbot, tmp_path, window):
    """Every paint of the plots at a new size regenerates all four (~20-50 ms at 1400x900 on the GUI
    thread): the first import resizes them when its dock opens (with the window's first status message,
    whose status bar is shown at once, not an event later), and not again after they have painted at
    that size (the dock's preferred height does not follow its labels when the table arrives)."""
    log = tmp_path / "small.log"
    write_big_log(log, 1)
    plots, panel = window.plots, window.import_panel
    qtbot.wait(50)
    before = plots.height()
    seen = []

    class Watch(QObject):
        def eventFilter(self, watched, event):  # noqa: N802 (Qt override)
            if event.type() in (QEvent.Type.Resize, QEvent.Type.Paint):
                seen.append("R" if event.type() == QEvent.Type.Resize else "P")
            return False

    watch = Watch()
    plots.installEventFilter(watch)
    plots.viewport().installEventFilter(watch)
    with qtbot.waitSignal(panel.importFinished, timeout=60000):
        panel.load(log)
    qtbot.wait(100)
    plots.removeEventFilter(watch)
    plots.viewport().removeEventFilter(watch)
    events = "".join(seen)
    assert "R" in events and "RP" in events and "R" not in events[events.index("RP") + 1 :], events
    assert plots.height() < before
    assert panel.count_label.text() and panel.source_label.text().endswith("small.log")


def test_rearranged_plots_are_in_place_before_the_next_paint(qtbot, window):
    """The grid moves its cells at once when the area's shape calls for another arrangement: a paint in
    between would draw them where they were, and a second paint would follow."""
    area = window.plot_area
    grid = window.plots
    qtbot.wait(50)
    assert grid.arrangement == "grid"
    area.resize(area.width(), 200)  # too short for two rows, wide enough for four side by side
    assert grid.arrangement == "row"
    tops = {round(plot.plot.layout.geometry().top()) for plot in grid.plots.values()}
    lefts = [plot.plot.layout.geometry().left() for plot in grid.plots.values()]
    assert len(tops) == 1 and lefts == sorted(lefts) and len(set(lefts)) == 4
