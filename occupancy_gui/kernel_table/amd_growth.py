"""An import's kernel table grown as its AMD rows arrive: each table made from the one before and the new rows.

Qt-free (the view-model layer, above ``kernel_table``).  ``importers.amd.read_amd`` tells its ``rows`` callback
the records merged so far after each batch, and the rows read keep their places (``CopyMerger``: a later copy
only raises an earlier row's ``copies``, which no column holds), so the table of more records is the table of
fewer plus the new rows' columns.  The window's previews of an import (``ui.kernels.import_stream``) and then its
whole table are made so: each record's columns are read once, not once per preview, and every table of the import
shares one :class:`~occupancy_gui.filter_masks.SearchTexts`.  Made afresh, xla_rocm_plugin.so's 27,611 search
texts (109 MB) were made again for each preview and for the whole table, two of which the window holds at once
(its peak was 989 MiB).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .amd_rows import AmdColumns, combo_keys, read_amd_rows, set_combos
from .filter_masks import SearchTexts
from .rows import TableRecords
from .table import INT_COLUMNS, KernelTable, int64_columns

if TYPE_CHECKING:
    from ..importers import AmdKernelRecord


class AmdTableGrowth:
    """The tables of one import's AMD records, each made from the last (:meth:`table`); one thread at a time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.texts = SearchTexts()
        self.last: KernelTable | None = None
        """The table :meth:`table` made last (its columns are the next one's first rows)."""

    def table(self, records: Sequence[AmdKernelRecord]) -> KernelTable:
        """The table of ``records`` — AMD records only, those of the last table first, in their places — equal
        to ``KernelTable.from_records(path, [], None, records)``; it becomes the last.  The columns of the last
        table's rows are taken from it, not read again (fewer records than it has: all are read)."""
        from ..importers import Records  # noqa: PLC0415 - lazy: loaded with the records, off the GUI thread

        last = self.last
        m = len(last) if last is not None and last.amd is not None and len(records) >= len(last) else 0
        if not m:
            self.texts = SearchTexts()  # (fewer records: their texts only, as from_records makes them)
        read = read_amd_rows(records[m:], m)
        ids = self.texts.add(read.demangled, read.names)
        texts = self.texts.texts
        ints = dict(zip(INT_COLUMNS, int64_columns(read.shared)))
        ints["is_kernel"] = ints["is_kernel"].astype(bool)
        names, demangled, hay, arch = read.names, read.demangled, list(map(texts.__getitem__, ids)), read.targets
        search_ids, own = np.array(ids, np.int64), read.own
        if m:
            assert last is not None and last.amd is not None
            ints = {name: np.concatenate([getattr(last, name), column]) for name, column in ints.items()}
            names, demangled = last.names + names, last.demangled + demangled
            hay, arch = last.haystack + hay, last.arch + arch
            search_ids = np.concatenate([last.search_ids, search_ids])
            own = joined(last.amd, own)
        table = KernelTable(
            self.path,
            TableRecords(Records.of([]), list(records)),
            names,
            demangled,
            hay,
            arch,
            **ints,
            nvidia_count=0,
            amd=own,
            search_texts=texts[:],  # this table's: the texts go on growing
            search_ids=search_ids,
        )
        set_combos(
            own,
            combo_keys(
                own,
                table.registers,
                table.static_smem,
                table.max_threads,
                table.required,
                table.launch_block,
                table.launch_dynamic,
            ),
        )
        self.last = table
        return table


def joined(first: AmdColumns, then: AmdColumns) -> AmdColumns:
    """The AMD columns of ``first``'s rows and then ``then``'s (their combinations not yet found)."""
    processors = sorted({*first.processors, *then.processors})

    def renumbered(own: AmdColumns) -> np.ndarray:
        if own.processors == processors:
            return own.processor
        numbers: np.ndarray = np.array([processors.index(p) for p in own.processors], np.int64)[own.processor]
        return numbers

    return AmdColumns(
        rows=np.concatenate([first.rows, then.rows]),
        sgprs=np.concatenate([first.sgprs, then.sgprs]),
        agprs=np.concatenate([first.agprs, then.agprs]),
        allocated=np.concatenate([first.allocated, then.allocated]),
        wave_size=np.concatenate([first.wave_size, then.wave_size]),
        wgp=np.concatenate([first.wgp, then.wgp]),
        padded=np.concatenate([first.padded, then.padded]),
        processors=processors,
        processor=np.concatenate([renumbered(first), renumbered(then)]),
    )
