"""Which rows of a kernel table hold a filter text: NVIDIA rows scanned one search text each, AMD rows once per
distinct name.

Qt-free.  A ROCm library lists each kernel once per target (xla_rocm_plugin.so: 409,773 rows of 14,107 names,
their search texts 4 KB each): the AMD rows share one search text per name (``kernel_table``), and
:class:`FilterMasks` looks a text up in each distinct one once and maps the answers to the rows with numpy,
instead of scanning 1.5 GB of text per new word.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Protocol

import numpy as np


class Searched(Protocol):
    """What :class:`FilterMasks` reads of a table (``kernel_table.KernelTable``, a layer above this module)."""

    haystack: list[str]
    filter_masks: dict[str, np.ndarray]
    search_texts: list[str]
    search_ids: np.ndarray

    @property
    def nvidia_rows(self) -> int: ...


class FilterMasks:
    """Which rows of a table hold a text in their search text (:attr:`KernelTable.haystack`), remembered
    for the last :data:`KEEP` texts.  A row that does not hold ``gem`` cannot hold ``gemm``: a text that
    contains an earlier one is looked for only in the rows that one matched, and an earlier text (a
    backspace) costs nothing.

    A scan of libtorch_cuda's 143,409 rows (159 MB of search text) takes 27-100 ms: the window runs it
    :data:`STEP_ROWS` rows at a time between events (:meth:`steps`), so typing never stalls on it.  The AMD
    rows' distinct search texts (:attr:`KernelTable.search_texts`) are scanned instead of their rows."""

    KEEP = 8
    STEP_ROWS = 4096
    """Rows (or distinct AMD texts) looked through per step: 3 ms of libtorch_cuda's long names."""

    def __init__(self, table: Searched):
        self.table = table
        self.masks = table.filter_masks

    def mask(self, needle: str) -> np.ndarray:
        """A bool per row: whether its search text holds ``needle`` (already case-folded)."""
        if needle not in self.masks:
            for _ in self.steps(needle):
                pass
        found = self.masks.pop(needle)
        self.masks[needle] = found  # the most recent last
        return found

    def steps(self, needle: str) -> Iterator[int]:
        """Scan for ``needle`` a step at a time, yielding the rows left after each step but the last; once
        it is exhausted, :meth:`mask` answers without a scan.  Dropped half-way, it remembers nothing."""
        if needle in self.masks:
            return
        t = self.table
        hay = t.haystack
        within = [mask for text, mask in self.masks.items() if text in needle]
        narrowed = None if not within else within[0] if len(within) == 1 else np.logical_and.reduce(within)
        found = np.zeros(len(hay), dtype=bool)
        distinct = len(t.search_ids) == len(hay) - t.nvidia_rows and len(t.search_ids) > 0
        end = t.nvidia_rows if distinct else len(hay)
        if narrowed is not None:
            rows = np.flatnonzero(narrowed[:end])
            for at in range(0, rows.size, self.STEP_ROWS):
                part = rows[at : at + self.STEP_ROWS]
                found[part] = np.fromiter((needle in hay[i] for i in part.tolist()), dtype=bool, count=part.size)
                if at + part.size < rows.size:
                    yield rows.size - at - part.size
        else:
            texts = iter(hay)  # one pass, a slice of it per step
            for at in range(0, end, self.STEP_ROWS):
                count = min(self.STEP_ROWS, end - at)
                found[at : at + count] = np.fromiter(
                    (needle in h for h in islice(texts, count)), dtype=bool, count=count
                )
                if at + count < end:
                    yield end - at - count
        if distinct:
            if end:
                yield len(t.search_texts)  # the NVIDIA rows done; the AMD names next
            yield from self._distinct_steps(needle, found, narrowed)
        self.masks[needle] = found
        while len(self.masks) > self.KEEP:
            del self.masks[next(iter(self.masks))]

    def _distinct_steps(self, needle: str, found: np.ndarray, narrowed: np.ndarray | None) -> Iterator[int]:
        """The AMD rows' part of :meth:`steps`: each distinct search text once, then its answer to its rows."""
        t = self.table
        texts, ids, first = t.search_texts, t.search_ids, t.nvidia_rows
        if narrowed is None:
            candidates = np.arange(len(texts))
        else:
            wanted = np.zeros(len(texts), dtype=bool)
            wanted[ids[narrowed[first:]]] = True
            candidates = np.flatnonzero(wanted)
        hit = np.zeros(len(texts), dtype=bool)
        for at in range(0, candidates.size, self.STEP_ROWS):
            part = candidates[at : at + self.STEP_ROWS]
            hit[part] = np.fromiter((needle in texts[k] for k in part.tolist()), dtype=bool, count=part.size)
            if at + part.size < candidates.size:
                yield candidates.size - at - part.size
        found[first:] = hit[ids]


class SearchTexts:
    """The AMD rows' search texts, one per distinct name (case-folded ``demangled\\nmangled``), made once.

    A ROCm library lists each kernel once per target (xla_rocm_plugin.so: 377,913 rows of 27,611 names, 4 KB
    each): a text per row held 1.5 GB, and a text per name per table 109 MB, which a table grown while the rows
    stream (``amd_table_growth``) shares with the tables before it by keeping this object."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        """The distinct texts, in the order their names first came (only ever appended to)."""
        self._at: dict[str, int] = {}

    def add(self, demangled: list[str], names: list[str]) -> list[int]:
        """Each row's index in :attr:`texts`, a text made for each name not seen before."""
        at, texts = self._at, self.texts
        ids = []
        for pretty, name in zip(demangled, names):
            k = at.get(name)
            if k is None:
                k = at[name] = len(texts)
                texts.append(f"{pretty}\n{name}".casefold())
            ids.append(k)
        return ids
