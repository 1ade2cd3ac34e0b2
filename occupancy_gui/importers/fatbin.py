"""Fat binaries: ``.fatbin`` files and the fatbins embedded in host objects, executables and
shared libraries (``.nv_fatbin`` / ``__nv_relfatbin`` sections of an ELF or a Windows PE file, or a
scan for the magic in other containers), and the device images of clang's ``.llvm.offloading``
sections (``offload_binary``).

Container layout (little-endian)::

    header  u32 magic 0xBA55ED50, u16 version 1, u16 header size, u64 size of the entries
    entry   u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload size,
            u32 compressed size @16, u16 minor/major @24/@26, u32 arch @28, u64 flags @40,
            u64 uncompressed size @56

Flags ``0x2000`` mark an LZ4-compressed payload (``-Xfatbin -compress-all`` of CUDA 11.x-12.x and
``-compress-mode=speed`` of later releases), decoded with the ``lz4`` package.  Flags ``0x8000`` mark
zstd (the default ``-compress-all`` mode of CUDA 12.8+), decoded with the ``zstandard`` package (a
dependency) or Python 3.14's ``compression.zstd``; without either the entry is skipped with a note.
"""

from __future__ import annotations

import os
import re
import struct
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..child_process import usable_cpus
from . import offload_binary as offload
from .binary_data import Blob, FileImage
from .budget import HELD_LIMIT, BudgetExceeded, InflateBudget, decode
from .collector import collection_paused
from .elf import ELF_MAGIC, SHT_NOBITS, Elf, Section
from .elf_cubin import EM_CUDA, read_cubin
from .line_chunks import ImportCancelled
from .log_text import IncompleteKernel
from .pe import pe_sections
from .records import ImportFailure, KernelRecord, merge_records, open_regular

if TYPE_CHECKING:
    from .amd.record import AmdKernelRecord

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
_FAT_SECTIONS = (".nv_fatbin", "__nv_relfatbin", ".nvFatBinSegment_data")
NUMBER_LATER = "\0"
"""A container number not known yet (see ``_open_container``): no section or file name holds a NUL."""
_MAX_CONTAINERS = 100_000


