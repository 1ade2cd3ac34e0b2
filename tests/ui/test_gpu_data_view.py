"""The GPU data dock: every profile's limits side by side, filtered, sorted, sourced, the device marked."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from occupancy_gui import REFERENCE_HEADER
from occupancy_gui.engine import FACT_SPECS
from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import LIMIT_FIELDS, Catalog
from occupancy_gui.ui.analysis.gpu_data_model import COLUMNS, GpuDataModel
from occupancy_gui.ui.analysis.profile_sheet import SELECTED_MARK
from tests.conftest import make_fake_catalog
from tests.ui.flush import settle
from tests.ui.text_fit import cut_texts

SIZES = ((1024, 700), (1400, 900), (1920, 1080))


def show_gpu_data(qtbot, window):
    dock = window.gpu_data_dock
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: dock.view().isVisible(), timeout=1000)
    return dock.view()


def column(header: str) -> int:
    return next(i for i, c in enumerate(COLUMNS) if c.header.replace("\n", " ") == header)


def shown_names(view) -> list[str]:
    proxy = view.proxy
    return [proxy.headerData(r, Qt.Orientation.Vertical).removeprefix(SELECTED_MARK) for r in range(proxy.rowCount())]


def test_columns_come_from_the_schema_and_the_facts():
    headers = [c.header.replace("\n", " ") for c in COLUMNS]
    assert headers[:3] == ["CC", "Architecture", "SMs"]
    assert headers[3 : 3 + len(LIMIT_FIELDS)] == [f.label for f in LIMIT_FIELDS]
    assert headers[3 + len(LIMIT_FIELDS) :] == [s.label for s in FACT_SPECS]


def test_values_and_their_sources(qtbot, window):
    view = show_gpu_data(qtbot, window)
    model = view.model
    row = model.row_of("H100 SXM5")
    regs = model.index(row, column("Registers per SM"))
    assert regs.data() == "65,536" and "test source for regs_per_multiprocessor" in regs.data(
        Qt.ItemDataRole.ToolTipRole
    )
    smem = model.index(row, column("Shared memory per SM"))
    assert smem.data() == "228 KiB" and "233,472 bytes" in smem.data(Qt.ItemDataRole.ToolTipRole)
    slots = model.index(row, column("Block slots per SM"))
    assert slots.data() == "32"
    assert "cudaOccMaxBlocksPerMultiprocessor" in slots.data(Qt.ItemDataRole.ToolTipRole)
    assert REFERENCE_HEADER in slots.data(Qt.ItemDataRole.ToolTipRole)
    configs = model.index(row, column("Shared memory configurations (carveout sizes)"))
    assert configs.data() == "0 B–228 KiB (10 sizes)" and "196 KiB, 228 KiB" in configs.data(
        Qt.ItemDataRole.ToolTipRole
    )
    kepler = model.row_of("sm_35")
    assert model.index(kepler, column("SMs")).data() == "—"
    assert model.index(kepler, column("Block barriers per SM")).data() == "—"  # not counted before CC 9.0


def test_every_bundled_value_has_its_source(qtbot):
    """The shipped catalog: each profile's limits and SM count name a document, never "no source recorded"."""
    catalog = Catalog.load([data_dir("device_profiles")])
    model = GpuDataModel(catalog, catalog.profiles[0].name)
    limits = [column(f.label) for f in LIMIT_FIELDS] + [column("SMs")]
    checked = 0
    for row in range(model.rowCount()):
        for col in limits:
            tip = model.index(row, col).data(Qt.ItemDataRole.ToolTipRole)
            assert "Source: " in tip and "no source recorded" not in tip, (model.profile(row).name, col)
            checked += 1
    assert model.rowCount() == len(catalog.profiles) and checked == len(catalog.profiles) * (len(LIMIT_FIELDS) + 1)


def test_the_selected_device_is_marked_and_follows_the_session(qtbot, window):
    view = show_gpu_data(qtbot, window)
    model = view.model
    before = model.row_of("sm_100")
    assert model.headerData(before, Qt.Orientation.Vertical) == SELECTED_MARK + "sm_100"
    assert model.index(before, 0).data(Qt.ItemDataRole.FontRole).bold()
    changed: list[int] = []
    model.dataChanged.connect(lambda a, b: changed.extend(range(a.row(), b.row() + 1)))
    window.session.replace(device="H100")
    settle(qtbot, window)
    after = model.row_of("H100 SXM5")
    assert sorted(changed) == sorted([before, after])
    assert model.headerData(after, Qt.Orientation.Vertical) == SELECTED_MARK + "H100 SXM5"
    assert model.headerData(before, Qt.Orientation.Vertical) == "sm_100"
    assert model.index(before, 0).data(Qt.ItemDataRole.BackgroundRole) is None


def test_filter(qtbot, window):
    view = show_gpu_data(qtbot, window)
    assert view.status.text() == "6 profiles"
    view.set_filter("hopper")
    assert shown_names(view) == ["sm_90", "H100 SXM5"] and view.status.text() == "2 of 6 profiles"
    view.set_filter("8.6")
    assert shown_names(view) == ["sm_86", "My Card"]
    view.set_filter("SM_90 h100")  # every word, any case
    assert shown_names(view) == ["H100 SXM5"]
    qtbot.keyClicks(view.filter, "x")  # typed: the same path as set_filter
    assert shown_names(view) == [] and view.status.text() == "No profile matches “SM_90 h100x”"
    view.set_filter("")
    assert len(shown_names(view)) == 6


def test_sort_by_a_number_and_double_click_to_calculate(qtbot, window):
    view = show_gpu_data(qtbot, window)
    view.table.sortByColumn(column("Shared memory per SM"), Qt.SortOrder.AscendingOrder)
    names = shown_names(view)
    assert names[0] == "sm_35" and set(names[1:3]) == {"sm_86", "My Card"}  # 48 KiB, then 100 KiB, then 228 KiB
    row = names.index("My Card")
    view._on_table_double_clicked(view.proxy.index(row, 0))
    settle(qtbot, window)
    assert window.session.inputs.device == "My Card"


def test_a_new_catalog_resets_the_rows(qtbot, window):
    view = show_gpu_data(qtbot, window)
    smaller = Catalog([p for p in make_fake_catalog().profiles if p.name != "My Card"])
    window.session.set_catalog(smaller)
    settle(qtbot, window)
    assert view.model.rowCount() == 5 and "My Card" not in shown_names(view)


def test_model_contract(qtmodeltester, catalog):
    qtmodeltester.check(GpuDataModel(catalog, "sm_90"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_text_fits(qtbot, window, size):
    window.resize(*size)
    view = show_gpu_data(qtbot, window)
    settle(qtbot, window)
    assert cut_texts(view) == []
