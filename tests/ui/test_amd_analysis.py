"""The analysis docks on an AMD device: heat maps, utilization, GPU data and the source dock, each checked against
the AMD engine (or, for GPU data, the AMD profile) for the session's question."""

from __future__ import annotations

import html

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.ui.flush import settle
from tests.ui.test_amd_window import choose_device, type_inputs

KIB = 1024


def open_dock(qtbot, window, name: str):
    from occupancy_gui.ui.support.window_layout import docks_by_name, show_docks

    dock = docks_by_name(window)[name]
    show_docks(window, [dock])
    settle(qtbot, window)
    return dock


@pytest.fixture
def mi300x(qtbot, window):
    """The MI300X worked case of issue #40: 256 threads, 128 VGPRs, 96 SGPRs, 16 KiB LDS (4 blocks, 50 %)."""
    choose_device(qtbot, window, "MI300X")
    type_inputs(qtbot, window, vgprs="128", sgprs="96", lds="16 KiB")
    return window


def test_amd_heat_maps_are_the_runtimes_grids_with_the_current_point(qtbot, mi300x):
    from occupancy_gui.engine.amd import HIP_LIMITS, hip_grid_lds, hip_grid_vgprs
    from occupancy_gui.ui.analysis.amd_heatmap_view import AmdHeatmapView

    dock = open_dock(qtbot, mi300x, "heatmap")
    view = dock.view()
    assert isinstance(view, AmdHeatmapView) and dock.widget() is not dock.note
    result = mi300x.session.amd.answer
    grid = view.vgprs.grid
    expected = hip_grid_vgprs(result.device, result.kernel, result.launch)
    assert np.array_equal(grid.occupancy, expected.occupancy) and np.array_equal(grid.binding, expected.binding)
    i, j = list(grid.block_sizes).index(256), list(grid.values).index(128)
    assert grid.active_blocks[i, j] == result.hip.active_blocks == 4 and grid.occupancy[i, j] == result.hip.occupancy
    assert HIP_LIMITS[grid.binding[i, j]] == result.hip.binding[0] == "vgprs"
    assert (view.vgprs.marker.data["x"][0], view.vgprs.marker.data["y"][0]) == (256, 128)
    lds = view.lds.grid
    assert np.array_equal(
        lds.active_blocks, hip_grid_lds(result.device, result.kernel, int(64 * KIB * 1.25)).active_blocks
    )
    k = list(lds.values).index(16 * KIB)
    assert lds.active_blocks[list(lds.block_sizes).index(256), k] == result.hip.limits["lds"] == 4
    assert view.lds.marker.data["y"][0] == 16.0  # KiB
    words = view.vgprs.describe(
        view.vgprs.cell.view.mapSceneToView(
            view.vgprs.cell.view.mapViewToScene(view.vgprs.cell.view.viewRect().center())
        ),
        "VGPRs",
    )
    assert words is not None and "block" in words and "limited by" in words and "registers" not in words
    assert view.note.text() == ""


def test_the_compiler_models_maps_are_llvms_over_the_launch_bound(qtbot, mi300x):
    from occupancy_gui.engine.amd import compiler_grid_vgprs

    view = open_dock(qtbot, mi300x, "heatmap").view()
    view.set_rule(True)
    result = mi300x.session.amd.answer
    grid = view.vgprs.grid
    assert np.array_equal(grid.active_blocks, compiler_grid_vgprs(result.device, result.kernel).active_blocks)
    i, j = list(grid.block_sizes).index(1024), list(grid.values).index(128)
    assert grid.active_blocks[i, j] == result.compiler.waves_per_simd  # the default bound: 1024
    assert view.vgprs.marker.data["x"][0] == 1024
    assert "maximum flat workgroup size" in view.note.text() and "static LDS only" in view.note.text()
    assert view.vgprs.cell.getAxis("bottom").labelText == "max flat workgroup size"
    cached = view.vgprs.grid
    type_inputs(qtbot, mi300x, threads="512")
    view.refresh()
    assert view.vgprs.grid is cached  # the launch does not change LLVM's answer: not recomputed
    view.choose(True, 256, 64)
    settle(qtbot, mi300x)
    assert mi300x.session.inputs.max_flat_workgroup_size == 256 and mi300x.session.inputs.vgprs == 64
    assert view.vgprs.grid is not cached and view.vgprs.marker.data["x"][0] == 256
    view.set_rule(False)
    assert view.note.text() == "" and view.vgprs.cell.getAxis("bottom").labelText == "threads per block"


