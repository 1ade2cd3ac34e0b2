"""Every text the window shows fits its widget, at 1024×700, 1400×900 and 1920×1080, docks open and closed,
and at a 1.5× scale factor; the answer, the binding limit and the inputs stay in reach at the smallest size.

The walk is ``tests.ui.text_fit.cut_texts``: labels, buttons, combo and spin boxes, headers, table cells,
tab and dock titles, and the plots' own texts (axis titles, region and cliff labels).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractSpinBox

from tests.ui.flush import flush_all
from tests.ui.text_fit import cut_texts

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "tests" / "data" / "importers" / "gen"
SIZES = [(1024, 700), (1400, 900), (1920, 1080)]


def _settle(qtbot, window) -> None:
    flush_all(window)
    qtbot.wait(60)
    flush_all(window)


@pytest.fixture
def loaded(qtbot, window):
    """The window as a user leaves it: a binary's kernels in the table, one chosen, a pinned A to compare."""
    panel = window.import_panel
    with qtbot.waitSignal(panel.importFinished, timeout=15000):
        panel.load(GEN / "a_sm80.cubin")
    window.compare.pin()
    window.session.replace(registers=48)
    _settle(qtbot, window)
    return window


AMD_CASE = dict(device="MI300X", threads=256, vgprs=100, sgprs=96, lds=16 * 1024, dynamic_smem=2048)
"""An AMD question whose two answers differ (the explanation is one of the longest the engine gives)."""
RDNA_CASE = dict(
    device="RX 7900 XTX", threads=256, vgprs=96, sgprs=40, lds=16 * 1024, dynamic_smem=2048, wave_size=32, wgp_mode=True
)
"""The same on RDNA 3: wave32 in WGP mode, whose rows (wave size, WGP mode, WGPs as multiprocessors) CDNA lacks."""


@pytest.fixture(params=[AMD_CASE, RDNA_CASE], ids=["MI300X", "RX7900XTX"])
def amd_loaded(qtbot, loaded, request):
    """The same window on an AMD device: both answers, an AMD configuration pinned as A."""
    with loaded.session.batch():
        loaded.session.replace(**request.param)
    _settle(qtbot, loaded)
    loaded.compare.pin()
    loaded.session.replace(vgprs=128)
    _settle(qtbot, loaded)
    return loaded


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_text_is_cut_on_an_amd_device(qtbot, amd_loaded, size):
    from occupancy_gui.ui.support.window_layout import docks_by_name, show_docks

    amd_loaded.resize(*size)
    show_docks(amd_loaded, [])
    _settle(qtbot, amd_loaded)
    assert amd_loaded.amd.summary.isVisible() and cut_texts(amd_loaded) == []
    docks = list(docks_by_name(amd_loaded).values())
    show_docks(amd_loaded, docks)
    _settle(qtbot, amd_loaded)
    found = []
    for dock in docks:
        dock.raise_()
        _settle(qtbot, amd_loaded)
        assert not dock.visibleRegion().isEmpty(), dock.objectName()
        found += [f"[{dock.objectName()}] {line}" for line in cut_texts(amd_loaded, dock)]
    assert found == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_text_is_cut_docks_closed(qtbot, loaded, size):
    from occupancy_gui.ui.support.window_layout import show_docks

    loaded.resize(*size)
    show_docks(loaded, [])
    _settle(qtbot, loaded)
    assert cut_texts(loaded) == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_text_is_cut_in_any_dock(qtbot, loaded, size):
    from occupancy_gui.ui.support.window_layout import docks_by_name, show_docks

    loaded.resize(*size)
    docks = list(docks_by_name(loaded).values())
    show_docks(loaded, docks)
    _settle(qtbot, loaded)  # the docks' own raise-when-opened timers first
    found = []
    for dock in docks:
        dock.raise_()
        _settle(qtbot, loaded)
        assert not dock.visibleRegion().isEmpty(), dock.objectName()  # the walk below sees it
        found += [f"[{dock.objectName()}] {line}" for line in cut_texts(loaded, dock)]
    assert found == []


