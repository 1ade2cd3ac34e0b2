"""The fast path of the ptxas log reader: line numbers from block shapes, batched table inserts, GC."""

from __future__ import annotations

import gc
import io
import random
import re

import pytest

from occupancy_gui.importers.json_rows import record_json
from occupancy_gui.importers.text import ptxas_log
from occupancy_gui.importers.text.ptxas_log import parse_bytes, parse_stream

NOISE = [
    "[3/90] Building CUDA object src/k.cu.o",
    '/src/k.cu(118): warning #177-D: variable "tmp" was declared but never referenced',
    "",
    "ptxas info    : Compile time = 1.5 ms",  # a stray one: a general line
    "nvcc -Xptxas -v -c k.cu",
]


def _block(rng: random.Random, i: int, prefix: str, odd_archs: bool = False) -> list[str]:
    """One entry function's lines in one of the shapes the scanner takes in one match (``odd_archs``: now
    and then an architecture the state machine reads itself, empty or with a carriage return in it)."""
    name = f"_Z6kernel{i % 37}Pf"  # kernels repeat: later records replace earlier ones
    lines = [f"{prefix}ptxas info    : 0 bytes gmem"] if rng.random() < 0.3 else []
    arch = f"sm_{rng.choice([80, 90, 120])}"
    if odd_archs and rng.random() < 0.1:
        arch = rng.choice(["", "sm_8\r6"])
    lines += [
        f"{prefix}ptxas info    : Compiling entry function '{name}' for '{arch}'",
        f"{prefix}ptxas info    : Function properties for {name}",
        f"{prefix}    {i % 5 * 8} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
        f"{prefix}ptxas info    : Used {i % 200} registers, used 1 barriers, {i} bytes smem, 380 bytes cmem[0]",
    ]
    if rng.random() < 0.5:
        lines.append(f"{prefix}ptxas info    : Compile time = {i}.5 ms")
    return lines


def _log(seed: int, crlf: bool = False, odd_archs: bool = False) -> tuple[bytes, list[int]]:
    """A log of standard blocks (runs of them, and single ones between noise) and the 1-based
    line of each block's "Compiling entry function" line, in order."""
    rng = random.Random(seed)
    lines: list[str] = []
    for i in range(400):
        if rng.random() < 0.4:
            lines += rng.sample(NOISE, rng.randrange(1, len(NOISE)))
        lines += _block(rng, i, "1>" if rng.random() < 0.1 else "", odd_archs)
    compiling = [n for n, text in enumerate(lines, 1) if "Compiling entry function" in text]
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    return text.encode(), compiling


def _lines_of(records) -> list[int]:
    return [int(r.source.rsplit(":", 1)[1]) for r in records]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("crlf", [False, True])
def test_record_lines_are_those_of_their_compiling_line(seed, crlf):
    data, compiling = _log(seed, crlf)
    latest: dict[str, int] = {}
    for line in compiling:  # a repeated kernel keeps its first place and takes the later line
        text = data.splitlines()[line - 1].decode()
        name, arch = re.search(r"'(.+)' for '(.+)'", text).groups()
        latest[f"{name} {arch}"] = line
    for chunk in (97, 4096, 1 << 20):
        records = parse_stream(io.BytesIO(data), "x.log", len(data), chunk_size=chunk)
        assert _lines_of(records) == list(latest.values())


@pytest.mark.parametrize(("batch", "odd_archs"), [(1, False), (3, False), (1024, False), (1024, True), (3, True)])
def test_batched_inserts_match_the_state_machine(monkeypatch, batch, odd_archs):
    """A block whose architecture is empty or holds a carriage return is the state machine's to read, after
    the standard blocks before it, whose architecture it then knows as its latest (a function whose entry
    line it cannot read takes that one)."""
    data, _ = _log(7, odd_archs=odd_archs)
    assert (b"for ''" in data) == odd_archs
    monkeypatch.setattr(ptxas_log, "_BATCH", batch)
    fast = parse_bytes(data, "x.log")
    monkeypatch.setattr(ptxas_log, "_SCAN", re.compile(rb"info[^\n]*"))  # every hit one line
    slow = parse_bytes(data, "x.log")
    assert [record_json(r) for r in fast] == [record_json(r) for r in slow]
    assert len(fast) < 400  # kernels repeated: replaced records kept their first place


def test_records_are_left_in_the_oldest_generation():
    """Made with the collector off, what holds the records (the container, its states and builds) goes straight
    to the generation it seldom traverses."""
    data, _ = _log(3)
    assert gc.isenabled()
    records = parse_bytes(data, "x.log")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    oldest = {id(obj) for obj in gc.get_objects(generation=2)}
    held = [records, *records._items]  # the items as the parse left them (a state, or the build of one)
    assert records and all(id(item) in oldest for item in held if gc.is_tracked(item))


def test_an_applications_frozen_objects_stay_frozen():
    data, _ = _log(3)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        records = parse_bytes(data, "x.log")
        assert gc.get_freeze_count() == frozen and gc.isenabled() and records
    finally:
        gc.unfreeze()
