"""AMDGPU code objects (HSACO): an ELF64 for ``EM_AMDGPU``, its metadata note and its kernel descriptors.

A kernel is what the HIP runtime loads as one: a metadata entry (``amdhsa.kernels[]`` of the
``NT_AMDGPU_METADATA`` note, or ``Kernels`` of code object v2's YAML note) whose ``.symbol`` names a kernel
descriptor in the ELF symbol table (``NAME.kd``, or v2's ``STT_AMDGPU_HSA_KERNEL`` symbol at the
``amd_kernel_code_t``).  An entry without its descriptor, or a descriptor without an entry, is skipped with
a note.  Every offset is checked (``..binary.blob.Blob``); a failure names the file and the byte offset.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from ..binary.blob import Blob
from ..binary.elf import ELF_MAGIC, LINK, OFFSET, SIZE, TYPE, Elf, StringTable
from ..names.demangle import demangle
from .descriptor import CODE_T_SIZE, KD_SIZE, Buffer, Descriptor, decode_code_t, decode_kd
from .metadata import MetadataError, decode_metadata
from .metadata_v2 import decode_v2_metadata
from .record import NO_SPILLS, AmdKernelRecord, Spills
from .target import CODE_OBJECT_VERSIONS, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, processor, split_target, target_id

SHT_NOTE, SHT_SYMTAB, SHT_DYNSYM = 7, 2, 11
ET_REL = 1
ADDR = 3
NT_AMDGPU_METADATA = 32
NT_AMD_HSA_METADATA = 10
STT_OBJECT, STT_AMDGPU_HSA_KERNEL = 1, 10
_NOTE_HEADER = struct.Struct("<III")
MAX_SYMBOLS = 4 << 20
MAX_NOTES = 4096


@dataclass
class Reading:
    """What one import shares between its code objects: the notes it gathers, a name table (the names of
    one library repeat once per target: one string each), and the spill pairs met."""

    notes: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    spills: dict[tuple[int | None, int | None], Spills] = field(default_factory=dict)
    code_objects: int = 0

    def name(self, text: str) -> str:
        return self.names.setdefault(text, text)

    def spill(self, vgpr: int | None, sgpr: int | None) -> Spills:
        if vgpr == 0 and sgpr == 0:
            return NO_SPILLS
        key = (vgpr, sgpr)
        found = self.spills.get(key)
        if found is None:
            found = self.spills[key] = Spills(vgpr, sgpr)
        return found


def is_amdgpu_elf(head: bytes | bytearray | memoryview) -> bool:
    """Whether ``head`` starts an ELF64 little-endian image for ``EM_AMDGPU``."""
    return (
        bytes(head[:4]) == ELF_MAGIC
        and len(head) >= 20
        and head[4] == 2
        and head[5] == 1
        and struct.unpack_from("<H", head, 18)[0] == EM_AMDGPU
    )


def read_code_object(blob: Blob, source: str, reading: Reading) -> list[AmdKernelRecord]:
    """The kernels of the code object that ``blob`` holds (from its first byte to its end)."""
    blob.load(0, 64)
    if not is_amdgpu_elf(blob.data[:20]):
        raise blob.fail("not an AMDGPU code object (an ELF64 little-endian for EM_AMDGPU, machine 224)", 0)
    elf = Elf(blob)
    if elf.osabi != ELFOSABI_AMDGPU_HSA:
        raise blob.fail(
            f"code object for OS/ABI {elf.osabi} (not AMDGPU HSA, 64: a PAL or Mesa shader, which "
            "the HIP runtime does not load)",
            7,
        )
    version = CODE_OBJECT_VERSIONS.get(elf.abiversion)
    if version is None:
        raise blob.fail(f"unknown AMDGPU HSA code object ABI version {elf.abiversion}", 8)
    if processor(elf.flags) is None:
        reading.notes.append(
            f"{blob.path}: {source}: e_flags 0x{elf.flags:x} name a processor this reader does "
            "not know; its target is shown as the number"
        )
    reading.code_objects += 1
    target = target_id(elf.flags, version)
    kernels = _metadata_kernels(elf, version)
    if not kernels:
        return []
    symbols = _symbols(elf, v2=version == 2)
    return _records(elf, kernels, symbols, target, version, source, reading)


@dataclass(frozen=True, slots=True)
class _Kernel:
    """A metadata entry, whatever the code object version wrote it as."""

    name: str
    symbol: str
    group_segment: int
    private_segment: int
    wavefront_size: int
    sgprs: int | None
    vgprs: int | None
    agprs: int | None
    max_threads: int | None
    spills: tuple[int | None, int | None]
    required_block: tuple[int, int, int] | None
    wgp_mode: bool | None
    dynamic_stack: bool | None


def _notes(elf: Elf) -> list[tuple[str, int, int, int]]:
    """(owner, type, offset, size) of every note's description, in section order."""
    out: list[tuple[str, int, int, int]] = []
    for i, row in enumerate(elf.rows):
        if row[TYPE] != SHT_NOTE or not row[SIZE]:
            continue
        start, end = row[OFFSET], row[OFFSET] + row[SIZE]
        elf.blob.load(start, row[SIZE])
        pos = start
        while pos + 12 <= end:
            if len(out) >= MAX_NOTES:
                raise elf.blob.fail(f"more than {MAX_NOTES} notes (a code object has one to five)", pos)
            namesz, descsz, kind = elf.blob.unpack("<III", pos, f"note header in section {elf.names[i]}")
            name_at = pos + 12
            desc_at = name_at + ((namesz + 3) & ~3)
            if desc_at + descsz > end:
                raise elf.blob.fail(f"note of {descsz} bytes runs past the end of section {elf.names[i]}", pos + 4)
            owner = elf.blob.bytes(name_at, namesz, "note owner").rstrip(b"\0").decode("latin-1")
            out.append((owner, kind, desc_at, descsz))
            pos = desc_at + ((descsz + 3) & ~3)
    return out


