"""LLVM offload binaries: the device images clang keeps in a host object's ``.llvm.offloading`` section.

clang's offload driver (``-fgpu-rdc`` from clang 18 on, OpenMP target offload) does not wrap an
object's device code with NVIDIA's fatbinary until the device link: the object carries relocatable
cubins (or PTX, or LLVM bitcode under ``-foffload-lto``) in this format, which cuobjdump does not read.
A linked executable carries an ordinary fatbin again.

Layout (little-endian; LLVM's ``llvm/Object/OffloadBinary.h``), binaries end to end, each 8-aligned::

    header  magic 10 FF 10 AD, u32 version, u64 size, u64 entries offset,
            u64 entry size (version 1: one entry) or entry count (2+), u64 inflated size (3+)
    entry   u16 image kind, u16 offload kind, u32 flags, u64 string-map offset, u64 strings,
            u64 image offset, u64 image size                                   (40 bytes)
    string  u64 key offset, u64 value offset (NUL-terminated; version 2+ adds u64 value size)

Offsets count from the binary's first byte.  A version 3 binary with an inflated size is compressed
after its header (zstd, else zlib).  Every offset and size is checked before it is read.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from .blob import Blob
from .budget import BudgetExceeded, InflateBudget, decode

SECTION = ".llvm.offloading"
SHT_LLVM_OFFLOADING = 0x6FFF4C0B
MAGIC = b"\x10\xff\x10\xad"
VERSIONS = (1, 2, 3)
IMAGE_KINDS = {1: "object", 2: "LLVM bitcode", 3: "cubin", 4: "fatbinary", 5: "PTX", 6: "SPIR-V"}
OFFLOAD_KINDS = {1: "OpenMP", 2: "CUDA", 4: "HIP", 8: "SYCL"}
IMAGE_OBJECT, IMAGE_BITCODE, IMAGE_CUBIN, IMAGE_FATBINARY, IMAGE_PTX = 1, 2, 3, 4, 5
_HEADER = struct.Struct("<4sIQQQ")
_ENTRY = struct.Struct("<HHIQQQQ")
_MAX_ENTRIES = 4096
_MAX_STRINGS = 256
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass(frozen=True)
class OffloadImage:
    """One entry of an offload binary: what it holds and where its bytes lie in ``blob``."""

    number: int  # 1-based, over the section
    image_kind: int
    offload_kind: int
    strings: dict[str, str]
    blob: Blob  # the section's data, or a compressed binary inflated
    at: int
    size: int

    @property
    def triple(self) -> str:
        return self.strings.get("triple", "")

    @property
    def arch(self) -> str:
        return self.strings.get("arch", "")

    @property
    def kind_name(self) -> str:
        return IMAGE_KINDS.get(self.image_kind, f"image kind {self.image_kind}")

    @property
    def label(self) -> str:
        return f"offload image {self.number} ({self.kind_name} {self.arch or '?'})"


def offload_images(blob: Blob, lo: int, hi: int, budget: InflateBudget | None = None) -> Iterator[OffloadImage]:
    """Every entry of the offload binaries in ``[lo, hi)`` of ``blob``, in order; damage is an
    ``ImportFailure`` naming the offset.  A compressed binary is inflated within ``budget`` (the import's;
    a fresh one for the blob's size by default) and held until its entries have been read."""
    budget = budget if budget is not None else InflateBudget.for_input(len(blob.data))
    pos, number = lo, 0
    while pos < hi:
        if blob.skip_zeros(pos, hi) >= hi:
            return  # padding after the last binary
        binary, start, size, held = _binary(blob, pos, hi, budget)
        try:
            for image in _entries(binary, start, number):
                number = image.number
                yield image
        finally:
            budget.release(held)
        pos += (size + 7) & ~7


def _binary(blob: Blob, at: int, hi: int, budget: InflateBudget) -> tuple[Blob, int, int, int]:
    """The binary at ``at``: (the blob its offsets count in, where it starts there, its size in the section,
    the bytes it holds of ``budget``, to release when its entries are read)."""
    magic, version, size, entries_at, _count = blob.unpack(_HEADER.format, at, "offload binary header")
    if magic != MAGIC:
        raise blob.fail(f"no LLVM offload binary here (magic {magic.hex()}, expected {MAGIC.hex()})", at)
    if version not in VERSIONS:
        raise blob.fail(
            f"LLVM offload binary version {version} is not one this reader knows ({', '.join(map(str, VERSIONS))})",
            at + 4,
        )
    if size < _HEADER.size or at + size > hi:
        raise blob.fail(f"offload binary of {size} bytes does not fit its section ({hi - at} bytes left)", at + 8)
    inflated = blob.unpack("<Q", at + 32, "offload binary header")[0] if version >= 3 else 0
    if not inflated:
        return blob, at, size, 0
    if not entries_at <= size <= inflated:
        raise blob.fail(
            f"compressed offload binary: implausible sizes (header {entries_at}, {size} bytes inflating to {inflated})",
            at + 32,
        )
    packed = blob.bytes(at + entries_at, size - entries_at, "compressed offload binary")
    want = inflated - entries_at
    try:
        budget.claim(want)
    except BudgetExceeded as exc:
        raise blob.fail(f"compressed offload binary: {exc}", at + 32) from None
    try:
        body = decode("zstd" if packed.startswith(_ZSTD_MAGIC) else "zlib", packed, want)
    except ValueError as exc:
        budget.release(want)
        where = at + 32 if "inflated to" in str(exc) else at + entries_at
        raise blob.fail(f"compressed offload binary: {exc}", where) from None
    if body is None:
        budget.release(want)
        raise blob.fail("compressed offload binary: zstd, and this Python has no zstd decoder", at + entries_at)
    header = bytearray(blob.bytes(at, entries_at, "offload binary header"))
    struct.pack_into("<Q", header, 8, inflated)  # as LLVM restores it: offsets count in the inflated binary
    struct.pack_into("<Q", header, 32, 0)
    return Blob(bytes(header) + body, blob.path, blob.base + at, "compressed offload binary (inflated)"), 0, size, want


def _entries(blob: Blob, at: int, numbered: int) -> Iterator[OffloadImage]:
    _magic, version, size, entries_at, count_or_size = blob.unpack(_HEADER.format, at, "offload binary header")
    count = 1 if version == 1 else count_or_size
    if not 0 < count <= _MAX_ENTRIES or entries_at + count * _ENTRY.size > size:
        raise blob.fail(f"offload binary: {count} entries at {entries_at} do not fit its {size} bytes", at + 16)
    string_size = 16 if version == 1 else 24
    for i in range(count):
        entry_at = at + entries_at + i * _ENTRY.size
        image_kind, offload_kind, _flags, strings_at, strings, image_at, image_size = blob.unpack(
            _ENTRY.format, entry_at, "offload binary entry"
        )
        if strings > _MAX_STRINGS or strings_at + strings * string_size > size or image_at + image_size > size:
            raise blob.fail(
                f"offload binary entry {i + 1}: its strings or image lie outside the binary's {size} bytes", entry_at
            )
        yield OffloadImage(
            numbered + i + 1,
            image_kind,
            offload_kind,
            _strings(blob, at, size, at + strings_at, strings, string_size),
            blob,
            at + image_at,
            image_size,
        )


def _strings(blob: Blob, at: int, size: int, table: int, count: int, entry_size: int) -> dict[str, str]:
    """An entry's string map ("triple", "arch", ...): keys and values NUL-terminated inside the binary."""
    out: dict[str, str] = {}
    for i in range(count):
        key_at, value_at = blob.unpack("<QQ", table + i * entry_size, "offload binary string entry")
        if key_at >= size or value_at >= size:
            raise blob.fail("offload binary string offset outside the binary", table + i * entry_size)
        out[blob.cstring(at + key_at, "offload binary key")] = blob.cstring(at + value_at, "offload binary value")
    return out