def test_a_click_on_the_runtimes_maps_moves_block_vgprs_and_dynamic_lds(qtbot, mi300x):
    view = open_dock(qtbot, mi300x, "heatmap").view()
    view.choose(True, 128, 256)
    view.choose(False, 128, 40 * KIB)
    settle(qtbot, mi300x)
    i = mi300x.session.inputs
    assert (i.threads, i.vgprs, i.lds, i.dynamic_smem) == (128, 256, 16 * KIB, 24 * KIB)
    assert mi300x.session.amd.answer.hip.limits["lds"] == 1  # 64 KiB // 40 KiB


def test_rdna_wave32_and_wave64_maps(qtbot, window):
    from occupancy_gui.engine.amd import hip_grid_vgprs

    choose_device(qtbot, window, "RX 7900 XTX")
    type_inputs(qtbot, window, vgprs="96", sgprs="40")
    view = open_dock(qtbot, window, "heatmap").view()
    grid = view.vgprs.grid
    assert grid.block_sizes[0] == 32 and len(grid.block_sizes) == 32
    i, j = list(grid.block_sizes).index(256), list(grid.values).index(96)
    assert grid.active_blocks[i, j] == 8 and grid.occupancy[i, j] == 1.0  # issue #40: 8 blocks, 64 of 64
    window.amd.panel.editors["wave_size"].activated.emit(2)  # wave64
    settle(qtbot, window)
    result = window.session.amd.answer
    assert result.kernel.wave_size == 64
    grid = view.vgprs.grid
    assert grid.block_sizes[0] == 64
    assert np.array_equal(grid.active_blocks, hip_grid_vgprs(result.device, result.kernel, result.launch).active_blocks)
    assert grid.active_blocks[list(grid.block_sizes).index(256), 96] == 8 and grid.occupancy.max() <= 1.0


def test_amd_utilization_is_the_runtimes_split_of_one_cu(qtbot, mi300x):
    from occupancy_gui.engine.amd import hip_utilization
    from occupancy_gui.ui.analysis.amd_utilization_view import AmdUtilizationView

    dock = open_dock(qtbot, mi300x, "utilization")
    view = dock.view()
    assert isinstance(view, AmdUtilizationView) and dock.widget() is not dock.note
    result = mi300x.session.amd.answer
    model = view.model
    assert [model.item(r) for r in range(model.rowCount())] == list(hip_utilization(result.hip))
    rows = {model.display_text(r, 0): [model.display_text(r, c) for c in range(2, 7)] for r in range(model.rowCount())}
    assert rows == {
        "Wave slots": ["16 waves (50 %)", "16 waves (50 %)", "0", "32 waves", "4 waves"],
        "★ VGPRs": ["2048 VGPRs (100 %)", "0", "0", "2048 VGPRs", "512 VGPRs"],
        "SGPRs": ["1536 SGPRs (48 %)", "1536 SGPRs (48 %)", "128 SGPRs (4 %)", "3200 SGPRs", "384 SGPRs"],
        "★ LDS": ["64 KiB (100 %)", "0", "0", "64 KiB", "16 KiB"],
    }
    assert model.headerData(1, Qt.Orientation.Horizontal) == "One CU"
    assert "per CU" in model.tooltip(0) and "SM" not in model.tooltip(0)
    caption = view.caption.text()
    assert "One CU with <b>4 resident blocks</b> (16 waves), limited by <b>VGPRs + LDS</b>" in caption
    assert "Compiler model" not in caption  # both answers agree: 4 waves per SIMD


def test_amd_utilization_on_rdna_in_wgp_mode_names_the_wgp_and_the_compilers_answer(qtbot, window):
    choose_device(qtbot, window, "RX 7900 XTX")
    type_inputs(qtbot, window, threads="128", vgprs="64", lds="48 KiB")
    view = open_dock(qtbot, window, "utilization").view()
    model = view.model
    assert model.headerData(1, Qt.Orientation.Horizontal) == "One WGP"
    hip = window.session.amd.answer.hip
    assert hip.active_blocks == 1  # issue #40: 1 block, 4 of 64 waves, LDS binds
    lds = next(model.item(r) for r in range(model.rowCount()) if model.item(r).usage.resource == "LDS")
    assert (lds.allocated, lds.remainder, lds.binding) == (48 * KIB, 16 * KIB, True)
    compiler = window.session.amd.answer.compiler
    assert f"Compiler model (LLVM): {compiler.waves_per_simd} waves per SIMD" in view.caption.text()


