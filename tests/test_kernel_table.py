"""``KernelTable.from_records`` (columns made in C, a slice at a time) against the plain reading of each record."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from occupancy_gui.importers import ImportCancelled, import_file
from occupancy_gui.importers.records import impossible_figure
from occupancy_gui.kernel_table import SLICE, KernelTable
from tests.helpers.random_records import random_records

GEN = Path(__file__).resolve().parent / "data" / "importers" / "gen"


def _reference(records: list) -> dict:
    """Each column read record by record, as the table shows them (a figure beyond any GPU's clipped)."""
    rows, impossible = [], {}
    for i, rec in enumerate(records):
        req = rec.req_threads
        row = (
            -1 if rec.arch_number is None else rec.arch_number,
            rec.registers,
            rec.static_smem or 0,
            -1 if rec.spill_stores is None else rec.spill_stores,
            -1 if rec.spill_loads is None else rec.spill_loads,
            -1 if rec.barriers is None else rec.barriers,
            rec.max_threads or 0,
            int(rec.is_kernel),
            rec.local_bytes or 0,
            -1 if rec.stack_bytes is None else rec.stack_bytes,
            req[0] * req[1] * req[2] if req else 0,
            rec.block_size or 0,
            rec.dynamic_smem or 0,
        )
        reason = impossible_figure(rec)
        if reason is not None:
            impossible[i] = reason
            row = tuple(min(max(v, -1), 1 << 40) for v in row)
        rows.append(row)
    pretty = [rec.demangled or rec.name for rec in records]
    return {
        "names": [r.name for r in records],
        "demangled": pretty,
        "arch": [r.arch for r in records],
        "haystack": [f"{p}\n{r.name}".casefold() for p, r in zip(pretty, records)],
        "ints": np.array(
            [[min(max(v, -1), 1 << 40) for v in row] for row in rows],  # a hostile arch number
            dtype=np.int64,
        )
        .reshape(-1, 13)
        .T,
        "impossible": impossible,
    }


@pytest.mark.parametrize("source", ["random", "b_host.o", "a.fatbin"])
def test_columns_equal_the_records_read_one_by_one(source: str) -> None:
    random_ones = source == "random"
    records = random_records(random.Random(20261204), 3 * SLICE + 17) if random_ones else import_file(GEN / source)
    table = KernelTable.from_records("x", records)
    ref = _reference(records)
    for name in ("names", "demangled", "arch", "haystack", "impossible"):
        assert getattr(table, name) == ref[name], name
    ints = np.stack(
        [
            table.arch_number,
            table.registers,
            table.static_smem,
            table.spill_stores,
            table.spill_loads,
            table.barriers,
            table.max_threads,
            table.is_kernel.astype(np.int64),
            table.local_bytes,
            table.stack_bytes,
            table.required,
            table.launch_block,
            table.launch_dynamic,
        ]
    )
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


class _Counted(list[str]):
    """A search-text column that counts the rows read (one by one, or all in a pass)."""

    reads = 0

    def __getitem__(self, i: Any) -> Any:
        _Counted.reads += 1
        return super().__getitem__(i)

    def __iter__(self) -> Iterator[str]:
        _Counted.reads += len(self)
        return super().__iter__()


def test_filter_masks_are_full_scans_and_narrow_what_they_read() -> None:
    """Typed on, typed into, backspaced or replaced, a text's rows are those a full scan finds; a text that
    holds an earlier one reads only that one's rows, and an earlier text reads none."""
    from occupancy_gui.kernel_table import FilterMasks

    table = KernelTable.from_records("x", random_records(random.Random(5), 400))
    table.haystack = _Counted(table.haystack)
    masks = FilterMasks(table)
    masks.STEP_ROWS = 7  # each scan in many steps, as the window runs it
    rng = random.Random(6)
    alphabet = "aeiknrs_:<>0123"
    needle = ""
    for _ in range(300):
        step = rng.random()
        if step < 0.5:
            needle += rng.choice(alphabet)
        elif step < 0.7:
            needle = needle[:-1]
        elif step < 0.8:
            at = rng.randrange(len(needle) + 1)
            needle = needle[:at] + rng.choice(alphabet) + needle[at:]
        else:
            needle = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 4)))
        if not needle:
            continue
        cached = needle in masks.masks
        earlier = [mask for text, mask in masks.masks.items() if text in needle]
        _Counted.reads = 0
        got = masks.mask(needle)
        full = np.array([needle in h for h in list.__iter__(table.haystack)], dtype=bool)
        assert (got == full).all(), needle
        if cached:
            assert _Counted.reads == 0, needle
        elif earlier:
            assert _Counted.reads <= min(int(m.sum()) for m in earlier), needle
        else:
            assert _Counted.reads == len(table), needle
    assert len(masks.masks) == FilterMasks.KEEP


def test_filter_steps_count_down_and_a_dropped_scan_remembers_nothing() -> None:
    """The window runs a scan in steps between events and drops it when a key changes the text: the rows
    left count down a step at a time, a dropped scan leaves no mask, and an exhausted one leaves the full
    scan's, which :meth:`FilterMasks.mask` then answers without reading a row."""
    from occupancy_gui.kernel_table import FilterMasks

    table = KernelTable.from_records("x", random_records(random.Random(7), 300))
    table.haystack = _Counted(table.haystack)
    masks = FilterMasks(table)
    masks.STEP_ROWS = 16
    dropped = masks.steps("a")
    assert [next(dropped) for _ in range(3)] == [284, 268, 252]
    dropped.close()
    assert "a" not in masks.masks
    assert list(masks.steps("a")) == list(range(284, 0, -16))  # 19 steps: the last yields nothing
    full = np.array([("a" in h) for h in list.__iter__(table.haystack)], dtype=bool)
    _Counted.reads = 0
    assert (masks.mask("a") == full).all() and _Counted.reads == 0
    assert list(masks.steps("a")) == []  # remembered: no step at all
    narrowed = list(masks.steps("ab"))  # only the rows that hold "a", 16 at a time
    assert narrowed == list(range(int(full.sum()) - 16, 0, -16))
    assert (masks.mask("ab") == np.array([("ab" in h) for h in list.__iter__(table.haystack)])).all()


