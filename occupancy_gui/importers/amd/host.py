"""AMD device code in host containers: objects, shared libraries and executables (ELF, PE), static
libraries (``!<arch>``), and files of any other kind.

Where clang puts it:

* ``.hip_fatbin`` (a PE image keeps ``.hip_fat``): the bundles the HIP runtime registers, one per
  translation unit in a linked file; plain or compressed (``--offload-compress``);
* ``__CLANG_OFFLOAD_BUNDLE__<entry id>`` sections: the object-file form of ``clang-offload-bundler
  --type=o``, one device object per section;
* ``.llvm.offloading``: the new offload driver's LLVM offload binaries (``amdgcn`` images are code objects,
  or bitcode before the device link);
* anywhere in a data section: bundles, compressed bundles and bare code objects a library embeds to load
  itself (``hipModuleLoadData``).  A candidate counts only where it parses whole; anything else is taken for
  the data it most likely is.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator

from ..base import ImportFailure
from ..binary.blob import Blob
from ..binary.elf import ELF_MAGIC, OFFSET, SIZE, TYPE, Elf, Section
from ..binary.host import NOT_DATA_SECTIONS
from ..binary.offload import IMAGE_BITCODE, SHT_LLVM_OFFLOADING, offload_images
from ..binary.offload import MAGIC as OFFLOAD_MAGIC
from ..binary.offload import SECTION as OFFLOAD_SECTION
from ..binary.pe import pe_sections
from .bundle import CCOB_MAGIC, PLAIN_MAGIC, compressed_header, plain_entries
from .bundles import BITCODE, Batch, Walk, bundles_in, code_object_records
from .code_object import is_amdgpu_elf

FATBIN_SECTIONS = (".hip_fatbin", ".hip_fat")
OBJECT_BUNDLE_PREFIX = "__CLANG_OFFLOAD_BUNDLE__"
SHT_NOBITS = 8
AR_MAGIC = b"!<arch>\n"
_NOT_DATA = (
    *NOT_DATA_SECTIONS,
    ".nv_fatbin",
    "__nv_relfatbin",
    ".nvFatBinSegment",
    ".hipFatBinSegment",
)
_CANDIDATE = re.compile(
    re.escape(PLAIN_MAGIC)
    + rb"|"
    + re.escape(CCOB_MAGIC)
    + rb"[\x01-\x03]\x00[\x00\x01]\x00|"
    + re.escape(ELF_MAGIC)
    + rb"\x02\x01\x01\x40"
)
_NVIDIA_SECTIONS = frozenset((".nv_fatbin", "__nv_relfatbin"))
_SCAN_CHUNK = 8 << 20
_MEMBERS = (ELF_MAGIC, PLAIN_MAGIC, CCOB_MAGIC)
"""Archive members read: objects, and bundle files; anything else (a symbol table, data) holds no AMD code."""
_OVERLAP = 32  # longer than any magic searched for
_MAX_MEMBERS = 100_000


def host_batches(blob: Blob, prefix: str, walk: Walk) -> Iterator[Batch]:
    """The records of the AMD device code in a host container (``blob`` from its first byte)."""
    head = blob.bytes(0, min(8, len(blob.data)), "file header")
    if head.startswith(AR_MAGIC):
        yield from _archive(blob, prefix, walk)
        return
    if head.startswith(OFFLOAD_MAGIC):  # a bare offload binary, as llvm-offload-binary -o writes one
        yield from _offloading(blob, Section(0, prefix, (0, 0, 0, 0, 0, len(blob.data), 0, 0, 0, 0)), prefix, walk)
        return
    sections = _sections(blob) if head.startswith((ELF_MAGIC, b"MZ")) else None
    if sections is None:
        yield from embedded(blob, 0, len(blob.data), prefix, walk)
        return
    # A CUDA library (it has NVIDIA's registered fatbin sections) is not searched for embedded AMD code:
    # its hundreds of MB of data are the NVIDIA readers' to scan, and no such library embeds AMD code.
    scan = not any(sec.name in _NVIDIA_SECTIONS for sec in sections)
    for sec in sections:
        label = f"{prefix}:{sec.name}"
        if sec.name in FATBIN_SECTIONS:
            yield from bundles_in(blob, sec.offset, sec.offset + sec.size, label, walk)
        elif sec.name.startswith(OBJECT_BUNDLE_PREFIX):
            yield from _object_bundle_section(blob, sec, label, walk)
        elif sec.type == SHT_LLVM_OFFLOADING or sec.name == OFFLOAD_SECTION:
            yield from _offloading(blob, sec, label, walk)
        elif scan and not sec.name.startswith(_NOT_DATA) and sec.size >= 64:
            yield from embedded(blob, sec.offset, sec.offset + sec.size, label, walk)


def _sections(blob: Blob) -> list[Section] | None:
    """The sections with contents of an ELF or PE file; ``None`` where its headers do not parse (it is then
    scanned whole)."""
    if blob.bytes(0, 2, "file header") == b"MZ":
        found = pe_sections(blob)
        return None if found is None else [sec for sec in found if sec.type != SHT_NOBITS and sec.size]
    try:
        elf = Elf(blob)
    except ImportFailure:
        return None
    return [sec for sec in elf.sections if sec.type != SHT_NOBITS and sec.size]


def _object_bundle_section(blob: Blob, sec: Section, label: str, walk: Walk) -> Iterator[Batch]:
    """One ``__CLANG_OFFLOAD_BUNDLE__<id>`` section: a device object (host ids hold nothing)."""
    entry_id = sec.name[len(OBJECT_BUNDLE_PREFIX) :]
    if entry_id.startswith("host-") or sec.size < 20:
        return
    head = blob.bytes(sec.offset, 20, f"section {sec.name}")
    if is_amdgpu_elf(head):
        yield code_object_records(blob, sec.offset, sec.size, f"{label} @0x{blob.base + sec.offset:x}", walk)
    elif head[:4] in BITCODE:  # clang -fgpu-rdc: device code before the device link
        walk.skip(f"LLVM bitcode ({entry_id})")
    else:
        walk.skip(f"{entry_id.partition('-')[0]} section without a code object")


def _offloading(blob: Blob, sec: Section, label: str, walk: Walk) -> Iterator[Batch]:
    """The ``amdgcn`` images of an ``.llvm.offloading`` section (NVIDIA's are the NVIDIA readers')."""
    for image in offload_images(blob, sec.offset, sec.offset + sec.size):
        if not image.triple.startswith("amdgcn"):
            continue
        walk.step(blob.base + sec.offset)
        src = image.blob
        head = src.bytes(image.at, min(image.size, 20), f"{image.label}")
        if is_amdgpu_elf(head):
            yield code_object_records(
                src, image.at, image.size, f"{label}: {image.label} @0x{src.base + image.at:x}", walk
            )
        elif image.image_kind == IMAGE_BITCODE:
            walk.skip(f"LLVM bitcode ({image.triple})")
        else:
            walk.skip(f"{image.kind_name} image for {image.triple}")


def embedded(blob: Blob, lo: int, hi: int, label: str, walk: Walk) -> Iterator[Batch]:
    """Bundles, compressed bundles and code objects lying in ``[lo, hi)`` (a data section, or a file of no
    known kind), searched a chunk at a time; a candidate that does not parse whole is passed over.  A file
    read lazily (``blob.image``) is searched through one scratch buffer, so that 2 GB of data cost 8 MiB of
    memory, not 2 GB of the image's pages."""
    scratch = memoryview(bytearray(min(_SCAN_CHUNK, max(hi - lo, 0))))
    pos = lo
    while pos < hi:
        walk.step(blob.base + pos)
        size = min(_SCAN_CHUNK, hi - pos)
        chunk = _chunk(blob, pos, size, scratch)
        # A match must start in this chunk's first `limit` bytes (all of a magic then lies inside it); the
        # next chunk starts there, so a match across the boundary is found once, by the next chunk.
        limit = len(chunk) if pos + size >= hi or len(chunk) < size else size - _OVERLAP
        following = pos + max(limit, 1)
        found = _CANDIDATE.search(chunk, 0, limit + _OVERLAP)
        while found is not None and found.start() < limit:
            at = pos + found.start()
            batches, end = _trial(blob, at, hi, f"{label} (embedded @0x{blob.base + at:x})", walk)
            if batches is None:
                found = _CANDIDATE.search(chunk, found.start() + 1, limit + _OVERLAP)
                continue
            yield from batches
            if end - pos >= limit:
                following = end
                break
            found = _CANDIDATE.search(chunk, end - pos, limit + _OVERLAP)
        if len(chunk) < size:
            return  # the file ended early (it shrank while read): what is there was searched
        pos = following