@dataclass
class ImportResult:
    """What an import found: its records, and notes (one line each: entries skipped, assumptions made,
    what a record cannot say)."""

    records: list[KernelRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    no_functions: bool = False
    """The file is valid and holds device code, but no function (its CUDA ELF images hold none, as a
    translation unit without device functions compiles to): no records is then the answer, not a failure
    (cuobjdump exits 0 with an empty listing); the first note says so."""
    incomplete: list[IncompleteKernel] = field(default_factory=list)
    """Kernels a log names whose figures it never gives (cut off mid-kernel): not listed, each one noted."""
    launch_bounds_unknown: bool = False
    """Records from a text that never states launch bounds (a build log): ``max_threads`` ``None`` there
    means "not recorded", not "no bound"; a note says where the bound is (the object, cubin or source)."""
    amd_records: list[AmdKernelRecord] = field(default_factory=list)
    """The file's AMD kernels (``importers.amd``): a host binary or cache folder may hold both vendors'."""


def read_container(blob: Blob, at: int, result: ImportResult, prefix: str, number: int | str = 1,
                   embedded: bool = False, work: Decoding | None = None) -> int:
    """Parse one fatbin container starting at ``at``; returns the offset just past it.

    ``number`` counts the containers of one section (from 1): with the container's and each
    entry's file offset it goes into every record's ``source``, so that the 10^4 records of a
    library can be told apart.  ``embedded``: see ``elf_cubin.read_cubin``.  ``work``: the
    import's budgets, cancel and progress (a fresh one, inflating on this thread, by default).
    """
    work = work if work is not None else Decoding(None, len(blob.data))
    opened = _open_container(blob, at, prefix, number, work)
    try:
        _read_entries(blob, opened, result, embedded, work)
    except BaseException:
        work.discard(opened.entries)
        raise
    return opened.end


@dataclass
class _Entry:
    label: str
    pos: int  # the entry header's offset in the blob
    payload_at: int
    window: memoryview | None = None  # an uncompressed image, read in place
    inflated: Future[bytes | None] | None = None  # a compressed one, being inflated
    packed: bytes | None = None  # a compressed one, waiting for its turn to inflate
    flags: int = 0
    usize: int = 0


@dataclass
class _Container:
    end: int
    name: str
    entries: list[_Entry]


def _open_container(blob: Blob, at: int, prefix: str, number: int | str, work: Decoding) -> _Container:
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
        raise blob.fail(f"fatbin claims {fat_size} bytes of entries, only "
                        f"{max(0, len(blob.data) - start)} remain", at + 8)
    container = _Container(end, f"{prefix} container {number} @0x{blob.base + at:x}", [])
    pos = start
    number = 0  # now the entry's
    while pos + 16 <= end:
        number += 1
        kind, _ver, ehs, size = blob.unpack("<HHIQ", pos, f"fatbin entry {number} header")
        if ehs < 16:
            raise blob.fail(f"fatbin entry {number} header size {ehs} is smaller than 16", pos + 4)
        if pos + ehs + size > end or pos + ehs > end:
            raise blob.fail(f"fatbin entry {number} ({ehs}+{size} bytes) runs past the end of its "
                            f"container", pos)
        if ehs >= 64:
            csize, _opt, _minor, _major, arch, _noff, _nlen, flags, _zero, usize = blob.unpack(
                "<IIHHIIIQQQ", pos + 16, f"fatbin entry {number} header")
        else:
            csize = arch = flags = usize = 0
        payload_at = pos + ehs
        what = _kind_name(kind)
        entry = _Entry(f"fatbin entry {number} ({what} sm_{arch})", pos, payload_at, flags=flags, usize=usize)
        if kind != KIND_ELF:
            work.skipped[what] = work.skipped.get(what, 0) + 1
        if kind == KIND_ELF:
            if not flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD):
                entry.window = memoryview(blob.data)[payload_at:payload_at + size]
            else:
                if not 0 < csize <= size:
                    csize = size
                if usize <= 0:
                    raise blob.fail(f"{entry.label}: implausible uncompressed size {usize}", pos + 56)
                if usize > work.budget.held_limit:
                    raise blob.fail(f"{entry.label}: declares {usize} uncompressed bytes, more than the import's "
                                    f"budget of {work.budget.held_limit} bytes held at once", pos + 56)
                entry.packed = blob.bytes(payload_at, csize, f"{entry.label} payload")
                work.queue(entry, blob, pos + 56)
            container.entries.append(entry)
        pos = payload_at + size
    return container


def _kind_name(kind: int) -> str:
    return {KIND_ELF: "ELF", KIND_PTX: "PTX", KIND_LTO_IR: "LTO IR"}.get(kind, f"kind {kind}")


def _without_images(blob: Blob, at: int, end: int) -> dict[str, int] | None:
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


def _inflate(flags: int, packed: bytes, usize: int) -> bytes | None:
    """An entry's image (claimed from the import's budget by the caller); ``None`` where this Python has no
    zstd decoder.  Raises the codec's error."""
    return decode("lz4" if flags & FLAG_COMPRESSED_LZ4 else "zstd", packed, usize)


def _read_entries(blob: Blob, container: _Container, result: ImportResult, embedded: bool,
                  work: Decoding) -> None:
    """The records of a container's ELF entries, in order (inflation errors are raised here)."""
    for entry in container.entries:
        label, pos, payload_at = entry.label, entry.pos, entry.payload_at
        work.step(blob.base + pos)
        source = f"{container.name}: {label} @0x{blob.base + pos:x}"
        if entry.window is not None:
            result.records.extend(read_cubin(entry.window, blob.path, blob.base + payload_at, blob.what,
                                             source_prefix=source, image=blob.image, embedded=embedded))
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
                    "--dump-resource-usage` output instead")
                continue
            result.records.extend(read_cubin(image_bytes, blob.path, blob.base + payload_at,
                                             f"{label} (decompressed image)", source_prefix=source,
                                             embedded=embedded))
        finally:
            work.budget.release(entry.usize)  # its records are made: the image is dropped
        work.images += 1


