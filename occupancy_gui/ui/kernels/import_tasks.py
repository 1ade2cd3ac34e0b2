"""The kernel table dock's pool-thread work: read a file into a :class:`KernelTable`, free an old one.

Nothing here touches a widget: the tasks run on ``TaskRunner``'s pool, and the panel shows their
outcome on the GUI thread.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...kernel_table import FilterMasks, KernelTable
from ..support.file_watch import file_stamp
from ..support.tasks import TaskCancelled, TaskFailed, quick_gil_handoff
from .import_stream import PreviewBuilder

BIG_FILE = 16 << 20
"""Files above this size are read with the cyclic collector paused until the table is built, and the
table stays frozen (``_process.collector.collection_paused``, ``keep_frozen``)."""


@dataclass
class ImportRequest:
    """One import asked of the panel, and what to do with its table once read."""

    path: str
    select: str | None
    match_device: bool
    reload: bool
    stamp: tuple[int, int] | None
    overrides: dict[str, Any] | None = None
    apply: bool = True


TaskFn = Callable[[Callable[[], bool], Callable[[int, int], None]], KernelTable]


def import_task(
    path: str, settle_s: float = 0.0, filter_text: str = "", stream: PreviewBuilder | None = None
) -> TaskFn:
    """The pool-thread work of one import: parse, then build the table's columns (no Qt).

    ``settle_s``: sleep this long first (the GIL free), while the GUI thread repaints a changed layout.
    ``filter_text``: the filter shown (case-folded): its rows are found here too, so that showing the
    table scans nothing on the GUI thread (a rebuilt 200 MB log's 137,990 names: tens of ms).
    ``stream``: told the AMD records read so far after each batch (previews of the rows, ``import_stream``);
    it also computes the whole table's occupancy column here (:attr:`PreviewBuilder.final`).
    """

    def run(cancelled: Callable[[], bool], progress: Callable[[int, int], None]) -> KernelTable:
        if settle_s:
            time.sleep(settle_s)
        # Imported here, on the pool thread: the first import does not load the parsers on the GUI thread.
        from ..._process.collector import collection_paused  # noqa: PLC0415 - lazy: as below
        from ...importers import ImportCancelled, ImportFailure, RecordCache, import_file_detailed  # noqa: PLC0415 - lazy: see above

        big = (file_stamp(path) or (0, 0))[0] > BIG_FILE
        try:
            with collection_paused(keep_frozen=True) if big else contextlib.nullcontext():
                result = import_file_detailed(
                    path, progress=progress, cancel=cancelled, cache=RecordCache(), amd_rows=stream
                )
                if cancelled():
                    raise ImportCancelled(path)
                if stream is not None and stream.previews and not result.records:
                    # The last preview's table plus the rows read since: its columns are not read again, and the
                    # two tables the window holds at once share their search texts.
                    table = stream.growth.table(result.amd_records)
                else:
                    table = KernelTable.from_records(path, result.records, cancelled, result.amd_records)
                table.notes = tuple(result.notes)
                table.launch_bounds_unknown = result.launch_bounds_unknown
                if filter_text:
                    FilterMasks(table).mask(filter_text)
                if stream is not None and stream.previews:
                    stream.final = (table, stream.launch(table))
                return table
        except ImportCancelled:
            raise TaskCancelled(path) from None
        except ImportFailure as exc:
            raise TaskFailed(str(exc)) from None

    return run


def release_task(table: KernelTable) -> Callable[[], None]:
    """Free a replaced table on a pool thread, in slices, so the GIL changes hands in between; then hand
    the freed memory back to the system (:func:`return_free_memory`)."""
    holder = [table]

    def run() -> None:
        old = holder.pop()
        with quick_gil_handoff():
            for column in (*old.records.parts(), old.names, old.demangled, old.haystack, old.arch):
                while column:
                    del column[-4096:]
        del old
        return_free_memory()

    return run


def return_free_memory() -> None:
    """Ask glibc's allocator to give its free pages back to the system (``malloc_trim``), where there is one.

    A table's long names are allocated by whichever pool thread read them, in that thread's arena, and
    freed memory stayed with the process: the window's RSS after opening libtorch_cuda (143,409 records,
    ~600 MiB of them) three times, each open replacing the last, grew 1,236 -> 1,676 -> 1,936 MiB; with a
    trim after each release, 1,188 -> 1,373 -> 1,354 MiB.  The trim takes ~50 ms here, on the pool thread,
    with the GIL released (a ``ctypes`` call)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes  # noqa: PLC0415 - lazy: loaded with the first table replaced

        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim  # musl has none: AttributeError
    except (OSError, AttributeError):
        return None
    return trim
