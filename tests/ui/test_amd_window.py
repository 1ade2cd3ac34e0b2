"""AMD devices through the window: typed inputs, both answers on the card, both rules' limits in the table, the
plots, field visibility per target, vendor switching, undo, session files, invalid text, the docks.

The worked cases are issue #40's (from ``hip_platform.cpp``); the figures the window shows are checked against
the AMD engine through ``occupancy calc``'s answer for the same fields (one mapping for both).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.ui.flush import flush_all, settle

KIB = 1024
TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    return TAG.sub("", text)


def commit_text(qtbot, widget, text):
    """Type ``text`` into a spin box (or a line edit) like a user and press Enter."""
    edit = widget.lineEdit() if hasattr(widget, "lineEdit") and widget.lineEdit() is not None else widget
    widget.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def choose_device(qtbot, window, text: str) -> None:
    """Type a device's name into the selector and press Enter, as a user does."""
    selector = window.device_panel.selector
    selector.setFocus()
    selector.lineEdit().selectAll()
    qtbot.keyClicks(selector.lineEdit(), text)
    selector.lineEdit().editingFinished.emit()
    settle(qtbot, window)


def card(window) -> tuple[str, ...]:
    s = window.amd.summary
    return (
        s.percents[0].text(),
        *(plain(line.text()) for line in s.lines[:2]),
        s.percents[1].text(),
        *(plain(line.text()) for line in s.lines[2:]),
        s.explanation.text(),
    )


def table(window) -> dict[str, tuple[str, str]]:
    model = window.amd.table_model
    return {
        model.display_text(r, 0).lstrip("★ "): (model.display_text(r, 1), model.display_text(r, 2))
        for r in range(model.rowCount())
    }


def type_inputs(qtbot, window, **values: str) -> None:
    panel = window.amd.panel
    for name, text in values.items():
        commit_text(qtbot, panel.editors[name], text)
    settle(qtbot, window)


def test_the_mi300x_worked_case_typed_in(qtbot, window):
    choose_device(qtbot, window, "MI300X")
    assert window.session.inputs.device == "AMD Instinct MI300X" and window.amd is not None
    type_inputs(qtbot, window, threads="256", vgprs="128", sgprs="96", lds="16 KiB")
    assert window.session.inputs.lds == 16 * KIB
    hip_pct, hip1, hip2, llvm_pct, llvm1, llvm2, why = card(window)
    assert hip_pct == "50 %" and hip1 == "HIP runtime — 4 blocks · 16 of 32 waves per CU"
    assert hip2 == "Limited by VGPRs + LDS · grid 1216 · best block 1024"
    assert llvm_pct == "50 %" and llvm1 == "Compiler model (LLVM) — 4 of 8 waves per SIMD"
    assert llvm2 == "Limited by VGPRs · launch bound 1024 · no dynamic LDS"
    assert why == "Both answers agree: 4 waves per SIMD."
    rows = table(window)
    assert rows["VGPRs"] == ("★ 4", "★ 4") and rows["LDS"] == ("★ 4", "8") and rows["Wave cap"] == ("8", "8")
    assert rows["SGPRs"] == ("8", "7") and rows["Workgroup size"] == ("—", "8")
    assert [window.amd.table_model.is_binding(r) for r in range(6)] == [False, False, True, False, True, False]
    assert window.windowTitle().startswith("AMD Instinct MI300X")
    assert window.amd.panel.isVisible() and not window.kernel_panel.isVisible() and not window.summary.isVisible()


