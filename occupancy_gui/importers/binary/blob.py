"""Bounds-checked reads of binary data, held in memory or read from the file only where looked at.

A vendor library is 100+ MB, of which the figures we need (ELF and fatbin headers, symbol and string
tables, ``.nv.info`` sections) are a few hundred KB; the machine code and constant tables around them
are never parsed.  :class:`FileImage` is a zero-filled buffer the size of the file whose ranges are
read the first time a :class:`Blob` touches them, so a library costs the bytes actually parsed, in
time and in memory (the untouched pages of the anonymous mapping are never committed by the OS).
"""

from __future__ import annotations

import io
import mmap
import re
import struct
from bisect import bisect_right
from typing import Any

from ..base import ImportFailure

MAX_NAME = 64 << 10  # longest string-table entry we read (mangled C++ names run to a few KB)
_PAGE_MASK = mmap.PAGESIZE - 1


class FileImage:
    """An open file as a buffer of its size; :meth:`load` reads a range into it once."""

    def __init__(self, stream: io.BufferedIOBase, size: int, path: str):
        self.stream = stream
        self.size = size
        self.path = path
        # Anonymous memory: zero pages cost nothing until written (a bytearray would be memset).
        self.buffer: mmap.mmap | bytearray = mmap.mmap(-1, size) if size else bytearray()
        self.view = memoryview(self.buffer)
        self._starts: list[int] = []  # loaded ranges, disjoint and sorted
        self._ends: list[int] = []
        self._hit = (0, 0)  # the loaded range that answered last: most calls fall inside it again

    def load(self, at: int, size: int) -> None:
        """Read ``[at, at + size)`` (clipped to the file) unless it is loaded already."""
        hit_lo, hit_hi = self._hit
        if hit_lo <= at and at + size <= hit_hi:
            return
        lo, hi = max(0, at), min(self.size, at + size)
        if lo >= hi:
            return
        # Whole pages: the pages a read touches are committed anyway, and neighbouring small reads (a
        # fatbin's container header, entry header and entry options) then cost one system call, not three.
        lo, hi = lo & ~_PAGE_MASK, min(self.size, (hi + _PAGE_MASK) & ~_PAGE_MASK)
        i = bisect_right(self._starts, lo) - 1
        if i >= 0 and self._ends[i] >= hi:
            self._hit = (self._starts[i], self._ends[i])
            return
        self.stream.seek(lo)
        got = self.stream.readinto(self.view[lo:hi])
        if got != hi - lo:
            raise ImportFailure(
                self.path,
                "the file is shorter than when it was opened (is it being rewritten?)",
                offset=lo + (got or 0),
            )
        self._add(lo, hi)

    def release(self) -> None:
        """Give back the pages read so far (they read as unloaded again): a worker process that has
        read one piece of a library does not keep it while it reads the next."""
        if isinstance(self.buffer, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
            self.buffer.madvise(mmap.MADV_DONTNEED)
            self._starts.clear()
            self._ends.clear()
            self._hit = (0, 0)

    def covers(self, at: int, size: int) -> bool:
        """Whether ``[at, at + size)`` is loaded already."""
        i = bisect_right(self._starts, at) - 1
        return i >= 0 and self._ends[i] >= min(self.size, at + size)

    def load_all(self) -> None:
        self.load(0, self.size)

    def _add(self, lo: int, hi: int) -> None:
        starts, ends = self._starts, self._ends
        i = bisect_right(starts, lo)
        if i and ends[i - 1] >= lo:  # joins the range before it
            i -= 1
            lo = starts[i]
        j = i
        while j < len(starts) and starts[j] <= hi:  # swallows the ranges it reaches
            hi = max(hi, ends[j])
            j += 1
        starts[i:j] = [lo]
        ends[i:j] = [hi]


_NONZERO = re.compile(rb"[^\0]")
_ZERO_CHUNK = 1 << 20


class Blob:
    """Bounds-checked little/big-endian reads; errors name the file and the absolute offset.

    With an ``image``, ``data`` is a window of ``image.view`` starting at file offset ``base``, and
    every read through this class first loads what it touches.
    """

    def __init__(
        self,
        data: bytes | bytearray | memoryview | mmap.mmap,
        path: str,
        base: int = 0,
        what: str = "",
        image: FileImage | None = None,
    ):
        self.data = data
        self.path = path
        self.base = base  # absolute offset of data[0] in the file, for messages
        self.what = what  # e.g. "fatbin entry 2 (decompressed)": prefixes messages
        self.image = image

    def load(self, at: int, size: int) -> None:
        if self.image is not None:
            self.image.load(self.base + at, size)

    def fail(self, reason: str, at: int) -> ImportFailure:
        prefix = f"{self.what}: " if self.what else ""
        return ImportFailure(self.path, prefix + reason, offset=self.base + max(0, at))

    def need(self, at: int, size: int, what: str) -> None:
        if at < 0 or size < 0 or at + size > len(self.data):
            raise self.fail(
                f"{what} ({size} bytes at {at}) lies beyond the end of the data ({len(self.data)} bytes)", at
            )

    def unpack(self, fmt: str, at: int, what: str) -> tuple[Any, ...]:
        size = struct.calcsize(fmt)
        self.need(at, size, what)
        self.load(at, size)
        return struct.unpack_from(fmt, self.data, at)

    def bytes(self, at: int, size: int, what: str) -> bytes:
        self.need(at, size, what)
        self.load(at, size)
        return bytes(self.data[at : at + size])

    def skip_zeros(self, at: int, end: int) -> int:
        """The first offset in ``[at, end)`` whose byte is not zero, else ``end``: padding between
        containers is skipped at C speed (a regex over the data, or over chunks read from the
        file into one scratch buffer, so a gigabyte of padding costs 1 MiB of memory)."""
        end = min(end, len(self.data))
        if at >= end:
            return end
        image = self.image
        if image is not None:  # padding is a few bytes: look at the next page the usual way first
            self.load(at, 4096)
            head = min(end, at + 4096)
            found = _NONZERO.search(self.data, at, head)
            if found or head == end:
                return found.start() if found else end
            at = head
        if image is None or image.covers(self.base + at, end - at):
            found = _NONZERO.search(self.data, at, end)
            return found.start() if found else end
        chunk = bytearray(_ZERO_CHUNK)
        view = memoryview(chunk)
        pos = at
        while pos < end:
            size = min(_ZERO_CHUNK, end - pos)
            image.stream.seek(self.base + pos)
            got = image.stream.readinto(view[:size]) or 0
            found = _NONZERO.search(chunk, 0, got)
            if found:
                return pos + found.start()
            if got < size:
                return end
            pos += size
        return end

    def byte(self, at: int) -> int:
        """One byte (callers check the bound)."""
        if self.image is not None:
            self.load(at, 4096)  # a scan goes on byte by byte: read ahead
        return self.data[at]

    def cstring(self, at: int, what: str) -> str:
        if at < 0 or at >= len(self.data):
            raise self.fail(f"{what} string offset beyond the end of the data", at)
        self.load(at, MAX_NAME)
        data = self.data
        if isinstance(data, (bytes, bytearray)):
            end = data.find(b"\0", at, at + MAX_NAME)
        else:
            end = bytes(data[at : at + MAX_NAME]).find(b"\0")
            end = end + at if end >= 0 else end
        if end < 0:
            raise self.fail(f"{what} string is not terminated", at)
        return bytes(data[at:end]).decode("utf-8", "replace")
