"""The analysis docks: advisor, heat maps, grid and waves — numbers, updates, clicks, items kept."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QDockWidget

from occupancy_gui.engine import grid_block_size_registers
from tests.ui.flush import settle


def show_dock(qtbot, window, name: str):
    dock = getattr(window, f"{name}_dock")
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: dock.view().isVisible(), timeout=1000)
    return dock.view()


def cells(model) -> list[tuple[str, ...]]:
    return [tuple(model.index(r, c).data() for c in range(model.columnCount())) for r in range(model.rowCount())]


def test_docks_registered_tabified_and_toggled(window):
    docks = [window.advisor_dock, window.heatmap_dock, window.waves_dock]
    assert [d.objectName() for d in docks] == ["advisor_dock", "heatmap_dock", "waves_dock"]
    assert all(window.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea for d in docks)
    assert {d.toggleViewAction() for d in docks} <= set(window.analysis_menu.actions())
    assert all(isinstance(d, QDockWidget) and not d.isVisibleTo(window) for d in docks)  # opened on demand
    for dock in docks:
        dock.toggleViewAction().trigger()
    assert all(d.isVisibleTo(window) for d in docks)
    assert set(window.tabifiedDockWidgets(window.advisor_dock)) >= {window.heatmap_dock, window.waves_dock}


def test_advisor_seed_example(qtbot, window):
    view = show_dock(qtbot, window, "advisor")
    assert "<b>1024 threads</b>" in view.heuristic.text() and "128, 256, 512, 1024" in view.heuristic.text()
    ranking = cells(view.ranking_model)
    current = next(r for r in ranking if r[0] == "256")
    assert current[2:5] == ("4", "32", "50 %") and "current" in current[5]
    cliffs = cells(view.cliffs_model)
    assert cliffs[0][:2] == ("Registers", "↓ 48 registers → 5 blocks, 62.5 %")
    assert cliffs[1][:2] == ("Registers", "↑ 65 registers → 3 blocks, 37.5 %")
    assert cliffs[2][1] == "no value gains a block"
    assert [r[0] for r in cells(view.headroom_model)] == ["1", "2", "3", "4"]
    assert view.target.currentData() == 5
    assert "__launch_bounds__(256, 5)" in view.bounds.text() and "-maxrregcount=48" in view.bounds.text()
    view.target.setCurrentIndex(view.target.findData(8))
    assert "__launch_bounds__(256, 8)" in view.bounds.text() and "-maxrregcount=32" in view.bounds.text()


def test_advisor_dynamic_smem_modes(qtbot, window):
    view = show_dock(qtbot, window, "advisor")
    view.smem_mode.setCurrentIndex(1)
    view.smem_bytes.setValue(64)  # 64 B per thread: 1024 threads need 64 KiB, beyond the 24 KiB attribute
    rows = {r[0]: r for r in cells(view.ranking_model)}
    assert rows["1024"][1] == "64 KiB" and rows["1024"][2] == "0"  # one convention: whole KiB, else exact bytes
    assert rows["256"][1] == "16 KiB"


def test_views_update_on_session_change(qtbot, window):
    advisor = show_dock(qtbot, window, "advisor")
    window.session.replace(registers=32)
    settle(qtbot, window)
    assert next(r for r in cells(advisor.ranking_model) if r[0] == "256")[2] == "8"
    heat = show_dock(qtbot, window, "heatmap")  # hidden until now: refreshed when shown
    assert list(heat.registers.marker.data["x"]) == [256] and list(heat.registers.marker.data["y"]) == [32]
    window.session.replace(threads=512)
    settle(qtbot, window)
    assert list(heat.registers.marker.data["x"]) == [512]
    waves = show_dock(qtbot, window, "waves")
    waves.sm_count.setValue(132)
    assert waves.analysis.blocks_per_sm == 4 and waves.analysis.blocks_per_wave == 528
    assert "472/528" in waves.summary.text() and "<b>2</b> waves" in waves.summary.text()
    window.session.replace(threads=256)
    settle(qtbot, window)
    assert waves.analysis.blocks_per_wave == 8 * 132 and "<b>1</b> wave" in waves.summary.text()


def test_waves_say_an_assumed_sm_count_until_one_is_entered(qtbot, window):
    """A compute-capability profile has no SM count: every figure that depends on one says it is assumed."""
    waves = show_dock(qtbot, window, "waves")
    assert window.session.profile.sm_count is None and waves.sm_count.isEnabled()
    assert waves.sm_label.text() == "SMs (assumed):" and "Assumes 132 SMs" in waves.summary.text()
    waves.sm_count.setValue(108)
    assert waves.sm_label.text() == "SMs (entered):" and "Assumes" not in waves.summary.text()
    assert waves.analysis.sm_count == 108
    window.session.replace(device="H100 SXM5")
    settle(qtbot, window)
    assert waves.sm_label.text() == "SMs:" and waves.analysis.sm_count == 132 and "Assumes" not in waves.summary.text()
    window.session.replace(device="sm_100")
    settle(qtbot, window)
    assert waves.sm_count.value() == 108 and waves.sm_label.text() == "SMs (entered):"  # the user's count again


def test_waves_sm_count_follows_a_gpu_profile(qtbot, window):
    waves = show_dock(qtbot, window, "waves")
    assert waves.sm_count.isEnabled()
    window.session.replace(device="H100 SXM5")
    settle(qtbot, window)
    assert not waves.sm_count.isEnabled() and waves.sm_count.value() == 132
    waves.dims[1].setValue(2)
    assert waves.analysis.total_blocks == 2000


def test_heat_map_shows_engine_grid(qtbot, window):
    heat = show_dock(qtbot, window, "heatmap")
    s = window.session
    grid = grid_block_size_registers(s.device, s.function_attributes, s.launch, s.device_state)
    np.testing.assert_array_equal(heat.registers.image.image, grid.occupancy * 100)
    x, y = heat.registers.outline.getData()
    assert len(x) > 0 and len(x) % 2 == 0
    assert any(label.isVisible() for label in heat.registers.labels)


@pytest.mark.parametrize("which", ["registers", "shared_memory"])
def test_clicking_a_cell_moves_the_inputs(qtbot, window, which):
    heat = show_dock(qtbot, window, "heatmap")
    heat_map = getattr(heat, which)
    value = 40 if which == "registers" else 30 * 1024
    if which == "shared_memory":
        value = int(heat_map.grid.values[np.searchsorted(heat_map.grid.values, value)])
    scene = heat_map.cell.view.mapViewToScene(QPointF(512, value / heat_map.scale))
    pos = heat.mapFromScene(scene)
    # A cell can be thinner than a pixel: the click lands on the cell under the rounded pixel.
    threads, hit = heat_map.cell_at(heat_map.cell.view.mapSceneToView(heat.mapToScene(pos)))
    step = 1 if which == "registers" else int(heat_map.grid.values[1] - heat_map.grid.values[0])
    assert threads == 512 and abs(hit - value) <= 2 * step
    qtbot.mouseClick(heat.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    settle(qtbot, window)
    i = window.session.inputs
    assert i.threads == 512
    if which == "registers":
        assert i.registers == hit
    else:
        assert i.static_smem + i.dynamic_smem == hit and i.registers == 64


def test_no_view_recreates_its_items(qtbot, window):
    heat = show_dock(qtbot, window, "heatmap")
    items = [
        heat.registers.image,
        heat.registers.outline,
        heat.registers.marker,
        *heat.registers.labels,
        heat.shared_memory.image,
        heat.color_bar,
    ]
    scene_items = set(heat.scene().items())
    waves = show_dock(qtbot, window, "waves")
    bars, wave_items = waves.bars, set(waves.plot.scene().items())
    advisor = show_dock(qtbot, window, "advisor")
    models = (advisor.ranking_model, advisor.cliffs_model, advisor.headroom_model, advisor.ranking.model())
    for change in ({"registers": 40}, {"threads": 384}, {"device": "sm_90"}, {"static_smem": 8192}):
        window.session.replace(**change)
        settle(qtbot, window)
        for name in ("advisor", "heatmap", "waves"):
            show_dock(qtbot, window, name)
    assert [
        heat.registers.image,
        heat.registers.outline,
        heat.registers.marker,
        *heat.registers.labels,
        heat.shared_memory.image,
        heat.color_bar,
    ] == items
    assert set(heat.scene().items()) == scene_items
    assert waves.bars is bars and bars in waves.cell.items and set(waves.plot.scene().items()) == wave_items
    assert (advisor.ranking_model, advisor.cliffs_model, advisor.headroom_model, advisor.ranking.model()) == models
