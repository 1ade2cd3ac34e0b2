"""Device selection, limits display and device-state preferences, both directions."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from occupancy_gui.engine import CacheConfig
from occupancy_gui.ui.calculator.device_panel import NAME_ROLE, DevicePanel


@pytest.fixture
def panel(qtbot, session):
    widget = DevicePanel(session)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def test_selector_lists_every_profile_in_groups(panel, session):
    """NVIDIA's groups, then (once the selector is used: AMD's profiles are read then) AMD's."""
    panel.selector.ensure_amd()
    model = panel.selector.model()
    names = [model.index(r, 0).data(NAME_ROLE) for r in range(model.rowCount())]
    headers = [model.index(r, 0).data() for r, n in enumerate(names) if n is None]
    assert headers == ["Compute capabilities", "Named GPUs", "User profiles", "AMD GPUs", "AMD targets"]
    everything = [p.name for p in session.catalog.profiles] + [p.name for p in session.amd_catalog.profiles]
    assert sorted(n for n in names if n) == sorted(everything)


def test_choosing_a_device_drives_session(panel, session):
    index = panel.selector.index_of_name("sm_86")
    panel.selector.activated.emit(index)
    assert session.inputs.device == "sm_86"
    assert panel.limit_labels["Threads / SM"][1].text() == "1536"


def test_typing_a_name_or_alias(qtbot, panel, session):
    edit = panel.selector.lineEdit()
    edit.selectAll()
    qtbot.keyClicks(edit, "h100")
    edit.editingFinished.emit()
    assert session.inputs.device == "H100 SXM5"
    assert panel.limit_labels["SMs"][1].text() == "132"
    edit.setText("9.0")
    edit.editingFinished.emit()
    assert session.inputs.device == "sm_90"


def test_unknown_name_is_refused_out_loud(panel, session):
    panel.selector.lineEdit().setText("no such gpu")
    panel.selector.lineEdit().editingFinished.emit()
    assert session.inputs.device == "sm_100"
    assert panel.selector_error.isVisibleTo(panel) and "no such gpu" in panel.selector_error.text()


def test_completer_filters_by_substring(panel):
    completer = panel.selector.completer()
    assert completer.filterMode() == Qt.MatchFlag.MatchContains
    completer.setCompletionPrefix("hopper")
    found = [completer.completionModel().index(r, 0).data() for r in range(completer.completionCount())]
    assert found and all("Hopper" in text for text in found)


def test_session_drives_selector(panel, session):
    session.replace(device="My Card")
    count = session.recompute_count
    panel.sync_from_session()
    assert panel.selector.currentText().startswith("My Card")
    assert session.recompute_count == count


def test_limits_have_sources_as_tooltips(panel):
    key, value = panel.limit_labels["Registers / SM"]
    assert value.text() == "65,536"  # large counts grouped
    assert "test source for regs_per_multiprocessor" in value.toolTip()
    smem = panel.limit_labels["Shared mem / SM"][1]
    assert smem.text() == "228 KiB" and "233,472 bytes" in smem.toolTip()  # KiB shown, exact bytes in the tooltip


def test_carveout_and_cache_config(panel, session):
    assert panel.carveout.isEnabled() and not panel.cache_config.isEnabled()
    panel.carveout.activated.emit(1)  # max shared memory
    assert session.inputs.carveout == 100
    panel.carveout.setCurrentIndex(3)
    panel.carveout.activated.emit(3)  # percentage
    panel.carveout_percent.setValue(40)
    assert session.inputs.carveout == 40
    session.replace(carveout=0)
    panel.sync_from_session()
    assert panel.carveout.currentIndex() == 2 and not panel.carveout_percent.isEnabled()
    session.replace(device="sm_35")
    panel.sync_from_session()
    assert not panel.carveout.isEnabled() and panel.cache_config.isEnabled()
    panel.cache_config.activated.emit(1)
    assert session.inputs.cache_config == CacheConfig.PREFER_SHARED
    for widget in (panel.selector, panel.carveout, panel.carveout_percent, panel.cache_config):
        assert widget.toolTip()


@pytest.mark.parametrize(("typed", "found"), [("Jetson", "Jetson AGX Thor"), ("H100 SXM", "H100 SXM5")])
def test_search_matches_aliases(qtbot, typed, found):
    """The bundled catalog: an alias finds its profile whatever the profile's own name."""
    from occupancy_gui.paths import data_dir
    from occupancy_gui.profiles import Catalog
    from occupancy_gui.session import Session
    from occupancy_gui.ui.calculator.device_panel import DevicePanel

    panel = DevicePanel(Session(Catalog.load([data_dir("device_profiles")]), "sm_90"))
    qtbot.addWidget(panel)
    completer = panel.selector.completer()
    completer.setCompletionPrefix(typed)
    hits = [completer.completionModel().index(r, 0).data() for r in range(completer.completionModel().rowCount())]
    assert any(found in hit for hit in hits), hits


def test_focusing_the_selector_selects_its_text(qtbot, panel):
    panel.show()
    qtbot.waitExposed(panel)
    edit = panel.selector.lineEdit()
    edit.deselect()
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QFocusEvent
    from PySide6.QtWidgets import QApplication

    # As a click delivers it (Tab selects all by itself) (the offscreen platform has no active window to move focus in).
    QApplication.sendEvent(panel.selector, QFocusEvent(QEvent.Type.FocusIn, Qt.FocusReason.MouseFocusReason))
    qtbot.waitUntil(lambda: bool(edit.text()) and edit.selectedText() == edit.text(), timeout=2000)
