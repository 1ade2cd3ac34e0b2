"""``occupancy batch --jobs N``: the input cut into blocks of whole lines, answered by N worker processes.

The parent only moves bytes.  It reads the input, cuts it after a line break, counts each block's
lines (so that a worker numbers its lines as the whole input would) and hands the blocks to idle
workers (``batch_worker``, one block each at a time); it writes their answers back in input order.
A worker answers a block with the one-process batch's own code (``batch.answer_stream``), so the
answers are the same byte for byte.  The first block is answered here while the workers start, so the
first answers come as soon as they would in one process.

Bounded: a block is at most ``BLOCK_BYTES`` (the first ones smaller), at most ``2 * N`` blocks are out
at once (given, or answered and waiting for an earlier one), and a line with no break within
``OVERLONG_BYTES`` is never held: it is refused as the one-process batch refuses a line over
``MAX_LINE_CHARS``.  A block goes out early when the input pauses (a producer waiting for answers).
Nothing is lost: each block is kept until its answers are written, and a worker that dies or cannot
start has its blocks answered here.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import BinaryIO, TextIO

from .._process import child_process
from .._process.child_process import Child
from .batch_input import MAX_LINE_CHARS, READ_BYTES

BLOCK_BYTES = 4 << 20
"""A block of ~28,000 queries: big enough for the vectorised engine, small enough to hold 2N of."""
FIRST_BLOCK_BYTES = 256 << 10
"""The first block (answered here while the workers start); each next one is four times the last."""
MAX_JOBS = 16
OVERLONG_BYTES = 4 * MAX_LINE_CHARS + 4
"""A line of more bytes has more than ``MAX_LINE_CHARS`` characters however its UTF-8 decodes."""
_OVERLONG_STAND_IN = b"x" * (MAX_LINE_CHARS + 1) + b"\n"
"""The block answered for such a line: one line that ``read_chunks`` refuses with its usual words."""

Answer = Callable[[bytes, int], list[str]]
"""Answers a block whose lines are numbered from the int + 1, here in this process."""


def cut(buffer: bytes | bytearray, final: bool, limit: int | None = None) -> int:
    """Bytes of ``buffer`` up to its last line break (``\\n``, ``\\r\\n`` or ``\\r``, as text mode reads
    them) within its first ``limit`` bytes, else up to its first break after them; 0 if it has none.

    A ``\\r`` at the very end counts only if ``final`` (it may be half a ``\\r\\n``), and a ``\\r\\n`` is
    never split.
    """
    size = len(buffer)
    hi = size if limit is None else min(limit, size)
    lf = buffer.rfind(b"\n", 0, hi)
    cr = buffer.rfind(b"\r", 0, hi)
    if cr > lf:
        if cr + 1 < size:
            return cr + 2 if buffer[cr + 1] == 10 else cr + 1
        if final:
            return size
        cr = buffer.rfind(b"\r", 0, cr)  # half a \r\n, perhaps: the break before it
    end = max(lf, cr) + 1
    if end or hi == size:
        return end
    return _first_break(buffer, hi, final)


def _first_break(buffer: bytes | bytearray, start: int, final: bool) -> int:
    """Bytes up to the first line break at or after ``start``, 0 if there is none yet."""
    found = [i for i in (buffer.find(b"\n", start), buffer.find(b"\r", start)) if i >= 0]
    if not found:
        return 0
    i = min(found)
    if buffer[i] == 10:
        return i + 1
    if i + 1 < len(buffer):
        return i + 2 if buffer[i + 1] == 10 else i + 1
    return i + 1 if final else 0


def count_lines(block: bytes | bytearray) -> int:
    """The line breaks in ``block`` as text mode counts them (``\\r\\n`` once)."""
    return block.count(b"\n") + block.count(b"\r") - block.count(b"\r\n")


@dataclass
class _Block:
    data: bytes  # kept until its answers are written: a worker that dies has it answered here
    first_number: int
    answers: list[bytes] = field(default_factory=list)
    done: bool = False


@dataclass
class _Worker:
    child: Child
    block: _Block | None = None

    def give(self, block: _Block) -> None:
        self.block = block
        self.child.to_child.send_bytes(block.first_number.to_bytes(8, "little") + block.data)


class _Output:
    """``out`` as bytes: its binary buffer where it has one (after the text written so far)."""

    def __init__(self, out: TextIO):
        out.flush()
        self.out = out
        self.buffer: BinaryIO | None = getattr(out, "buffer", None)
        encoding = getattr(out, "encoding", None)
        if encoding is None or codecs.lookup(encoding).name != "utf-8":
            self.buffer = None  # the workers' UTF-8 would not be what the text stream writes

    def write(self, answers: list[bytes]) -> None:
        if self.buffer is not None:
            self.buffer.writelines(answers)
            self.buffer.flush()
        else:
            self.out.write(b"".join(answers).decode())
            self.out.flush()


class _Input:
    """The stream read a piece at a time; ``ready()`` says whether a read would wait for its producer."""

    def __init__(self, stream: BinaryIO):
        self.read = getattr(stream, "read1", stream.read)
        try:
            self.fileno: int | None = stream.fileno()
        except (OSError, ValueError, AttributeError):
            self.fileno = None  # in memory: never waits


def _note(text: str) -> None:
    print(f"occupancy batch: {text}", file=sys.stderr, flush=True)


def run_parallel(stream: BinaryIO, out: TextIO, jobs: int, here: Answer, setup: tuple[str, str]) -> None:
    """Every line of ``stream`` answered on ``out`` in input order, by ``jobs`` workers (``setup`` is
    the source's name and the format, sent to each) and by ``here``."""
    _Run(_Input(stream), _Output(out), min(jobs, MAX_JOBS), here, setup).run()


class _Run:
    def __init__(self, source: _Input, output: _Output, jobs: int, here: Answer, setup: tuple[str, str]):
        self.input = source
        self.output = output
        self.jobs = jobs
        self.here = here
        self.setup = setup
        self.workers: list[_Worker] = []
        self.started = False
        self.blocks: deque[_Block] = deque()  # out, in input order
        self.buffer = bytearray()
        self.number = 0  # lines before the buffer
        self.eof = False
        self.size = FIRST_BLOCK_BYTES
        self.skipping = False  # inside a line over OVERLONG_BYTES: its bytes are dropped
        self.after_cr = False  # that line ended in a \r at the end of a read: a \n next is part of it

    # -- the loop
    def run(self) -> None:
        try:
            while True:
                self._write_done()
                if self.eof and not self.buffer and not self.blocks:
                    return
                if self._give():
                    continue
                self._wait()
        finally:
            for worker in self.workers:
                worker.child.close(kill=worker.block is not None)

    def _write_done(self) -> None:
        while self.blocks and self.blocks[0].done:
            block = self.blocks.popleft()
            self.output.write(block.answers)

    def _room(self) -> bool:
        return len(self.blocks) < 2 * self.jobs

    def _give(self) -> bool:
        """Hand out the next block if one is ready and someone is free; True if anything was done."""
        if self.skipping or not self.buffer or not self._room():
            return False
        end = cut(self.buffer, self.eof, self.size)
        if not end:
            if self.eof:
                end = len(self.buffer)  # the last line, without a break
            elif len(self.buffer) > OVERLONG_BYTES:
                self._overlong()
                return True
            else:
                return False
        if len(self.buffer) < self.size and not self.eof and not self._paused():
            return False
        if self.started:
            idle = next((w for w in self.workers if w.block is None), None)
            if idle is None and self.workers:
                return False
        else:
            idle = None
        block = _Block(bytes(self.buffer[:end]), self.number)
        del self.buffer[:end]
        self.number += count_lines(block.data)
        self.size = min(self.size * 4, BLOCK_BYTES)
        self.blocks.append(block)
        if idle is not None:
            try:
                idle.give(block)
                return True
            except OSError:
                self._lost(idle)
                return True
        self._answer_here(block)
        if not self.started and not (self.eof and not self.buffer):
            self._start_workers()  # after the first block: an input of one block needs none
        return True

    def _paused(self) -> bool:
        """Whether the producer has nothing more for now (then what is here goes out)."""
        if self.input.fileno is None or os.name != "posix":
            return False
        return not wait([self.input.fileno], 0)

    def _wait(self) -> None:
        """Until a worker answers or (if more input is wanted) the input has more."""
        busy = [w.child.from_child for w in self.workers if w.block is not None]
        want = not self.eof and (self.skipping or len(self.buffer) < self.size or not cut(self.buffer, False))
        want = want and len(self.buffer) <= self.size + OVERLONG_BYTES  # bounded, whatever the input
        if want and self.input.fileno is None:
            self._read()
            return
        objects: list[Connection | int] = [
            *busy,
            *([self.input.fileno] if want and self.input.fileno is not None else []),
        ]
        if not objects:
            self._read()  # nothing to wait for: only input can move things on
            return
        for ready in wait(objects):
            if isinstance(ready, Connection):
                self._receive(ready)
            else:
                self._read()

    def _read(self) -> None:
        data = self.input.read(READ_BYTES)
        if not data:
            self.eof = True
            return
        if self.skipping:
            data = self._skip(data)
        self.buffer += data

    # -- workers
    def _start_workers(self) -> None:
        self.started = True
        failure = ""
        for _ in range(self.jobs):
            try:
                child = child_process.start("occupancy_gui.cli.batch_worker")
            except OSError as exc:
                failure = str(exc)
                break  # the blocks are answered here
            try:
                child.to_child.send(self.setup)
            except OSError as exc:
                failure = str(exc)
                child.close(kill=True)
                continue
            self.workers.append(_Worker(child))
        if failure:  # the answers are the same, only slower: said once, on standard error
            _note(
                f"{self.jobs - len(self.workers)} of {self.jobs} worker processes could not start ({failure}); "
                "their share is answered in this process"
            )

    def _receive(self, conn: Connection) -> None:
        worker = next(w for w in self.workers if w.child.from_child is conn)
        block = worker.block
        assert block is not None
        try:
            text = conn.recv_bytes()
        except (EOFError, OSError):
            self._lost(worker)
            return
        if text:
            block.answers.append(text)
        else:
            block.done = True
            worker.block = None

    def _lost(self, worker: _Worker) -> None:
        """A worker that died: its block is answered here, from the start."""
        status = worker.child.proc.poll()
        _note(
            "a worker process stopped"
            + (f" (exit status {status})" if status is not None else "")
            + "; its lines are answered in this process"
        )
        self.workers.remove(worker)
        worker.child.close(kill=True)
        if worker.block is not None:
            worker.block.answers.clear()
            self._answer_here(worker.block)

    def _answer_here(self, block: _Block) -> None:
        block.answers = [text.encode() for text in self.here(block.data, block.first_number)]
        block.done = True

    # -- a line too long to hold
    def _overlong(self) -> None:
        """The buffer is one unfinished line over ``OVERLONG_BYTES``: refuse it, drop it to its end."""
        block = _Block(_OVERLONG_STAND_IN, self.number)
        self.number += 1
        self.blocks.append(block)
        self._answer_here(block)
        self.skipping = True
        data = bytes(self.buffer)
        self.buffer.clear()
        self.buffer += self._skip(data)

    def _skip(self, data: bytes) -> bytes:
        """What follows the end of the line being dropped (``data`` continues it); ``b""`` if it goes on."""
        if self.after_cr:
            self.after_cr = False
            self.skipping = False
            return data[1:] if data.startswith(b"\n") else data
        ends = [i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0]
        if not ends:
            return b""
        end = min(ends)
        self.skipping = False
        if data[end] == 13:  # \r: a \n right after it is the same break
            if end + 1 == len(data):
                self.skipping = True  # still inside, until the next byte is seen
                self.after_cr = True
                return b""
            if data[end + 1] == 10:
                end += 1
        return data[end + 1 :]
