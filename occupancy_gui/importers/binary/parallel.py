"""A big host binary's fatbins read by worker processes, one piece of its sections each.

Listing libcublasLt (5,832 images) or libcufft (24,000 candidate containers in ``.ldata``) is
Python-bound: the GIL lets one thread parse at a time, so the import is split across processes.
The parent walks each fatbin section's chain of containers (their 16-byte headers only) and hands
out runs of them; a data section, scanned for embedded fatbins, is cut into byte ranges, and a
worker checks every candidate that *starts* in its range (it may read past the range's end) as the
serial reader would.  A worker sends back per container: where it starts and ends, its records as
rows, its notes.  The parent puts the containers back in file order with the serial reader's rules
(in a data section a candidate that lies inside the last container found is not one), numbers them,
and merges the records.

Nothing here decides a figure: every record is made by the serial reader's own functions.  Where
the stitching finds anything the serial reader would have read differently (a gap in a chain, an
error, a budget passed, no records at all), the parallel result is dropped and the caller reads the
file serially, which then gives the one answer and the one error message there is.
"""

from __future__ import annotations

import contextlib
import gc
import os
import struct
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ..._process import child_process
from ..._process.child_process import Child
from ..._process.collector import collection_paused
from ..base import ImportCancelled, ImportFailure, ImportResult
from ..files import open_regular
from ..names.demangle import demangle, is_slow
from ..record_list import Records, merge_records
from .blob import Blob, FileImage
from .cubin import EM_CUDA
from .elf import ELF_MAGIC, Elf
from .embedded import MagicScan
from .fatbin import FATBIN_MAGIC, KIND_ELF, MAX_CONTAINERS, NUMBER_LATER, open_container, read_entries
from .host import offload_sections, sections_to_read
from .inflate import Decoding

if TYPE_CHECKING:  # imported where workers run: a file too small to share (libcurand) never pays its ~20 ms
    from multiprocessing.connection import Connection

_PIECE_MIN = 4 << 20
_PIECES_PER_WORKER = 6  # enough for the workers to share uneven pieces and for progress to move
_MAX_WORKERS = 8
_POLL_SECONDS = 0.05  # how often the parent hears Cancel while the workers read
MERGE_IN_WORKERS = True
"""Whether a worker merges the identical copies of its fatbin piece (the tests turn it off to see every
copy's source)."""
WORKER_INFLIGHT = 32 << 20
"""Bytes of inflated images a worker holds at once (the serial reader holds up to 256 MiB)."""

AHEAD = 2
"""Pieces a worker holds at once (one read, one waiting): it never waits for this process to take in
another worker's answer before it has its next piece."""
ROWS_PER_MESSAGE = 1024
"""Rows a worker sends in one message at most (see ``_answer``)."""
MESSAGE_CHARS = 128 << 10
"""Characters of names and sources a worker sends in one message at most: libtorch_cuda's 1,024 rows of
long C++ names took 12-21 ms to unpickle, 40-58 ms to receive beside the window's other threads."""

_FAILED = 0  # a candidate that is no container (a data section's byte pattern)
_UNREAD = 1  # a candidate its worker did not read: it lay inside the container with images before it
_EMPTY = 2  # a well-formed container without an ELF image (its worker's scan resumed past it)


@dataclass(frozen=True)
class _Piece:
    """Containers that start in ``[lo, hi)`` of one section (``fat``: a fatbin section, positions
    relative to it; else a data section, positions in the file)."""

    number: int
    fat: bool
    offset: int  # the section's place in the file
    size: int
    lo: int
    hi: int
    prefix: str
    starts: tuple[int, ...] = ()  # a fatbin section's: where its containers start (the parent walked the chain)
    # (lo and hi: the bytes a fatbin piece's containers span; a data piece's range)


# A container a worker read: (start, end, rows, notes); or a data section's candidate that is none,
# (start, _FAILED), or that its worker did not read, (start, _UNREAD), or a container there without
# images, (start, _EMPTY, end).
_Found = tuple[Any, ...]