def _chunk(blob: Blob, pos: int, size: int, scratch: memoryview) -> memoryview:
    """``[pos, pos + size)`` of ``blob``: in place where it is in memory, else read into ``scratch``."""
    image = blob.image
    if image is None or image.covers(blob.base + pos, size):
        blob.need(pos, size, "data")
        blob.load(pos, size)
        return memoryview(blob.data)[pos : pos + size]
    image.stream.seek(blob.base + pos)
    got = image.stream.readinto(scratch[:size]) or 0
    return scratch[:got]


def _trial(blob: Blob, at: int, hi: int, label: str, walk: Walk) -> tuple[list[Batch] | None, int]:
    """The records of the candidate at ``at`` and its end, or ``(None, at)`` where it is none."""
    notes = len(walk.reading.notes)
    skipped = dict(walk.skipped)
    budget = walk.budget
    assert budget is not None  # set by Walk.__post_init__
    inflated = budget.inflated  # a candidate that is no bundle gives back the work it claimed
    try:
        head = blob.bytes(at, 4, "candidate")
        if head == ELF_MAGIC[:4]:
            end = at + _elf_extent(blob, at, hi)
            return [code_object_records(blob, at, end - at, label, walk)], end
        batches = list(bundles_in(blob, at, _bundle_end(blob, at, hi), label, walk))
        return batches, _bundle_end(blob, at, hi)
    except (ImportFailure, ValueError, struct.error):
        del walk.reading.notes[notes:]
        walk.skipped = skipped
        budget.inflated = inflated
        return None, at


