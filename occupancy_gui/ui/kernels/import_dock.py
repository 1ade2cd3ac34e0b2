"""The kernel table dock's place in the window: the dock, File → Import compiler output…, drops.

Kept apart from :class:`ImportPanel` (the dock's contents) so that the panel is a plain widget a test
can build; the window builds the panel and hands it here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog

if TYPE_CHECKING:
    from ..support.window_api import WindowApi
    from .import_panel import ImportPanel

FILE_FILTER = (
    "Compiler output (*.log *.txt *.out *.err *.cubin *.fatbin *.o *.obj *.a *.lib *.so *.dll *.csv);;All files (*)"
)


def install_import_panel(window: WindowApi, panel: ImportPanel) -> tuple[QDockWidget, QAction]:
    """Add the kernel table dock, File → Import compiler output…, and drops on the window."""
    frame = window.frame
    dock = QDockWidget("Kernels", frame)
    dock.setObjectName("kernel_table_dock")
    dock.setWidget(panel)
    frame.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    area = Qt.DockWidgetArea.BottomDockWidgetArea
    others = [d for d in frame.findChildren(QDockWidget) if d is not dock and frame.dockWidgetArea(d) == area]
    if others:
        frame.tabifyDockWidget(others[0], dock)
    dock.hide()  # shown by the first import (or by a restored layout)
    action = QAction("&Import compiler output…", frame)
    action.setShortcut(QKeySequence("Ctrl+I"))
    action.setToolTip(
        "Read a ptxas -v / nvcc --resource-usage log, cuobjdump output, a cubin, fatbin or object file (Ctrl+I)"
    )
    action.triggered.connect(lambda: open_file_dialog(panel))
    window.file_menu.insertAction(window.file_quit_separator, action)
    window.view_menu.addAction(dock.toggleViewAction())
    frame.setAcceptDrops(True)
    frame.installEventFilter(panel)
    return dock, action


def open_file_dialog(panel: ImportPanel) -> None:
    """File → Import compiler output…: ask for a file, starting where the last one was, and import it."""
    start = os.path.dirname(panel.path) if panel.path else ""
    path, _ = QFileDialog.getOpenFileName(panel.window_, "Import compiler output", start, FILE_FILTER)
    if path:
        panel.load(path)
