"""A host binary read by worker processes gives exactly what the serial reader gives, or nothing.

The host object gets a ``.nv_fatbin`` chain of many containers (plain, LZ4 and zstd images, zero
padding between them) and a data section of embedded containers among byte patterns that only look
like one.  Its pieces are made small, so that they cut containers, padding and headers at every
kind of place; the parallel result must equal the serial one record for record, source for source.
Where the serial reader fails or the workers cannot run, the parallel reader gives ``None`` (and
``import_file_detailed`` then reads serially), never a different answer.
"""

from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from occupancy_gui._process.child_process import Child
from occupancy_gui.importers import ImportCancelled, ImportFailure, import_file_detailed
from occupancy_gui.importers import dispatch as importers
from occupancy_gui.importers.base import ImportResult
from occupancy_gui.importers.binary import fatbin
from occupancy_gui.importers.binary import parallel as parallel_binary
from occupancy_gui.importers.binary import reader as binary_reader
from occupancy_gui.importers.binary.reader import import_fatbin_detailed
from occupancy_gui.importers.json_rows import record_json
from tests.helpers.frozen_bundle import ENTRY_SCRIPTS, act_frozen

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"
HOST = GEN / "b_host.o"
CONTAINERS = [(GEN / name).read_bytes() for name in ("a.fatbin", "a_zstd.fatbin", "a_lz4.fatbin")]
MAGIC = struct.pack("<I", fatbin.FATBIN_MAGIC)

pytestmark = pytest.mark.skipif(shutil.which("objcopy") is None, reason="binutils objcopy is not installed")


def chain(rng: random.Random, count: int) -> bytes:
    """``count`` containers end to end, each followed by 0-40 bytes of zero padding (8-aligned)."""
    parts = []
    for _ in range(count):
        parts.append(rng.choice(CONTAINERS))
        parts.append(bytes(8 * rng.randrange(6)))
    return b"".join(parts)


def without_images(rng: random.Random) -> bytes:
    """A container of PTX entries (no ELF image): the scan resumes past it, so the worker whose piece it
    starts in searches none of it; now and then a real container inside its text, which is then none."""
    entries = b""
    for _ in range(rng.randrange(1, 3)):
        text = rng.randbytes(rng.randrange(0, 2000))
        if rng.random() < 0.3:
            text += rng.choice(CONTAINERS) + rng.randbytes(10)
        entries += struct.pack("<HHIQ", fatbin.KIND_PTX, 0x101, 64, len(text)) + bytes(48) + text
    return MAGIC + struct.pack("<HHQ", 1, 16, len(entries)) + entries


def data_section(rng: random.Random, count: int) -> bytes:
    """Embedded containers among noise, fake headers, a container cut short and containers without images
    (after 100 bytes or more of noise: a container cut 100 bytes short, read into what follows, never
    reaches one; where it does, the stitch gives up, see the test below)."""
    parts = []
    for _ in range(count):
        kind = rng.randrange(6)
        parts.append(rng.randbytes(rng.randrange(100 if kind == 5 else 1, 300)))
        parts.append(
            [
                MAGIC + b"\x01\x00\x10\x00" + rng.randbytes(40),
                rng.choice(CONTAINERS),
                rng.choice(CONTAINERS),
                rng.choice(CONTAINERS)[:-100],
                MAGIC * 3,
                without_images(rng),
            ][kind]
        )
    return b"".join(parts)


def host(tmp_path: Path, fat: bytes, data: bytes | None = None, name: str = "host.o") -> Path:
    (tmp_path / "fat.bin").write_bytes(fat)
    args = ["objcopy", "--update-section", f".nv_fatbin={tmp_path / 'fat.bin'}"]
    if data is not None:
        (tmp_path / "data.bin").write_bytes(data)
        args += [
            "--add-section",
            f".mydata={tmp_path / 'data.bin'}",
            "--set-section-flags",
            ".mydata=alloc,load,readonly,data",
        ]
    out = tmp_path / name
    subprocess.run([*args, str(HOST), str(out)], check=True)
    return out


def listing(result: ImportResult) -> list[dict[str, object]]:
    return [record_json(rec) for rec in result.records]


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel_binary, "_PIECE_MIN", 1 << 10)
    monkeypatch.setattr(parallel_binary, "_MIN_IMAGES", 0)