def _limit_records() -> list:
    """Kernels of every kind the rule of ``record_launch`` tells apart: no limit, a launch bound, a required
    block size, both, a recorded launch (below and above 48 KiB of dynamic shared memory), unknown barriers."""
    from occupancy_gui.importers import KernelRecord

    def rec(name: str, **kw: Any) -> Any:
        base: dict[str, Any] = {"arch": "sm_90", "registers": 40, "static_smem": 2048, "barriers": 1}
        return KernelRecord(name=name, **{**base, **kw})

    return [
        rec("plain"),
        rec("bound256", max_threads=256, registers=64),
        rec("bound96", max_threads=96, barriers=None),
        rec("bound32_min4", max_threads=32, min_blocks=4, registers=128),
        rec("req128", req_threads=(64, 2, 1)),
        rec("req64_bound64", req_threads=(64, 1, 1), max_threads=64),
        rec("launch128", block_size=128, dynamic_smem=1024, launch_source="x.json"),
        rec("launch256_big", block_size=256, dynamic_smem=80 << 10, static_smem=1024, launch_source="y.json"),
        rec("big_smem", static_smem=40 << 10, registers=255, barriers=16),
    ]


@pytest.mark.parametrize("device", ["sm_90", "sm_86", "sm_100", "sm_35"])
def test_each_row_is_the_calculators_answer_once_chosen(catalog, device: str) -> None:
    """A row's threads and occupancy equal the session's after choosing that row (``record_inputs``), at every
    block size the calculator may hold: a bounded kernel at 1, 5 or 32 threads runs at that size, not its bound."""
    from occupancy_gui.engine import CacheConfig
    from occupancy_gui.kernel_table import occupancy_column
    from occupancy_gui.record_launch import record_inputs
    from occupancy_gui.session import Session

    records = _limit_records() + list(import_file(GEN / "a_sm80.cubin"))
    table = KernelTable.from_records("x", records)
    for threads, dynamic, attribute, cache in [
        (1, 0, None, 0),
        (5, 0, None, 0),
        (32, 0, None, 0),
        (96, 512, None, 0),
        (256, 4096, None, 1),
        (256, 40 << 10, 50 << 10, 2),
        (1024, 0, None, 0),
        (2048, 0, None, 0),
    ]:
        session = Session(catalog, device, threads=threads, dynamic_smem=dynamic, cache_config=CacheConfig(cache))
        if attribute is not None and attribute <= session.device.shared_mem_per_block_optin:
            session.replace(max_dynamic_smem=attribute)
        i = session.inputs
        rows = occupancy_column(
            table, session.device, session.device_state, i.threads, i.dynamic_smem, i.max_dynamic_smem
        )
        for k, rec in enumerate(records):
            chosen = Session(
                catalog,
                device,
                **{
                    **{f: getattr(i, f) for f in ("threads", "dynamic_smem", "max_dynamic_smem", "cache_config")},
                    **record_inputs(rec, session.device, threads),
                },
            )
            assert rows.threads[k] == chosen.inputs.threads, (rec.name, threads)
            expected = chosen.result.occupancy if chosen.result is not None else float("nan")
            np.testing.assert_allclose(rows.occupancy[k], expected, err_msg=f"{rec.name} at {threads} on {device}")
    bound = records.index(next(r for r in records if r.name == "bound256"))
    at_32 = occupancy_column(table, catalog.get(device).device_properties(), Session(catalog, device).device_state, 32)
    assert at_32.threads[bound] == 32  # not the bound: the 75 % at block sizes 1, 5 and 32


def test_amd_rows_are_filtered_by_their_distinct_names_each_read_once() -> None:
    """A table of NVIDIA rows and AMD rows repeating few names (a ROCm library lists each kernel once per target):
    every text's rows are those a full scan of every row finds, and the AMD part reads each distinct name once."""
    import dataclasses

    from occupancy_gui.importers.amd import reader
    from occupancy_gui.kernel_table import FilterMasks

    code_object = Path(__file__).resolve().parent / "data" / "importers" / "amd" / "gfx942.co"
    base = reader.read_amd(code_object, reader.CODE_OBJECT).records
    amd = [
        dataclasses.replace(rec, name=f"{rec.name}_{k % 5}", target=f"gfx942:{k}", demangled=None)
        for k in range(60)
        for rec in base
    ]
    table = KernelTable.from_records("x", random_records(random.Random(7), 50), None, amd)
    assert len(table.search_texts) == 5 * len({r.name for r in base}) < len(amd)

    class Reads(list):
        count = 0

        def __getitem__(self, k):
            Reads.count += 1
            return super().__getitem__(k)

    table.search_texts = Reads(table.search_texts)
    masks = FilterMasks(table)
    for needle in ("_1", "_", "a", "_3", "zz"):
        Reads.count = 0
        got = masks.mask(needle)
        assert (got == np.array([needle in h for h in table.haystack])).all(), needle
        assert Reads.count <= len(table.search_texts), needle