@pytest.mark.parametrize(
    "device, typed, choices, first, second",
    [
        (
            "RX 7900 XTX",
            dict(threads="256", vgprs="96", sgprs="40"),
            {},
            "8 blocks · 64 of 64 waves per WGP",
            "grid 384",
        ),
        (
            "RX 7900 XTX",
            dict(threads="256", vgprs="96", sgprs="40"),
            {"wave_size": 2},
            "8 blocks · 32 of 64 waves per WGP",
            "grid 384",
        ),
        (
            "RX 7900 XTX",
            dict(threads="256", vgprs="96", sgprs="40"),
            {"wgp_mode": 2},
            "4 blocks · 32 of 32 waves per CU",
            "grid 384",
        ),
        (
            "RX 7900 XTX",
            dict(threads="128", vgprs="64", lds="48 KiB"),
            {},
            "1 block · 4 of 64 waves per WGP",
            "Limited by LDS · grid 48",
        ),
        ("MI250X", dict(threads="1024", vgprs="512", sgprs="96"), {}, "0 blocks · 0 of 32 waves per CU", "grid 110"),
        ("MI300X", dict(threads="1025", vgprs="128"), {}, "0 blocks", "Limited by block size (1025 > 1024) · grid 0"),
    ],
    ids=["wave32", "wave64", "cu-mode", "lds", "mi250x", "1025-threads"],
)
def test_worked_cases_on_the_card(qtbot, window, device, typed, choices, first, second):
    choose_device(qtbot, window, device)
    type_inputs(qtbot, window, **typed)
    for name, index in choices.items():
        window.amd.panel.editors[name].activated.emit(index)
    settle(qtbot, window)
    _pct, line1, line2, *_ = card(window)
    assert line1.startswith("HIP runtime — " + first) and second in line2, (line1, line2)


def test_an_error_of_the_runtime_is_shown_plainly(qtbot, window):
    choose_device(qtbot, window, "MI300X")
    type_inputs(qtbot, window, vgprs="600")
    hip_pct, hip1, hip2, *_rest, why = card(window)
    assert hip_pct == "—" and hip1 == "HIP runtime — the call returns an error, no block count:"
    assert hip2 == "hipErrorUnknown: 600 VGPRs exceed the 512 per SIMD"
    assert why.startswith("The runtime refuses the kernel (hipErrorUnknown")
    assert table(window)["VGPRs"][0] == "★ 0"


def test_fields_shown_are_the_targets(qtbot, window):
    choose_device(qtbot, window, "MI100")
    panel = window.amd.panel

    def shown() -> set[str]:
        return {n for n, label in panel.labels.items() if label.isVisible()}

    common = {
        "threads",
        "vgprs",
        "sgprs",
        "lds",
        "dynamic_smem",
        "max_flat_workgroup_size",
        "waves_per_eu",
        "allocated_vgprs",
    }
    assert shown() == common | {"agprs"}  # gfx908: a separate AGPR file; wave64 only; no WGPs
    choose_device(qtbot, window, "RX 7900 XTX")
    assert shown() == common | {"wave_size", "wgp_mode"}
    assert panel.editors["wave_size"].currentText() == "Target's (32)"
    assert panel.editors["wgp_mode"].currentText() == "Device's (WGP mode)"
    choose_device(qtbot, window, "gfx942")
    assert shown() == common
    # NVIDIA's inputs and preferences are not shown on an AMD device, and AMD's not on an NVIDIA one
    assert not window.kernel_panel.isVisible() and not window.device_panel.carveout.isVisible()
    assert window.device_panel.amd_limits.isVisible()
    assert window.device_panel.amd_limits.labels["Target"][1].text() == "gfx942 (CDNA 3)"
    choose_device(qtbot, window, "sm_90")
    assert window.kernel_panel.isVisible() and not panel.isVisible() and window.device_panel.carveout.isVisible()
    assert not window.device_panel.amd_limits.isVisible()


