"""The inflation of an import's compressed images: ahead of their reading, on threads, within its budgets.

A fatbin's compressed ELF images (``fatbin``) are queued as their container's headers are read and inflate on a
pool of threads (the codecs release the GIL) in file order, while the records of the container before are
read; :class:`Decoding` holds one import's queue, its budget (``budget``), its cancel and its progress.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from ..._process.child_process import usable_cpus
from ..base import ImportCancelled
from .blob import Blob
from .budget import BudgetExceeded, InflateBudget, decode


@dataclass
class Entry:
    """One ELF image of a fatbin container: in place, or compressed and inflating (or waiting to)."""

    label: str
    pos: int  # the entry header's offset in the blob
    payload_at: int
    window: memoryview | None = None  # an uncompressed image, read in place
    inflated: Future[bytes | None] | None = None  # a compressed one, being inflated
    packed: bytes | None = None  # a compressed one, waiting for its turn to inflate
    codec: str = ""  # a compressed one's: "lz4" or "zstd"
    usize: int = 0


def _inflate(codec: str, packed: bytes, usize: int) -> bytes | None:
    """An entry's image (claimed from the import's budget by the caller); ``None`` where this Python has no
    zstd decoder.  Raises the codec's error."""
    return decode(codec, packed, usize)


_POOL: ThreadPoolExecutor | None = None
INFLIGHT_BUDGET = 256 << 20
"""Bytes of inflated images an import holds at once (beyond the one being read): libcublasLt's
5,832 images (1.9 GiB inflated, 16 MiB the largest) flow through it."""


INLINE_INFLATE = 1 << 20
"""Images up to this size inflate on the reading thread: a pool's hand-off costs more than they take."""


class Decoding:
    """One import's inflation work and limits: images inflate on ``pool`` (whose threads the
    codecs release the GIL to) in file order, at most :data:`INFLIGHT_BUDGET` bytes of them
    waiting at once; what they may inflate in all and hold at once is the import's ``budget``
    (:class:`.budget.InflateBudget`: ``max(4 GiB, 16 x`` the file in all, 1 GiB held).  ``step`` polls
    ``cancel`` and reports progress in bytes of the file reached.
    """

    def __init__(
        self,
        pool: ThreadPoolExecutor | None,
        file_size: int,
        cancel: Callable[[], bool] | None = None,
        progress: Callable[[int, int], None] | None = None,
        inflight: int | None = None,
    ):
        self.pool = pool
        # Bytes of images pending at once: a worker process of several gets its share.
        self.inflight = inflight if inflight is not None else INFLIGHT_BUDGET
        self.file_size = file_size
        self.budget = InflateBudget.for_input(file_size)
        self.total_cap = self.budget.total_limit
        self.cancel = cancel
        self.progress = progress
        self.inflated = 0  # bytes queued so far
        self.pending = 0  # bytes submitted and not yet taken
        self.waiting: deque[Entry] = deque()
        self.reached = 0
        self.path = ""
        self.skipped: dict[str, int] = {}  # entries that hold no ELF image, by kind: "PTX": 3
        self.images = 0  # ELF images read (with functions or without)

    def queue(self, entry: Entry, blob: Blob, at: int) -> None:
        """Claim an image's bytes from the budget (held from now until its records are read) and queue it."""
        try:
            self.budget.claim(entry.usize)
        except BudgetExceeded as exc:
            raise blob.fail(f"{entry.label}: {exc}", at) from None
        self.inflated += entry.usize
        self.waiting.append(entry)
        self._pump()

    def _pump(self) -> None:
        while self.waiting and (not self.pending or self.pending + self.waiting[0].usize <= self.inflight):
            self._submit(self.waiting.popleft())

    def _submit(self, entry: Entry) -> None:
        packed, entry.packed = entry.packed, None
        assert packed is not None
        self.pending += entry.usize
        if self.pool is not None and entry.usize > INLINE_INFLATE:
            entry.inflated = self.pool.submit(_inflate, entry.codec, packed, entry.usize)
            return
        entry.inflated = Future()
        try:
            entry.inflated.set_result(_inflate(entry.codec, packed, entry.usize))
        except Exception as exc:  # noqa: BLE001 - raised by take(), in order
            entry.inflated.set_exception(exc)

    def take(self, entry: Entry) -> bytes | None:
        """The entry's image (its turn comes now if the budget held it back); raises its codec error."""
        if entry.inflated is None:
            self.waiting.remove(entry)
            self._submit(entry)
        assert entry.inflated is not None
        future, entry.inflated = entry.inflated, None
        try:
            return future.result()
        finally:
            self.pending -= entry.usize
            self._pump()

    def discard(self, entries: list[Entry]) -> None:
        """Forget a container that failed (a trial parse of embedded data): its queued images."""
        for entry in entries:
            if entry.packed is not None and entry in self.waiting:
                self.waiting.remove(entry)
                entry.packed = None
                self.budget.release(entry.usize)
            elif entry.inflated is not None:
                entry.inflated.cancel()
                entry.inflated = None
                self.pending -= entry.usize
                self.budget.release(entry.usize)
        self._pump()

    def step(self, offset: int) -> None:
        """At ``offset`` of the file: raise ImportCancelled if asked to, report progress."""
        if self.cancel is not None and self.cancel():
            raise ImportCancelled(self.path)
        if offset > self.reached:
            self.reached = offset
            if self.progress is not None:
                self.progress(min(offset, self.file_size), self.file_size)


def inflate_pool() -> ThreadPoolExecutor:
    """Threads that inflate the next container's images while this one's records are read: zstd
    and lz4 release the GIL (libcublasLt: 5,832 compressed images)."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=min(4, usable_cpus()), thread_name_prefix="fatbin-inflate")
    return _POOL
