"""The kernel table's filter box: what it shows is applied once its rows are found, never mid-key.

A new text's first scan runs a few milliseconds at a time between events (``IdleSteps`` over
``KernelTableModel.filter_steps``): on libtorch_cuda's 143,409 names that scan took 73-119 ms in one
call, a stall every typed word felt.  Each key starts its text's scan at once and drops the one before:
a scan that finished before the next key narrows that key's (``FilterMasks``), so typing a key every
100 ms into libtorch_cuda showed the rows 4-48 ms after the last key, where a 150 ms pause before
scanning showed them after 190-277 ms.  The rows are shown when the scan is done, by ``apply`` (the
dock's refilter, which then scans nothing).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QLineEdit, QWidget

from ..support.idle_steps import IdleSteps
from ..support.qt_utils import signals_blocked
from .kernel_table_model import KernelTableModel


class KernelFilter(QLineEdit):
    """A line edit whose text filters ``model``'s rows; ``apply()`` shows the rows of :meth:`text`."""

    def __init__(self, model: KernelTableModel, apply: Callable[[], None], parent: QWidget) -> None:
        super().__init__(parent)
        self.model = model
        self._apply = apply
        self.setPlaceholderText("Filter kernels by name…")
        self.setClearButtonEnabled(True)
        self.setToolTip("Show the kernels whose demangled or mangled name contains this text")
        self.scan = IdleSteps(self)
        self.textChanged.connect(self._on_text_changed)

    def set_text_now(self, text: str) -> None:
        """Show ``text`` and its rows at once (a scan, if any, on this call)."""
        with signals_blocked(self):
            self.setText(text)
        self.scan.stop()
        self._apply()

    def table_replaced(self) -> None:
        """A scan under way read the old table's rows: scan the new one's."""
        if self.scan.busy:
            self._scan()

    def _on_text_changed(self, _text: str) -> None:
        self._scan()  # drops the scan of the text before this key

    def _scan(self) -> None:
        self.scan.run(self.model.filter_steps(self.text()), self._apply)
