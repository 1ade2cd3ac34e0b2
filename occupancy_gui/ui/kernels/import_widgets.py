"""The kernel table dock's widgets: the file and count heading, the error and info lines, the filter box with the
progress bar and Cancel in its row, the "All functions" box and the table view.

:class:`ImportPanelWidgets` makes and lays them out and writes the heading's count and the info line
(:meth:`~ImportPanelWidgets.update_count`); ``import_panel.ImportPanel`` (its subclass) gives them their behaviour,
passing its answers to Cancel, the filter, the check box and a selection to :meth:`_build_widgets`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelection, QSize, Qt
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from ..support.quantity import ErrorLabel
from .kernel_filter import KernelFilter
from .kernel_table_model import KernelSortFilterProxy, KernelTableModel
from .kernel_table_view import kernel_table_view
from .table_columns import AMD_COLUMNS


class ImportPanelWidgets(QWidget):
    """The widgets of ``import_panel.ImportPanel``, made by :meth:`_build_widgets`."""

    def _build_widgets(
        self,
        cancel: Callable[[], None],
        apply_filter: Callable[[], None],
        all_functions_toggled: Callable[[bool], None],
        selection_changed: Callable[[QItemSelection, QItemSelection], None],
    ) -> None:
        """Make the widgets; the callables are the panel's answers to Cancel, the filter, the check box and a
        selection."""
        self.model = KernelTableModel(self)  # the filter box reads it
        self._build_status(cancel)
        tools = self._build_tools(apply_filter, all_functions_toggled)
        self._build_view(selection_changed)
        self.count_label = QLabel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)  # tight: the bottom docks of a 1024×700 window have little height
        heading = QHBoxLayout()  # the file and how many kernels it holds, on one line
        heading.addWidget(self.source_label, 1)
        heading.addWidget(self.count_label, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(heading)
        layout.addWidget(self.banner)
        layout.addWidget(self.info)
        layout.addLayout(tools)
        layout.addWidget(self.view, 1)
        self._hint_height = super().sizeHint().height()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """The height the dock opens at, whatever the labels say: the wrapped file name and the count
        beside it change the layout's own hint by a line, and the window would re-lay out (and repaint
        every plot) when the first table arrives."""
        return QSize(super().sizeHint().width(), self._hint_height)

    def _build_status(self, cancel: Callable[[], None]) -> None:
        self.source_label = QLabel(
            "No compiler output imported. File → Import compiler output… (Ctrl+I), or drop a file on the window.", self
        )
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)
        self.source_label.setWordWrap(True)
        self.banner = ErrorLabel(self)
        self.banner.setObjectName("import_error")
        self.info = QLabel(self)  # what the import could not tell: kernels a cut-off log lost, launch bounds
        self.info.setObjectName("import_info")
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.hide()
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setFormat("Reading… %p%")
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop reading; the previous table and inputs are kept")
        self.cancel_button.clicked.connect(cancel)
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.cancel_button)
        self.progress_row = QWidget(self)
        self.progress_row.setLayout(progress_row)
        progress_row.setContentsMargins(0, 0, 0, 0)
        # Its place is kept while hidden: showing it at each import must not re-lay out the window
        # (a relayout repaints every plot on the GUI thread, ~150 ms at 1400x900).
        policy = self.progress_row.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.progress_row.setSizePolicy(policy)
        self.progress_row.hide()

    def _build_tools(
        self, apply_filter: Callable[[], None], all_functions_toggled: Callable[[bool], None]
    ) -> QHBoxLayout:
        self.filter_edit = KernelFilter(self.model, apply_filter, self)
        self.all_functions = QCheckBox("A&ll functions", self)
        self.all_functions.setToolTip(
            "List device functions too, not only kernels (__global__ entry points).\n"
            "Device functions are not launched: their figures count in the kernels\n"
            "that call them."
        )
        self.all_functions.toggled.connect(all_functions_toggled)
        tools = QHBoxLayout()
        tools.addWidget(self.filter_edit, 1)
        # In the filter's row and no taller than it: showing it must not move the table, whose
        # repaint (10^5 rows, while the reader thread holds the GIL) is the costliest in the window.
        tools.addWidget(self.progress_row, 1)
        self.progress_row.setMaximumHeight(self.filter_edit.sizeHint().height())
        tools.addWidget(self.all_functions)
        return tools

    def _build_view(self, selection_changed: Callable[[QItemSelection, QItemSelection], None]) -> None:
        self.proxy = KernelSortFilterProxy(self.model, self)
        self.view = kernel_table_view(self.proxy, self)
        for column in AMD_COLUMNS:  # shown once a table holds AMD kernels (_show_table)
            self.view.setColumnHidden(column, True)
        self.view.selectionModel().selectionChanged.connect(selection_changed)

    def update_count(self) -> None:
        """The heading's count of the table shown (kernels, device functions, rows the filter shows, the import's
        notes) and the info line under it (the first note, launch bounds not known)."""
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