_POOL: ThreadPoolExecutor | None = None
INFLIGHT_BUDGET = 256 << 20
"""Bytes of inflated images an import holds at once (beyond the one being read): libcublasLt's
5,832 images (1.9 GiB inflated, 16 MiB the largest) flow through it."""


INLINE_INFLATE = 1 << 20
"""Images up to this size inflate on the reading thread: a pool's hand-off costs more than they take."""


class Decoding:
    """One import's inflation work and limits: images inflate on ``pool`` (whose threads the
    codecs release the GIL to) in file order, at most :data:`INFLIGHT_BUDGET` bytes of them
    waiting at once; what they may inflate in all and hold at once is the import's ``budget``
    (:class:`.budget.InflateBudget`: ``max(4 GiB, 16 x`` the file in all, 1 GiB held).  ``step`` polls
    ``cancel`` and reports progress in bytes of the file reached.
    """

    def __init__(self, pool: ThreadPoolExecutor | None, file_size: int, cancel: Callable[[], bool] | None = None,
                 progress: Callable[[int, int], None] | None = None, inflight: int | None = None):
        self.pool = pool
        # Bytes of images pending at once: a worker process of several gets its share.
        self.inflight = inflight if inflight is not None else INFLIGHT_BUDGET
        self.file_size = file_size
        self.budget = InflateBudget.for_input(file_size)
        self.total_cap = self.budget.total_limit
        self.cancel = cancel
        self.progress = progress
        self.inflated = 0  # bytes queued so far
        self.pending = 0  # bytes submitted and not yet taken
        self.waiting: deque[_Entry] = deque()
        self.reached = 0
        self.path = ""
        self.skipped: dict[str, int] = {}  # entries that hold no ELF image, by kind: "PTX": 3
        self.images = 0  # ELF images read (with functions or without)

    def queue(self, entry: _Entry, blob: Blob, at: int) -> None:
        """Claim an image's bytes from the budget (held from now until its records are read) and queue it."""
        try:
            self.budget.claim(entry.usize)
        except BudgetExceeded as exc:
            raise blob.fail(f"{entry.label}: {exc}", at) from None
        self.inflated += entry.usize
        self.waiting.append(entry)
        self._pump()

    def _pump(self) -> None:
        while self.waiting and (not self.pending or self.pending + self.waiting[0].usize <= self.inflight):
            self._submit(self.waiting.popleft())

    def _submit(self, entry: _Entry) -> None:
        packed, entry.packed = entry.packed, None
        assert packed is not None
        self.pending += entry.usize
        if self.pool is not None and entry.usize > INLINE_INFLATE:
            entry.inflated = self.pool.submit(_inflate, entry.flags, packed, entry.usize)
            return
        entry.inflated = Future()
        try:
            entry.inflated.set_result(_inflate(entry.flags, packed, entry.usize))
        except Exception as exc:  # noqa: BLE001 - raised by take(), in order
            entry.inflated.set_exception(exc)

    def take(self, entry: _Entry) -> bytes | None:
        """The entry's image (its turn comes now if the budget held it back); raises its codec error."""
        if entry.inflated is None:
            self.waiting.remove(entry)
            self._submit(entry)
        assert entry.inflated is not None
        future, entry.inflated = entry.inflated, None
        try:
            return future.result()
        finally:
            self.pending -= entry.usize
            self._pump()

    def discard(self, entries: list[_Entry]) -> None:
        """Forget a container that failed (a trial parse of embedded data): its queued images."""
        for entry in entries:
            if entry.packed is not None and entry in self.waiting:
                self.waiting.remove(entry)
                entry.packed = None
                self.budget.release(entry.usize)
            elif entry.inflated is not None:
                entry.inflated.cancel()
                entry.inflated = None
                self.pending -= entry.usize
                self.budget.release(entry.usize)
        self._pump()

    def step(self, offset: int) -> None:
        """At ``offset`` of the file: raise ImportCancelled if asked to, report progress."""
        if self.cancel is not None and self.cancel():
            raise ImportCancelled(self.path)
        if offset > self.reached:
            self.reached = offset
            if self.progress is not None:
                self.progress(min(offset, self.file_size), self.file_size)



