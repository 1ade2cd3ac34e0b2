"""Every fatbin container of a file, found without the binary reader, for cuobjdump to read.

cuobjdump looks only at a library's ``.nv_fatbin`` section; the containers a library keeps elsewhere
(libcufft's ``.data``/``.ldata``, libcublasLt's ``.cask_resource``, libcurand 10.4.5's ``.data``,
libcusparse's ``.rodata``) it reads only when they are handed to it as a fatbin file of their own.
The checks that compare the reader with cuobjdump find those containers here, by their 16-byte
header wherever it is, so a container the reader missed is still handed to cuobjdump.  (The reader
merges identical records of different containers and names only the first one's container, so the
records' sources do not name every container.)
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

HEADER = struct.pack("<IHH", 0xBA55ED50, 1, 16)  # magic, version 1, header size 16
"""A container's first 8 bytes; the next 8 are the size of what follows the header."""


def containers(data: bytes | mmap.mmap) -> list[tuple[int, int]]:
    """(offset, length with the header) of every container whose stated size fits in ``data``; the search
    resumes after each container, so a header quoted inside one (say, in a PTX text) is not counted."""
    spans = []
    at = data.find(HEADER)
    while at >= 0:
        (size,) = struct.unpack_from("<Q", data, at + 8)
        if at + 16 + size <= len(data):
            spans.append((at, 16 + size))
            at = data.find(HEADER, at + 16 + size)
        else:
            at = data.find(HEADER, at + 1)
    return spans


def section_ranges(data: bytes | mmap.mmap) -> dict[str, tuple[int, int]]:
    """An ELF64 little-endian file's sections with file bytes: name -> (offset, size)."""
    assert data[:6] == b"\x7fELF\x02\x01", "not a 64-bit little-endian ELF file"
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    out = {}
    for name, kind, _flags, _addr, offset, size in headers:
        if kind != 8:  # SHT_NOBITS occupies no file bytes
            end = data.find(b"\0", names_at + name)
            out[bytes(data[names_at + name : end]).decode()] = (offset, size)
    return out


def write_fatbin(path: Path, spans: list[tuple[int, int]], out: Path) -> int:
    """The containers ``spans`` of ``path`` laid end to end (each 8-byte aligned) in ``out``; their count."""
    with open(path, "rb") as src, open(out, "wb") as dst:
        for at, length in spans:
            src.seek(at)
            dst.write(src.read(length))
            dst.write(b"\0" * (-dst.tell() % 8))
    return len(spans)


NOT_EMBEDDED = (".nv_fatbin", "__nv_relfatbin")
"""The sections whose containers are not a library's own embedded ones: those the CUDA runtime
registers, and the ``-rdc`` objects' pre-link copies that nvlink linked into them (libnccl: 129
containers; read as relocatable images they would give pre-link figures, so the reader skips them,
as cuobjdump does)."""


def embedded_containers(path: Path) -> list[tuple[int, int]]:
    """The containers of a shared library outside the sections of :data:`NOT_EMBEDDED`."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        sections = section_ranges(m)
        skipped = [sections[name] for name in NOT_EMBEDDED if name in sections]
        return [(at, n) for at, n in containers(m) if not any(lo <= at < lo + size for lo, size in skipped)]