def test_switching_vendor_keeps_each_vendors_inputs_and_undo_walks_across(qtbot, window):
    choose_device(qtbot, window, "MI300X")
    type_inputs(qtbot, window, vgprs="96")
    choose_device(qtbot, window, "H100")
    commit_text(qtbot, window.kernel_panel.spins["registers"], "40")
    settle(qtbot, window)
    assert window.session.vendor == "nvidia" and window.summary.isVisible() and not window.amd.summary.isVisible()
    choose_device(qtbot, window, "MI300X")
    assert window.amd.panel.spins["vgprs"].value() == 96 and window.session.inputs.registers == 40
    history = window.history
    history.undo_action.trigger()  # back to the H100 ...
    settle(qtbot, window)
    assert window.session.vendor == "nvidia" and window.kernel_panel.spins["registers"].value() == 40
    history.undo_action.trigger()  # ... before its registers were typed
    history.undo_action.trigger()  # ... and to the MI300X
    settle(qtbot, window)
    assert window.session.vendor == "amd" and window.amd.panel.isVisible() and card(window)[0] != ""
    history.redo_action.trigger()
    settle(qtbot, window)
    assert window.session.vendor == "nvidia"


def test_invalid_typed_text_is_shown_invalid_never_applied(qtbot, window):
    choose_device(qtbot, window, "MI300X")
    panel = window.amd.panel
    spin = panel.spins["vgprs"]
    before = window.session.inputs
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "12x")
    assert spin.flagged and "not a whole number" in panel.errors["vgprs"].text()
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert window.session.inputs == before and "the results keep 32" in panel.errors["vgprs"].text()
    edit = panel.editors["waves_per_eu"]
    commit_text(qtbot, edit, "6, 2")
    assert (
        window.session.inputs.waves_per_eu is None
        and "the minimum 6 is above the maximum 2" in panel.errors["waves_per_eu"].text()
    )
    commit_text(qtbot, edit, "2, 6")
    assert window.session.inputs.waves_per_eu == (2, 6) and not panel.errors["waves_per_eu"].isVisible()
    commit_text(qtbot, panel.spins["max_flat_workgroup_size"], "2048")
    assert window.session.inputs.max_flat_workgroup_size is None
    assert "expected 1..1024 on gfx942" in panel.errors["max_flat_workgroup_size"].text()


def test_one_edit_is_one_recompute_and_one_emission(qtbot, window, results):
    choose_device(qtbot, window, "MI300X")
    results.clear()
    count = window.session.recompute_count
    window.amd.panel.spins["sgprs"].stepBy(1)
    settle(qtbot, window)
    assert window.session.recompute_count == count + 1 and results == [frozenset({"sgprs"})]
    window.amd.panel.threads_slider.setValue(window.amd.panel.threads_slider.value() + 2)
    settle(qtbot, window)
    assert window.session.inputs.threads == 256 + 2 * 64 and len(results) == 2


def test_the_plots_show_both_rules_curves(qtbot, window):
    choose_device(qtbot, window, "MI300X")
    type_inputs(qtbot, window, vgprs="128", sgprs="96", lds="16 KiB")
    plots = window.plots
    state = window.session.amd
    assert plots.hidden == frozenset({"barriers"}) and not plots.plots["barriers"].plot.layout.isVisible()
    for key, name in (("threads", "threads"), ("registers", "vgprs"), ("shared_memory", "lds")):
        plot, overlay = plots.plots[key], plots.overlays[key]
        sweep = state.curves[name]
        edges, values = plot.drawn_steps()
        runtime = sweep.runtime
        assert values[-1] == pytest.approx(runtime.occupancy[-1] * 100)
        assert plot.drawn_value_at(runtime.current_x / plot.scale) == pytest.approx(state.answer.hip.occupancy * 100)
        x, y = overlay.item.getData()
        assert overlay.item.isVisible() and np.nanmax(y) == pytest.approx(np.max(sweep.compiler.occupancy) * 100)
    assert plots.plots["registers"].plot.getAxis("bottom").labelText == "VGPRs per lane"
    window.set_plot_mode("warps")
    assert plots.plots["threads"].plot.getAxis("left").labelText == "active waves"
    assert window.warps_action.text() == "Active &waves"
    text = plots.plots["threads"].describe(256.0)[2]
    assert "16 waves" in text and "LLVM: 4 waves per SIMD" in text


