"""Clang offload bundles, plain (``__CLANG_OFFLOAD_BUNDLE__``) and compressed (``CCOB`` v1-v3).

Layouts (little-endian; clang's ``OffloadBundler.cpp``, the "Clang Offload Bundler" documentation)::

    plain       24-byte magic, u64 entries; per entry: u64 offset, u64 size, u64 id length, id
                (offsets count from the magic; entries are usually 4096-aligned)
    CCOB v1     "CCOB", u16 version 1, u16 method, u32 inflated size, u64 hash        (20 bytes)
    CCOB v2     "CCOB", u16 2, u16 method, u32 total size, u32 inflated size, u64 hash (24 bytes)
    CCOB v3     "CCOB", u16 3, u16 method, u64 total size, u64 inflated size, u64 hash (32 bytes)

``method`` 0 is zlib, 1 zstd; the total size counts the header; v1 has none, so its stream runs to the end
of what holds it.  The inflated data is a plain bundle.  The hash (the MD5 of the inflated bundle, its first
8 bytes) is not checked: the plain bundle's own structure is, and hashing xla_rocm_plugin.so's 2.4 GB of
bundles would cost 4 s.

An entry id is ``KIND-TRIPLE-TARGET``: ``hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`` (``hipv4`` says
the entry is a code object, not which version), ``hip-amdgcn-amd-amdhsa--gfx906`` (older toolchains),
``openmp-amdgcn-amd-amdhsa--gfx90a``, and host entries (``host-x86_64-unknown-linux-gnu-``, size 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..binary.blob import Blob

PLAIN_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
CCOB_MAGIC = b"CCOB"
MAX_ENTRIES = 4096
MAX_ID = 4096
_CCOB_HEADERS = {1: ("<IQ", 20), 2: ("<IIQ", 24), 3: ("<QQQ", 32)}


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a plain bundle: its id and where its bytes lie (offsets in the bundle's blob)."""

    number: int
    entry_id: str
    at: int
    size: int

    @property
    def kind(self) -> str:
        return self.entry_id.partition("-")[0]

    @property
    def triple(self) -> str:
        """``amdgcn-amd-amdhsa`` of ``hipv4-amdgcn-amd-amdhsa--gfx942``."""
        parts = self.entry_id.split("-", 5)
        return "-".join(parts[1:4]) if len(parts) >= 4 else ""

    @property
    def target(self) -> str:
        """``gfx942:sramecc+`` of ``hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+``; ``hip-amdgcn-amd-amdhsa-gfx906``
        (three-part triples of older clang) gives ``gfx906``."""
        parts = self.entry_id.split("-", 5)
        if len(parts) == 6:
            return parts[5]
        return parts[4] if len(parts) == 5 and parts[4].startswith("gfx") else ""

    @property
    def is_host(self) -> bool:
        return self.kind == "host"


@dataclass(frozen=True, slots=True)
class Compressed:
    """A compressed bundle's header: where its stream lies and what it declares."""

    version: int
    method: int
    header_size: int
    total_size: int | None  # None: v1, which runs to the end of its container
    inflated_size: int


def plain_entries(blob: Blob, at: int, limit: int) -> tuple[list[Entry], int]:
    """The entries of the plain bundle at ``at`` (whose data may run up to ``limit``) and its end (the end
    of its last entry).  Every size is checked against ``limit``."""
    magic = blob.bytes(at, len(PLAIN_MAGIC), "offload bundle magic")
    if magic != PLAIN_MAGIC:
        raise blob.fail(f"no offload bundle here (magic {magic[:8]!r}...)", at)
    (count,) = blob.unpack("<Q", at + 24, "offload bundle entry count")
    if not 0 < count <= MAX_ENTRIES:
        raise blob.fail(f"offload bundle declares {count} entries (the reader takes 1 to {MAX_ENTRIES})", at + 24)
    pos = at + 32
    end = pos
    entries = []
    for number in range(1, count + 1):
        offset, size, id_size = blob.unpack("<QQQ", pos, f"offload bundle entry {number}")
        if id_size > MAX_ID or pos + 24 + id_size > limit:
            raise blob.fail(f"offload bundle entry {number}: an id of {id_size} bytes does not fit", pos + 16)
        entry_id = blob.bytes(pos + 24, id_size, f"offload bundle entry {number} id").decode("utf-8", "replace")
        if at + offset + size > limit or offset > limit or size > limit:
            raise blob.fail(
                f"offload bundle entry {number} ({entry_id}): {size} bytes at offset {offset} run past "
                f"the end of the data ({limit - at} bytes from the bundle's start)",
                pos,
            )
        entries.append(Entry(number, entry_id, at + offset, size))
        pos += 24 + id_size
        end = max(end, pos, at + offset + size)
    return entries, end


def compressed_header(blob: Blob, at: int, limit: int) -> Compressed:
    """The header of the compressed bundle at ``at``, its sizes checked against ``limit``."""
    magic, version, method = blob.unpack("<4sHH", at, "compressed offload bundle header")
    if magic != CCOB_MAGIC:
        raise blob.fail("no compressed offload bundle here (no CCOB magic)", at)
    layout = _CCOB_HEADERS.get(version)
    if layout is None:
        raise blob.fail(f"compressed offload bundle version {version} is none this reader knows (1, 2, 3)", at + 4)
    fmt, header_size = layout
    fields = blob.unpack(fmt, at + 8, "compressed offload bundle header")
    total, inflated = (None, fields[0]) if version == 1 else (fields[0], fields[1])
    if total is not None and not header_size < total <= limit - at:
        raise blob.fail(
            f"compressed offload bundle v{version} declares {total} bytes, but {limit - at} remain from its start",
            at + 8,
        )
    return Compressed(version, method, header_size, total, inflated)
