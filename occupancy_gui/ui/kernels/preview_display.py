"""An import's rows shown while it still reads them, and the table shown before them brought back if it fails.

An AMD import sends previews of the rows read so far and, between them, their count (``import_stream``).
:class:`PreviewDisplay` shows each preview in the panel's table, keeping the chosen row, the scroll position, sort
and filter, and the count on the status line.  The first preview keeps what the table showed before it
(:data:`Before`): a cancelled or failed import shows that again (:meth:`PreviewDisplay.restore`); a finished one
hands it to the panel (:meth:`PreviewDisplay.hand_over`), which frees it and keeps a row chosen among the previews.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QModelIndex, QObject

from ...fields import AMD, NVIDIA
from ...kernel_table import KernelTable, RowLaunch
from .import_stream import Preview, PreviewBuilder, StreamSignals
from .kernel_table_view import fit_figure_columns, show_vendor_columns

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QTableView

    from ...session import Session
    from .import_tasks import ImportRequest
    from .kernel_filter import KernelFilter
    from .kernel_table_model import KernelTableModel

PREVIEWED_SAMPLE = 200
"""Rows the figures' columns are fitted to at an import's first preview (2,000 rows of AMD kernels: 272 ms)."""

Before = tuple[KernelTable | None, RowLaunch, int, str | None, tuple[str, str, int] | None]
"""What the table showed before an import's first preview: table, launch, threads, unavailable and the panel's
selected kernel (mangled name, arch, record index)."""


class PreviewHost(Protocol):
    """What the previews read and set of the import panel that owns them (``ImportPanel``)."""

    session: Session
    model: KernelTableModel
    view: QTableView
    filter_edit: KernelFilter
    window_: QMainWindow
    _selected: tuple[str, str, int] | None
    _request: ImportRequest | None
    _restoring: bool

    def _launch_fn(self) -> Callable[[KernelTable], RowLaunch]: ...
    def _occupancy(self, table: KernelTable) -> RowLaunch: ...
    def _selected_record(self) -> int | None: ...
    def _set_current_row(self, row: int) -> QModelIndex: ...
    def update_count(self) -> None: ...


class PreviewDisplay(QObject):
    """The previews of the panel's import under way (the panel's ``previews``).

    A QObject so that the previews, emitted on the import's pool thread, arrive queued on the GUI thread.
    """

    def __init__(self, panel: PreviewHost, parent: QObject) -> None:
        super().__init__(parent)
        self.panel = panel
        self.before: Before | None = None
        """What the table showed before the first preview: a cancelled or failed import shows it again."""
        self.picked = False  # a row was chosen among the previews: the whole table keeps it
        self.stream: PreviewBuilder | None = None  # the import under way's previews, made on its pool thread
        self.signals = StreamSignals(self)
        self.signals.previewed.connect(self.on_previewed)
        self.signals.counted.connect(self.on_counted)

    def builder(self, request: ImportRequest) -> PreviewBuilder:
        """The previews' maker for ``request``'s import, run on its pool thread (``import_stream``); it replaces any
        import's before it."""
        panel = self.panel
        self.stream = PreviewBuilder(
            request,
            request.path,
            self.signals,
            panel._launch_fn(),
            panel.session.inputs,
            lambda: panel.model.filter_text,
        )
        return self.stream

    def end(self, table: object) -> RowLaunch | None:
        """The import is over: its whole ``table``'s occupancy as its previews computed it, where the calculator's
        inputs are still those they were computed with (else ``None``: the panel computes it)."""
        stream, self.stream = self.stream, None
        final = stream.final if stream is not None and stream.inputs == self.panel.session.inputs else None
        return final[1] if final and final[0] is table else None

    def row_chosen(self) -> None:
        """A row was chosen in the table: if it is a preview's, the whole table keeps it."""
        self.picked = self.before is not None

    def hand_over(self) -> tuple[Before | None, bool]:
        """The import's whole table is shown: (what the table showed before the previews, whether a row chosen
        among them stays chosen).  Where none was chosen, the kernel selected before is the panel's again."""
        before, self.before = self.before, None
        picked = self.picked and self.panel._selected is not None  # chosen among the previews: kept, not loaded again
        self.picked = False
        if before is not None and not picked:  # what was selected before the previews, for a reload to keep
            self.panel._selected = before[4]
        return before, picked

    def on_previewed(self, preview: Preview) -> None:
        """Show the rows an import has read so far, keeping the chosen row, the scroll position, sort and filter."""
        panel = self.panel
        if preview.token is not panel._request:
            return  # of an import replaced, cancelled or done
        model = panel.model
        if self.before is None:
            self.before = (model.table, model.launch, model.threads, model.unavailable, panel._selected)
            panel._selected, self.picked = None, False
        table = preview.table
        launch = preview.launch if preview.inputs == panel.session.inputs else panel._occupancy(table)
        first = model.table is self.before[0]
        selected = panel._selected_record()
        bar = panel.view.verticalScrollBar()
        at = bar.value()
        panel._restoring = True
        try:
            model.set_table(table, launch, panel.session.inputs.threads)
            row = None if selected is None else model.row_of(selected)
            if row is not None:
                panel._set_current_row(row)
        finally:
            panel._restoring = False
        if first:
            show_vendor_columns(panel.view, frozenset({AMD}))  # previews: AMD rows only
            fit_figure_columns(panel.view, PREVIEWED_SAMPLE)
        bar.setValue(at)
        panel.filter_edit.table_replaced()
        panel.update_count()
        self.on_counted(preview.token, len(table))

    def on_counted(self, token: object, rows: int) -> None:
        request = self.panel._request
        if token is request and request is not None:
            self.panel.window_.statusBar().showMessage(
                f"Reading {os.path.basename(request.path)}… {rows} kernel{'s' if rows != 1 else ''} so far"
            )

    def restore(self) -> None:
        """A cancelled or failed import: the table shown before its previews, its figures and chosen row again."""
        before, self.before = self.before, None
        self.picked = False
        if before is None:
            return
        panel = self.panel
        table, launch, threads, unavailable, selected = before
        panel._restoring = True
        try:
            panel.model.set_table(table, launch, threads)
            panel.model.set_launch(launch, threads, unavailable)
            show_vendor_columns(
                panel.view, (table.vendors if table is not None else frozenset()) or frozenset({NVIDIA})
            )
            panel._selected = selected
            row = None if selected is None else panel.model.row_of(selected[2])
            if row is not None:
                panel._set_current_row(row)
        finally:
            panel._restoring = False
        panel.filter_edit.table_replaced()
        panel.update_count()