def test_amd_gpu_data_shows_every_amd_profiles_values_with_their_sources(qtbot, mi300x):
    from occupancy_gui.profiles.amd_schema import TARGET_FIELDS
    from occupancy_gui.ui.analysis.amd_gpu_data_model import AmdGpuDataModel

    dock = open_dock(qtbot, mi300x, "gpu_data")
    view = dock.view()
    model = view.model
    assert isinstance(model, AmdGpuDataModel) and dock.widget() is not dock.note
    catalog = mi300x.session.amd_catalog
    assert model.rowCount() == len(catalog) and {model.name_of(r) for r in range(model.rowCount())} == set(
        catalog.names()
    )
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    row = model.row_of("AMD Instinct MI300X")
    assert model.is_selected(row) and model.headerData(row, Qt.Orientation.Vertical).startswith("▸ ")
    mi300x_profile = catalog.get("MI300X")
    texts = {h.replace("\n", " "): model.index(row, c).data() for c, h in enumerate(headers)}
    assert texts["Target"] == "gfx942" and texts["CUs"] == "304" and texts["HIP multi- processors"] == "304"
    assert texts["Default mode"] == "CU"
    for c, f in enumerate(TARGET_FIELDS, start=5):
        value = getattr(mi300x_profile.target, f.name)
        cell = model.cell(row, c)
        if isinstance(value, str):
            assert cell.text == value and cell.sort == f.choices.index(value), f.name
        else:
            assert cell.sort == (-1 if value is None else value), f.name
        assert html.escape(mi300x_profile.sources[f.name]) in cell.tip, f.name
    assert model.cell(row, 5 + [f.name for f in TARGET_FIELDS].index("lds_per_workgroup")).text == "64 KiB"
    xtx = model.row_of("AMD Radeon RX 7900 XTX")
    assert (model.cell(xtx, 2).text, model.cell(xtx, 3).text, model.cell(xtx, 4).text) == ("96", "48", "WGP")
    gfx = model.row_of("gfx1100")
    assert model.cell(gfx, 2).text == "—" and "no CU count" in model.cell(gfx, 2).tip
    view.set_filter("rdna 3")
    shown = {model.name_of(view.proxy.mapToSource(view.proxy.index(r, 0)).row()) for r in range(view.proxy.rowCount())}
    assert "AMD Radeon RX 7900 XTX" in shown and "AMD Instinct MI300X" not in shown
    view._on_table_double_clicked(view.proxy.mapFromSource(model.index(xtx, 0)))
    settle(qtbot, mi300x)
    assert mi300x.session.amd_profile.name == "AMD Radeon RX 7900 XTX"
    assert model.is_selected(xtx) and not model.is_selected(row)


def test_the_source_dock_says_in_one_line_that_it_compiles_for_nvidia_only(qtbot, window, tmp_path):
    """A source opened on an NVIDIA device and saved again while an AMD device is selected is not compiled (for
    the NVIDIA device before, or any): the view says why; the dock shows one line on the AMD device."""
    from occupancy_gui.ui.source.source_dock import AMD_NOTE

    view = window.source.view()
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __global__ void k(float *o) { o[threadIdx.x] = 1.0f; }\n')
    view.path = str(src)
    choose_device(qtbot, window, "MI300X")
    dock = window.source.dock
    assert dock.widget() is dock.note and dock.note.text() == f"Source and register caps: {AMD_NOTE}"
    assert "\n" not in dock.note.text()
    view._on_file_rewritten(str(src), None)
    view.start_sweep()
    assert view._task is None and not view.runner.busy
    assert view.status.text() == "Not compiled: AMD device selected; nvcc and ptxas compile for NVIDIA GPUs only."
    assert window.source.view() is None  # occupancy-gui FILE.cu on an AMD device: nothing compiled
    assert window.statusBar().currentMessage().startswith(f"Source and register caps: {AMD_NOTE}")
