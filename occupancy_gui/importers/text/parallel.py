"""A big build log read by two processes: this one reads its head, a worker process its tail.

One core scans a 200 MB log in ~0.4 s, and the regex and the newline counts are most of it (see
``tests/benchmarks/bench_import.py``).  So the log is cut at the start of a line near its middle.  A
worker reads the tail with a parser of its own, counting lines from 1, and sends its table as it grows,
chunk by chunk; between the chunks of the head this process takes in what has come, into a table of the
tail's.  At the end the tail's records are moved down by the head's lines (one number that all their
lazy builds share) and the tail's table is appended to the head's, a later record of a kernel replacing
an earlier one in place, as in the one parser's table.

The tail's table is the one parser's only where nothing the head leaves behind could have changed it:

* the head ends idle: no entry function waiting for its lines, no device function waiting for its
  architecture, no ``nvlink`` properties line waiting for its figures;
* the worker used nothing it could not know.  It starts with :data:`UNKNOWN_ARCH` as the architecture of
  the latest module, which no log spells: a record that took it fails the check.  An ``nvlink`` line that
  finds no record of its kernel in the tail (it might be in the head) fails it, and so does old nvlink's
  guess of an architecture from the whole table.

Otherwise (and where the worker failed, died or could not start) this process reads the tail itself,
continuing where it stopped.  Then the answer, and any error message, are the serial reader's by
construction.
"""

from __future__ import annotations

import io
import os
import re
import threading
from itertools import repeat
from queue import Queue
from typing import TYPE_CHECKING, Any

from ..._process import child_process
from ..._process.collector import collection_paused
from ..base import CancelFn, ImportCancelled, ImportFailure, ProgressFn
from ..files import open_regular
from .line_chunks import CHUNK_SIZE, feed_rest, feed_stream, sniff_utf16
from .log_text import LogRecords
from .ptxas_log import BUILD_KEY, PtxasLogParser, block_fields_below, import_ptxas_log, moved_source

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from ..._process.child_process import Child

WORKER = "occupancy_gui.importers.text.worker"
MIN_BYTES = 64 << 20
"""Smaller logs are read by one process: a forked worker costs a few ms, and ~0.05 s of taking in its
table is paid whatever the size."""
HEAD_SHARE = 0.45
"""Where the cut goes (a fraction of the bytes): this process also takes in the worker's table, the worker
sends it."""
UNKNOWN_ARCH = "\x00arch of the head"
"""The worker's architecture of the latest module until the tail names one (see the module's docstring)."""
_POLL_SECONDS = 0.05
_LAZY, _WHOLE = 0, 1
TAILS: dict[str, int] = {"adopted": 0, "read_here": 0}
"""How often the worker's table was taken and how often this process read the tail itself (for the tests)."""