def _pool() -> ThreadPoolExecutor:
    """Threads that inflate the next container's images while this one's records are read: zstd
    and lz4 release the GIL (libcublasLt: 5,832 compressed images)."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=min(4, usable_cpus()),
                                   thread_name_prefix="fatbin-inflate")
    return _POOL


def read_fatbin_bytes(data: bytes | memoryview, path: str, base: int = 0, prefix: str | None = None,
                      result: ImportResult | None = None, image: FileImage | None = None,
                      work: Decoding | None = None) -> ImportResult:
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
    pending: _Container | None = None
    work = work if work is not None else Decoding(_pool(), len(data))
    while pos < n:
        pos = blob.skip_zeros(pos, n)  # alignment padding
        if pos >= n:
            break
        count += 1
        if count > _MAX_CONTAINERS:
            raise blob.fail("too many fatbin containers", pos)
        work.step(base + pos)
        opened = _open_container(blob, pos, prefix, count, work)
        if pending is not None:
            _read_entries(blob, pending, result, False, work)
        pending = opened
        pos = opened.end
    if pending is not None:
        _read_entries(blob, pending, result, False, work)
    return result


def read_host_binary(data: bytes | memoryview, path: str, base: int = 0, prefix: str | None = None,
                     result: ImportResult | None = None, image: FileImage | None = None,
                     work: Decoding | None = None) -> ImportResult:
    """Fatbins embedded in a host ELF (``.o``, executable, ``.so``) or any other container.

    In an ELF (and a Windows PE file, by ``pe``'s section table), the fatbin sections the CUDA
    runtime registers are read as cuobjdump reads them:
    ``.nv_fatbin`` (whole-program code and nvlink's linked images) and, only where there is no
    ``.nv_fatbin``, ``__nv_relfatbin`` (the relocatable ``-rdc`` copies nvlink consumed).  Fatbins
    elsewhere (libcublasLt's ``.cask_resource``, libcufft's ``.ldata``, libcusparse's ``.rodata``)
    are listed too, marked embedded, where their structure checks out end to end.

    ``base`` is the offset of ``data`` in the file (for messages), ``prefix`` names it in sources;
    ``image``: the file ``data`` is a window of, read as it is parsed.
    """
    result = result if result is not None else ImportResult()
    prefix = prefix if prefix is not None else os.path.basename(path)
    work = work if work is not None else Decoding(_pool(), len(data))
    blob = Blob(data, path, base, image=image)
    blob.load(0, 64)
    if bytes(data[:4]) == ELF_MAGIC:
        order = "<" if len(data) > 5 and data[5] == 1 else ">"
        (machine,) = blob.unpack(order + "H", 18, "ELF header")
        if machine == EM_CUDA:
            result.records.extend(read_cubin(data, path, base, source_prefix=prefix, image=image))
            return result
        try:
            sections = Elf(blob).sections
        except ImportFailure:
            sections = None  # stripped or damaged section headers: fall back to the scan below
    else:
        sections = pe_sections(blob)
    if sections is not None:
        fat, data_sections = sections_to_read(sections)
        for sec in fat:
            read_fatbin_bytes(memoryview(data)[sec.offset:sec.offset + sec.size], path,
                              base=base + sec.offset, prefix=f"{prefix}:{sec.name}", result=result,
                              image=image, work=work)
        offloading = offload_sections(sections)
        for sec in offloading:
            read_offload_section(blob, sec.offset, sec.offset + sec.size, result, f"{prefix}:{sec.name}", work)
        embedded = 0
        for sec in data_sections:
            embedded += read_embedded(blob, sec.offset, sec.offset + sec.size, result,
                                      f"{prefix}:{sec.name}", work)
        if fat or offloading or embedded:
            return result
        raise ImportFailure(path, "no CUDA fatbinary found (no .nv_fatbin section and no fatbin "
                                  "in any data section)", offset=base)
    # A container without sections to say where: scan it all, in chunks (never loaded whole).
    found = False
    scan = MagicScan(blob, 0, len(data), work)
    for pos in scan:
        found = True
        scan.skip_to(read_container(blob, pos, result, prefix, work=work))
    if not found:
        raise ImportFailure(path, "no CUDA fatbinary found (no .nv_fatbin section and no fatbin "
                                  "header anywhere in the file)", offset=base)
    return result


def sections_to_read(sections: list[Section]) -> tuple[list[Section], list[Section]]:
    """A host ELF's fatbin sections, in the order they are read, and the data sections scanned for
    embedded fatbins after them (see :func:`read_host_binary`)."""
    fat = [sec for sec in sections if sec.name in _FAT_SECTIONS and sec.type != SHT_NOBITS and sec.size]
    if any(sec.name == ".nv_fatbin" for sec in fat):
        fat = [sec for sec in fat if sec.name != "__nv_relfatbin"]
    offloading = offload_sections(sections)
    data_sections = [sec for sec in sections if sec.type != SHT_NOBITS and sec.size >= 64 and sec not in offloading
                     and sec.name not in _FAT_SECTIONS and not sec.name.startswith(_NO_FATBIN_SECTIONS)]
    return fat, data_sections


def offload_sections(sections: list[Section]) -> list[Section]:
    """A host ELF's LLVM offloading sections (by type, as LLVM finds them, or by name)."""
    return [sec for sec in sections if (sec.type == offload.SHT_LLVM_OFFLOADING or sec.name == offload.SECTION)
            and sec.type != SHT_NOBITS and sec.size]


def read_offload_section(blob: Blob, lo: int, hi: int, result: ImportResult, prefix: str, work: Decoding) -> None:
    """The records of the NVIDIA images in an ``.llvm.offloading`` section (``[lo, hi)`` of ``blob``):
    cubins as any cubin, fatbinaries as any fatbin; PTX is counted as a fatbin's PTX is, and what has no
    figures yet (LLVM bitcode of ``-foffload-lto``) or is not NVIDIA's gets a note."""
    unread: dict[tuple[int, str], list[str]] = {}  # (image kind, triple) -> archs
    for image in offload.offload_images(blob, lo, hi, work.budget):
        work.step(blob.base + (image.at if image.blob is blob else lo))  # progress, and a cancel is heard
        nvidia = image.triple.startswith("nvptx")
        if nvidia and image.image_kind in (offload.IMAGE_OBJECT, offload.IMAGE_CUBIN, offload.IMAGE_FATBINARY):
            _read_offload_image(image, result, f"{prefix}: {image.label}", work)
        elif nvidia and image.image_kind == offload.IMAGE_PTX:
            work.skipped["PTX"] = work.skipped.get("PTX", 0) + 1
        else:
            unread.setdefault((image.image_kind, image.triple), []).append(image.arch or "?")
    for (kind, triple), archs in unread.items():
        why = ("compiled with -foffload-lto: registers and shared memory are decided at the device link, so "
               "import the linked executable") if kind == offload.IMAGE_BITCODE and triple.startswith("nvptx") \
            else "not NVIDIA device code this reader can list"
        what = offload.IMAGE_KINDS.get(kind, f"image kind {kind}")
        result.notes.append(f"{blob.path}: {len(archs)} {what} image{'s' if len(archs) != 1 else ''} for "
                            f"{triple or 'no target'} ({', '.join(archs)}) in {prefix} skipped: {why}")


def _read_offload_image(image: offload.OffloadImage, result: ImportResult, source: str, work: Decoding) -> None:
    src = image.blob  # read where parsed, as any fatbin entry's window (src.image: the file, where it is one)
    data = memoryview(src.data)[image.at:image.at + image.size]
    if image.image_kind == offload.IMAGE_FATBINARY:
        read_fatbin_bytes(data, src.path, base=src.base + image.at, prefix=source, result=result, image=src.image,
                          work=work)
    else:
        result.records.extend(read_cubin(data, src.path, src.base + image.at, src.what, source_prefix=source,
                                         image=src.image))
        work.images += 1


# Sections of a host ELF that hold code or metadata, never data a library loads: not scanned.
_NO_FATBIN_SECTIONS = (".text", ".rel", ".dyn", ".symtab", ".strtab", ".shstrtab", ".eh_frame", ".gcc_except",
                       ".debug", ".gnu", ".note", ".init", ".fini", ".plt", ".got", ".hash", ".interp",
                       ".comment", ".ctors", ".dtors", ".tbss", ".tdata")
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


def read_embedded(blob: Blob, lo: int, hi: int, result: ImportResult, prefix: str,
                  work: Decoding | None = None) -> int:
    """Fatbin containers that lie in ``[lo, hi)`` of ``blob`` (a data section); the number found.

    A byte pattern alone never makes a kernel: a candidate counts only where the whole container
    parses (headers, entry sizes inside it, every ELF image and each function's figures read
    without error); anything else is skipped as the data it most likely is.  A candidate inside a
    container read (with images or without) is none: the scan resumes past each.
    """
    found = 0
    work = work if work is not None else Decoding(_pool(), len(blob.data))
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


def trial_container(blob: Blob, at: int, hi: int, prefix: str, number: int | str,
                    work: Decoding) -> tuple[int, ImportResult | None] | None:
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
            kinds = _without_images(window, at + header_size, at + header_size + fat_size)
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


AR_MAGIC = b"!<arch>\n"
_MAX_MEMBERS = 100_000


_MAX_LONG_NAMES = 64 << 20  # a GNU long-name table; real ones are KBs


def read_ar_archive(data: bytes | memoryview, path: str, image: FileImage | None = None,
                    work: Decoding | None = None, result: ImportResult | None = None) -> ImportResult:
    """Every member of a static library (``!<arch>``, GNU or BSD names) that holds a fatbin.

    Members without device code (host-only objects, symbol tables) are skipped; an archive with
    none at all is an ImportFailure, as is a member header that is damaged or runs past the end.
    ``image``: the file ``data`` is a view of, read only where parsed (a 700 MB ``libcublas_static.a``
    costs its headers and fatbins, not its size).
    """
    result = result if result is not None else ImportResult()
    blob = Blob(data, path, image=image)
    work = work if work is not None else Decoding(_pool(), len(data))
    prefix = os.path.basename(path)
    long_names = b""
    pos = len(AR_MAGIC)
    members = 0
    n = len(data)
    while pos < n:
        if pos + 1 == n and blob.bytes(pos, 1, "ar padding") == b"\n":
            break  # the padding byte of an odd-sized last member
        work.step(pos)
        header = blob.bytes(pos, 60, "ar member header")
        if header[58:60] != b"`\n":
            raise blob.fail("ar member header has no end marker (damaged archive)", pos + 58)
        members += 1
        if members > _MAX_MEMBERS:
            raise blob.fail("too many ar members", pos)
        size_text = header[48:58].strip()
        if not size_text.isdigit():
            raise blob.fail(f"ar member size {size_text[:10]!r} is not a number", pos + 48)
        size = int(size_text)
        start = pos + 60
        if start + size > n:
            raise blob.fail(f"ar member of {size} bytes runs past the end of the archive", pos + 48)
        raw_name = header[:16].rstrip(b" ")
        body_start = start
        if raw_name.startswith(b"#1/") and raw_name[3:].isdigit():  # BSD: the name follows the header
            name_len = min(int(raw_name[3:]), size, 4096)
            raw_name = blob.bytes(start, name_len, "ar member name").rstrip(b"\0")
            body_start = start + name_len
        elif raw_name == b"//":  # GNU long-name table
            if size > _MAX_LONG_NAMES:
                raise blob.fail(f"ar long-name table claims {size} bytes", pos + 48)
            long_names = blob.bytes(start, size, "ar long-name table")
        elif raw_name.startswith(b"/") and raw_name[1:].isdigit():
            at = int(raw_name[1:])
            end = long_names.find(b"/\n", at)
            raw_name = long_names[at:end if end >= 0 else at + 256]
        member = raw_name.rstrip(b"/").decode("utf-8", "replace") or "?"
        end = start + size
        head = blob.bytes(body_start, min(4, end - body_start), "ar member") if end > body_start else b""
        if raw_name not in (b"/", b"//", b"__.SYMDEF", b"__.SYMDEF SORTED", b"/SYM64/") and \
                (head in (ELF_MAGIC, FATBIN_MAGIC_BYTES) or next(iter(MagicScan(blob, body_start, end, work)), None) is not None):
            label = f"{prefix}({member})"
            body = memoryview(data)[body_start:end]
            try:
                if head == FATBIN_MAGIC_BYTES:
                    read_fatbin_bytes(body, path, base=body_start, prefix=label, result=result, image=image, work=work)
                else:
                    read_host_binary(body, path, base=body_start, prefix=label, result=result, image=image, work=work)
            except ImportFailure as exc:
                if "no CUDA fatbinary found" not in exc.reason:
                    raise
        pos = end + (size & 1)
    if not result.records and not result.notes:
        raise ImportFailure(path, f"no CUDA device code in any of the archive's {members} members",
                            offset=0)
    return result


_SKIPPED_HINTS = {
    "PTX": "registers and shared memory are decided when PTX is compiled (compile it with ptxas -v for a "
           "target, or rebuild with -arch=sm_XY)",
    "LTO IR": "registers and shared memory are decided at the device link of an nvcc -dlto build (import "
              "the linked executable, or rebuild with code=sm_XY beside lto_XY)",
}


def _note_skipped(path: str, result: ImportResult, work: Decoding) -> None:
    """A fatbin that yields no records says what it held: ELF images without a function (cuDSS's
    communication layers hold one each, beside an empty PTX entry), a valid file with no kernel, listed as
    cuobjdump lists it (nothing, exit 0) with a note; or it fails where instead of ELF images it holds PTX,
    LTO IR (libcufft carries 12,728 such entries) or kinds this reader does not know, skipped as cuobjdump
    skips them."""
    if result.records or result.notes:
        return
    skipped = work.skipped
    listed = ", ".join(f"{n} {what}" for what, n in sorted(skipped.items()))
    entries = f"entr{'ies' if sum(skipped.values()) != 1 else 'y'}"
    hints = [_SKIPPED_HINTS[what] for what in sorted(skipped) if what in _SKIPPED_HINTS]
    hint = "; ".join(hints) if len(hints) == len(skipped) else "nothing this reader can list"
    if work.images:
        empty = f"no function in the fatbin's {work.images} CUDA ELF image{'s' if work.images != 1 else ''}"
        beside = f"; beside {'it' if work.images == 1 else 'them'}, {listed} {entries}: {hint}" if skipped else ""
        result.notes.append(f"{path}: {empty}{beside}")
        result.no_functions = True
        return
    if not skipped:
        raise ImportFailure(path, "the fatbin holds no entries")
    raise ImportFailure(path, f"the fatbin holds no CUDA ELF image, only {listed} {entries}: {hint}")


def import_fatbin_detailed(path: str | os.PathLike[str], progress: Callable[[int, int], None] | None = None,
                           cancel: Callable[[], bool] | None = None) -> ImportResult:
    """A fatbin, host binary or static library; only the parts that are parsed are read.

    One record per distinct copy of a function (see ``records.merge_records``).  ``progress(done,
    total)`` hears the bytes of the file reached; ``cancel()`` is polled at every container, image
    and 8 MB of data scanned (it raises ``ImportCancelled``).
    """
    name = os.fspath(path)
    try:
        with collection_paused(), open_regular(name) as stream:
            size = os.fstat(stream.fileno()).st_size
            image = FileImage(stream, size, name)
            image.load(0, 64)
            head = bytes(image.buffer[:8])
            result = ImportResult()
            work = Decoding(_pool(), size, cancel, progress)
            work.path = name
            if head[:4] == FATBIN_MAGIC_BYTES:
                read_fatbin_bytes(image.view, name, image=image, result=result, work=work)
            elif head == AR_MAGIC:
                read_ar_archive(image.view, name, image=image, work=work, result=result)
            elif head[:4] == offload.MAGIC:  # a bare offload binary, as llvm-offload-binary -o writes one
                read_offload_section(Blob(image.view, name, image=image), 0, size, result, os.path.basename(name),
                                     work)
            else:
                read_host_binary(image.view, name, image=image, result=result, work=work)
            _note_skipped(name, result, work)
            result.records = merge_records(result.records)
            return result
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
