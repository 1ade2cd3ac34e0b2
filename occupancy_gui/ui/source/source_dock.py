"""The "Source and register caps" dock and its File menu entries: Open PTX / CUDA source…, Import kernel
cache folder… (a Triton / torch inductor / CuPy cache, read by the kernel table's panel).

The window builds this feature (:func:`install_source_view`) and keeps the returned
:class:`SourceFeature`; ``occupancy-gui FILE.cu --arch sm_XY`` goes through :meth:`SourceFeature.open`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from ...fields import AMD
from ..support.analysis_dock import AnalysisDock, add_analysis_dock

if TYPE_CHECKING:
    from ...session import Session
    from ..support.window_api import WindowApi
    from .source_view import OriginNote, SourceView


AMD_NOTE = "nvcc and ptxas compile for NVIDIA GPUs only; choose an NVIDIA device to compile PTX or CUDA source."
"""The dock's one line on an AMD device: this view compiles for NVIDIA architectures, never silently for one
while an AMD device is selected (AMD kernels come from their code objects, through the kernel table)."""


class FolderImporter(Protocol):
    """What the File menu's cache-folder import needs of the kernel table: read a folder."""

    def load(self, path: str) -> None: ...


class _SourceViewFactory:
    """Builds the view when the dock is first shown, with the kernel panel's note beside the inputs."""

    def __init__(self, origin_note: OriginNote) -> None:
        self.origin_note = origin_note

    def __call__(self, session: Session) -> QWidget:
        from .source_view import SourceView  # noqa: PLC0415 - lazy: the module loads when the dock is first shown

        return SourceView(session, self.origin_note)


class SourceFeature(QObject):
    """The dock (tabbed beside the Advisor, its view built when first shown) and the two File actions."""

    def __init__(self, window: WindowApi, import_panel: FolderImporter, origin_note: OriginNote) -> None:
        super().__init__(window.frame)
        self.window, self.import_panel = window, import_panel
        self.dock: AnalysisDock = add_analysis_dock(
            window, _SourceViewFactory(origin_note), "source_dock", "Source and register caps", notes={AMD: AMD_NOTE}
        )
        window.frame.installEventFilter(self)
        frame = window.frame
        self.source_action = QAction("Open PTX / CUDA &source…", frame)
        self.source_action.setToolTip("Compile a .ptx (ptxas -v) or .cu (nvcc) file for an arch; sweep register caps")
        self.source_action.triggered.connect(self.open_dialog)
        self.folder_action = QAction("Import kernel cache &folder…", frame)
        self.folder_action.setToolTip(
            "Read a Triton / torch inductor cache (NAME.json beside NAME.cubin) or a CuPy cache"
        )
        self.folder_action.triggered.connect(self.import_folder)
        for action in (self.folder_action, self.source_action):
            window.file_menu.insertAction(window.file_quit_separator, action)

    def view(self) -> SourceView | None:
        """The dock's view, shown and in front; ``None`` (the dock says why, and so does the status bar) while an AMD
        device is selected: nvcc and ptxas compile for NVIDIA's architectures."""
        self.dock.show()
        self.dock.raise_()
        shown = self.dock.view()
        if not self.dock.available:
            self.window.frame.statusBar().showMessage(
                f"{self.dock.note.text()} Choose an NVIDIA device to compile PTX or CUDA source.", 8000
            )
            return None
        return cast("SourceView", shown)

    def open(self, path: str, arch: str | None = None) -> None:
        """Compile ``path`` (for ``arch``, else the selected device's) and watch it."""
        view = self.view()
        if view is not None:
            view.open(path, arch)

    @property
    def busy(self) -> bool:
        """A compile or a sweep is running."""
        view = self.dock.built_view
        return view is not None and cast("SourceView", view).runner.busy

    def wait(self, msecs: int = -1) -> bool:
        """Block until the running compile is done and its outcome shown (screenshots)."""
        view = self.dock.built_view
        if view is None:
            return True
        runner = cast("SourceView", view).runner
        if not runner.wait(msecs):
            return False
        QCoreApplication.sendPostedEvents(runner)
        QCoreApplication.sendPostedEvents(runner)  # the emitter's queued outcome, then the runner's own
        return not runner.busy

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.window.frame and event.type() == QEvent.Type.Close:
            view = self.dock.built_view
            if view is not None:  # the compiler is killed and its temporary folder removed before the window goes
                cast("SourceView", view).shutdown()
        return False

    def open_dialog(self) -> None:
        view = self.view()
        if view is not None:
            view.open_dialog()

    def import_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.window.frame, "Import kernel cache folder (Triton, torch inductor, CuPy)"
        )
        if folder:
            self.import_panel.load(folder)


def install_source_view(window: WindowApi, import_panel: FolderImporter, origin_note: OriginNote) -> SourceFeature:
    return SourceFeature(window, import_panel, origin_note)
