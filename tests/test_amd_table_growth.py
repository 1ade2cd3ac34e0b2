"""A table grown as AMD rows arrive (``amd_table_growth``) equals the table made at once of the same records."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from occupancy_gui.kernel_table import INT_COLUMNS, AmdTableGrowth, FilterMasks, KernelTable

DATA = Path(__file__).resolve().parent / "data" / "importers" / "amd"


def _records(seed: int, count: int) -> list[Any]:
    """AMD records of two real code objects, their names, targets and figures varied at random (``None``s too)."""
    from occupancy_gui.importers.amd import reader

    base = [rec for co in ("gfx942.co", "gfx1100.co") for rec in reader.read_amd(DATA / co, reader.CODE_OBJECT).records]
    rng = random.Random(seed)
    out = []
    for k in range(count):
        rec = rng.choice(base)
        out.append(
            dataclasses.replace(
                rec,
                name=f"{rec.name}_{rng.randrange(9)}",
                demangled=rng.choice([None, "", f"kernel_{k % 7}"]),
                target=rng.choice(["gfx942:sramecc+:xnack-", "gfx90a", "gfx1100", "gfx1201", rec.target]),
                vgprs=rng.choice([None, 0, 24, 128, 512]),
                sgprs=rng.choice([None, 16, 102]),
                agprs=rng.choice([None, 0, 64]),
                static_lds=rng.choice([None, 0, 65536]),
                wave_size=rng.choice([None, 32, 64]),
                wgp_mode=rng.choice([None, False, True]),
                max_threads=rng.choice([None, 256, 1024]),
                required_block=rng.choice([None, (64, 1, 1), (16, 16, 0)]),
                block_size=rng.choice([None, 128]),
                copies=rng.randrange(1, 4),
            )
        )
    return out


def _same(grown: KernelTable, made: KernelTable) -> None:
    for name in (*INT_COLUMNS, "search_ids"):
        assert np.array_equal(getattr(grown, name), getattr(made, name)), name
        assert getattr(grown, name).dtype == getattr(made, name).dtype, name
    assert (grown.names, grown.demangled, grown.haystack, grown.arch) == (
        made.names,
        made.demangled,
        made.haystack,
        made.arch,
    )
    assert grown.search_texts == made.search_texts
    assert list(grown.records) == list(made.records)
    assert (grown.nvidia_rows, grown.vendors, grown.impossible) == (made.nvidia_rows, made.vendors, made.impossible)
    g, m = grown.amd, made.amd
    assert g is not None and m is not None
    assert g.processors == m.processors
    for name in ("rows", "sgprs", "agprs", "allocated", "wave_size", "wgp", "padded", "processor"):
        assert np.array_equal(getattr(g, name), getattr(m, name)), name
    for name in ("combos", "combo_inverse", "combo_first"):
        assert np.array_equal(getattr(g, name), getattr(m, name)), name


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_table_grown_batch_by_batch_equals_the_table_made_at_once(seed: int) -> None:
    """Each step's table — new processors, names and combinations arriving, a step adding nothing, one row —
    equals ``from_records`` of the records so far; the tables share the search texts, not their lists."""
    records = _records(seed, 700)
    rng = random.Random(seed)
    cuts = sorted([1, 1, 2, *rng.sample(range(3, 700), 6), 700])  # 1 twice: a batch that adds no row
    growth = AmdTableGrowth("x")
    tables = []
    for end in cuts:
        grown = growth.table(records[:end])
        _same(grown, KernelTable.from_records("x", [], None, records[:end]))
        tables.append(grown)
    assert len({id(t.names) for t in tables}) == len(tables)  # each its own lists (a release empties them)
    assert all(a.haystack[0] is b.haystack[0] for a, b in zip(tables, tables[1:]))  # one text shared
    first = tables[0]
    assert len(first) == 1 and len(first.search_texts) == 1  # an earlier table keeps its own texts' list


def test_fewer_records_than_the_last_table_are_read_again() -> None:
    records = _records(4, 300)
    growth = AmdTableGrowth("x")
    growth.table(records)
    _same(growth.table(records[:120]), KernelTable.from_records("x", [], None, records[:120]))


def test_a_grown_table_is_filtered_as_one_made_at_once() -> None:
    records = _records(5, 400)
    growth = AmdTableGrowth("x")
    growth.table(records[:150])
    grown = growth.table(records)
    for needle in ("_1", "kernel_3", "gfx", "zz"):
        assert (FilterMasks(grown).mask(needle) == np.array([needle in h for h in grown.haystack])).all(), needle