def test_an_amd_session_file_round_trips(qtbot, window, tmp_path):
    choose_device(qtbot, window, "RX 7900 XTX")
    type_inputs(qtbot, window, vgprs="64", lds="48 KiB", threads="128")
    window.amd.panel.editors["wave_size"].activated.emit(2)
    settle(qtbot, window)
    path = tmp_path / "amd.occsession"
    assert window.session_io.save_to(path)
    saved = window.session.inputs
    choose_device(qtbot, window, "sm_90")
    assert window.session_io.open_path(path)
    settle(qtbot, window)
    assert window.session.inputs.device == saved.device and window.session.inputs.wave_size == 64
    assert window.amd.panel.isVisible() and card(window)[1].startswith("HIP runtime — 1 block ·")
    assert path.read_text().startswith("occupancy_session: 2\n")


def test_every_dock_answers_for_amd_or_says_it_cannot(qtbot, window):
    """No dock shows an NVIDIA figure while an AMD device is selected: it answers for AMD, or (the source dock)
    says in one line that it compiles for NVIDIA only; back on NVIDIA the NVIDIA views are there again, caught up."""
    from occupancy_gui.ui.support.analysis_dock import AnalysisDock
    from occupancy_gui.ui.support.window_layout import docks_by_name, show_docks

    docks = docks_by_name(window)
    show_docks(window, list(docks.values()))
    settle(qtbot, window)
    choose_device(qtbot, window, "MI300X")
    type_inputs(qtbot, window, vgprs="128", sgprs="96", lds="16 KiB")
    answered = {"advisor", "heatmap", "utilization", "gpu_data", "waves", "compare", "every_gpu", "kernel_table"}
    for name, dock in docks.items():
        dock.raise_()
        settle(qtbot, window)
        if isinstance(dock, AnalysisDock):
            shown = dock.widget()
            if name in answered:
                assert shown is not dock.note, name
            else:
                assert name == "source"  # compiles PTX / CUDA for NVIDIA only: says so in one line
                assert shown is dock.note and dock.note.isVisible(), name
                assert dock.note.text().endswith("choose an NVIDIA device to compile PTX or CUDA source."), name
    advisor = docks["advisor"].view()
    assert "amdgpu_waves_per_eu(5)" in advisor.labels["waves_per_eu"].text()
    assert "hipOccupancyMaxPotentialBlockSize: 1024 threads per block, grid 304" in advisor.labels["runtime"].text()
    assert advisor.steps.rows[0] == ("8", "64", "64")
    waves = docks["waves"].view()
    assert "4 per CU × 304 CUs" in plain(waves.summary.text())
    window.compare.show_every_gpu()
    settle(qtbot, window)
    model = window.compare.gpu_proxy.sourceModel()
    names = {model.gpu_row(r).name for r in range(model.rowCount())}
    assert names == {p.name for p in window.session.amd_catalog.gpus()}  # AMD devices with one another only
    choose_device(qtbot, window, "sm_90")
    for name, dock in docks.items():
        if isinstance(dock, AnalysisDock):
            dock.raise_()
            settle(qtbot, window)
            assert dock.widget() is not dock.note, name


def test_the_kernel_table_shows_no_nvidia_figure_on_an_amd_device(qtbot, window):
    from pathlib import Path

    panel = window.import_panel
    cubin = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen" / "a_sm80.cubin"
    with qtbot.waitSignal(panel.importFinished, timeout=15000):
        panel.load(cubin)
    settle(qtbot, window)
    choose_device(qtbot, window, "MI300X")
    model = panel.model
    from occupancy_gui.ui.kernels.kernel_table_model import OCCUPANCY, THREADS

    assert {model.index(r, OCCUPANCY).data() for r in range(model.rowCount())} == {"—"}
    assert {model.index(r, THREADS).data() for r in range(model.rowCount())} == {"—"}
    assert "is an AMD device" in model.index(0, OCCUPANCY).data(Qt.ItemDataRole.ToolTipRole)
    panel.view.clearSelection()
    panel.view.selectRow(0)  # choosing an NVIDIA kernel selects an NVIDIA device
    settle(qtbot, window)
    assert window.session.vendor == "nvidia" and window.kernel_panel.isVisible()


