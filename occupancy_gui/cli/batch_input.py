"""``occupancy batch``'s input: non-blank lines in chunks, split and decoded as text mode would, in bounded memory.

A chunk holds at most ``CHUNK_LINES`` lines (the first ones fewer) and ``CHUNK_CHARS`` characters; a line
over ``MAX_LINE_CHARS`` is skipped (read in pieces, never whole) and reported.  A chunk is handed on as soon as the input pauses,
so a slow producer sees each answer while it writes the next query.
"""

from __future__ import annotations

import codecs
import io
import os
import select
from collections.abc import Iterator
from itertools import repeat
from typing import BinaryIO

CHUNK_LINES = 65536
FIRST_CHUNK_LINES = 4096
"""The first chunks are smaller (each four times the last, up to ``CHUNK_LINES``): the first answers come
out soon, and the big chunks that the vectorised engine needs follow."""
CHUNK_CHARS = 16 << 20
MAX_LINE_CHARS = 1 << 20
"""A query is a few hundred characters (an inline device mapping a few thousand); a longer line is refused."""
READ_BYTES = 1 << 20


Line = tuple[int, "str | None", bool]
"""One non-blank input line: (number, text or ``None`` for a line over ``MAX_LINE_CHARS``, whether a newline
ended it; only a last line may lack one, and JSON's error columns count the newline)."""


def _input_pauses(stream: BinaryIO) -> bool:
    """True when reading now would wait for the producer (a pipe or terminal with nothing pending)."""
    if os.name != "posix":
        return False
    try:
        return not select.select([stream.fileno()], [], [], 0)[0]
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def read_chunks(
    stream: BinaryIO, first_number: int = 0, first_chunk_lines: int = FIRST_CHUNK_LINES
) -> Iterator[list[Line]]:
    """Non-blank lines in chunks, split as text mode splits them (``\\n``, ``\\r\\n`` and ``\\r``).

    UTF-8 with undecodable bytes replaced, as the file is read today.  Lines are numbered from
    ``first_number + 1`` (a worker's block of a bigger input, see ``batch_parallel``).
    """
    decoder = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")(errors="replace"), translate=True)
    read = getattr(stream, "read1", stream.read)
    chunk: list[Line] = []
    chars = 0
    partial: list[str] = []
    partial_chars = 0
    overlong = False
    number = first_number
    limit = min(first_chunk_lines, CHUNK_LINES)
    while True:
        data = read(READ_BYTES)
        text = decoder.decode(data, final=not data)
        pieces = text.split("\n")
        bulk = pieces[1:-1]  # whole lines of this read: the common case is taken in one step
        if bulk and max(map(len, bulk)) <= MAX_LINE_CHARS and all(map(str.strip, bulk)):
            del pieces[1:-1]
        else:
            bulk = []
        for piece in pieces[:-1]:
            number += 1
            if overlong or partial_chars + len(piece) > MAX_LINE_CHARS:
                chunk.append((number, None, True))
            else:
                line = "".join(partial) + piece if partial else piece
                if line.strip():
                    chunk.append((number, line, True))
                    chars += len(line)
            partial, partial_chars, overlong = [], 0, False
        if bulk:
            chunk.extend(zip(range(number + 1, number + 1 + len(bulk)), bulk, repeat(True)))
            number += len(bulk)
            chars += sum(map(len, bulk))
        last = pieces[-1]
        if not overlong:
            partial.append(last)
            partial_chars += len(last)
            if partial_chars > MAX_LINE_CHARS:
                partial, partial_chars, overlong = [], 0, True
        if not data:
            if overlong or partial_chars:
                number += 1
                line = "".join(partial)
                if overlong:
                    chunk.append((number, None, True))
                elif line.strip():
                    chunk.append((number, line, False))
            if chunk:
                yield chunk
            return
        if chunk and (len(chunk) >= limit or chars >= CHUNK_CHARS or _input_pauses(stream)):
            yield chunk
            chunk, chars = [], 0
            limit = min(limit * 4, CHUNK_LINES)
