"""The "Source and register caps" dock and its File menu entries: Open PTX / CUDA source…, Import kernel
cache folder… (a Triton / torch inductor / CuPy cache, read by the kernel table dock)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from .analysis_dock import add_analysis_dock

if TYPE_CHECKING:
    from ...session import Session
    from ..main_window import MainWindow
    from .source_view import SourceView


def _source_view(session: Session) -> QWidget:
    from .source_view import SourceView

    return SourceView(session)


def install_source_view(window: MainWindow) -> None:
    """Add the dock (tabbed beside the Advisor, built when first shown) and the two File actions."""
    dock = add_analysis_dock(window, _source_view, "source_view", "source_dock", "Source and register caps")
    window.source_dock = dock  # type: ignore[attr-defined]

    def view() -> SourceView:
        dock.show()
        dock.raise_()
        return dock.view()  # type: ignore[return-value]

    def open_source(path: str, arch: str | None = None) -> None:
        view().open(path, arch)

    def open_dialog() -> None:
        view().open_dialog()

    def import_folder() -> None:
        panel = getattr(window, "import_panel", None)
        if panel is None:
            return
        folder = QFileDialog.getExistingDirectory(window, "Import kernel cache folder (Triton, torch inductor, CuPy)")
        if folder:
            panel.load(folder)

    source_action = QAction("Open PTX / CUDA &source…", window)
    source_action.setToolTip("Compile a .ptx (ptxas -v) or .cu (nvcc) file for an arch; sweep register caps")
    source_action.triggered.connect(open_dialog)
    folder_action = QAction("Import kernel cache &folder…", window)
    folder_action.setToolTip("Read a Triton / torch inductor cache (NAME.json beside NAME.cubin) or a CuPy cache")
    folder_action.triggered.connect(import_folder)
    for action in (folder_action, source_action):
        window.file_menu.insertAction(window.file_quit_separator, action)
    window.open_source = open_source  # type: ignore[attr-defined]
    window.source_action, window.import_folder_action = source_action, folder_action  # type: ignore[attr-defined]