def _metadata_kernels(elf: Elf, version: int) -> list[_Kernel]:
    notes = _notes(elf)
    blob = elf.blob
    for owner, kind, at, size in notes:
        if owner == "AMDGPU" and kind == NT_AMDGPU_METADATA and version >= 3:
            try:
                meta = decode_metadata(blob.bytes(at, size, "metadata note"))
            except MetadataError as exc:
                raise blob.fail(str(exc), at) from None
            return [
                _Kernel(
                    k.name,
                    k.symbol,
                    k.group_segment_fixed_size,
                    k.private_segment_fixed_size,
                    k.wavefront_size,
                    k.sgpr_count,
                    k.vgpr_count,
                    k.agpr_count,
                    k.max_flat_workgroup_size,
                    (k.vgpr_spill_count, k.sgpr_spill_count),
                    k.reqd_workgroup_size,
                    None if k.workgroup_processor_mode is None else bool(k.workgroup_processor_mode),
                    k.uses_dynamic_stack,
                )
                for k in meta.kernels
            ]
        if owner == "AMD" and kind == NT_AMD_HSA_METADATA and version == 2:
            try:
                entries = decode_v2_metadata(blob.bytes(at, size, "metadata note"))
            except MetadataError as exc:
                raise blob.fail(str(exc), at) from None
            return [_Kernel(*entry) for entry in entries]
    raise blob.fail(
        f"code object v{version} without its metadata note (NT_AMDGPU_METADATA for v3+, the AMD "
        "HSA metadata note for v2)",
        0,
    )


