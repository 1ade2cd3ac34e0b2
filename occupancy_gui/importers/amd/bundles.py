"""Walking a region of offload bundles (a ``.hip_fatbin`` section, a bundle file) to its code objects.

A linked library's ``.hip_fatbin`` holds one bundle per translation unit, end to end, each padded to 4096
bytes; a bundle may be plain or compressed (``CCOB``).  Each code object entry is read as it is reached,
and its records are handed out at once (a :class:`Walk` yields them a code object at a time), so that a
library of 10^5 kernels lists its first rows long before its last bundle inflates.

Budgets, checked against what a compressed bundle *declares* before it is inflated: :data:`MAX_BUNDLE` bytes
for one bundle, and the import's :class:`~occupancy_gui.importers.binary.budget.InflateBudget` (the one budget of
every decompressor: bytes held at once, and ``max(4 GiB, 16 x the file's size)`` in all).  One inflated bundle
is held at a time, and released once its entries are read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..base import ImportCancelled
from ..binary.blob import Blob
from ..binary.budget import BudgetExceeded, InflateBudget, decode
from ..binary.elf import ELF_MAGIC
from .bundle import CCOB_MAGIC, PLAIN_MAGIC, Entry, compressed_header, plain_entries
from .code_object import Reading, is_amdgpu_elf, read_code_object
from .record import AmdKernelRecord

MAX_BUNDLE = 4 << 30
METHODS = {0: "zlib", 1: "zstd"}
"""``llvm::compression::Format`` as a compressed offload bundle's ``method`` field stores it: the codec's name."""
MAX_BUNDLES = 1 << 20
BITCODE = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")
"""LLVM bitcode, raw and in its wrapper."""

Batch = list[AmdKernelRecord]


@dataclass
class Walk:
    """One import's shared state: the records' name table and notes (:class:`Reading`), the inflation
    budget, cancellation and progress (bytes of the file reached)."""

    path: str
    file_size: int
    reading: Reading = field(default_factory=Reading)
    cancel: Callable[[], bool] | None = None
    progress: Callable[[int, int], None] | None = None
    budget: InflateBudget | None = None
    """What the import may inflate (``InflateBudget.for_input`` of the file's size unless given)."""
    skipped: dict[str, int] = field(default_factory=dict)  # entries with no code object, by what they hold

    def __post_init__(self) -> None:
        if self.budget is None:
            self.budget = InflateBudget.for_input(self.file_size)

    def step(self, offset: int) -> None:
        if self.cancel is not None and self.cancel():
            raise ImportCancelled(self.path)
        if self.progress is not None:
            self.progress(min(offset, self.file_size), self.file_size)

    def skip(self, what: str) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + 1


def bundles_in(blob: Blob, lo: int, hi: int, label: str, walk: Walk) -> Iterator[Batch]:
    """The records of every bundle in ``[lo, hi)`` of ``blob``, a code object at a time; zero padding
    between bundles is skipped, anything else is an error naming its offset."""
    pos, number = lo, 0
    while pos < hi:
        pos = blob.skip_zeros(pos, hi)
        if pos >= hi:
            return
        number += 1
        if number > MAX_BUNDLES:
            raise blob.fail("too many offload bundles", pos)
        walk.step(blob.base + pos)
        head = blob.bytes(pos, min(24, hi - pos), "offload bundle magic")
        where = f"{label} bundle {number} @0x{blob.base + pos:x}"
        if head == PLAIN_MAGIC:
            entries, end = plain_entries(blob, pos, hi)
            yield from entries_of(blob, entries, where, walk)
        elif head[:4] == CCOB_MAGIC:
            inflated, name, end = _inflated(blob, pos, hi, where, walk)
            try:
                entries, _ = plain_entries(inflated, 0, len(inflated.data))
                yield from entries_of(inflated, entries, f"{where} ({name})", walk, inflated=True)
            finally:
                assert walk.budget is not None  # set by __post_init__
                walk.budget.release(len(inflated.data))
        else:
            raise blob.fail(f"{label}: neither an offload bundle nor a compressed one (bytes {head[:8].hex()})", pos)
        pos = end


def _inflated(blob: Blob, at: int, hi: int, where: str, walk: Walk) -> tuple[Blob, str, int]:
    """The plain bundle a ``CCOB`` at ``at`` holds (a new blob, offsets from its start), what the CCOB is
    (``CCOB v3 zstd``) and its end."""
    header = compressed_header(blob, at, hi)
    end = at + header.total_size if header.total_size is not None else hi
    packed = end - at - header.header_size
    declared = header.inflated_size
    method = METHODS.get(header.method, f"method {header.method}")
    name = f"CCOB v{header.version} {method}"
    if declared > MAX_BUNDLE:
        raise blob.fail(
            f"{name} declares {declared} bytes once inflated, over the reader's {MAX_BUNDLE} per bundle", at + 8
        )
    if header.method not in METHODS:
        raise blob.fail(
            f"{name}: compression method {header.method} is none this reader knows (0 zlib, 1 zstd)", at + 8
        )
    budget = walk.budget
    assert budget is not None  # set by __post_init__
    try:
        budget.claim(declared)  # before anything is inflated; released by the caller once the entries are read
    except BudgetExceeded as exc:
        raise blob.fail(f"{name}: {exc}", at + 8) from None
    data = blob.bytes(at + header.header_size, packed, f"{name} stream")
    try:
        body = decode(METHODS[header.method], data, declared)
    except ValueError as exc:
        budget.release(declared)
        raise blob.fail(f"{name}: {' '.join(str(exc).split())}", at + header.header_size) from None
    if body is None:
        budget.release(declared)
        raise blob.fail(f"{name}: this Python has no {METHODS[header.method]} decoder", at + header.header_size)
    if not body.startswith(PLAIN_MAGIC):
        budget.release(declared)
        raise blob.fail(f"{name}: the inflated data is not an offload bundle", at + header.header_size)
    return Blob(body, blob.path, 0, f"{where} ({name}), inflated"), name, end


def entries_of(blob: Blob, entries: list[Entry], where: str, walk: Walk, inflated: bool = False) -> Iterator[Batch]:
    """The records of a plain bundle's code object entries; host entries and others are passed over (the
    others counted in ``walk.skipped``).  ``inflated``: ``blob`` is an inflated bundle, whose offsets the
    sources give as ``@+0x...`` (from the bundle's start), not as file offsets."""
    at_ = "@+0x" if inflated else "@0x"
    for entry in entries:
        if entry.is_host or entry.size == 0:
            continue
        if not inflated:
            walk.step(blob.base + entry.at)
        head = blob.bytes(entry.at, min(entry.size, 20), f"bundle entry {entry.entry_id}")
        if head[:4] == ELF_MAGIC and is_amdgpu_elf(head):
            source = f"{where}: {entry.entry_id} {at_}{blob.base + entry.at:x}"
            yield code_object_records(blob, entry.at, entry.size, source, walk)
        elif head[:4] in BITCODE:
            walk.skip(f"LLVM bitcode ({entry.triple or entry.kind})")
        elif entry.triple.startswith("amdgcn"):
            raise blob.fail(
                f"bundle entry {entry.entry_id}: neither an AMDGPU code object nor LLVM bitcode "
                f"(bytes {head[:8].hex()})",
                entry.at,
            )
        else:
            walk.skip(f"{entry.kind} entry for {entry.triple or 'no triple'}")


def code_object_records(blob: Blob, at: int, size: int, source: str, walk: Walk) -> Batch:
    """The records of the code object in ``[at, at + size)`` of ``blob``."""
    sub = Blob(memoryview(blob.data)[at : at + size], blob.path, blob.base + at, blob.what, image=blob.image)
    return read_code_object(sub, source, walk.reading)
