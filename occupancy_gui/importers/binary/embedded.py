"""Fatbin containers embedded in a host binary's data sections (libcublasLt's ``.cask_resource``, libcufft's
``.ldata``, libcusparse's ``.rodata``), which the library loads itself: found by their header's bytes and
counted only where the whole container parses."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator

from ..base import ImportFailure, ImportResult
from .blob import Blob
from .fatbin import FATBIN_MAGIC, FATBIN_MAGIC_BYTES, entry_kinds_without_images, read_container
from .inflate import Decoding, inflate_pool

_SCAN_CHUNK = 8 << 20


class MagicScan:
    """Offsets in ``[lo, hi)`` of ``blob`` where a fatbin header (magic, version 1, 16-byte header)
    starts, in order.  An image-backed blob is read in chunks into one buffer: scanning 280 MB of
    libcufft's ``.ldata`` costs 8 MB of memory, and the image itself loads only what is parsed.

    :meth:`skip_to` says that the caller has read a container up to an offset: the scan resumes there,
    neither searching nor reading what lies before.  libcufft's containers lie end to end, so its
    266 MB of containers (20,859 without an ELF image, 3,124 with) are not searched a second time.
    :meth:`trial` tries a candidate where the chunk in hand holds it.
    """

    def __init__(self, blob: Blob, lo: int, hi: int, work: Decoding):
        self.blob, self.lo, self.hi, self.work = blob, lo, hi, work
        self.resume = lo
        self._held: tuple[int, memoryview] | None = None  # (offset in blob, bytes) of the chunk in hand

    def skip_to(self, offset: int) -> None:
        self.resume = max(self.resume, offset)

    def trial(self, at: int, hi: int, prefix: str, number: int | str) -> tuple[int, ImportResult | None] | None:
        """:func:`trial_container` of the candidate at ``at`` (just found) of a data section ending at
        ``hi``.  Where the chunk in hand holds the whole container its header claims, it is read from
        there: libcufft's 23,983 candidates then cost no read and none of the image's bookkeeping
        (0.3 s of 1.4 under a profiler)."""
        blob, shift = self.blob, 0
        if self._held is not None:
            start, view = self._held
            i = at - start
            if 0 <= i <= len(view) - 16:
                header_size, fat_size = struct.unpack_from("<HQ", view, i + 6)
                if i + header_size + fat_size <= len(view):
                    blob, shift = Blob(view, self.blob.path, self.blob.base + start, self.blob.what), start
        found = trial_container(blob, at - shift, hi - shift, prefix, number, self.work)
        return None if found is None else (found[0] + shift, found[1])

    def __iter__(self) -> Iterator[int]:
        return self._bytes_hits() if self.blob.image is None else self._image_hits()

    def _bytes_hits(self) -> Iterator[int]:
        data = self.blob.data
        raw = data if isinstance(data, (bytes, bytearray)) else bytes(data)
        end = min(len(raw), self.hi + 4)  # the magic inside [lo, hi), the rest of the header anywhere
        search = _HEADER_START.search
        found = search(raw, self.lo, end)
        while found is not None:
            pos = found.start()
            yield pos
            found = search(raw, max(pos + 4, self.resume), end)

    def _image_hits(self) -> Iterator[int]:
        image, base, hi = self.blob.image, self.blob.base, self.hi
        assert image is not None
        chunk = bytearray(_SCAN_CHUNK)
        view = memoryview(chunk)
        search = _HEADER_START.search
        start = self.lo
        try:
            while start < hi:
                self.work.step(base + start)
                size = min(_SCAN_CHUNK, hi - start)
                image.stream.seek(base + start)
                got = image.stream.readinto(view[:size]) or 0
                self._held = (start, view[:got])
                found = search(chunk, 0, got)  # a header's first 8 bytes must lie in this chunk
                while found is not None:
                    pos = found.start()
                    yield start + pos
                    found = search(chunk, max(pos + 4, self.resume - start), got)
                if got < size or size < _SCAN_CHUNK:
                    break
                start = max(start + size - 7, self.resume)
        finally:
            self._held = None


_HEADER_REST = b"\x01\x00\x10\x00"  # version 1, a 16-byte header
_HEADER_START = re.compile(re.escape(FATBIN_MAGIC_BYTES + _HEADER_REST))
"""The 8 bytes a container starts with, searched by the regex engine's literal search: libcurand's 78 MB
of data sections in 0.023 s, against 0.041 s of ``bytearray.find`` on the magic (measured)."""


def read_embedded(blob: Blob, lo: int, hi: int, result: ImportResult, prefix: str, work: Decoding | None = None) -> int:
    """Fatbin containers that lie in ``[lo, hi)`` of ``blob`` (a data section); the number found.

    A byte pattern alone never makes a kernel: a candidate counts only where the whole container
    parses (headers, entry sizes inside it, every ELF image and each function's figures read
    without error); anything else is skipped as the data it most likely is.  A candidate inside a
    container read (with images or without) is none: the scan resumes past each.
    """
    found = 0
    work = work if work is not None else Decoding(inflate_pool(), len(blob.data))
    scan = MagicScan(blob, lo, hi, work)
    for at in scan:
        trial = scan.trial(at, hi, prefix, found + 1)
        if trial is None:
            continue
        end, read = trial
        scan.skip_to(end)
        if read is not None:
            found += 1
            result.records.extend(read.records)
            result.notes.extend(read.notes)
    return found


def trial_container(
    blob: Blob, at: int, hi: int, prefix: str, number: int | str, work: Decoding
) -> tuple[int, ImportResult | None] | None:
    """The end and the records of the candidate container at ``at`` of a data section ending at ``hi``;
    its end and ``None`` where it is well formed but holds no CUDA ELF image (PTX only, other kinds);
    ``None`` where it is no container: it runs past ``hi`` or fails to parse anywhere."""
    window = Blob(blob.data, blob.path, blob.base, image=blob.image)
    trial = ImportResult()
    try:
        (magic, _v, header_size, fat_size) = window.unpack("<IHHQ", at, "fatbin header")
        if at + 16 + fat_size > hi:
            return None
        if magic == FATBIN_MAGIC and header_size >= 16 and at + header_size + fat_size <= len(window.data):
            kinds = entry_kinds_without_images(window, at + header_size, at + header_size + fat_size)
            if kinds is not None:  # what read_container would count, and find no records in
                for what, count in kinds.items():
                    work.skipped[what] = work.skipped.get(what, 0) + count
                return at + header_size + fat_size, None
        # Its images inflate on this thread: the trial reads them at once, so a pool thread would only
        # add a hand-over per image (libcufft: 3,125; nothing else is queued during a trial).
        pool, work.pool = work.pool, None
        images = work.images
        try:
            end = read_container(window, at, trial, prefix, number, embedded=True, work=work)
        finally:
            work.pool = pool
            if not trial.records:  # judged no container below: its images were none
                work.images = images
    except (ImportFailure, ValueError, struct.error):
        return None
    return (end, trial) if trial.records else None
