"""LLVM offload binaries written as LLVM's ``OffloadBinary.cpp`` writes them, for the tests and the
structured fuzzer: no clang here writes versions 2 and 3 (clang 23's multi-entry and compressed forms).

Header, entries, string map, string table, then the images, 8-aligned; version 3 with ``compress``
("zlib" or "zstd") compresses everything after the header.  ``lie`` is applied to every size and
offset written (the fuzzer bends them; the tests write the truth).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

import zstandard

MAGIC = b"\x10\xff\x10\xad"
CUDA = 2  # the offload kind
OBJECT, BITCODE, PTX = 1, 2, 5  # image kinds
Image = tuple[int, dict[str, str], bytes]
"""(image kind, strings such as "triple" and "arch", the image's bytes)."""


def _align(n: int) -> int:
    return (n + 7) & ~7


def _truth(n: int) -> int:
    return n


def offload_binary(version: int, images: list[Image], compress: str = "", lie: Callable[[int], int] = _truth) -> bytes:
    """One offload binary of ``images`` (version 1 holds exactly one)."""
    assert version >= 2 or len(images) == 1

    def field(n: int) -> int:
        return lie(n) & (2**64 - 1)

    header_size = 40 if version >= 3 else 32
    string_size = 16 if version == 1 else 24
    strings = sum(len(s) for _k, s, _i in images)
    table_at = header_size + 40 * len(images) + string_size * strings
    table = bytearray()
    where: dict[str, int] = {}
    for _kind, pairs, _image in images:
        for text in (t for pair in pairs.items() for t in pair):
            if text not in where:
                where[text] = table_at + len(table)
                table += text.encode() + b"\0"
    data_at = _align(table_at + len(table))
    size = _align(data_at + sum(len(image) for _k, _s, image in images))
    body = bytearray()
    string_at, image_at = header_size + 40 * len(images), data_at
    for kind, pairs, image in images:
        body += struct.pack(
            "<HHIQQQQ", kind, CUDA, 0, field(string_at), field(len(pairs)), field(image_at), field(len(image))
        )
        string_at += string_size * len(pairs)
        image_at += len(image)
    for _kind, pairs, _image in images:
        for key, value in pairs.items():
            body += struct.pack("<QQ", field(where[key]), field(where[value]))
            if version >= 2:
                body += struct.pack("<Q", len(value))
    body += table + bytes(data_at - table_at - len(table))
    for _kind, _pairs, image in images:
        body += image
    body += bytes(size - header_size - len(body))
    count = 40 if version == 1 else len(images)  # version 1: the entry's size
    if not compress:
        header = MAGIC + struct.pack("<IQQQ", version, field(size), field(header_size), field(count))
        return header + (struct.pack("<Q", field(0)) if version >= 3 else b"") + bytes(body)
    packed = zlib.compress(bytes(body)) if compress == "zlib" else zstandard.ZstdCompressor().compress(bytes(body))
    header = MAGIC + struct.pack("<IQQQ", version, field(header_size + len(packed)), field(header_size), field(count))
    return header + struct.pack("<Q", field(size)) + packed
