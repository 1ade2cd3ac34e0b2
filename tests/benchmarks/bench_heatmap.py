"""Time one heat-map redraw (``refresh``: the grids from the engine plus the image, outlines and labels), NVIDIA's
and AMD's (the HIP runtime's maps and the compiler model's), offscreen at 900×300.

Run: ``python -m tests.benchmarks.bench_heatmap [--write-docs]``; prints the median of 15 redraws per case in
milliseconds and its ratio to NVIDIA's redraw measured in the same run.  The compiler model's maps are timed both
recomputed (a kernel edit) and kept (a launch edit: they do not depend on the launch).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks import publish


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    publish.add_flag(parser)
    parser.parse_args()
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication.instance() or QApplication([])
    from occupancy_gui.paths import data_dir
    from occupancy_gui.profiles.catalog import default_catalog
    from occupancy_gui.session import Session
    from occupancy_gui.ui.analysis.amd_heatmap_view import AmdHeatmapView
    from occupancy_gui.ui.analysis.heatmap_view import HeatmapView

    def median_ms(view: QWidget, step: Callable[[], None], n: int = 15) -> float:
        view.resize(900, 300)
        view.show()
        app.processEvents()
        times = []
        for _ in range(n):
            start = time.perf_counter()
            step()
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    catalog = default_catalog(data_dir("device_profiles"))
    nvidia = Session(catalog, "sm_90", threads=256, registers=64, static_smem=24 * 1024)
    view = HeatmapView(nvidia)
    reference = median_ms(view, view.refresh)
    print(f"NVIDIA sm_90 heat maps: {reference:.1f} ms per redraw (the reference)")

    def ratio(ms: float) -> str:
        return f"{ms:.1f} ms per redraw = {ms / reference:.2f}x NVIDIA's"

    for device, vgprs in (("MI300X", 128), ("RX 7900 XTX", 96)):
        s = Session(catalog, device, vgprs=vgprs, sgprs=40, lds=16 * 1024)
        amd = AmdHeatmapView(s)
        print(f"AMD {device} HIP runtime maps: {ratio(median_ms(amd, amd.refresh))}")
        amd.set_rule(True)
        print(f"AMD {device} compiler model maps, kept: {ratio(median_ms(amd, amd.refresh))}")

        def recompute(view: AmdHeatmapView = amd) -> None:
            view._compiler_key = None
            view.refresh()

        print(f"AMD {device} compiler model maps, recomputed: {ratio(median_ms(amd, recompute, 5))}")


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
