"""Import compiler output into the window: a kernel table dock fed by a background import.

File → Import compiler output… (Ctrl+I), a file dropped on the window, or ``occupancy-gui FILE``
read the file on a pool thread (``importers.import_file``; the format is detected from the content)
with a progress bar and a Cancel button.  Selecting a row loads that kernel into the inputs.  The
file is watched: when a build rewrites it, it is read again and the selected kernel kept by name.
A failed or cancelled import leaves the previous table and inputs as they were.
"""

from __future__ import annotations

import os
from collections.abc import Callable
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
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
)

from ...fields import AMD, NVIDIA
from ...kernel_table import KernelTable, RowLaunch
from ..support.deferred import DeferredUpdate
from ..support.file_drop import DROP_EVENTS, accept_drop, dropped_compiler_output
from ..support.file_watch import FileWatch, file_stamp
from ..support.tasks import TaskOutcome, TaskRunner
from . import import_tasks
from .import_stream import Preview, PreviewBuilder, StreamSignals
from .import_tasks import ImportRequest, release_task
from .import_widgets import ImportPanelWidgets
from .kernel_apply import apply_row, launch_fn
from .kernel_inputs import Notes, kernel_notes
from .kernel_table_view import fit_figure_columns
from .table_columns import AMD_COLUMNS, NVIDIA_COLUMNS

if TYPE_CHECKING:
    from ...importers import KernelRecord
    from ..calculator.kernel_panel import KernelPanel
    from ..support.window_api import WindowApi

