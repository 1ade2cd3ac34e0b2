"""``KernelRecord`` is a plain frozen value; ``Records`` holds many as their states and makes each where read."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from occupancy_gui.importers import KernelRecord, Records, built_states, import_file, merge_records
from occupancy_gui.importers.record_list import LazyRecords
from occupancy_gui.importers.records import FIELDS, new_state
from tests.importers.conftest import DATA


def test_a_record_is_a_plain_frozen_slotted_value() -> None:
    rec = KernelRecord("_Z3fooi", "sm_90", 32, static_smem=1024)
    assert not hasattr(rec, "__dict__") and "demangled" in KernelRecord.__slots__
    assert rec.demangled == "foo(int)"  # worked out from the name where none is given
    assert KernelRecord("_Z3fooi", "sm_90", 32, demangled="given").demangled == "given"
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.registers = 1  # type: ignore[misc]  # the point: a frozen record refuses it
    assert pickle.loads(pickle.dumps(rec)) == rec and hash(rec) == hash(dataclasses.replace(rec))
    assert {f.name for f in dataclasses.fields(KernelRecord)} == {*FIELDS, "demangled"}


def test_records_make_each_record_once_from_its_state() -> None:
    states = [new_state(name=f"_Z{len(n)}{n}v", arch="sm_90", registers=i) for i, n in enumerate(("a", "bb", "ccc"))]
    records = Records(states)
    assert len(records) == 3 and records[1] is records[1] and records[-1] is records[2]
    assert records[1] == KernelRecord("_Z2bbv", "sm_90", 1) and records[1].demangled == "bb()"
    assert states[1]["demangled"] == "bb()" and "demangled" not in states[0]  # kept in the state read
    assert records == [KernelRecord(s["name"], "sm_90", s["registers"]) for s in states]
    assert records.states() is states and built_states(records) is states  # the bulk readers' columns
    with pytest.raises(IndexError):
        records[3]


def test_slices_share_the_states_and_deleting_moves_the_rest_down() -> None:
    records = Records([new_state(name=f"k{i}", arch="sm_80", registers=i) for i in range(10)])
    head = records[2:5]
    assert isinstance(head, Records) and [r.registers for r in head] == [2, 3, 4]
    assert head.states()[0] is records.states()[2]
    assert [r.registers for r in records[::4]] == [0, 4, 8]
    first = records[6]
    del records[3:6]
    assert len(records) == 7 and records[3].registers == 6 and records[3] == first
    while records:
        del records[-4:]
    assert records == []


def test_builds_are_done_once_and_only_when_needed() -> None:
    calls: list[int] = []

    def build(i: int) -> dict[str, object]:
        calls.append(i)
        return new_state(name=f"k{i}", arch="sm_90", registers=i)

    records = Records([(build, i) for i in range(5)], builds=True)
    assert records[3].registers == 3 and calls == [3]
    assert [r.registers for r in records] == list(range(5)) and sorted(calls) == list(range(5))
    records.states()
    assert len(calls) == 5


def test_lazy_records_decode_a_block_when_one_of_its_records_is_read() -> None:
    decoded: list[int] = []

    def block(number: int) -> list[dict[str, object]]:
        decoded.append(number)
        return [new_state(name=f"k{i}", arch="sm_90", registers=i) for i in range(number * 4, min(number * 4 + 4, 10))]

    records = LazyRecords(10, 4, block)
    assert len(records) == 10 and decoded == []
    assert records[5].registers == 5 and decoded == [1]
    assert [s["registers"] for s in records[0:3].states()] == [0, 1, 2] and decoded == [1, 0]
    assert [r.registers for r in records] == list(range(10)) and decoded == [1, 0, 2]


def test_append_and_extend_take_records_and_records() -> None:
    records = Records()
    records.append(KernelRecord("a", "sm_90", 1))
    records.extend(Records([new_state(name="b", arch="sm_90", registers=2)]))
    records += [KernelRecord("c", "sm_90", 3)]
    assert [r.name for r in records] == ["a", "b", "c"] and records.kernels() == records
    assert [r.name for r in Records.of([KernelRecord("d", "sm_80", 4, is_kernel=False)]).kernels()] == []


def test_merge_counts_copies_on_the_first_state_kept() -> None:
    a = new_state(name="k", arch="sm_90", registers=8, source="first")
    b = new_state(name="k", arch="sm_90", registers=8, source="second")
    c = new_state(name="k", arch="sm_90", registers=9, source="third")
    merged = merge_records(Records([a, b, c]))
    assert [(r.registers, r.copies, r.source) for r in merged] == [(8, 2, "first"), (9, 1, "third")]
    assert merged.states()[0] is a  # the parallel reader's workers tell the kept states by identity
    assert merge_records([KernelRecord("k", "sm_90", 8)] * 3)[0].copies == 3


def test_an_import_gives_records_that_equal_those_made_one_by_one() -> None:
    records = import_file(DATA / "gen" / "a.fatbin")
    assert isinstance(records, Records) and len(records) == 8
    made = [KernelRecord(**{f.name: getattr(rec, f.name) for f in dataclasses.fields(KernelRecord)}) for rec in records]
    assert records == made and [r.demangled for r in records] == records.demangled()
