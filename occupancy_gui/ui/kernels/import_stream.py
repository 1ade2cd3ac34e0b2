"""The kernel table's rows while an import still reads them: previews of the AMD rows read so far.

A ROCm library lists 4 x 10^5 AMD kernels and takes seconds to read whole; its first code object is read in a
fraction of a second (``importers.amd.read_amd`` tells its ``rows`` callback the records merged so far after
each batch).  :class:`PreviewBuilder`, on the import's pool thread, makes a :class:`Preview` of them — the
table's columns, each row's occupancy (``launch``, computed there with the calculator's inputs as the import
began), the filter's rows — and hands it to the GUI thread by a queued signal, which shows it with one model
reset.  Each preview's table is the last one's plus the rows read since (``amd_table_growth``), and so is the
whole table's at the end.  Previews are made when the rows have grown by :data:`GROWTH` since the last one and at most once per
:data:`INTERVAL_S`: their cost on both threads stays a small multiple of the final table's (a geometric
series), and the window resets its model a dozen times in a 410,000-row import, not once per code object.
Between previews :class:`StreamSignals` carries the count alone (the status line's "N kernels so far…").

Nothing here touches a widget; the panel (``import_panel``) shows what arrives.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ...kernel_table import AmdTableGrowth, FilterMasks, KernelTable, RowLaunch

if TYPE_CHECKING:
    from ...importers import AmdKernelRecord

GROWTH = 1.5
"""A new preview once the rows read are this many times the last preview's."""
INTERVAL_S = 0.25
"""At least this long between two previews (the first is made at once)."""
COUNT_INTERVAL_S = 0.2
"""At most one count signal per this long."""


@dataclass(frozen=True)
class Preview:
    """The rows an import has read so far, ready to show."""

    token: object
    """The import it belongs to (the panel's ``ImportRequest``): a preview of a replaced import is dropped."""
    table: KernelTable
    launch: RowLaunch
    inputs: object
    """The calculator's inputs ``launch`` was computed for (the panel recomputes it where they changed since)."""


class StreamSignals(QObject):
    """Created in the GUI thread, emitted from the pool thread: Qt queues the calls to the panel."""

    previewed = Signal(object)  # Preview
    counted = Signal(object, int)  # token, rows read so far


LaunchFn = Callable[[KernelTable], RowLaunch]


class PreviewBuilder:
    """The ``rows`` callback of one import's AMD reading (pool thread): previews, throttled, and counts.

    ``launch`` computes a table's occupancy column with the inputs ``inputs`` stands for; ``filter_text()``
    is the filter shown (case-folded; a plain attribute read), whose rows each preview finds here too."""

    def __init__(
        self,
        token: object,
        path: str,
        signals: StreamSignals,
        launch: LaunchFn,
        inputs: object,
        filter_text: Callable[[], str],
    ) -> None:
        self.token, self.path, self.signals = token, path, signals
        self.launch, self.inputs, self.filter_text = launch, inputs, filter_text
        self._next_rows = 1
        self._due = 0.0
        self._counted = 0.0
        self.previews = 0
        self.final: tuple[KernelTable, RowLaunch] | None = None
        """The whole table and its occupancy column, where previews were shown (``import_tasks.import_task``)."""
        self.growth = AmdTableGrowth(path)
        """The previews' tables, each grown from the last; the whole table too, once read (``import_tasks``)."""

    def __call__(self, records: list[AmdKernelRecord]) -> None:
        n, now = len(records), time.monotonic()
        if n >= self._next_rows and now >= self._due:
            self.signals.previewed.emit(self.preview(records))
            self.previews += 1
            self._next_rows = int(n * GROWTH) + 1
            self._due = time.monotonic() + INTERVAL_S
        elif now - self._counted >= COUNT_INTERVAL_S:
            self._counted = now
            self.signals.counted.emit(self.token, n)

    def preview(self, records: list[AmdKernelRecord]) -> Preview:
        """A table of ``records`` (copied: the reader goes on adding to its list), its occupancy and filter rows."""
        table = self.growth.table(records)
        needle = self.filter_text()
        if needle:
            FilterMasks(table).mask(needle)
        return Preview(self.token, table, self.launch(table), self.inputs)
