"""``KernelTable.from_records`` (columns made in C, a slice at a time) against the plain reading of each record."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from occupancy_gui.importers import ImportCancelled, import_file
from occupancy_gui.importers.records import impossible_figure
from occupancy_gui.kernel_table import SLICE, KernelTable
from tests.random_records import random_records

GEN = Path(__file__).resolve().parent / "data" / "importers" / "gen"


def _reference(records: list) -> dict:
    """Each column read record by record, as the table shows them (a figure beyond any GPU's clipped)."""
    rows, impossible = [], {}
    for i, rec in enumerate(records):
        req = rec.req_threads
        bound = rec.max_threads or (req[0] * req[1] * req[2] if req else 0)
        row = (-1 if rec.arch_number is None else rec.arch_number, rec.registers, rec.static_smem or 0,
               -1 if rec.spill_stores is None else rec.spill_stores, -1 if rec.spill_loads is None else rec.spill_loads,
               -1 if rec.barriers is None else rec.barriers, bound, int(rec.is_kernel), rec.local_bytes or 0)  # fmt: skip
        reason = impossible_figure(rec)
        if reason is not None:
            impossible[i] = reason
            row = tuple(min(max(v, -1), 1 << 40) for v in row)
        rows.append(row)
    pretty = [rec.demangled or rec.name for rec in records]
    return {"names": [r.name for r in records], "demangled": pretty, "arch": [r.arch for r in records],
            "haystack": [f"{p}\n{r.name}".casefold() for p, r in zip(pretty, records)],
            "ints": np.array([[min(max(v, -1), 1 << 40) for v in row] for row in rows],  # a hostile arch number
                             dtype=np.int64).reshape(-1, 9).T, "impossible": impossible}  # fmt: skip


@pytest.mark.parametrize("source", ["random", "b_host.o", "a.fatbin"])
def test_columns_equal_the_records_read_one_by_one(source: str) -> None:
    random_ones = source == "random"
    records = random_records(random.Random(20261204), 3 * SLICE + 17) if random_ones else import_file(GEN / source)
    table = KernelTable.from_records("x", records)
    ref = _reference(records)
    for name in ("names", "demangled", "arch", "haystack", "impossible"):
        assert getattr(table, name) == ref[name], name
    ints = np.stack([table.arch_number, table.registers, table.static_smem, table.spill_stores, table.spill_loads,
                     table.barriers, table.max_threads, table.is_kernel.astype(np.int64), table.local_bytes])  # fmt: skip
    assert np.array_equal(ints, ref["ints"])
    assert source != "random" or len(table.impossible) > 50


def test_cancel_is_heard_between_slices() -> None:
    records = random_records(random.Random(1), 2 * SLICE)
    polls = []

    def cancelled() -> bool:
        polls.append(1)
        return len(polls) > 1

    with pytest.raises(ImportCancelled):
        KernelTable.from_records("x", records, cancelled)
    assert len(polls) == 2