@pytest.mark.parametrize("vendor", ["nvidia", "amd"])
@pytest.mark.parametrize("size", ["1024x700", "1400x900", "1920x1080"])
@pytest.mark.parametrize("docks", ["none", "all"])
def test_no_text_is_cut_at_a_1_5_scale_factor(size, docks, vendor, tmp_path):
    """``QT_SCALE_FACTOR`` is read when the application starts: a process of its own."""
    env = {
        **os.environ,
        "QT_SCALE_FACTOR": "1.5",
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path),
    }
    extra = ["amd"] if vendor == "amd" else []
    proc = subprocess.run(
        [sys.executable, "-m", "tests.ui.text_fit", size, docks, *extra],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == ""


def test_every_input_in_sight_at_1400x900_without_docks(qtbot, window):
    from occupancy_gui.ui.support.window_layout import show_docks

    window.resize(1400, 900)
    show_docks(window, [])
    _settle(qtbot, window)
    fields = [*window.kernel_panel.spins.values(), window.device_panel.selector]
    for field in fields:
        seen = field.visibleRegion().boundingRect()
        assert seen.size() == field.rect().size(), field.objectName()


def test_answer_binding_and_inputs_in_reach_at_1024x700_with_every_dock(qtbot, loaded):
    from occupancy_gui.ui.support.window_layout import docks_by_name, show_docks

    loaded.resize(1024, 700)
    show_docks(loaded, list(docks_by_name(loaded).values()))
    _settle(qtbot, loaded)
    summary = loaded.summary
    assert summary.visibleRegion().boundingRect().size() == summary.rect().size()
    table = loaded.table
    binding = [r for r in range(loaded.table_model.rowCount()) if loaded.table_model.is_binding(r)]
    assert binding
    for row in binding:
        rect = table.visualRect(loaded.table_model.index(row, 1))
        assert table.viewport().rect().contains(rect)  # the binding row and its answer, in sight
    for spin in loaded.kernel_panel.findChildren(QAbstractSpinBox):
        loaded.inputs_scroll.ensureWidgetVisible(spin)
        qtbot.wait(5)
        assert not spin.visibleRegion().isEmpty(), spin.objectName()


AMD_CARDS = [
    dict(device="RX 7900 XTX", threads=128, vgprs=64, lds=48 * 1024, wave_size=64),
    dict(device="RX 7900 XTX", threads=1024, vgprs=255, sgprs=100, wgp_mode=False, waves_per_eu=(4, 8)),
    dict(device="MI300X", threads=1025, vgprs=600, sgprs=800, lds=65536, dynamic_smem=4 * 1024 * 1024),
    dict(device="MI100", threads=64, vgprs=64, agprs=256, sgprs=102, max_flat_workgroup_size=64, allocated_vgprs=512),
    dict(device="gfx90a", threads=960, vgprs=88, sgprs=80, lds=65536, waves_per_eu=(8, 8)),
    dict(device="AMD Radeon RX 9070 XT", threads=32, vgprs=1, waves_per_eu=1, dynamic_smem=65536),
    dict(device="gfx1030", threads=1000, vgprs=2048, sgprs=800, lds=4 * 1024 * 1024, wave_size=64),
]
"""Cards of every kind: each rule's error, ties of several limits, a bare target (no grid), the longest figures."""


@pytest.mark.parametrize("case", range(len(AMD_CARDS)))
def test_every_kind_of_amd_card_fits_at_1024x700(qtbot, window, case):
    window.resize(1024, 700)
    with window.session.batch():
        window.session.replace(**AMD_CARDS[case])
    _settle(qtbot, window)
    assert window.amd.summary.isVisible() and cut_texts(window.amd.summary) == []


def test_amd_answer_binding_and_inputs_in_reach_at_1024x700_with_every_dock(qtbot, amd_loaded):
    from occupancy_gui.ui.support.window_layout import docks_by_name, show_docks

    amd_loaded.resize(1024, 700)
    show_docks(amd_loaded, list(docks_by_name(amd_loaded).values()))
    _settle(qtbot, amd_loaded)
    summary, table, model = amd_loaded.amd.summary, amd_loaded.amd.table, amd_loaded.amd.table_model
    assert summary.visibleRegion().boundingRect().size() == summary.rect().size()
    binding = [r for r in range(model.rowCount()) if model.is_binding(r)]
    assert binding
    for row in binding:
        for column in (1, 2):  # both answers of the binding row, in sight
            assert table.viewport().rect().contains(table.visualRect(model.index(row, column)))
    for spin in amd_loaded.amd.panel.findChildren(QAbstractSpinBox):
        if spin.isVisibleTo(amd_loaded):
            amd_loaded.inputs_scroll.ensureWidgetVisible(spin)
            qtbot.wait(5)
            assert not spin.visibleRegion().isEmpty(), spin.objectName()


def test_every_bundled_device_name_fits_the_selector(qtbot):
    """The closed selector shows each profile's name whole at the inputs panel's width (it cut the longer names
    short: "NVIDIA RTX PRO 6000 Blackwell Workstation Edition — Ho"); the list and the search keep the aliases."""
    from occupancy_gui.paths import data_dir
    from occupancy_gui.profiles import default_catalog
    from occupancy_gui.session import Session
    from occupancy_gui.ui.main_window import MainWindow
    from tests.ui.text_fit import _combo_problem

    catalog = default_catalog(data_dir("device_profiles"))
    win = MainWindow(Session(catalog), None)
    qtbot.addWidget(win)
    win.resize(1024, 700)
    win.show()
    qtbot.waitExposed(win)
    selector = win.device_panel.selector
    cut = []
    for profile in [*catalog.profiles, *win.session.amd_catalog.profiles]:  # AMD's product names as AMD writes them
        win.session.replace(device=profile.name)
        flush_all(win)
        problem = _combo_problem(selector)
        if problem is not None or selector.currentText() != selector.shown[profile.name]:
            cut.append(f"{profile.name}: {problem}")
    assert cut == []
    win.close()