def import_log(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> LogRecords:
    """A ptxas/nvlink log's records: by two processes where it is big (:func:`parse_split`), else by
    ``ptxas_log.import_ptxas_log``."""
    name = os.fspath(path)
    try:
        records = parse_split(name, os.path.basename(name), os.path.getsize(name), progress, cancel)
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
    return records if records is not None else import_ptxas_log(name, progress, cancel)


def parse_split(
    path: str,
    source_name: str,
    total: int,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> LogRecords | None:
    """The records of the log at ``path`` (``total`` bytes), read by this process and a worker; ``None``
    where one process must read it: too small, one CPU, a process with threads of its own (the window),
    UTF-16 (re-encoded as it is read), a last line that runs from past the middle to the end, or no worker
    process to be had."""
    if total < MIN_BYTES or child_process.usable_cpus() < 2 or not child_process.single_threaded():
        return None  # (the window's worker would be a fresh interpreter at a lower priority: on a 300 MB log
        # in a process with a thread, 0.76 s against 0.70-0.79 s in one process: nothing gained)
    with open_regular(path) as fh:
        if sniff_utf16(fh.read(4096)) is not None:
            return None
        cut = _line_start(fh, int(total * HEAD_SHARE), total)
    return None if cut is None else read_cut(path, source_name, total, cut, progress, cancel, chunk_size)


def read_cut(
    path: str,
    source_name: str,
    total: int,
    cut: int,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> LogRecords | None:
    """The records of a byte-oriented log (not UTF-16) whose head ``[0, cut)`` this process reads and whose
    tail, from the start of a line at ``cut``, a worker reads; ``None`` where no worker can be started."""
    try:
        child = child_process.start(WORKER)
    except OSError:
        return None
    try:
        with collection_paused(), open_regular(path) as fh:
            return _read(fh, child, path, source_name, total, cut, progress, cancel, chunk_size)
    finally:
        child.close(kill=True)  # done with it, or cancelled, or failed here: gone at once either way


def _line_start(fh: io.BufferedIOBase, at: int, total: int) -> int | None:
    """Where to cut: the start of the first line at or after ``at`` (within 1 MiB) that opens a ptxas module
    or an entry function, so that the head most likely ends idle; else of the first line there."""
    fh.seek(at - 1)
    window = fh.read(_CUT_WINDOW)
    opening = _OPENING.search(window)
    found = opening.start() if opening is not None else window.find(b"\n")
    cut = at + found if found >= 0 else -1
    return cut if 0 < cut < total else None


_CUT_WINDOW = 1 << 20
_OPENING = re.compile(rb"\n(?=[^\n]*info    : (?:\d+ bytes gmem|Compiling entry function))")
"""A line that opens a module ("N bytes gmem") or an entry function: a cut just before it leaves no entry
of the head half-read (a cut inside a block makes this process read the tail itself)."""


def _read(
    fh: io.BufferedIOBase,
    child: Child,
    path: str,
    source_name: str,
    total: int,
    cut: int,
    progress: ProgressFn | None,
    cancel: CancelFn | None,
    chunk_size: int,
) -> LogRecords:
    tail = _Tail(child)
    tail.send((path, source_name, cut, chunk_size))

    def heard(done: int, _total: int) -> None:
        tail.drain()
        if progress is not None:
            progress(min(total, done + tail.done), total)

    parser = PtxasLogParser(source_name, path)
    fh.seek(0)
    feed_stream(_Head(fh, cut), parser, cut, heard, cancel, chunk_size)
    if _idle(parser) and tail.wait(cancel, source_name):
        tail.move_down(parser.line_base - 1)
        parser.records.update(tail.records)
        TAILS["adopted"] += 1
    else:
        tail.stop()
        TAILS["read_here"] += 1
        fh.seek(cut)
        feed_rest(
            fh,
            parser,
            total - cut,
            None if progress is None else lambda done, _t: progress(min(total, cut + done), total),
            cancel,
            chunk_size,
        )
    return parser.finish()


def _idle(parser: PtxasLogParser) -> bool:
    """Whether the parser waits for nothing: what it reads next it reads as a fresh parser would."""
    return not (parser.pending or parser.await_stack or parser.deferred) and parser.nvlink_name is None


class _Head(io.BufferedIOBase):
    """The first ``end`` bytes of a file, as ``feed_stream`` reads a stream."""

    def __init__(self, fh: io.BufferedIOBase, end: int):
        super().__init__()
        self.fh, self.left = fh, end

    def read(self, n: int | None = -1) -> bytes:
        data = self.fh.read(self.left if n is None or n < 0 else min(n, self.left))
        self.left -= len(data)
        return data

    def readinto(self, view: Any) -> int:
        n = min(len(view), self.left)
        got = self.fh.readinto(memoryview(view)[:n]) if n else 0
        self.left -= got
        return got


class _Tail:
    """The worker's side: its progress and its table as they come, heard between the head's chunks."""

    def __init__(self, child: Child):
        self.child = child
        self.done = 0  # bytes of the tail read
        self.records: dict[tuple[str, str], Any] = {}  # the tail's table (see PtxasLogParser), lines from 1
        self.below = [0]  # lines above the tail: every lazy build of the tail holds this one list
        self.whole: list[dict[str, Any]] = []  # the fields of the records built whole (their source moves too)
        self.over = False  # the worker answered or failed
        self.failed = False

    def send(self, message: object) -> None:
        try:
            self.child.to_child.send(message)
        except OSError:
            self.over = self.failed = True

    def drain(self) -> None:
        """Every message the worker has sent so far."""
        conn = self.child.from_child
        try:
            while not self.over and conn.poll():
                self._take(conn.recv())
        except (OSError, EOFError):
            self.over = self.failed = True

    def wait(self, cancel: CancelFn | None, source_name: str) -> bool:
        """Whether the worker read the tail (its table in hand) without depending on the head."""
        from multiprocessing.connection import wait  # noqa: PLC0415 - lazy, as in child_process

        conn = self.child.from_child
        while not self.over:
            if cancel is not None and cancel():
                raise ImportCancelled(source_name)
            if wait([conn], timeout=_POLL_SECONDS):
                self.drain()
        return not self.failed

    def stop(self) -> None:
        """Not needed after all: the worker is stopped at once (it would take a CPU from this process's
        reading of the tail) and its table dropped."""
        self.child.close(kill=True)
        self.over = self.failed = True
        self.records.clear()

    def move_down(self, lines: int) -> None:
        self.below[0] = lines
        for state in self.whole:
            state["source"] = moved_source(state["source"], lines)

    def _take(self, message: tuple[Any, ...]) -> None:
        what = message[0]
        if what == "items":
            for kind, items in message[2]:
                self._adopt(kind, items)
            self.done = message[1]
        elif what == "done":
            self.over = True
        else:  # "failed": an error in the tail, or a tail that needs the head
            self.over = self.failed = True

    def _adopt(self, kind: int, items: Any) -> None:
        """A run of the worker's table: builds as columns (made tuples again in C), whole records as
        (key, state)."""
        if kind == _LAZY:
            builds = list(zip(repeat(block_fields_below), *items, repeat(self.below)))
            self.records.update(zip(map(BUILD_KEY, builds), builds))
        else:
            for key, state in items:
                self.whole.append(state)
                self.records[key] = state


class _TailParser(PtxasLogParser):
    """A parser of the tail that keeps a journal of its table (what to send) and notes where it would need
    the head (see the module's docstring)."""

    def __init__(self, source_name: str, path: str):
        super().__init__(source_name, path)
        self.journal: list[tuple[int, Any]] = []
        self.records = _Journaled(self.journal)
        self.arch = UNKNOWN_ARCH
        self.needs_head = False

    def _add_records(self, made: list[tuple[Any, ...]]) -> None:
        # Noted as the table takes them, in a dict: a kernel built twice in a chunk is sent once, at its
        # first place with its last build (what the two assignments make of a table).
        if not self.journal or self.journal[-1][0] != _LAZY:
            self.journal.append((_LAZY, {}))
        self.journal[-1][1].update(zip(map(BUILD_KEY, made), made))
        super()._add_records(made)

    def _record(self, key: tuple[str, str]) -> dict[str, Any] | None:
        found = super()._record(key)
        if found is None:
            self.needs_head = True  # the head may hold it
        return found

    def _nvlink_arch(self, name: str) -> str:
        self.needs_head = True  # a guess from the whole table's order
        return super()._nvlink_arch(name)

    def depends_on_head(self) -> bool:
        # A build's architecture is its block's own: a record that took the unknown one was made whole.
        # What the log says beyond its records (an error, a stack ptxas cannot bound, a kernel cut off at the
        # end) is this process's to say: it reads such a tail itself (rare: a big log is a clean build's).
        found = self.findings
        if found.first_error is not None or found.unbounded or any(entry.is_kernel for entry in self.pending):
            return True
        return self.needs_head or any(
            type(item) is dict and item["arch"] == UNKNOWN_ARCH for item in self.records.values()
        )

    def sent(self) -> list[tuple[int, Any]]:
        """The journal since the last call, emptied: builds as columns (a quarter less to pickle and
        unpickle than the tuples), without the first, which is always ``_block_fields``; whole records as
        (key, fields)."""
        runs = [(kind, list(zip(*items.values()))[1:] if kind == _LAZY else items) for kind, items in self.journal]
        self.journal.clear()
        return runs


class _Journaled(dict):  # type: ignore[type-arg]  # dict[tuple[str, str], Any]: a parser's table
    """The tail parser's table, which notes every record put in one by one (``update`` does not come here:
    the batches of builds are noted by ``_add_records``)."""

    def __init__(self, journal: list[tuple[int, Any]]):
        super().__init__()
        self.journal = journal

    def __setitem__(self, key: tuple[str, str], item: Any) -> None:
        super().__setitem__(key, item)
        if not self.journal or self.journal[-1][0] != _WHOLE:
            self.journal.append((_WHOLE, []))
        self.journal[-1][1].append((key, dict(item)))


def serve(read_fd: int, write_fd: int) -> None:
    """The worker: read the tail, sending the table's news after each chunk; then say whether it holds."""
    from multiprocessing.connection import Connection  # noqa: PLC0415 - lazy, as in child_process

    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    try:
        path, source_name, cut, chunk_size = inbox.recv()
    except (EOFError, OSError):
        return
    # A thread sends (and pickles, the GIL shared), so that the reading does not wait for the parent, which
    # takes messages in only between the chunks of its own reading; two chunks' news at most wait to go.
    queue: Queue[tuple[Any, ...] | None] = Queue(maxsize=2)  # a slow parent holds the reading back
    sender = threading.Thread(target=_send_all, args=(queue, outbox), daemon=True)
    sender.start()
    try:
        with collection_paused(), open_regular(path) as fh:
            fh.seek(cut)
            parser = _TailParser(source_name, path)
            read = [0]

            def chunk_read(done: int, _total: int) -> None:
                read[0] = done
                queue.put(("items", done, parser.sent()))

            feed_rest(fh, parser, 0, chunk_read, None, chunk_size)
            parser.finish()
            queue.put(("items", read[0], parser.sent()))
            queue.put(("failed",) if parser.depends_on_head() else ("done",))
    except (ImportFailure, OSError, ValueError):
        queue.put(("failed",))  # this process reads the tail, and says what is wrong with it
    finally:
        queue.put(None)
        sender.join()


def _send_all(queue: Queue[tuple[Any, ...] | None], outbox: Connection) -> None:
    heard = True
    while (message := queue.get()) is not None:
        if heard:
            try:
                outbox.send(message)
            except OSError:
                heard = False  # the parent is gone: the rest is taken and dropped (the reading never blocks)
