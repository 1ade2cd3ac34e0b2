"""Fatbin containers: ``.fatbin`` files and the containers a host binary, an archive member or an offload image
holds (found by ``host``, ``embedded``, ``archive`` and ``offload``), read entry by entry.

Container layout (little-endian)::

    header  u32 magic 0xBA55ED50, u16 version 1, u16 header size, u64 size of the entries
    entry   u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload size,
            u32 compressed size @16, u16 minor/major @24/@26, u32 arch @28, u64 flags @40,
            u64 uncompressed size @56

Flags ``0x2000`` mark an LZ4-compressed payload (``-Xfatbin -compress-all`` of CUDA 11.x-12.x and
``-compress-mode=speed`` of later releases), decoded with the ``lz4`` package.  Flags ``0x8000`` mark
zstd (the default ``-compress-all`` mode of CUDA 12.8+), decoded with the ``zstandard`` package (a
dependency) or Python 3.14's ``compression.zstd``; without either the entry is skipped with a note.
The images inflate ahead of their reading (``inflate``); each one's functions are read by ``cubin``.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from ..base import ImportResult
from .blob import Blob, FileImage
from .budget import HELD_LIMIT
from .cubin import read_cubin
from .inflate import Decoding, Entry, inflate_pool

FATBIN_MAGIC = 0xBA55ED50
FATBIN_MAGIC_BYTES = struct.pack("<I", FATBIN_MAGIC)
KIND_PTX, KIND_ELF, KIND_LTO_IR = 1, 2, 8
"""Fatbin entry kinds: PTX, a CUDA ELF image, and NVVM IR for link-time optimisation (``nvcc -dlto``,
``code=lto_90``; libcufft's LTO callbacks): no figures before the device link."""
FLAG_COMPRESSED_LZ4 = 0x2000
FLAG_COMPRESSED_ZSTD = 0x8000
MAX_IMAGE = HELD_LIMIT
"""The largest image an import inflates: all it may hold at once (see ``budget``).  No ratio: a kernel's
large initialised ``__device__`` array honestly inflates thousands of times (NVIDIA's libraries reach 134x)."""
NUMBER_LATER = "\0"
"""A container number not known yet (see :func:`open_container`): no section or file name holds a NUL."""
MAX_CONTAINERS = 100_000


def read_container(
    blob: Blob,
    at: int,
    result: ImportResult,
    prefix: str,
    number: int | str = 1,
    embedded: bool = False,
    work: Decoding | None = None,
) -> int:
    """Parse one fatbin container starting at ``at``; returns the offset just past it.

    ``number`` counts the containers of one section (from 1): with the container's and each
    entry's file offset it goes into every record's ``source``, so that the 10^4 records of a
    library can be told apart.  ``embedded``: see ``cubin.read_cubin``.  ``work``: the
    import's budgets, cancel and progress (a fresh one, inflating on this thread, by default).
    """
    work = work if work is not None else Decoding(None, len(blob.data))
    opened = open_container(blob, at, prefix, number, work)
    try:
        read_entries(blob, opened, result, embedded, work)
    except BaseException:
        work.discard(opened.entries)
        raise
    return opened.end


@dataclass
class Container:
    end: int
    name: str
    entries: list[Entry]


def open_container(blob: Blob, at: int, prefix: str, number: int | str, work: Decoding) -> Container:
    """Check one container's headers and queue its compressed ELF entries for inflation.

    ``number`` names the container in sources (a worker process that cannot know it yet passes
    :data:`NUMBER_LATER`, which its parent replaces)."""
    magic, version, header_size, fat_size = blob.unpack("<IHHQ", at, "fatbin header")
    if magic != FATBIN_MAGIC:
        raise blob.fail(f"bad fatbin magic 0x{magic:08x}", at)
    if header_size < 16:
        raise blob.fail(f"fatbin header size {header_size} is smaller than 16", at + 6)
    start = at + header_size
    end = start + fat_size
    if end > len(blob.data):
        raise blob.fail(
            f"fatbin claims {fat_size} bytes of entries, only {max(0, len(blob.data) - start)} remain", at + 8
        )
    container = Container(end, f"{prefix} container {number} @0x{blob.base + at:x}", [])
    pos = start
    number = 0  # now the entry's
    while pos + 16 <= end:
        number += 1
        kind, _ver, ehs, size = blob.unpack("<HHIQ", pos, f"fatbin entry {number} header")
        if ehs < 16:
            raise blob.fail(f"fatbin entry {number} header size {ehs} is smaller than 16", pos + 4)
        if pos + ehs + size > end or pos + ehs > end:
            raise blob.fail(f"fatbin entry {number} ({ehs}+{size} bytes) runs past the end of its container", pos)
        if ehs >= 64:
            csize, _opt, _minor, _major, arch, _noff, _nlen, flags, _zero, usize = blob.unpack(
                "<IIHHIIIQQQ", pos + 16, f"fatbin entry {number} header"
            )
        else:
            csize = arch = flags = usize = 0
        payload_at = pos + ehs
        what = _kind_name(kind)
        entry = Entry(f"fatbin entry {number} ({what} sm_{arch})", pos, payload_at, codec=_codec(flags), usize=usize)
        if kind != KIND_ELF:
            work.skipped[what] = work.skipped.get(what, 0) + 1
        if kind == KIND_ELF:
            if not flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD):
                entry.window = memoryview(blob.data)[payload_at : payload_at + size]
            else:
                if not 0 < csize <= size:
                    csize = size
                if usize <= 0:
                    raise blob.fail(f"{entry.label}: implausible uncompressed size {usize}", pos + 56)
                if usize > work.budget.held_limit:
                    raise blob.fail(
                        f"{entry.label}: declares {usize} uncompressed bytes, more than the import's "
                        f"budget of {work.budget.held_limit} bytes held at once",
                        pos + 56,
                    )
                entry.packed = blob.bytes(payload_at, csize, f"{entry.label} payload")
                work.queue(entry, blob, pos + 56)
            container.entries.append(entry)
        pos = payload_at + size
    return container