def test_the_report_of_an_amd_device(qtbot, window, tmp_path):
    choose_device(qtbot, window, "MI300X")
    type_inputs(qtbot, window, vgprs="128", sgprs="96", lds="16 KiB")
    flush_all(window)
    html = window.session_io.export_to(tmp_path / "r.html").read_text()
    assert 'HIP runtime: blocks per CU</th><td data-key="hip_blocks">4<' in html
    assert 'Compiler (LLVM): waves per SIMD</th><td data-key="llvm_waves">4 of 8<' in html
    csv_text = window.session_io.export_to(tmp_path / "r.csv").read_text().splitlines()
    assert csv_text[0] == "rule,limit,binding,value,unit,requested,allocated,capacity,calculation"
    assert any(line.startswith("hip_runtime,vgprs,yes,4,blocks") for line in csv_text)
    md = window.session_io.export_to(tmp_path / "r.md").read_text()
    assert "**★ hip_runtime: lds**" in md


def test_autosave_recent_history_and_settings_carry_an_amd_session(qtbot, tmp_path, catalog):
    from PySide6.QtCore import QSettings

    from occupancy_gui.session import Session
    from occupancy_gui.session import file as sf
    from occupancy_gui.ui.main_window import MainWindow
    from occupancy_gui.ui.session_files.autosave import new_autosave_path
    from occupancy_gui.ui.session_files.session_io import read_recent
    from occupancy_gui.ui.support.settings import load_inputs, save_inputs

    folder = tmp_path / "auto"
    first = MainWindow(Session(catalog, device="sm_90"), QSettings())
    qtbot.addWidget(first)
    io1 = first.session_io
    io1.autosave_file = new_autosave_path(folder)
    io1._timer.setInterval(20)
    with first.session.batch():
        first.session.replace(device="RX 7900 XTX", vgprs=96, wave_size=64, wgp_mode=False, waves_per_eu=(2, 6))
    first.compare.pin()
    settle(qtbot, first)
    qtbot.waitUntil(io1.autosave_file.exists, timeout=2000)
    saved = sf.load(io1.autosave_file, catalog)
    assert saved.vendor == "amd" and saved.pinned_vendor == "amd" and saved.inputs.waves_per_eu == (2, 6)
    session_path = tmp_path / "rdna.occsession"
    assert io1.save_to(session_path) and str(session_path.resolve()) in read_recent(QSettings())
    save_inputs(QSettings(), first.session.inputs)
    restored = load_inputs(QSettings(), catalog)
    assert restored["device"] == "AMD Radeon RX 7900 XTX" and restored["vgprs"] == 96
    assert (restored["wave_size"], restored["wgp_mode"]) == (64, False) and "waves_per_eu" not in restored
    first.session_io.autosave.abandon()  # as if the process died here
    first.close()

    second = MainWindow(Session(catalog, device="sm_90"), QSettings())
    qtbot.addWidget(second)
    second.session_io.autosave_file = new_autosave_path(folder)
    assert second.session_io.restore_autosave()
    settle(qtbot, second)
    assert second.session.vendor == "amd" and second.session.inputs.wgp_mode is False
    assert second.amd.panel.isVisibleTo(second) and second.compare.pinned_vendor == "amd"
    assert card(second)[1].startswith("HIP runtime — ") and "per CU" in card(second)[1]  # CU mode: HIP counts CUs
    second.close()


def test_the_command_line_opens_the_window_on_an_amd_device(qtbot, tmp_path):
    import json
    import os
    import subprocess
    import sys

    env = {
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path),
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "occupancy_gui",
            "--device",
            "MI300X",
            "--threads",
            "512",
            "--vgprs",
            "128",
            "--sgprs",
            "96",
            "--lds",
            "16KiB",
            "--print-state",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    state = json.loads(proc.stdout)
    assert state["occupancy_session"] == 2 and state["device"] == "AMD Instinct MI300X"
    assert state["inputs"]["threads"] == 512 and "registers" not in state["inputs"]
    assert (state["inputs"]["vgprs"], state["inputs"]["sgprs"], state["inputs"]["lds"]) == (128, 96, 16384)
    assert state["window"]["title"].startswith("AMD Instinct MI300X")