def import_host_binary(
    path: str,
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    workers: int | None = None,
) -> ImportResult | None:
    """The records and notes of a host ELF read by worker processes, or ``None`` where the serial
    reader (``reader.import_fatbin_detailed``) must read it: a small file, one CPU, no section
    table, or anything the stitching does not vouch for.  In a frozen bundle the workers are the
    executable itself (``child_process``).  Raises ``ImportCancelled`` when ``cancel()`` says so."""
    count = workers if workers is not None else min(_MAX_WORKERS, child_process.usable_cpus())
    if count < 2:
        return None
    try:
        size = os.stat(path).st_size
        pieces = _plan(path, size, count)
    except (OSError, ImportFailure, ValueError, struct.error):
        return None  # the serial reader says what is wrong
    if len(pieces) < 2:
        return None
    with collection_paused():  # 10^4-10^5 rows and records, none in a cycle
        found = _run(path, pieces, min(count, len(pieces)), size, progress, cancel)
        return _stitched(pieces, found) if found is not None else None


def _plan(path: str, size: int, workers: int) -> list[_Piece]:
    """The pieces of the sections ``read_host_binary`` reads, in its order; none where the work is too
    little to share (a worker costs a fresh interpreter)."""
    with open_regular(path) as stream:
        image = FileImage(stream, size, path)
        blob = Blob(image.view, path, image=image)
        blob.load(0, 64)
        if bytes(image.buffer[:4]) != ELF_MAGIC:
            return []
        elf = Elf(blob)
        if elf.machine == EM_CUDA or offload_sections(elf.sections):
            return []  # a cubin, or clang's offload images (an object's few): the serial reader reads them
        fat, data_sections = sections_to_read(elf.sections)
        chains = [
            _chain(Blob(image.view[sec.offset : sec.offset + sec.size], path, base=sec.offset, image=image))
            for sec in fat
        ]
    if any(chain is None for chain in chains):
        return []  # the serial reader says what is wrong with the chain
    images = sum(n for chain in chains for _at, _end, n in chain or ())
    data_bytes = sum(sec.size for sec in data_sections)
    if images < _MIN_IMAGES and data_bytes < _MIN_DATA_BYTES:
        return []
    prefix = os.path.basename(path)
    per_piece = max(1, -(-images // (workers * _PIECES_PER_WORKER)))  # ELF images a fatbin piece holds
    pieces: list[_Piece] = []
    for sec, chain in zip(fat, chains):
        group: list[int] = []
        held = 0
        end = 0
        for at, end, count in chain or ():
            group.append(at)
            held += count
            if held >= per_piece:
                pieces.append(
                    _Piece(len(pieces), True, sec.offset, sec.size, group[0], end, f"{prefix}:{sec.name}", tuple(group))
                )
                group, held = [], 0
        if group:
            pieces.append(
                _Piece(len(pieces), True, sec.offset, sec.size, group[0], end, f"{prefix}:{sec.name}", tuple(group))
            )
    step = max(_PIECE_MIN, -(-data_bytes // (workers * _PIECES_PER_WORKER)))
    for sec in data_sections:
        for lo in range(sec.offset, sec.offset + sec.size, step):
            pieces.append(
                _Piece(
                    len(pieces),
                    False,
                    sec.offset,
                    sec.size,
                    lo,
                    min(lo + step, sec.offset + sec.size),
                    f"{prefix}:{sec.name}",
                )
            )
    return pieces


_MIN_IMAGES = 400  # libcurand's 85 MiB .nv_fatbin holds 99 ELF images: it reads faster in one process
_MIN_DATA_BYTES = 64 << 20  # data sections scanned for embedded fatbins (libcufft: 265 MiB of .ldata)


def _chain(blob: Blob) -> list[tuple[int, int, int]] | None:
    """(start, end, ELF images) of each container of a fatbin section, walked as
    ``fatbin.read_fatbin_bytes`` walks it (zero padding between), reading only the 16-byte headers of
    containers and entries; ``None`` where a header is not one (the serial reader then reports it)."""
    out: list[tuple[int, int, int]] = []
    pos, n = 0, len(blob.data)
    while pos < n:
        pos = blob.skip_zeros(pos, n)
        if pos >= n:
            break
        magic, _version, header_size, fat_size = blob.unpack("<IHHQ", pos, "fatbin header")
        end = pos + header_size + fat_size
        if magic != FATBIN_MAGIC or header_size < 16 or end > n or len(out) >= MAX_CONTAINERS:
            return None
        images, at = 0, pos + header_size
        while at + 16 <= end:
            kind, _ver, entry_header, payload = blob.unpack("<HHIQ", at, "fatbin entry header")
            if entry_header < 16:
                return None
            images += kind == KIND_ELF
            at += entry_header + payload
        out.append((pos, end, images))
        pos = end
    return out


def _run(
    path: str,
    pieces: list[_Piece],
    count: int,
    size: int,
    progress: Callable[[int, int], None] | None,
    cancel: Callable[[], bool] | None,
) -> dict[int, list[_Found]] | None:
    """Every piece read by ``count`` worker processes, each handed the next piece as it finishes one
    (biggest first, so that they end together): piece number -> its containers; ``None`` if a
    worker failed.  Cancel is heard every :data:`_POLL_SECONDS`; it kills the workers."""
    from multiprocessing.connection import wait  # noqa: PLC0415 - lazy: see the imports

    todo = sorted(pieces, key=lambda p: p.hi - p.lo)  # popped from the end: biggest first
    workers: list[_Worker] = []
    found: dict[int, list[_Found]] = {}
    done_bytes, total = 0, sum(p.hi - p.lo for p in pieces)
    inflated, cap = 0, Decoding(None, size).total_cap  # the serial reader's limit, over all pieces
    try:
        for _ in range(count):
            try:
                workers.append(_Worker.start(path, size))
            except OSError:
                return None  # no process to be had (a limit, a platform without them): read serially
        for _ in range(AHEAD):  # each its pieces in turn: the biggest go to different workers
            for worker in workers:
                if todo:
                    worker.give(todo.pop())
        while len(found) < len(pieces):
            if cancel is not None and cancel():
                raise ImportCancelled(path)
            ready = wait([w.conn for w in workers if w.busy], timeout=_POLL_SECONDS)
            for worker in workers:
                if worker.conn not in ready:
                    continue
                if todo:  # its next piece first: it reads on while this process takes in the answer
                    worker.give(todo.pop())
                answer = worker.take()
                if not worker.busy:
                    worker.give(None)  # no more: it exits
                if answer is None:
                    return None  # crashed, killed (memory?) or failed: the serial reader will say
                number, containers, piece_inflated = answer
                inflated += piece_inflated
                if containers is None or inflated > cap:
                    return None
                found[number] = containers
                done_bytes += pieces[number].hi - pieces[number].lo
                if progress is not None:
                    progress(size * done_bytes // max(total, 1), size)
        return found
    finally:
        for worker in workers:
            worker.stop()


class _Worker:
    """One worker process (``occupancy_gui.importers.binary.worker``, see ``child_process``) and its pipes."""

    def __init__(self, child: Child):
        self.child = child
        self.out = child.to_child
        self.conn = child.from_child
        self.given = 0  # pieces given and not answered yet

    @classmethod
    def start(cls, path: str, size: int) -> _Worker:
        worker = cls(child_process.start("occupancy_gui.importers.binary.worker"))
        worker.send((path, size, MERGE_IN_WORKERS))
        return worker

    def send(self, message: object) -> None:
        with contextlib.suppress(OSError):  # it died: take() says so
            self.out.send(message)

    def give(self, piece: _Piece | None) -> None:
        """A piece to read after those given before, or ``None``: no more (the worker then exits)."""
        self.send(piece)
        self.given += piece is not None

    @property
    def busy(self) -> bool:
        """Whether a piece given is not answered yet."""
        return self.given > 0

    def take(self) -> tuple[Any, ...] | None:
        """The answer to the oldest piece given and not answered, its messages (see :func:`_answer`) put
        back together: each unpickles in a C call of its own, so the GIL is free between them; ``None`` if
        the worker died."""
        rows: list[dict[str, Any]] = []
        try:
            while isinstance(message := self.conn.recv(), list):
                rows.extend(message)
        except (OSError, EOFError):
            return None
        self.given -= 1
        number, containers, inflated = message
        if containers is not None:
            at = 0
            for i, found in enumerate(containers):
                if len(found) == 4:
                    count = found[2]
                    containers[i] = (found[0], found[1], rows[at : at + count], found[3])
                    at += count
        return (number, containers, inflated)

    def stop(self) -> None:
        """Gone: at once if it is still reading (a cancel, a failure elsewhere)."""
        self.child.close(kill=self.busy)


def serve(read_fd: int, write_fd: int) -> None:
    """A worker process's loop: read the pieces it is given until ``None``; answer each with
    (number, containers or ``None`` on any failure, bytes inflated)."""
    from multiprocessing.connection import Connection  # noqa: PLC0415 - lazy: see the imports

    gc.disable()  # as the serial reader's collection_paused: nothing this process makes is in a cycle
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    try:
        path, size, merge = inbox.recv()
        with open_regular(path) as stream:
            _serve_pieces(FileImage(stream, size, path), inbox, outbox, merge)
    except (EOFError, OSError, ImportFailure):
        return  # the parent is gone, or the file: it reads serially if it still can


def _serve_pieces(image: FileImage, inbox: Connection, outbox: Connection, merge: bool) -> None:
    # Two inflating threads of its own (the codecs release the GIL) and a small in-flight budget: a worker
    # parses as fast as one thread inflates, so a few images ahead keep it busy (libcublasLt's largest: 16 MiB).
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="fatbin-inflate")
    while (piece := inbox.recv()) is not None:
        work = Decoding(pool, image.size, inflight=WORKER_INFLIGHT)
        try:
            containers = _read_fat(image, piece, work, merge) if piece.fat else _read_data(image, piece, work)
        except Exception:  # noqa: BLE001 - the serial reader reports it, with its own message
            containers = None
        image.release()  # memory stays that of one piece, not of every piece read
        _answer(outbox, piece.number, containers, work.inflated)


def _answer(outbox: Connection, number: int, containers: list[_Found] | None, inflated: int) -> None:
    """A piece's answer: its rows first, in messages of at most :data:`ROWS_PER_MESSAGE` rows and about
    :data:`MESSAGE_CHARS` characters, then the piece with each container's rows replaced by their count.
    The parent unpickles each message in one C call that holds the GIL: a whole piece of libcublasLt
    (10.6 MiB pickled) took 62 ms of it, a stall of the window's event loop; a message of 1,024 of its
    rows takes ~6 ms."""
    if containers is not None:
        pending: list[dict[str, Any]] = []  # rows of consecutive containers share messages: libcurand's
        sent: list[_Found] = []  # 1,559 containers of a few rows each made 1,559 messages
        chars = 0
        for found in containers:
            if len(found) < 4:
                sent.append(found)  # a data candidate that is no container, or was not read
                continue
            at, end, rows, notes = found
            for row in rows:
                pending.append(row)
                chars += len(row.get("name") or "") + len(row.get("source") or "") + len(row.get("demangled") or "")
                if len(pending) >= ROWS_PER_MESSAGE or chars >= MESSAGE_CHARS:
                    outbox.send(pending)
                    pending, chars = [], 0
            sent.append((at, end, len(rows), notes))
        if pending:
            outbox.send(pending)
        containers = sent
    outbox.send((number, containers, inflated))


def _rows(states: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records' states as the parent adopts them (a pickled dict is rebuilt in C there), with the
    demangled names that only the slow fallback spells filled in here, in parallel (libcusparse: 312
    names of 1,349 to 2,489 characters, ~0.3 s of the parent's time otherwise)."""
    rows = list(states)
    for row in rows:
        if is_slow(row["name"]):
            row["demangled"] = demangle(row["name"])
    return rows


def _read_fat(image: FileImage, piece: _Piece, work: Decoding, merge: bool = True) -> list[_Found]:
    """As ``fatbin.read_fatbin_bytes`` reads a section's containers: the next inflates while one is read.

    The piece's identical copies are merged here, in the worker (the parent keeps every container of a
    fatbin section, so each copy's first stays first): the parent then merges 41,003 records of
    libcusparse, not 66,478 (and 23,120 of libcublas's 31,356)."""
    blob = Blob(image.view[piece.offset : piece.offset + piece.size], image.path, base=piece.offset, image=image)
    out: list[tuple[int, int, list[dict[str, Any]], list[str]]] = []
    pending: tuple[int, Any] | None = None
    for at in piece.starts:
        opened = open_container(blob, at, piece.prefix, NUMBER_LATER, work)
        if pending is not None:
            out.append(_finish_fat(blob, *pending, work))
        pending = (at, opened)
    if pending is not None:
        out.append(_finish_fat(blob, *pending, work))
    if not merge:
        return [(at, end, _rows(states), notes) for at, end, states, notes in out]
    # merge_records keeps each distinct copy's first state (its count of copies added to): told by identity
    kept = set(map(id, merge_records(Records([s for _at, _end, states, _notes in out for s in states])).states()))
    return [(at, end, _rows(s for s in states if id(s) in kept), notes) for at, end, states, notes in out]


def _finish_fat(blob: Blob, at: int, opened: Any, work: Decoding) -> tuple[int, int, list[dict[str, Any]], list[str]]:
    result = ImportResult()
    read_entries(blob, opened, result, False, work)
    return (at, opened.end, result.records.states(), result.notes)


def _read_data(image: FileImage, piece: _Piece, work: Decoding) -> list[_Found]:
    """As ``embedded.read_embedded`` reads a data section (every candidate checked end to end), for the
    candidates that start in the piece (a header's 8 bytes may cross its end, so the scan looks 7 further;
    each candidate is tried while the scan's chunk still holds its headers).

    The scan resumes past a container without images, as serially; inside one with images it goes on,
    and what it finds there is reported unread: the parent may yet need it (should that container lie
    inside the one before it, which another worker read)."""
    blob = Blob(image.view, image.path, image=image)
    hi = piece.offset + piece.size
    out: list[_Found] = []
    past = piece.lo
    scan = MagicScan(blob, piece.lo, min(piece.hi + 7, hi), work)
    for at in scan:
        if at >= piece.hi:
            break
        if at < past:
            out.append((at, _UNREAD))
            continue
        trial = scan.trial(at, hi, piece.prefix, NUMBER_LATER)
        if trial is None:
            out.append((at, _FAILED))
            continue
        past, read = trial
        if read is None:
            scan.skip_to(past)
            out.append((at, _EMPTY, past))
        else:
            out.append((at, past, _rows(read.records.states()), read.notes))
    return out


def _stitched(pieces: list[_Piece], found: dict[int, list[_Found]]) -> ImportResult | None:
    """The serial reader's result from the pieces' containers, or ``None`` where it would differ."""
    result = ImportResult()
    records = Records()
    by_section: dict[int, list[_Piece]] = {}
    for piece in pieces:
        by_section.setdefault(piece.offset, []).append(piece)
    containers = 0
    for section in by_section.values():
        chain = (
            _fat_chain(section, found)
            if section[0].fat
            else _data_chain([c for piece in section for c in found[piece.number]])
        )
        if chain is None:
            return None
        containers += len(chain)
        if containers > MAX_CONTAINERS:
            return None
        for number, (_at, _end, rows, notes) in enumerate(chain, 1):
            label = str(number)
            for fields in rows:
                fields["source"] = fields["source"].replace(NUMBER_LATER, label, 1)
            records.extend(Records(rows))
            result.notes.extend(note.replace(NUMBER_LATER, label, 1) for note in notes)
    if not records:
        return None  # the serial reader explains an empty file
    result.records = merge_records(records)
    return result


def _fat_chain(pieces: list[_Piece], found: dict[int, list[_Found]]) -> list[_Found]:
    """A fatbin section's containers in order: a worker reads every start it is given, or fails."""
    return [container for piece in pieces for container in found[piece.number]]


def _data_chain(candidates: list[_Found]) -> list[_Found] | None:
    """A data section's containers with images, in order: a candidate inside the last container found
    (with images or without) is skipped, as serially.  ``None`` where the serial reader would try a
    candidate its worker did not: one reported unread, or one inside a skipped container without images
    that ends past the last one found (its worker's scan resumed past it)."""
    chain: list[_Found] = []
    past = -1
    for found in sorted(candidates, key=itemgetter(0)):
        kind = found[1] if len(found) < 4 else None
        if found[0] < past:
            if kind == _EMPTY and found[2] > past:
                return None
            continue
        if kind == _FAILED:
            continue
        if kind == _UNREAD:
            return None
        if kind == _EMPTY:
            past = found[2]
        else:
            chain.append(found)
            past = found[1]
    return chain