DOCK_SETTLE_S = 0.06
"""How long the first import waits while the dock opens and the window repaints around it."""
RELEASE_DELAY_MS = 300
"""A replaced table is freed this long after the new one is shown (its first paint goes first)."""
FILE_FILTER = (
    "Compiler output (*.log *.txt *.out *.err *.cubin *.fatbin *.o *.obj *.a *.lib *.so *.dll *.csv);;All files (*)"
)
PREVIEWED_SAMPLE = 200
"""Rows the figures' columns are fitted to at an import's first preview (2,000 rows of AMD kernels: 272 ms)."""
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
        self._stream: PreviewBuilder | None = None  # the import under way's previews (import_stream)
        self._before: tuple[KernelTable | None, RowLaunch, int, str | None, tuple[str, str, int] | None] | None = None
        """What the table showed before the first preview (table, launch, threads, unavailable, selected): a
        cancelled or failed import shows it again."""
        self._picked = False  # a row was chosen among the previews: the whole table keeps it
        self.stream_signals = StreamSignals(self)
        self.stream_signals.previewed.connect(self._on_previewed)
        self.stream_signals.counted.connect(self._on_counted)
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
        self._stream = PreviewBuilder(
            request,
            request.path,
            self.stream_signals,
            self._launch_fn(),
            self.session.inputs,
            lambda: self.model.filter_text,
        )
        task = import_tasks.import_task(
            request.path,
            settle_s=DOCK_SETTLE_S if opening else 0.0,
            filter_text=self.model.filter_text,
            stream=self._stream,
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
        stream, self._stream = self._stream, None
        self.progress_row.hide()
        status = self.window_.statusBar()
        if outcome.error is not None or outcome.cancelled:
            self._restore_before()
        if outcome.cancelled:
            status.showMessage("Import cancelled; the previous table and inputs are kept", 5000)
            self.importCancelled.emit()
        elif outcome.error is not None:
            self.banner.show_message(outcome.error)
            status.showMessage(outcome.error, 10000)
            self.importFailed.emit(outcome.error)
        else:
            final = stream.final if stream is not None and stream.inputs == self.session.inputs else None
            self._show_table(outcome.value, request, final[1] if final and final[0] is outcome.value else None)
            self.importFinished.emit(request.path)

    def _show_table(self, table: KernelTable, request: ImportRequest, launch: RowLaunch | None = None) -> None:
        before, self._before = self._before, None
        picked = self._picked and self._selected is not None  # chosen among the previews: kept, not loaded again
        if picked:
            request = ImportRequest(
                request.path, None, request.match_device, request.reload, request.stamp, request.overrides, apply=False
            )
        if before is not None and not picked:  # what was selected before the previews, for a reload to keep
            self._selected = before[4]
        keep = (
            self._selected[0]
            if picked and self._selected
            else request.select or (self._selected[0] if request.reload and self._selected else None)
        )
        keep_arch = self._selected[1] if (picked or request.reload) and self._selected else None
        self._picked = False
        self.banner.clear_message()
        self.file_watch.watch(request.path, request.stamp)
        self.path = request.path
        self._selected = None
        old = self.model.table
        self.model.set_table(
            table, launch if launch is not None else self._occupancy(table), self.session.inputs.threads
        )
        if self.session.vendor != NVIDIA and table.nvidia_rows:
            self.model.set_launch(self.model.launch, self.session.inputs.threads, self._unavailable())
        vendors = table.vendors or frozenset({NVIDIA})
        for column in AMD_COLUMNS | NVIDIA_COLUMNS:
            self.view.setColumnHidden(column, (AMD if column in AMD_COLUMNS else NVIDIA) not in vendors)
        # After previews the columns were fitted to the first rows (the whole table's first rows): not again, on
        # 2,000 rows' cells on the GUI thread (272 ms of AMD rows), unless NVIDIA rows came with the whole table.
        if before is None or table.nvidia_rows:
            fit_figure_columns(self.view)
        self.filter_edit.table_replaced()
        if old is not None and len(old) > 10_000:
            # Freeing 10^5 records takes ~0.1 s: on a pool thread, once the new table has painted.
            release = release_task(old)
            QTimer.singleShot(RELEASE_DELAY_MS, self, lambda: self.runner.pool.start(release))
        if before is not None and before[0] is not None and len(before[0]) > 10_000:  # the table before the previews
            release_before = release_task(before[0])
            QTimer.singleShot(RELEASE_DELAY_MS, self, lambda: self.runner.pool.start(release_before))
        del old, before
        self.source_label.setText(request.path)
        self.source_label.setToolTip(request.path)
        self._update_count()
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
        self._picked = self._before is not None  # a preview's row: the whole table keeps it
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

    # ----------------------------------------------------------------------------- rows while reading
    def _on_previewed(self, preview: Preview) -> None:
        """Show the rows an import has read so far, keeping the chosen row, the scroll position, sort and filter."""
        if preview.token is not self._request:
            return  # of an import replaced, cancelled or done
        if self._before is None:
            m = self.model
            self._before = (m.table, m.launch, m.threads, m.unavailable, self._selected)
            self._selected, self._picked = None, False
        table = preview.table
        launch = preview.launch if preview.inputs == self.session.inputs else self._occupancy(table)
        first = self.model.table is self._before[0]
        selected = self._selected_record()
        bar = self.view.verticalScrollBar()
        at = bar.value()
        self._restoring = True
        try:
            self.model.set_table(table, launch, self.session.inputs.threads)
            row = None if selected is None else self.model.row_of(selected)
            if row is not None:
                self._set_current_row(row)
        finally:
            self._restoring = False
        if first:
            for column in AMD_COLUMNS | NVIDIA_COLUMNS:
                self.view.setColumnHidden(column, column in NVIDIA_COLUMNS)  # previews: AMD rows only
            fit_figure_columns(self.view, PREVIEWED_SAMPLE)
        bar.setValue(at)
        self.filter_edit.table_replaced()
        self._update_count()
        self._on_counted(preview.token, len(table))

    def _on_counted(self, token: object, rows: int) -> None:
        if token is self._request and self._request is not None:
            self.window_.statusBar().showMessage(
                f"Reading {os.path.basename(self._request.path)}… {rows} kernel{'s' if rows != 1 else ''} so far"
            )

    def _restore_before(self) -> None:
        """A cancelled or failed import: the table shown before its previews, its figures and chosen row again."""
        before, self._before = self._before, None
        self._picked = False
        if before is None:
            return
        table, launch, threads, unavailable, selected = before
        self._restoring = True
        try:
            self.model.set_table(table, launch, threads)
            self.model.set_launch(launch, threads, unavailable)
            vendors = (table.vendors if table is not None else frozenset()) or frozenset({NVIDIA})
            for column in AMD_COLUMNS | NVIDIA_COLUMNS:
                self.view.setColumnHidden(column, (AMD if column in AMD_COLUMNS else NVIDIA) not in vendors)
            self._selected = selected
            row = None if selected is None else self.model.row_of(selected[2])
            if row is not None:
                self._set_current_row(row)
        finally:
            self._restoring = False
        self.filter_edit.table_replaced()
        self._update_count()

    def _unavailable(self) -> str | None:
        """Why the rows have no threads and occupancy now (an AMD device is selected), or ``None``."""
        if self.session.vendor == NVIDIA:
            return None
        return (
            f"{self.session.inputs.device} is an AMD device: these NVIDIA kernels have no occupancy on it. "
            "Choosing one selects the device of its architecture."
        )

    def on_session_changed(self, changed: frozenset[str]) -> None:
        if changed & _OCCUPANCY_INPUTS and self.model.table is not None:
            self.model.set_launch(self._occupancy(self.model.table), self.session.inputs.threads, self._unavailable())
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
        self._update_count()

    def _update_count(self) -> None:
        table = self.model.table
        kernels = int(table.is_kernel.sum()) if table is not None else 0
        others = (len(table) if table is not None else 0) - kernels
        text = f"{kernels} kernel{'s' if kernels != 1 else ''}"
        if others:
            text += f" + {others} device function{'s' if others != 1 else ''}"
            text += "" if self.all_functions.isChecked() else " (hidden)"
        shown = self.model.rowCount()
        text = text if shown == self.model.listable() else f"{text}, {shown} shown"
        notes = table.notes if table is not None else ()
        if notes:  # the import's own notes (skipped entries, assumptions): counted here, read in the tooltip
            text += f" · {len(notes)} note{'s' if len(notes) != 1 else ''}"
        self.count_label.setText(text)
        self.count_label.setToolTip("\n\n".join(notes))
        from ...importers import LAUNCH_BOUNDS_NOTE, printable  # noqa: PLC0415 - lazy: start-up loads no importer

        said = (
            [printable(notes[0]) + (f" (and {len(notes) - 1} more: hover the count)" if len(notes) > 1 else "")]
            if notes
            else []
        )
        if table is not None and table.launch_bounds_unknown:
            said.append(f"Launch bounds shown as ? : {LAUNCH_BOUNDS_NOTE}.")
        info = "\n".join(said)
        if self.info.text() != info:
            self.info.setText(info)
        self.info.setVisible(bool(info))

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

    def open_file_dialog(self) -> None:
        """File → Import compiler output…: ask for a file, starting where the last one was."""
        start = os.path.dirname(self.path) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self.window_, "Import compiler output", start, FILE_FILTER)
        if path:
            self.load(path)
