"""Import compiler output into the window: a kernel table dock fed by a background import.

File → Import compiler output… (Ctrl+I), a file dropped on the window, or ``occupancy-gui FILE``
read the file on a pool thread (``importers.import_file``; the format is detected from the content)
with a progress bar and a Cancel button.  Selecting a row loads that kernel into the inputs.  The
file is watched: when a build rewrites it, it is read again and the selected kernel kept by name.
A failed or cancelled import leaves the previous table and inputs as they were.  An AMD import's rows
show while it reads them (``preview_display``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import QDockWidget

from ...fields import AMD, NVIDIA
from ...kernel_table import KernelTable, RowLaunch
from ..support.deferred import DeferredUpdate
from ..support.file_drop import DROP_EVENTS, accept_drop, dropped_compiler_output
from ..support.file_watch import FileWatch, file_stamp
from ..support.tasks import TaskOutcome, TaskRunner
from . import import_tasks
from .import_tasks import ImportRequest, release_task
from .import_widgets import ImportPanelWidgets
from .kernel_apply import apply_row, launch_fn, unavailable
from .kernel_inputs import Notes, kernel_notes
from .kernel_table_view import fit_figure_columns, show_vendor_columns
from .preview_display import PreviewDisplay

if TYPE_CHECKING:
    from ...importers import KernelRecord
    from ..calculator.kernel_panel import KernelPanel
    from ..support.window_api import WindowApi

DOCK_SETTLE_S = 0.06
"""How long the first import waits while the dock opens and the window repaints around it."""
RELEASE_DELAY_MS = 300
"""A replaced table is freed this long after the new one is shown (its first paint goes first)."""
_OCCUPANCY_INPUTS = frozenset({"device", "threads", "dynamic_smem", "max_dynamic_smem", "carveout", "cache_config"})
_SELECT_ROW = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows


class ImportPanel(ImportPanelWidgets):
    """The kernel table dock's contents; the window's ``import_panel``.

    Public API: :meth:`load`, :meth:`cancel`, :meth:`current_source`, :meth:`wait_for_import`,
    :meth:`set_filter`, :meth:`select_kernel`.
    """

    importFinished = Signal(str)
    """A file was read and its table shown (argument: the path)."""
    importFailed = Signal(str)
    """An import failed; the argument is the one-line message.  The previous state is kept."""
    importCancelled = Signal()
    importStarted = Signal(str)

    def __init__(self, window: WindowApi, kernel_panel: KernelPanel) -> None:
        super().__init__()
        self.window_ = window.frame
        self.session = window.session
        self.kernel_panel = kernel_panel
        # The table's occupancy column follows the main results a moment late.
        self.follow = DeferredUpdate(self.on_session_changed, self)
        window.bridge.resultChanged.connect(self.follow.schedule)
        self.path: str | None = None
        self._request: ImportRequest | None = None
        self._task_id = -1
        self._selected: tuple[str, str, int] | None = None  # (mangled name, arch, record index) of the loaded kernel
        self._restoring = False
        self.notes: Notes = (None, None)
        """(spill warning, architecture note) last given to the kernel panel."""
        self._runner: TaskRunner | None = None  # made by the first import: start-up skips the importers
        self.previews = PreviewDisplay(self, self)  # the import under way's previews; the table before them kept
        self._build_widgets(self.cancel, self._apply_filter, self._on_all_functions_toggled, self._on_selection_changed)
        self.file_watch = FileWatch(self)
        self.file_watch.fileRewritten.connect(self._on_file_watch_file_rewritten)
        self.watcher = self.file_watch.watcher  # the QFileSystemWatcher itself

    @property
    def runner(self) -> TaskRunner:
        """The pool that reads files; created on first use (its tasks load the importers)."""
        if self._runner is None:
            self._runner = TaskRunner(self, expected=(OSError,))
            self._runner.progressed.connect(self._on_runner_progressed)
            self._runner.finished.connect(self._on_runner_finished)
        return self._runner

    # ----------------------------------------------------------------------------- public API
    def load(
        self,
        path: str | os.PathLike[str],
        select: str | None = None,
        *,
        match_device: bool = False,
        overrides: dict[str, Any] | None = None,
    ) -> None:
        """Read ``path`` in the background and show its kernels.

        ``select`` is the mangled name of the kernel to load into the inputs afterwards (the first
        kernel by default).  ``match_device`` also switches the device to the kernel's architecture
        where the catalog has it, and ``overrides`` are session inputs set over the kernel's (the
        command line's explicit options).
        """
        path = os.path.abspath(os.fspath(path))
        self._start(
            ImportRequest(path, select, match_device, reload=False, stamp=file_stamp(path), overrides=overrides)
        )

    def open_source(self, path: str | os.PathLike[str], name: str = "") -> None:
        """Show ``path`` with kernel ``name`` selected, leaving the inputs alone (a session being restored)."""
        path = os.path.abspath(os.fspath(path))
        self._start(ImportRequest(path, name or None, False, reload=False, stamp=file_stamp(path), apply=False))

    def cancel(self) -> None:
        """Stop the running import; the table and inputs stay as they were."""
        if self._runner is not None:
            self._runner.cancel()

    def current_source(self) -> tuple[str, str] | None:
        """(file path, mangled name of the selected kernel or ``""``) of the table shown, if any."""
        if self.path is None:
            return None
        return (self.path, self._selected[0] if self._selected else "")

    def current_record(self) -> KernelRecord | None:
        """The NVIDIA kernel chosen in the table (for the report: its demangled name, local memory, spills);
        ``None`` where none is, or an AMD kernel is (the report is NVIDIA's)."""
        i = self._selected_record()
        table = self.model.table
        return table.nvidia_record(i) if table is not None and i is not None and not table.is_amd(i) else None

    @property
    def loading(self) -> bool:
        return self._runner is not None and self._runner.busy

    def wait_for_import(self, msecs: int = -1) -> bool:
        """Block until the running import is done and its outcome shown (start-up, screenshots)."""
        if not self.runner.wait(msecs):
            return False
        QCoreApplication.sendPostedEvents(self.runner)  # the outcome's queued signal
        return not self.runner.busy

    def set_filter(self, text: str) -> None:
        """Filter now (the box's typing is debounced for large tables)."""
        self.filter_edit.set_text_now(text)

    def clear_selection(self) -> None:
        """No kernel chosen (a new session): the inputs no longer stand for a row, and its notes go."""
        self._restoring = True
        try:
            self.view.selectionModel().clearSelection()
        finally:
            self._restoring = False
        self._selected = None
        self._update_notes()

    def select_kernel(self, name: str, arch: str | None = None) -> bool:
        """Select the row of ``name`` (mangled) and load it into the inputs; ``False`` if not shown."""
        record = self.model.find(name, arch)
        row = None if record is None else self.model.row_of(record)
        if row is None:
            return False
        self._select_row(row)
        return True

    # ----------------------------------------------------------------------------- import
    def _start(self, request: ImportRequest) -> None:
        self._request = request
        dock = self.parentWidget()
        opening = not request.reload and isinstance(dock, QDockWidget) and not dock.isVisible()
        # Looked up on the module at each start, so that a test can wrap the task.  A dock that opens
        # relayouts the plots: the reader waits for that repaint instead of competing for the GIL.
        task = import_tasks.import_task(
            request.path,
            settle_s=DOCK_SETTLE_S if opening else 0.0,
            filter_text=self.model.filter_text,
            stream=self.previews.builder(request),
        )
        self._task_id = self.runner.start(task)
        self.progress.setValue(0)
        self.progress_row.show()
        # The status bar first, shown now: the window makes it on first use and shows it an event later,
        # which would re-lay out the window (every plot repainted) a second time after the dock's.
        status = self.window_.statusBar()
        status.show()
        status.showMessage(f"Reading {request.path}…")
        if not request.reload and isinstance(dock, QDockWidget):
            dock.show()
            dock.raise_()
        self.importStarted.emit(request.path)

    def _on_runner_progressed(self, task_id: int, permille: int) -> None:
        if task_id == self._task_id:
            self.progress.setValue(permille)

    def _on_runner_finished(self, outcome: TaskOutcome) -> None:
        if outcome.task_id != self._task_id or self._request is None:
            return  # a task replaced by a newer one
        request, self._request = self._request, None
        launch = self.previews.end(outcome.value)
        self.progress_row.hide()
        status = self.window_.statusBar()
        if outcome.error is not None or outcome.cancelled:
            self.previews.restore()
        if outcome.cancelled:
            status.showMessage("Import cancelled; the previous table and inputs are kept", 5000)
            self.importCancelled.emit()
        elif outcome.error is not None:
            self.banner.show_message(outcome.error)
            status.showMessage(outcome.error, 10000)
            self.importFailed.emit(outcome.error)
        else:
            self._show_table(outcome.value, request, launch)
            self.importFinished.emit(request.path)

    def _show_table(self, table: KernelTable, request: ImportRequest, launch: RowLaunch | None = None) -> None:
        before, picked = self.previews.hand_over()  # a row chosen among the previews: kept, not loaded again
        if picked:
            request = ImportRequest(
                request.path, None, request.match_device, request.reload, request.stamp, request.overrides, apply=False
            )
        keep = (
            self._selected[0]
            if picked and self._selected
            else request.select or (self._selected[0] if request.reload and self._selected else None)
        )
        keep_arch = self._selected[1] if (picked or request.reload) and self._selected else None
        self.banner.clear_message()
        self.file_watch.watch(request.path, request.stamp)
        self.path = request.path
        self._selected = None
        old = self.model.table
        self.model.set_table(
            table, launch if launch is not None else self._occupancy(table), self.session.inputs.threads
        )
        if self.session.vendor != NVIDIA and table.nvidia_rows:
            self.model.set_launch(self.model.launch, self.session.inputs.threads, unavailable(self.session))
        show_vendor_columns(self.view, table.vendors or frozenset({NVIDIA}))
        # After previews the columns were fitted to the first rows (the whole table's first rows): not again, on
        # 2,000 rows' cells on the GUI thread (272 ms of AMD rows), unless NVIDIA rows came with the whole table.
        if before is None or table.nvidia_rows:
            fit_figure_columns(self.view)
        self.filter_edit.table_replaced()
        for gone in (old, before[0] if before is not None else None):  # the table replaced, the one before previews
            if gone is not None and len(gone) > 10_000:
                # Freeing 10^5 records takes ~0.1 s: on a pool thread, once the new table has painted.
                QTimer.singleShot(RELEASE_DELAY_MS, self, partial(self.runner.pool.start, release_task(gone)))
        del old, before, gone
        self.source_label.setText(request.path)
        self.source_label.setToolTip(request.path)
        self.update_count()
        processor = self.session.amd_profile.target.name if self.session.vendor == AMD else None
        record = (
            self.model.find(keep, keep_arch, processor) if keep else self._first_kernel() if request.apply else None
        )
        row = None if record is None else self.model.row_of(record)
        if row is not None:
            self._select_row(row, request)
        else:
            self._update_notes()
        verb = "Reloaded" if request.reload else "Imported"
        kernels = int(table.is_kernel.sum())
        others = len(table) - kernels
        message = f"{verb} {kernels} kernel{'s' if kernels != 1 else ''}"
        if others:
            message += f" and {others} device function{'s' if others != 1 else ''}"
        message += f" from {os.path.basename(request.path)}"
        if keep and row is None:
            message += f"; {keep} is no longer in it"
        if table.notes:
            message += f"; {len(table.notes)} note{'s' if len(table.notes) != 1 else ''} on the count above the table"
        self.window_.statusBar().showMessage(message, 5000)

    def _first_kernel(self) -> int | None:
        table = self.model.table
        if table is None or not len(table) or not self.model.rowCount():
            return None
        rows = [self.model.record_index(r) for r in range(min(self.model.rowCount(), 1000))]
        return next((i for i in rows if table.is_kernel[i]), rows[0])

    # ----------------------------------------------------------------------------- selection -> session
    def _set_current_row(self, row: int) -> QModelIndex:
        index = self.proxy.index(row, 0)
        self.view.selectionModel().setCurrentIndex(index, _SELECT_ROW)
        return index

    def _select_row(self, row: int, request: ImportRequest | None = None) -> None:
        self._restoring = True
        try:
            self.view.scrollTo(self._set_current_row(row))
        finally:
            self._restoring = False
        i = self.model.record_index(row)
        if request is not None and not request.apply:
            self._selected = (self.model.table.names[i], self.model.table.arch[i], i)  # type: ignore[union-attr]  # a row: a table
            self._update_notes()
            return
        self._apply(i, request.match_device if request else False, request.overrides if request else None)

    def _on_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        if self._restoring or selected.isEmpty():
            return
        self.previews.row_chosen()  # a preview's row: the whole table keeps it
        self._apply(self.model.record_index(selected.indexes()[0].row()))

    def _apply(self, i: int, match_device: bool = False, overrides: dict[str, Any] | None = None) -> None:
        t = self.model.table
        assert t is not None
        self._selected = (t.names[i], t.arch[i], i)
        apply_row(self.session, t, i, self.window_.statusBar().showMessage, match_device, overrides)
        self._update_notes()

    # ----------------------------------------------------------------------------- notes and occupancy
    def _selected_record(self) -> int | None:
        """The loaded kernel's record in the table shown (a new table clears it before its first selection)."""
        return None if self._selected is None else self._selected[2]

    def _update_notes(self) -> None:
        i = self._selected_record()
        t = self.model.table
        notes: Notes = (None, None)
        if t is not None and i is not None and self.session.vendor == NVIDIA and not t.is_amd(i):
            notes = kernel_notes(t, i, self.session.inputs, self.session.device, self.session.catalog)
        self.kernel_panel.set_import_notes(*notes)
        self.notes = notes

    def _occupancy(self, table: KernelTable) -> RowLaunch:
        """Every row's threads and occupancy as the calculator will give them once the row is chosen."""
        return self._launch_fn()(table)

    def _launch_fn(self) -> Callable[[KernelTable], RowLaunch]:
        """:meth:`_occupancy` with the calculator's inputs of now, callable on a pool thread (``kernel_apply``)."""
        return launch_fn(self.session)

    def on_session_changed(self, changed: frozenset[str]) -> None:
        if changed & _OCCUPANCY_INPUTS and self.model.table is not None:
            self.model.set_launch(
                self._occupancy(self.model.table), self.session.inputs.threads, unavailable(self.session)
            )
        self._update_notes()

    # ----------------------------------------------------------------------------- filter
    def _apply_filter(self) -> None:
        self._refilter(lambda: self.proxy.set_filter_text(self.filter_edit.text()))

    def _on_all_functions_toggled(self, shown: bool) -> None:
        self._refilter(lambda: self.model.set_all_functions(shown))

    def _refilter(self, change: Callable[[], None]) -> None:
        """Change which rows show, keeping the selected kernel selected where it still shows."""
        selected = self._selected_record()
        self._restoring = True
        try:
            change()
            row = None if selected is None else self.model.row_of(selected)
            if row is not None:
                self._set_current_row(row)
        finally:
            self._restoring = False
        self.update_count()

    # ----------------------------------------------------------------------------- watching
    def _on_file_watch_file_rewritten(self, path: str, stamp: tuple[int, int] | None) -> None:
        if self._request is not None and self._request.path != path:
            return  # another file is being imported; do not cancel it
        self._start(ImportRequest(path, None, False, reload=True, stamp=stamp))

    # ----------------------------------------------------------------------------- drag and drop, close
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        kind = event.type()
        if kind in DROP_EVENTS:  # not ours (session files) falls through to whoever opens sessions
            return accept_drop(event, dropped_compiler_output, self.load)
        if kind == QEvent.Type.Close:
            self.shutdown()
        return False

    def shutdown(self) -> None:
        """Stop watching and wait for the import thread (the window is closing)."""
        self.file_watch.stop()
        if self._runner is not None:
            self._runner.shutdown()