def _symbols(elf: Elf, v2: bool) -> dict[str, tuple[int, int, int]]:
    """Descriptor-sized symbols by name: name -> (section index, value, size).  ``.symtab``, else the
    ``.dynsym`` a stripped code object keeps; v3+: 64-byte objects, v2: ``STT_AMDGPU_HSA_KERNEL``."""
    table = next((i for i, row in enumerate(elf.rows) if row[TYPE] == SHT_SYMTAB), None)
    if table is None:
        table = next((i for i, row in enumerate(elf.rows) if row[TYPE] == SHT_DYNSYM), None)
    if table is None:
        return {}
    row = elf.rows[table]
    link = row[LINK]
    if not 0 < link < len(elf.rows):
        raise elf.blob.fail(f"symbol table {elf.names[table]} links to missing section {link}", row[OFFSET])
    if row[SIZE] > MAX_SYMBOLS * 24:
        raise elf.blob.fail(f"symbol table of {row[SIZE]} bytes is over the reader's budget", row[OFFSET])
    strtab = StringTable(elf.section_bytes(link), elf.blob.path, elf.blob.base + elf.rows[link][OFFSET], elf.blob.what)
    raw = elf.section_bytes(table)
    entries = struct.iter_unpack("<IBBHQQ", raw[: len(raw) - len(raw) % 24])
    if v2:
        wanted = [e for e in entries if e[1] & 0xF == STT_AMDGPU_HSA_KERNEL]
    else:
        wanted = [e for e in entries if e[1] & 0xF == STT_OBJECT and e[5] == KD_SIZE]
    names = strtab.get_all([e[0] for e in wanted], lambda i: f"symbol {i}")
    return {name: (e[3], e[4], e[5]) for name, e in zip(names, wanted)}


def _records(
    elf: Elf,
    kernels: list[_Kernel],
    symbols: dict[str, tuple[int, int, int]],
    target: str,
    version: int,
    source: str,
    reading: Reading,
) -> list[AmdKernelRecord]:
    arch, _features = split_target(target)
    blob, rows = elf.blob, elf.rows
    relocatable = elf.type == ET_REL
    size, decode = (CODE_T_SIZE, _code_t) if version == 2 else (KD_SIZE, _kd(arch))
    out: list[AmdKernelRecord] = []
    missing: list[str] = []
    name_of, spill_of = reading.name, reading.spill
    source = sys.intern(source)
    for k in kernels:
        symbol = k.symbol[:-3] if version == 2 and k.symbol.endswith("@kd") else k.symbol
        found = symbols.get(symbol)
        if found is None:
            missing.append(k.name)
            continue
        shndx, value, _size = found
        if not 0 < shndx < len(rows):
            raise blob.fail(f"kernel descriptor {symbol} lies in section {shndx}, which does not exist", 0)
        row = rows[shndx]
        offset = row[OFFSET] + (value if relocatable else value - row[ADDR])
        if value < (0 if relocatable else row[ADDR]) or offset + size > row[OFFSET] + row[SIZE]:
            raise blob.fail(
                f"kernel descriptor {symbol} ({size} bytes at address 0x{value:x}) lies outside its "
                f"section {elf.names[shndx]}",
                row[OFFSET],
            )
        blob.need(offset, size, f"kernel descriptor {symbol}")
        blob.load(offset, size)
        kd = decode(blob.data, offset)
        name = name_of(k.name)
        wgp = k.wgp_mode if k.wgp_mode is not None else kd.wgp_mode
        dynamic_stack = k.dynamic_stack if k.dynamic_stack is not None else (kd.dynamic_stack if version >= 5 else None)
        out.append(
            AmdKernelRecord(
                name,
                demangle(name),
                "kernel",
                arch,
                target,
                version,
                k.vgprs,
                k.agprs,
                k.sgprs,
                kd.allocated_vgprs(arch),
                k.group_segment,
                k.private_segment,
                dynamic_stack,
                k.wavefront_size,
                wgp,
                k.max_threads,
                k.required_block,
                spill_of(*k.spills),
                1,
                source,
            )
        )
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        reading.notes.append(
            f"{blob.path}: {source}: {len(missing)} metadata entr{'ies' if len(missing) != 1 else 'y'} "
            f"without a kernel descriptor skipped ({shown})"
        )
    return out


def _kd(arch: str) -> Callable[[Buffer, int], Descriptor]:
    def decode(data: Buffer, at: int) -> Descriptor:
        return decode_kd(data, at, arch)

    return decode


def _code_t(data: Buffer, at: int) -> Descriptor:
    return decode_code_t(data, at)