def test_a_window_that_starts_on_an_amd_device(qtbot, catalog):
    """Built on an AMD device from the start (a saved session, ``--device MI300X``): AMD's widgets, every dock
    opening without an NVIDIA figure, and NVIDIA's widgets caught up once an NVIDIA device is chosen."""
    from occupancy_gui.session import Session
    from occupancy_gui.ui.main_window import MainWindow
    from occupancy_gui.ui.support.window_layout import docks_by_name, show_docks

    win = MainWindow(Session(catalog, device="MI300X", vgprs=128, sgprs=96, lds=16 * KIB), None)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    show_docks(win, list(docks_by_name(win).values()))
    settle(qtbot, win)
    assert win.amd.panel.isVisible() and not win.kernel_panel.isVisible()
    assert card(win)[1] == "HIP runtime — 4 blocks · 16 of 32 waves per CU"
    assert win.device_panel.selector.currentText() == "AMD Instinct MI300X"
    win.session.replace(device="sm_90")
    settle(qtbot, win)
    assert win.kernel_panel.isVisible() and win.summary.isVisible() and not win.amd.summary.isVisible()
    assert win.summary.occupancy.text().endswith("%") and win.table_model.rowCount() > 0
    win.close()


def test_compare_holds_the_figures_of_the_targets_fields(qtbot, window):
    choose_device(qtbot, window, "MI300X")
    window.compare.pin()
    choose_device(qtbot, window, "MI100")
    window.compare.dock.show()
    settle(qtbot, window)
    model = window.compare.model
    labels = {
        model.index(r, 0).data(): (model.index(r, 1).data(), model.index(r, 2).data()) for r in range(model.rowCount())
    }
    assert labels["Device"] == ("AMD Instinct MI300X", "AMD Instinct MI100") and labels["Dynamic LDS"] == ("0 B", "0 B")
    assert labels["AGPRs per lane (gfx908)"] == ("—", "0")  # MI100's separate AGPR file; MI300X has none to show
    assert "Wave size" not in labels and "Registers per thread" not in labels


@pytest.mark.parametrize("device", ["MI300X", "RX 7900 XTX"])
def test_a_window_opened_on_an_amd_device_shows_none_of_nvidias_inputs(qtbot, catalog, device):
    """Issue #40: inputs that do not apply to the selected vendor are not shown, from the first paint.  A window
    made on an AMD device once kept NVIDIA's device rows (blank), the carveout and cache rows, the barrier plot
    and no AMD legend: the panel and the plot area only caught a vendor *change*."""
    from occupancy_gui.session import Session
    from occupancy_gui.ui.main_window import MainWindow

    window = MainWindow(Session(catalog, device=device), settings=None)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    settle(qtbot, window)
    panel = window.device_panel
    nvidia_rows = [widget for pair in panel.limit_labels.values() for widget in pair]
    assert nvidia_rows and not any(widget.isVisible() for widget in nvidia_rows)
    assert not panel.carveout.isVisible() and not panel.cache_config.isVisible()
    assert panel.amd_limits.isVisible() and not window.kernel_panel.isVisible()
    area = window.plot_area
    assert not window.plots.plots["barriers"].plot.layout.isVisible() and area.legend.isVisible()
    assert not area.tabs.isTabVisible(area.tabs.count() - 1)  # the barriers tab
    choose_device(qtbot, window, "sm_90")  # and back: NVIDIA's rows shown, with their values
    assert all(widget.isVisible() for widget in nvidia_rows) and all(v.text() for _k, v in panel.limit_labels.values())
    assert not panel.amd_limits.isVisible() and window.plots.plots["barriers"].plot.layout.isVisible()
