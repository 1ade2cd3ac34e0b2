"""Feed a text log to a line-oriented parser in bounded memory, whatever its encoding.

The parser sees large byte chunks that always end at a line boundary (``parser.feed(buf, end)``);
UTF-16 logs from Windows shells are re-encoded as UTF-8 on the way, a UTF-8 BOM is dropped, and an
absurdly long line keeps only its tail.  ``cancel()`` is polled before every chunk and ``progress``
hears (bytes done, total) after each.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterator
from typing import Protocol

from ..base import CancelFn, ImportCancelled, ProgressFn

CHUNK_SIZE = 8 << 20
_MAX_CARRY = 1 << 20


class ChunkParser(Protocol):
    source_name: str

    def feed(self, chunk: bytes | bytearray, end: int | None = None) -> None: ...


def sniff_utf16(head: bytes) -> str | None:
    """The UTF-16 codec a log is in, or ``None`` for byte-oriented encodings."""
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be"
    sample = head[:512]
    if len(sample) >= 8:
        even_nul = sample[0::2].count(0)
        odd_nul = sample[1::2].count(0)
        half = len(sample) // 2
        if odd_nul > 0.4 * half and even_nul < 0.05 * half:
            return "utf-16-le"
        if even_nul > 0.4 * half and odd_nul < 0.05 * half:
            return "utf-16-be"
    return None


def _decoded_chunks(stream: _Prefixed, utf16: str, chunk_size: int) -> Iterator[tuple[bytes, int]]:
    """Yield (UTF-8 text chunk, raw bytes consumed so far) of a UTF-16 stream."""
    done = 0
    decoder = codecs.getincrementaldecoder(utf16)("replace")
    first = True
    while True:
        raw = stream.read(chunk_size)
        done += len(raw)
        text = decoder.decode(raw, final=not raw)
        if first and text.startswith("\ufeff"):
            text = text[1:]
        first = False
        yield text.encode("utf-8", "replace"), done
        if not raw:
            return


def _check(cancel: CancelFn | None, source_name: str) -> None:
    if cancel is not None and cancel():
        raise ImportCancelled(source_name)


def _parse_utf16(
    stream: _Prefixed,
    parser: ChunkParser,
    utf16: str,
    total: int,
    progress: ProgressFn | None,
    cancel: CancelFn | None,
    chunk_size: int,
) -> None:
    carry = b""
    for data, done in _decoded_chunks(stream, utf16, chunk_size):
        _check(cancel, parser.source_name)
        if data:
            buf = carry + data if carry else data
            cut = buf.rfind(b"\n") + 1
            if cut == 0:
                carry = buf if len(buf) <= _MAX_CARRY else buf[-4096:]
            else:
                parser.feed(buf, cut)
                carry = buf[cut:]
        elif carry:
            parser.feed(carry)
            carry = b""
        if progress is not None:
            progress(done, max(total, done))


def _parse_bytes(
    stream: io.BufferedIOBase,
    parser: ChunkParser,
    head: bytes,
    total: int,
    progress: ProgressFn | None,
    cancel: CancelFn | None,
    chunk_size: int,
) -> None:
    """Read into one reused buffer; the partial line at its end moves to its front."""
    buf = bytearray(chunk_size + _MAX_CARRY)
    view = memoryview(buf)
    start = 3 if head.startswith(codecs.BOM_UTF8) else 0
    filled = len(head) - start
    buf[:filled] = head[start:]
    done = len(head)
    try:
        while True:
            _check(cancel, parser.source_name)
            got = stream.readinto(view[filled : filled + chunk_size])
            done += got
            filled += got
            if not got:
                if filled:
                    parser.feed(buf, filled)
                if progress is not None:
                    progress(done, max(total, done))
                return
            cut = buf.rfind(b"\n", 0, filled) + 1
            if cut:
                parser.feed(buf, cut)
            if filled - cut > _MAX_CARRY:  # one absurdly long line: keep only its tail
                cut = filled - 4096
            if cut:
                tail = bytes(view[cut:filled])
                buf[: len(tail)] = tail
                filled = len(tail)
            if progress is not None:
                progress(done, max(total, done))
    finally:
        view.release()


class _Prefixed:
    def __init__(self, head: bytes, stream: io.BufferedIOBase) -> None:
        self.head = head
        self.stream = stream

    def read(self, n: int) -> bytes:
        if self.head:
            out, self.head = self.head, b""
            return out + self.stream.read(max(0, n - len(out)))
        return self.stream.read(n)


def feed_stream(
    stream: io.BufferedIOBase,
    parser: ChunkParser,
    total: int = 0,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> None:
    """Hand all of ``stream`` to ``parser`` in line-aligned chunks."""
    head = stream.read(4096)
    utf16 = sniff_utf16(head)
    if utf16:
        _parse_utf16(_Prefixed(head, stream), parser, utf16, total, progress, cancel, chunk_size)
    else:
        _parse_bytes(stream, parser, head, total, progress, cancel, chunk_size)


def feed_rest(
    stream: io.BufferedIOBase,
    parser: ChunkParser,
    total: int = 0,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> None:
    """Hand the rest of a byte-oriented log to ``parser`` from where ``stream`` stands (a line's start,
    past any byte order mark): the tail of a log that :mod:`.parallel` cut in two."""
    _parse_bytes(stream, parser, b"", total, progress, cancel, chunk_size)