def _bundle_end(blob: Blob, at: int, hi: int) -> int:
    """Where the bundle at ``at`` ends: a compressed one says; a plain one ends with its last entry."""
    if blob.bytes(at, 4, "candidate") == CCOB_MAGIC:
        header = compressed_header(blob, at, hi)
        if header.total_size is None:
            raise ValueError("a v1 compressed bundle says not where it ends")
        return at + header.total_size
    return plain_entries(blob, at, hi)[1]


def _elf_extent(blob: Blob, at: int, hi: int) -> int:
    """The size of the ELF64 image at ``at``: up to the end of its section header table or last section."""
    shoff: int = blob.unpack("<Q", at + 0x28, "ELF header")[0]
    shentsize, shnum = blob.unpack("<HH", at + 0x3A, "ELF header")
    end: int = shoff + shentsize * shnum
    if shentsize < 64 or not 0 < end <= hi - at:
        raise ValueError("not a whole ELF image")
    table = blob.bytes(at + shoff, shentsize * shnum, "section headers")
    for i in range(shnum):
        row = struct.unpack_from("<IIQQQQIIQQ", table, i * shentsize)
        if row[TYPE] != SHT_NOBITS:
            end = max(end, row[OFFSET] + row[SIZE])
    if end > hi - at:
        raise ValueError("ELF image runs past its section")
    return end


def _archive(blob: Blob, prefix: str, walk: Walk) -> Iterator[Batch]:
    """Every member of a static library that is an object or a bundle file (their AMD device code)."""
    pos, members, n = len(AR_MAGIC), 0, len(blob.data)
    long_names = b""
    while pos + 60 <= n:
        header = blob.bytes(pos, 60, "ar member header")
        if header[58:60] != b"`\n":
            raise blob.fail("ar member header has no end marker (damaged archive)", pos + 58)
        members += 1
        if members > _MAX_MEMBERS:
            raise blob.fail("too many ar members", pos)
        size_text = header[48:58].strip()
        if not size_text.isdigit():
            raise blob.fail(f"ar member size {size_text[:10]!r} is not a number", pos + 48)
        size, start = int(size_text), pos + 60
        if start + size > n:
            raise blob.fail(f"ar member of {size} bytes runs past the end of the archive", pos + 48)
        raw = header[:16].rstrip(b" ")
        body = start
        if raw.startswith(b"#1/") and raw[3:].isdigit():  # BSD: the name follows the header
            name_len = min(int(raw[3:]), size, 4096)
            raw, body = blob.bytes(start, name_len, "ar member name").rstrip(b"\0"), start + name_len
        elif raw == b"//":
            long_names = blob.bytes(start, min(size, 64 << 20), "ar long-name table")
        elif raw.startswith(b"/") and raw[1:].isdigit():
            at = int(raw[1:])
            raw = long_names[at : long_names.find(b"/\n", at) if b"/\n" in long_names[at:] else at + 256]
        head = blob.bytes(body, min(24, start + size - body), "ar member") if start + size > body else b""
        if raw not in (b"/", b"//", b"__.SYMDEF", b"__.SYMDEF SORTED", b"/SYM64/") and head.startswith(_MEMBERS):
            member = raw.rstrip(b"/").decode("utf-8", "replace") or "?"
            sub = Blob(
                memoryview(blob.data)[body : start + size], blob.path, blob.base + body, blob.what, image=blob.image
            )
            if head.startswith(ELF_MAGIC):
                yield from host_batches(sub, f"{prefix}({member})", walk)
            else:  # a bundle file kept in an archive
                yield from bundles_in(sub, 0, len(sub.data), f"{prefix}({member})", walk)
        pos = start + size + (size & 1)
