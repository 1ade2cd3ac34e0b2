"""The "Source and register caps" dock and its File menu entries: Open PTX / CUDA source…, Import kernel
cache folder… (a Triton / torch inductor / CuPy cache, read by the kernel table's panel).

The window builds this feature (:func:`install_source_view`) and keeps the returned
:class:`SourceFeature`; ``occupancy-gui FILE.cu --arch sm_XY`` goes through :meth:`SourceFeature.open`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from .analysis_dock import AnalysisDock, add_analysis_dock

if TYPE_CHECKING:
    from ...session import Session
    from ..window_api import WindowApi
    from .import_panel import ImportPanel
    from .source_view import SourceView


def _source_view(session: Session) -> QWidget:
    from .source_view import SourceView  # noqa: PLC0415 - lazy: the module loads when the dock is first shown

    return SourceView(session)


class SourceFeature:
    """The dock (tabbed beside the Advisor, its view built when first shown) and the two File actions."""

    def __init__(self, window: WindowApi, import_panel: ImportPanel) -> None:
        self.window, self.import_panel = window, import_panel
        self.dock: AnalysisDock = add_analysis_dock(window, _source_view, "source_dock", "Source and register caps")
        frame = window.frame
        self.source_action = QAction("Open PTX / CUDA &source…", frame)
        self.source_action.setToolTip("Compile a .ptx (ptxas -v) or .cu (nvcc) file for an arch; sweep register caps")
        self.source_action.triggered.connect(self.open_dialog)
        self.folder_action = QAction("Import kernel cache &folder…", frame)
        self.folder_action.setToolTip("Read a Triton / torch inductor cache (NAME.json beside NAME.cubin) or a CuPy cache")
        self.folder_action.triggered.connect(self.import_folder)
        for action in (self.folder_action, self.source_action):
            window.file_menu.insertAction(window.file_quit_separator, action)

    def view(self) -> SourceView:
        """The dock's view, shown and in front."""
        self.dock.show()
        self.dock.raise_()
        return cast("SourceView", self.dock.view())

    def open(self, path: str, arch: str | None = None) -> None:
        """Compile ``path`` (for ``arch``, else the chosen one) and watch it."""
        self.view().open(path, arch)

    def open_dialog(self) -> None:
        self.view().open_dialog()

    def import_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window.frame,
                                                  "Import kernel cache folder (Triton, torch inductor, CuPy)")
        if folder:
            self.import_panel.load(folder)


def install_source_view(window: WindowApi, import_panel: ImportPanel) -> SourceFeature:
    return SourceFeature(window, import_panel)
