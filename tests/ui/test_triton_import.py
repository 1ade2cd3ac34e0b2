"""A Triton cache in the window: a folder imported or dropped, and a selected kernel fills every input."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from occupancy_gui.engine import CacheConfig
from occupancy_gui.ui.kernels.kernel_table_model import NAME, NAME_ROLE

CACHE = Path(__file__).resolve().parents[1] / "data" / "importers" / "triton" / "cache"
TIMEOUT = 15000


def _folder(name: str, arch: int) -> Path:
    for meta in CACHE.glob("*/*.json"):
        data = json.loads(meta.read_text())
        if data["name"] == name and data["target"]["arch"] == arch:
            return meta.parent
    raise LookupError(name)


def _select(panel, name, arch):
    row = next(
        r
        for r in range(panel.proxy.rowCount())
        if panel.proxy.index(r, NAME).data(NAME_ROLE) == name and panel.proxy.index(r, 1).data() == arch
    )
    panel.view.selectRow(row)


def test_selecting_a_triton_kernel_fills_every_input(qtbot, window):
    panel = window.import_panel
    session = window.session
    session.replace(device="sm_86", threads=333, dynamic_smem=4096, max_dynamic_smem=70000)
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(str(CACHE))
    _select(panel, "transpose_kernel", "sm_80")
    meta = json.loads(next(_folder("transpose_kernel", 80).glob("*.json")).read_text())
    i = session.inputs
    assert (i.threads, i.dynamic_smem) == (meta["num_warps"] * 32, meta["shared"])
    assert i.max_dynamic_smem == session.device.shared_mem_per_block_optin - i.static_smem  # Triton's opt-in
    assert i.cache_config == CacheConfig.PREFER_SHARED
    _select(panel, "add_kernel", "sm_80")
    i = session.inputs
    assert (i.threads, i.dynamic_smem, i.max_dynamic_smem, i.cache_config) == (64, 0, None, CacheConfig.PREFER_NONE)
    assert session.result is not None and session.result.occupancy > 0


def _drag(window, path, kind):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    event = QDragEnterEvent(QPoint(5, 5), *args) if kind is QDragEnterEvent else QDropEvent(QPointF(5, 5), *args)
    QApplication.sendEvent(window, event)
    return event


def test_dropped_cache_folder_is_imported(qtbot, window):
    panel = window.import_panel
    folder = _folder("softmax_kernel", 90)
    assert _drag(window, folder, QDragEnterEvent).isAccepted()
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        assert _drag(window, folder, QDropEvent).isAccepted()
    assert panel.model.table is not None and panel.model.table.names == ["softmax_kernel"]
    assert window.session.inputs.threads == 256  # selected on load: num_warps 8