def _parallel_equals_serial(tmp_path: Path, seed: int) -> ImportResult:
    """A random host binary (a 60-container chain and a data section) read by 3 workers: its listing and
    notes must be the serial reader's; the parallel result, for the caller's own checks."""
    rng = random.Random(seed)
    path = host(tmp_path, chain(rng, 60), data_section(rng, 40))
    parallel = parallel_binary.import_host_binary(str(path), workers=3)
    serial = import_fatbin_detailed(path)
    assert parallel is not None
    assert listing(parallel) == listing(serial)
    assert parallel.notes == serial.notes
    return parallel


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_workers_give_exactly_the_serial_result(
    tmp_path: Path, small_pieces: None, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every copy kept (merging would hide all but the first copy's source, and so its numbering).
    for module in (parallel_binary, binary_reader):
        monkeypatch.setattr(module, "merge_records", list)
    monkeypatch.setattr(parallel_binary, "MERGE_IN_WORKERS", False)
    parallel = _parallel_equals_serial(tmp_path, seed)
    assert any(rec.embedded for rec in parallel.records) and any(not rec.embedded for rec in parallel.records)
    containers = {rec.source.split(": fatbin entry")[0] for rec in parallel.records}
    assert len([c for c in containers if ".nv_fatbin container" in c]) == 60
    assert len([c for c in containers if ".mydata container" in c]) >= 5


def test_the_stitch_gives_up_where_a_worker_skipped_what_the_serial_scan_searches() -> None:
    """A container without images that a worker read, starting inside the container found before it but
    ending past it: its worker's scan resumed at its end, the serial one resumes at the earlier end."""
    empty, unread, failed = parallel_binary._EMPTY, parallel_binary._UNREAD, parallel_binary._FAILED
    found = [(0, 100, [], []), (50, empty, 90), (100, failed), (120, empty, 200), (200, 300, ["row"], [])]
    assert parallel_binary._data_chain(found) == [found[0], found[4]]
    assert parallel_binary._data_chain([*found, (150, unread)]) == [found[0], found[4]]  # inside (120, 200)
    assert parallel_binary._data_chain([(0, 100, [], []), (50, empty, 120), (130, 200, [], [])]) is None
    assert parallel_binary._data_chain([(0, 100, [], []), (100, unread)]) is None


@pytest.mark.parametrize("seed", [6, 7])
def test_copies_merged_in_the_workers_give_the_serial_merge(tmp_path: Path, small_pieces: None, seed: int) -> None:
    """Each worker merges its fatbin piece's identical copies, the parent the pieces': the records,
    their copies and their first copies' sources are the serial reader's (the chain repeats three
    containers, so copies fall inside pieces and across them)."""
    parallel = _parallel_equals_serial(tmp_path, seed)
    assert max(rec.copies for rec in parallel.records) > 10


def test_progress_moves_to_the_end(tmp_path: Path, small_pieces: None) -> None:
    path = host(tmp_path, chain(random.Random(4), 40))
    heard: list[tuple[int, int]] = []
    assert (
        parallel_binary.import_host_binary(str(path), progress=lambda d, t: heard.append((d, t)), workers=2) is not None
    )
    size = path.stat().st_size
    assert len(heard) > 5 and heard[-1] == (size, size)
    assert [d for d, _ in heard] == sorted(d for d, _ in heard)


@pytest.mark.parametrize("damage", ["entry size", "gap", "magic"])
def test_a_damaged_chain_is_left_to_the_serial_reader(
    tmp_path: Path, small_pieces: None, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    """Whatever the serial reader refuses, the parallel one gives up on; the import then fails with
    the serial reader's own message."""
    rng = random.Random(5)
    head = chain(rng, 15)
    fat = bytearray(head + bytes(16) + chain(rng, 15))
    middle = len(head) + 16
    if damage == "entry size":
        fat[middle + 16 + 8 : middle + 16 + 16] = struct.pack("<Q", 1 << 40)
    elif damage == "gap":
        fat[middle - 8] = 7  # a stray byte in the padding between two containers
    else:
        fat[middle : middle + 4] = b"JUNK"
    path = host(tmp_path, bytes(fat))
    assert parallel_binary.import_host_binary(str(path), workers=2) is None
    with pytest.raises(ImportFailure) as serial:
        import_fatbin_detailed(path)
    monkeypatch.setattr(importers, "PARALLEL_MIN_BYTES", 0)
    with pytest.raises(ImportFailure) as through_api:
        import_file_detailed(path)
    assert str(through_api.value) == str(serial.value)


def test_workers_that_cannot_start_leave_it_to_the_serial_reader(
    tmp_path: Path, small_pieces: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = host(tmp_path, chain(random.Random(6), 20))
    monkeypatch.setattr(sys, "executable", "/bin/false")
    assert parallel_binary.import_host_binary(str(path), workers=2) is None
    monkeypatch.setattr(importers, "PARALLEL_MIN_BYTES", 0)
    assert listing(import_file_detailed(path)) == listing(import_fatbin_detailed(path))


def _children() -> set[int]:
    out: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as fh:
            out.update(int(pid) for pid in fh.read().split())
    return out


def test_cancel_stops_the_workers(tmp_path: Path, small_pieces: None) -> None:
    path = host(tmp_path, chain(random.Random(7), 200))
    before = _children()
    heard: list[int] = []
    with pytest.raises(ImportCancelled):
        parallel_binary.import_host_binary(
            str(path), progress=lambda d, t: heard.append(d), cancel=lambda: bool(heard), workers=2
        )
    assert _children() - before == set()


def test_small_files_and_one_cpu_are_read_serially(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = host(tmp_path, chain(random.Random(8), 4))
    assert parallel_binary.import_host_binary(str(path), workers=1) is None
    calls: list[str] = []
    monkeypatch.setattr(parallel_binary, "import_host_binary", lambda name, *_: calls.append(name))
    serial = listing(import_file_detailed(path))
    assert calls == []  # under PARALLEL_MIN_BYTES
    monkeypatch.setattr(importers, "PARALLEL_MIN_BYTES", 0)
    assert listing(import_file_detailed(path)) == serial  # the stand-in gave None: read serially
    assert calls == [str(path)]


def test_an_answer_arrives_in_bounded_messages_and_is_put_back_together() -> None:
    # The window's event loop waits while the parent unpickles a message (one C call holding the GIL):
    # no message may carry more than ROWS_PER_MESSAGE rows, or much more than MESSAGE_CHARS characters of
    # names and sources (C++ templates run to thousands), and the parent must rebuild the piece as sent.
    import pickle
    import threading
    from multiprocessing import Pipe

    per = parallel_binary.ROWS_PER_MESSAGE
    rows: list[dict[str, object]] = [
        {"name": f"_Z{i}kernel_with_a_longer_name", "registers": i % 255, "source": f"lib.so: container {i}"}
        for i in range(3 * per + 5)
    ]
    long_name = "_Z" + "N" * 3000
    rows += [{"name": long_name + str(i), "demangled": "d" * 2000, "source": "s", "registers": 1} for i in range(300)]

    def size(row: dict[str, object]) -> int:
        return len(str(row["name"])) + len(str(row["source"])) + len(str(row.get("demangled", "")))

    containers = [
        (0, 100, rows[: per + 1], ["a note"]),
        (100, parallel_binary._FAILED),
        (200, 300, [], []),
        (300, 400, rows[per + 1 :], []),
    ]
    expected = pickle.loads(pickle.dumps(containers))
    sent, sending = Pipe(duplex=False)
    # A thread sends: the pipe's buffer (64 KiB) may hold less than the whole answer.
    sender = threading.Thread(target=parallel_binary._answer, args=(sending, 7, containers, 12345))
    sender.start()

    def receive() -> object:
        assert sent.poll(30), "the sender stopped (its thread raised)"
        return sent.recv()

    messages = [receive()]
    while isinstance(messages[-1], list):
        messages.append(receive())
    sender.join()
    parts = [m for m in messages if isinstance(m, list)]
    assert len(parts) >= 4 and all(len(part) <= per for part in parts)
    sizes = [sum(map(size, part)) for part in parts]
    assert max(sizes) < parallel_binary.MESSAGE_CHARS + max(map(size, rows))
    assert len(parts) >= 3 + sum(map(size, rows)) // parallel_binary.MESSAGE_CHARS
    assert sum(map(len, parts)) == len(rows) and not isinstance(messages[-1], list)
    receiving, resending = Pipe(duplex=False)
    sender = threading.Thread(target=lambda: [resending.send(message) for message in messages])
    sender.start()
    worker = parallel_binary._Worker(Child(None, None, receiving))  # type: ignore[arg-type]  # no process: take() reads only conn
    worker.given = 1
    assert worker.take() == (7, expected, 12345)
    sender.join()
    assert not worker.busy


@pytest.mark.parametrize("entry", ENTRY_SCRIPTS)
def test_a_frozen_bundle_reads_with_itself_as_the_worker(
    tmp_path: Path, small_pieces: None, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """In the bundle the workers are the executable started with ``--occupancy-worker`` (its entry point
    hands over before importing Qt): the result is the serial reader's, read in parallel (not ``None``)."""
    rng = random.Random(9)
    path = host(tmp_path, chain(rng, 30), data_section(rng, 10))
    serial = import_fatbin_detailed(path)
    act_frozen(tmp_path, monkeypatch, entry)
    parallel = parallel_binary.import_host_binary(str(path), workers=2)
    assert parallel is not None
    assert listing(parallel) == listing(serial) and parallel.notes == serial.notes


def test_no_process_to_be_had_leaves_it_to_the_serial_reader(
    tmp_path: Path, small_pieces: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fork`` refused (a process limit, a platform without pipes by number): read serially, no error."""
    path = host(tmp_path, chain(random.Random(8), 20))

    def refuse(module: str) -> Child:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(parallel_binary.child_process, "start", refuse)
    assert parallel_binary.import_host_binary(str(path), workers=2) is None
    monkeypatch.setattr(importers, "PARALLEL_MIN_BYTES", 0)
    assert listing(import_file_detailed(path)) == listing(import_fatbin_detailed(path))
