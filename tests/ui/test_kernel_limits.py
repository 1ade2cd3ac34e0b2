"""The kernel's own limits in the window: launch bound, barriers, local memory, architecture mismatch."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF

from occupancy_gui.ui.kernels.kernel_table_model import LOCAL, NAME, NAME_ROLE
from tests.ui.test_import_panel import load, select
from tests.ui.test_kernel_panel import commit_text

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"


def test_threads_above_the_launch_bound_are_refused_with_a_message(qtbot, window):
    panel, session = window.kernel_panel, window.session
    commit_text(qtbot, panel.spins["max_threads_per_block"], "256")
    assert session.inputs.max_threads_per_block == 256
    commit_text(qtbot, panel.spins["threads"], "288")
    assert session.inputs.threads == 256 and panel.spins["threads"].value() == 256
    error = panel.fields["threads"].error
    assert error.isVisible() and "above the kernel's launch bound of 256" in error.text()
    commit_text(qtbot, panel.spins["max_threads_per_block"], "none")
    assert session.inputs.max_threads_per_block is None
    commit_text(qtbot, panel.spins["threads"], "288")
    assert session.inputs.threads == 288 and not panel.fields["threads"].error.isVisible()


def test_barriers_stop_at_sixteen(qtbot, window):
    panel = window.kernel_panel
    commit_text(qtbot, panel.spins["barriers"], "17")
    assert window.session.inputs.barriers != 17 and "out of range (0 to 16)" in panel.fields["barriers"].error.text()


def test_a_kernel_with_launch_bounds_carries_them_and_the_curve_shows_cannot_launch(qtbot, window):
    panel = window.import_panel
    load(qtbot, panel, GEN / "b_sm90.cubin")
    window.session.replace(device="sm_90")
    select(panel, "_Z11local_arrayP4Pairi", "sm_90")
    s = window.session
    assert (s.inputs.threads, s.inputs.max_threads_per_block, s.inputs.registers) == (128, 128, 37)
    qtbot.waitUntil(lambda: window.kernel_panel.spins["max_threads_per_block"].text() == "128", timeout=3000)
    plot = window.plots.plots["threads"]
    assert plot.cannot_launch.isVisible() and "> 128 threads" in plot.cannot_launch_text.textItem.toPlainText()
    assert plot.drawn_value_at(200) == 0 and plot.drawn_value_at(100) > 0
    assert "cannot launch" in plot.describe(300)[2]
    # Local memory is shown for a cubin, in the table next to registers and under the register field.
    row = next(
        r
        for r in range(panel.proxy.rowCount())
        if panel.proxy.index(r, NAME).data(NAME_ROLE) == "_Z11local_arrayP4Pairi"
    )
    assert panel.proxy.index(row, LOCAL).data() == "400 B"
    assert "400 B per thread" in window.kernel_panel.spill_note.text()
    # Another kernel without a bound lifts it.
    select(panel, "_Z12spill_kernelPKfPfi", "sm_90")
    assert s.inputs.max_threads_per_block is None
    qtbot.waitUntil(lambda: not plot.cannot_launch.isVisible(), timeout=3000)


def test_an_sm_90_cubin_on_another_major_says_it_cannot_run_and_where_it_can(qtbot, window):
    panel = window.import_panel
    load(qtbot, panel, GEN / "b_sm90.cubin")
    window.session.replace(device="sm_90")
    select(panel, "_Z12spill_kernelPKfPfi", "sm_90")
    note = window.kernel_panel.arch_note
    assert note.isHidden()
    window.session.replace(device="sm_86")
    qtbot.waitUntil(lambda: not note.isHidden(), timeout=3000)
    text = note.text()
    assert "cannot run on the selected device (CC 8.6)" in text and "sm_90 SASS runs on compute capability 9.x" in text
    assert "It runs on: H100 SXM5, sm_90" in text


def test_the_exported_report_says_where_each_input_came_from(qtbot, window, tmp_path):
    panel = window.import_panel
    load(qtbot, panel, GEN / "b_sm90.cubin")
    window.session.replace(device="sm_90")
    select(panel, "_Z11local_arrayP4Pairi", "sm_90")
    window.session.replace(dynamic_smem=2048)
    out = window.session_io.export_to(tmp_path / "report.html")
    text = out.read_text()
    origin = f"imported from {GEN / 'b_sm90.cubin'}:local_array(Pair*, int)"
    assert f'data-key="registers">37</td><td class="source">{origin}' in text
    assert 'data-key="dynamic_smem">2 KiB (2048 B)</td><td class="source">typed' in text
    assert 'data-key="carveout">default (no preference)</td><td class="source">default' in text
    assert text.count("<svg ") == 4 and "400 B (stack frame and spills)" in text


def test_heat_maps_and_advisor_respect_the_bound(qtbot, window):
    from PySide6.QtCore import QPointF

    from tests.ui.flush import settle
    from tests.ui.test_analysis_views import show_dock

    window.session.replace(threads=128, max_threads_per_block=128)
    heat = show_dock(qtbot, window, "heatmap")
    settle(qtbot, window)
    grid = heat.registers.grid
    assert (grid.active_blocks[grid.block_sizes > 128] == 0).all() and grid.active_blocks[grid.block_sizes <= 128].any()
    assert "cannot launch: above the kernel's launch bound of 128" in heat.registers.describe(
        QPointF(512, 32), "registers"
    )
    advisor = show_dock(qtbot, window, "advisor")
    settle(qtbot, window)
    suggestion = advisor.advice.block_size.suggestion
    assert suggestion is not None and suggestion.block_size <= 128


TRITON_ADD = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "importers"
    / "triton"
    / "cache"
    / "LN5HH7MKGKLXQ6TXKXE7VY3X6ZSLEGKJAQOZLOWTZ7F553PNRSWQ"
    / "add_kernel.cubin"
)


def test_a_required_block_size_is_the_only_one_the_window_launches(qtbot, window):
    """Triton's add_kernel cubin records .reqntid 64, 1, 1 (EIATTR_REQNTID)."""
    from occupancy_gui.ui.analysis.heatmap_view import HeatmapView
    from tests.ui.flush import settle

    panel, s = window.import_panel, window.session
    load(qtbot, panel, TRITON_ADD)
    window.session.replace(device="sm_86")  # the test catalog's Ampere; sm_80 SASS runs there
    select(panel, "add_kernel", "sm_80")
    assert (s.inputs.threads, s.inputs.required_block_size) == (64, 64)
    kernel = window.kernel_panel
    qtbot.waitUntil(lambda: kernel.spins["required_block_size"].text() == "64", timeout=3000)
    commit_text(qtbot, kernel.spins["threads"], "128")  # refused, with the reason under the field
    assert (
        s.inputs.threads == 64 and "not the kernel's required block size of 64" in kernel.fields["threads"].error.text()
    )
    settle(qtbot, window)
    plot = window.plots.plots["threads"]
    assert plot.cannot_launch.isVisible() and plot.cannot_launch_below.isVisible()
    assert "≠ 64 threads" in plot.cannot_launch_text.textItem.toPlainText()
    assert plot.drawn_value_at(64) > 0 and plot.drawn_value_at(32) == 0 and plot.drawn_value_at(96) == 0
    assert "requires exactly 64 threads" in plot.describe(96)[2]
    heat = HeatmapView(s)
    qtbot.addWidget(heat)
    grid = heat.registers.grid
    assert grid is not None
    names = {
        heat.registers.labels[k].toPlainText()
        for k in range(len(heat.registers.labels))
        if heat.registers.labels[k].isVisible()
    }
    assert "cannot launch" in names and "no block fits" not in names
    # A cell at 128 threads and 40 registers (view coordinates), and one at the required size.
    assert "requires exactly 64 threads" in heat.registers.describe(QPointF(128, 40), "registers")
    assert "limited by" in heat.registers.describe(QPointF(64, 40), "registers")
    # Setting the required size moves threads there (within the kernel's bound of 64, which the cubin
    # importer derives from .reqntid); clearing it frees threads again, up to the bound.
    commit_text(qtbot, kernel.spins["required_block_size"], "128")
    assert s.inputs.required_block_size == 64
    assert "above its launch bound of 64" in kernel.fields["required_block_size"].error.text()
    commit_text(qtbot, kernel.spins["required_block_size"], "32")
    assert (s.inputs.threads, s.inputs.required_block_size) == (32, 32)
    commit_text(qtbot, kernel.spins["required_block_size"], "none")
    commit_text(qtbot, kernel.spins["threads"], "48")
    assert (s.inputs.threads, s.inputs.required_block_size) == (48, None)


def test_fewer_blocks_than_launch_bounds_asked_for_is_said_in_the_summary(qtbot, window):
    from tests.ui.flush import settle

    kernel, summary = window.kernel_panel, window.summary
    # The seed example: 256 threads × 64 registers, 24 KiB on sm_100: 4 blocks per SM.
    commit_text(qtbot, kernel.spins["min_blocks_per_sm"], "4")
    settle(qtbot, window)
    assert window.session.inputs.min_blocks_per_sm == 4 and summary.hint.text() == ""
    commit_text(qtbot, kernel.spins["min_blocks_per_sm"], "6")
    settle(qtbot, window)
    assert summary.hint.text() == "⚠ Fewer blocks than __launch_bounds__ asks for: <b>4</b> &lt; <b>6</b> per SM"
    assert summary.hint.tip.startswith("Only 4 blocks per SM, below the 6 the kernel asked for")
    window.resize(1024, 700)
    settle(qtbot, window)
    assert not summary.hint.cut_short  # whole even in a 1024-wide window
    window.session.replace(registers=32)  # 8 blocks now: the hint is met
    settle(qtbot, window)
    assert summary.hint.text() == ""
