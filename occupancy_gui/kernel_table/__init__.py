"""The kernel table's rows and figures, Qt-free: what the window's Kernels dock shows of an import.

- ``table``: :class:`KernelTable` — an import's kernels as numpy columns (both vendors' rows), their occupancy at
  the table's block size computed vectorised, sorted and filtered without a Python object per row;
- ``rows``: the one row protocol both vendors' records satisfy, their tags and notes;
- ``amd_rows``: AMD records as the table's columns, the HIP runtime's occupancy per distinct combination;
- ``amd_growth``: a streamed AMD import's tables, each grown from the last (first rows while the file is read);
- ``filter_masks``: the filter box's matches, in steps, each distinct name read once;
- ``distinct_rows``: the distinct combinations of integer columns (``np.unique(axis=0)``'s answer, faster).
"""

from __future__ import annotations

from .amd_growth import AmdTableGrowth
from .amd_rows import AmdColumns, combo_keys
from .distinct_rows import distinct_rows
from .filter_masks import FilterMasks, SearchTexts
from .rows import TableRecords, cluster_note, record_notes, record_tags, row_notes, row_tags
from .table import (
    COMBO,
    INT_COLUMNS,
    SLICE,
    KernelTable,
    RowLaunch,
    amd_occupancy_column,
    occupancy_column,
    with_amd,
)

__all__ = [
    "COMBO",
    "INT_COLUMNS",
    "SLICE",
    "AmdColumns",
    "AmdTableGrowth",
    "FilterMasks",
    "KernelTable",
    "RowLaunch",
    "SearchTexts",
    "TableRecords",
    "amd_occupancy_column",
    "cluster_note",
    "combo_keys",
    "distinct_rows",
    "occupancy_column",
    "record_notes",
    "record_tags",
    "row_notes",
    "row_tags",
    "with_amd",
]
