"""The kernel table dock's place in the window: the dock, File → Import compiler output…, drops.

Kept apart from :class:`ImportPanel` (the dock's contents) so that the panel is a plain widget a test
can build, and this module is the one the window's extension list names.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget

from ..deferred import DeferredUpdate
from .import_panel import ImportPanel

if TYPE_CHECKING:
    from ..main_window import MainWindow


def install_import_panel(window: MainWindow) -> None:
    """Add the kernel table dock, File → Import compiler output…, and drops on the window."""
    if importlib.util.find_spec("occupancy_gui.importers") is None:  # a build without importers: no panel
        return
    panel = ImportPanel(window)
    dock = QDockWidget("Kernels", window)
    dock.setObjectName("kernel_table_dock")
    dock.setWidget(panel)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    area = Qt.DockWidgetArea.BottomDockWidgetArea
    others = [d for d in window.findChildren(QDockWidget) if d is not dock and window.dockWidgetArea(d) == area]
    if others:
        window.tabifyDockWidget(others[0], dock)
    dock.hide()  # shown by the first import (or by a restored layout)
    action = QAction("&Import compiler output…", window)
    action.setShortcut(QKeySequence("Ctrl+I"))
    action.setToolTip("Read a ptxas -v / nvcc --resource-usage log, cuobjdump output, a cubin, fatbin or "
                      "object file (Ctrl+I)")  # fmt: skip
    action.triggered.connect(panel.open_file_dialog)
    window.file_menu.insertAction(window.file_quit_separator, action)
    window.view_menu.addAction(dock.toggleViewAction())
    panel.follow = DeferredUpdate(panel.on_session_changed, panel)
    window.bridge.resultChanged.connect(panel.follow.schedule)
    window.setAcceptDrops(True)
    window.installEventFilter(panel)
    window.import_panel = panel  # type: ignore[attr-defined]
    window.import_action = action  # type: ignore[attr-defined]
    window.kernel_dock = dock  # type: ignore[attr-defined]