def _codec(flags: int) -> str:
    """The codec of a compressed entry: LZ4 where its flags say so, else zstd."""
    return "lz4" if flags & FLAG_COMPRESSED_LZ4 else "zstd"


def _kind_name(kind: int) -> str:
    return {KIND_ELF: "ELF", KIND_PTX: "PTX", KIND_LTO_IR: "LTO IR"}.get(kind, f"kind {kind}")


def entry_kinds_without_images(blob: Blob, at: int, end: int) -> dict[str, int] | None:
    """The entries (by kind) of the container whose entries span ``[at, end)``, where every entry
    header is well formed and none is an ELF image; else ``None``.  Such a container lists nothing:
    libcufft's .ldata holds 20,859 of them (one PTX or kind-8 entry each) among its 3,124 with images,
    and a walk of their 16-byte entry headers costs a fraction of :func:`read_container`."""
    kinds: dict[str, int] = {}
    pos = at
    while pos + 16 <= end:
        kind, _ver, ehs, size = blob.unpack("<HHIQ", pos, "fatbin entry header")
        if kind == KIND_ELF or ehs < 16 or pos + ehs + size > end or pos + ehs > end:
            return None  # an image, or damage: read_container reads it or says what is wrong
        what = _kind_name(kind)
        kinds[what] = kinds.get(what, 0) + 1
        pos += ehs + size
    return kinds


def read_entries(blob: Blob, container: Container, result: ImportResult, embedded: bool, work: Decoding) -> None:
    """The records of a container's ELF entries, in order (inflation errors are raised here)."""
    for entry in container.entries:
        label, pos, payload_at = entry.label, entry.pos, entry.payload_at
        work.step(blob.base + pos)
        source = f"{container.name}: {label} @0x{blob.base + pos:x}"
        if entry.window is not None:
            result.records.extend(
                read_cubin(
                    entry.window,
                    blob.path,
                    blob.base + payload_at,
                    blob.what,
                    source_prefix=source,
                    image=blob.image,
                    embedded=embedded,
                )
            )
            work.images += 1
            continue
        try:
            image_bytes = work.take(entry)
        except Exception as exc:  # noqa: BLE001 - the codec's own error, reported
            work.budget.release(entry.usize)
            raise blob.fail(f"{label}: {exc}", pos + 56 if "inflated to" in str(exc) else payload_at) from None
        try:
            if image_bytes is None:
                result.notes.append(
                    f"{blob.path}: {label} at byte {blob.base + pos} is zstd-compressed and this "
                    "Python has no zstd decoder (Python 3.14+ has one); skipped. Rebuild with "
                    "-Xfatbin -compress-mode=speed or =none, or import `cuobjdump "
                    "--dump-resource-usage` output instead"
                )
                continue
            result.records.extend(
                read_cubin(
                    image_bytes,
                    blob.path,
                    blob.base + payload_at,
                    f"{label} (decompressed image)",
                    source_prefix=source,
                    embedded=embedded,
                )
            )
        finally:
            work.budget.release(entry.usize)  # its records are made: the image is dropped
        work.images += 1


def read_fatbin_bytes(
    data: bytes | memoryview,
    path: str,
    base: int = 0,
    prefix: str | None = None,
    result: ImportResult | None = None,
    image: FileImage | None = None,
    work: Decoding | None = None,
) -> ImportResult:
    """One or more fatbin containers laid end to end (zero padding between them allowed).

    ``image``: the file ``data`` is a window of (from offset ``base``), read as it is parsed.
    The next container's images inflate on worker threads while one container's records are read;
    at most two containers' images are held at once.
    """
    result = result if result is not None else ImportResult()
    blob = Blob(data, path, base, image=image)
    prefix = prefix if prefix is not None else os.path.basename(path)
    pos = 0
    count = 0
    n = len(data)
    pending: Container | None = None
    work = work if work is not None else Decoding(inflate_pool(), len(data))
    while pos < n:
        pos = blob.skip_zeros(pos, n)  # alignment padding
        if pos >= n:
            break
        count += 1
        if count > MAX_CONTAINERS:
            raise blob.fail("too many fatbin containers", pos)
        work.step(base + pos)
        opened = open_container(blob, pos, prefix, count, work)
        if pending is not None:
            read_entries(blob, pending, result, False, work)
        pending = opened
        pos = opened.end
    if pending is not None:
        read_entries(blob, pending, result, False, work)
    return result
