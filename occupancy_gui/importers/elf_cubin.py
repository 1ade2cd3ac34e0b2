"""CUDA ELF images (``.cubin``) read directly, without the CUDA toolkit.

Where the figures live (checked against ``cuobjdump`` and ``ptxas -v`` of CUDA 13.x; older layouts
are read as fallbacks):

* registers: ``EIATTR_REGCOUNT`` in ``.nv.info`` (symbol index, count); fallback the top byte of the
  kernel's ``.text`` section ``sh_info``;
* local memory: ``EIATTR_FRAME_SIZE`` / ``EIATTR_MIN_STACK_SIZE`` / ``EIATTR_MAX_STACK_SIZE``;
* barriers: ``EIATTR_NUM_BARRIERS`` in ``.nv.info.<kernel>``; fallback bits 20-26 of the ``.text``
  section's ``sh_flags`` (pre-Volta toolchains); absent means none;
* ``__launch_bounds__`` / ``.maxntid``: ``EIATTR_MAX_THREADS``; ``.reqntid``: ``EIATTR_REQNTID``;
  the register cap: ``EIATTR_MAXREG_COUNT``; clusters: ``EIATTR_CTA_PER_CLUSTER``;
* static shared memory: the size of ``.nv.shared.<kernel>``.  sm_90+ toolchains that emit
  ``.nv.shared.reserved.*`` / ``.nv.reservedSmem.*`` put the driver's 1 KiB reservation at the start
  of a non-empty section; it is split off into ``reserved_smem``;
* constant bank 0: the size of ``.nv.constant0.<kernel>``; module banks ``.nv.constant<N>``.

The minimum blocks per SM of ``__launch_bounds__`` is not recorded in the image: ``min_blocks`` is
``None``.  Spills are not recorded either: ``spill_stores``/``spill_loads`` are ``None``.
"""

from __future__ import annotations

import os
import re
import struct

from .records import read_input, RESERVED_SMEM_BASE, ImportFailure, KernelRecord

EM_CUDA = 190
ELF_MAGIC = b"\x7fELF"

# EIATTR codes (the attribute byte of an .nv.info entry).
EIATTR_CTAIDZ_USED = 0x04
EIATTR_MAX_THREADS = 0x05
EIATTR_REQNTID = 0x10
EIATTR_FRAME_SIZE = 0x11
EIATTR_MIN_STACK_SIZE = 0x12
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_MAXREG_COUNT = 0x1B
EIATTR_CRS_STACK_SIZE = 0x1E
EIATTR_MAX_STACK_SIZE = 0x23
EIATTR_REGCOUNT = 0x2F
EIATTR_CUDA_API_VERSION = 0x37
EIATTR_CTA_PER_CLUSTER = 0x3D
EIATTR_EXPLICIT_CLUSTER = 0x3E
EIATTR_MAX_CLUSTER_RANK = 0x3F
EIATTR_NUM_BARRIERS = 0x4C

EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4

STO_CUDA_ENTRY = 0x10
SHT_NOBITS = 8
SHT_SYMTAB = 2
_MAX_NAME = 64 << 10
_ARCH_IN_NOTE = re.compile(rb"-arch[ =]+((?:sm|compute)_[0-9]+[a-z]?)")


class Blob:
    """Bounds-checked little/big-endian reads; errors name the file and the absolute offset."""

    def __init__(self, data: bytes | memoryview, path: str, base: int = 0, what: str = ""):
        self.data = data
        self.path = path
        self.base = base  # absolute offset of data[0] in the file, for messages
        self.what = what  # e.g. "fatbin entry 2 (decompressed)": prefixes messages

    def fail(self, reason: str, at: int) -> ImportFailure:
        prefix = f"{self.what}: " if self.what else ""
        return ImportFailure(self.path, prefix + reason, offset=self.base + max(0, at))

    def need(self, at: int, size: int, what: str) -> None:
        if at < 0 or size < 0 or at + size > len(self.data):
            raise self.fail(f"{what} ({size} bytes at {at}) lies beyond the end of the data "
                            f"({len(self.data)} bytes)", at)

    def unpack(self, fmt: str, at: int, what: str) -> tuple:
        size = struct.calcsize(fmt)
        self.need(at, size, what)
        return struct.unpack_from(fmt, self.data, at)

    def bytes(self, at: int, size: int, what: str) -> bytes:
        self.need(at, size, what)
        return bytes(self.data[at:at + size])

    def cstring(self, at: int, what: str) -> str:
        if at < 0 or at >= len(self.data):
            raise self.fail(f"{what} string offset beyond the end of the data", at)
        end = self.data.find(b"\0", at, at + _MAX_NAME) if isinstance(self.data, bytes) \
            else bytes(self.data[at:at + _MAX_NAME]).find(b"\0")
        if not isinstance(self.data, bytes) and end >= 0:
            end += at
        if end < 0:
            raise self.fail(f"{what} string is not terminated", at)
        return bytes(self.data[at:end]).decode("utf-8", "replace")


class Section:
    __slots__ = ("index", "name", "type", "flags", "offset", "size", "link", "info", "entsize")

    def __init__(self, index, name, type_, flags, offset, size, link, info, entsize):
        self.index = index
        self.name = name
        self.type = type_
        self.flags = flags
        self.offset = offset
        self.size = size
        self.link = link
        self.info = info
        self.entsize = entsize


class Elf:
    """Section headers, names and symbols of an ELF file, every offset checked."""

    def __init__(self, blob: Blob):
        self.blob = blob
        b = blob
        if len(b.data) < 16 or bytes(b.data[:4]) != ELF_MAGIC:
            raise b.fail("not an ELF image (bad magic)", 0)
        ei_class, ei_data = b.data[4], b.data[5]
        if ei_class not in (1, 2) or ei_data not in (1, 2):
            raise b.fail(f"unsupported ELF class {ei_class} / data encoding {ei_data}", 4)
        self.is64 = ei_class == 2
        self.end = "<" if ei_data == 1 else ">"
        self.osabi = b.data[7]
        self.abiversion = b.data[8]
        e = self.end
        if self.is64:
            (self.type, self.machine, _ver, _entry, _phoff, shoff, self.flags, _ehsize, _phentsize,
             _phnum, shentsize, shnum, shstrndx) = b.unpack(e + "HHIQQQIHHHHHH", 16, "ELF header")
            sh_fmt, sh_min = e + "IIQQQQIIQQ", 64
        else:
            (self.type, self.machine, _ver, _entry, _phoff, shoff, self.flags, _ehsize, _phentsize,
             _phnum, shentsize, shnum, shstrndx) = b.unpack(e + "HHIIIIIHHHHHH", 16, "ELF header")
            sh_fmt, sh_min = e + "IIIIIIIIII", 40
        if shoff == 0:
            raise b.fail("ELF image has no section header table", 0x28 if self.is64 else 0x20)
        if shentsize < sh_min:
            raise b.fail(f"ELF section header entry size {shentsize} is smaller than {sh_min}", 0x3A)
        if shnum == 0:  # extended numbering: the count is in section 0's sh_size
            first = b.unpack(sh_fmt, shoff, "section header 0")
            shnum = first[5]
        if shstrndx == 0xFFFF:
            shstrndx = b.unpack(sh_fmt, shoff, "section header 0")[7]
        if shoff + shnum * shentsize > len(b.data) or shoff + shnum * shentsize < shoff:
            raise b.fail(f"section header table ({shnum} entries of {shentsize} bytes) runs past "
                         f"the end of the data ({len(b.data)} bytes)", shoff)
        raw = []
        for i in range(shnum):
            at = shoff + i * shentsize
            (name, type_, flags, _addr, offset, size, link, info, _align, entsize) = \
                b.unpack(sh_fmt, at, f"section header {i}")
            raw.append((name, type_, flags, offset, size, link, info, entsize, at))
        if not 0 <= shstrndx < shnum:
            raise b.fail(f"section name table index {shstrndx} is out of range (0..{shnum - 1})", 0x3E)
        str_sec = raw[shstrndx]
        self._check_range(str_sec[3], str_sec[4], "section name table", str_sec[8])
        # One copy of the string table: every name is then a cheap ``bytes.find`` in it.
        strtab = Blob(bytes(b.data[str_sec[3]:str_sec[3] + str_sec[4]]), b.path, b.base + str_sec[3], b.what)
        self.sections: list[Section] = []
        for i, (name, type_, flags, offset, size, link, info, entsize, at) in enumerate(raw):
            sname = strtab.cstring(name, f"section {i} name") if i else ""
            if type_ != SHT_NOBITS and size:
                self._check_range(offset, size, f"section {sname or i}", at)
            self.sections.append(Section(i, sname, type_, flags, offset, size, link, info, entsize))
        self.by_name = {s.name: s for s in self.sections}

    def _check_range(self, offset: int, size: int, what: str, header_at: int) -> None:
        if offset < 0 or size < 0 or offset + size > len(self.blob.data):
            raise self.blob.fail(f"{what} ({size} bytes at offset {offset}) runs past the end of "
                                 f"the data ({len(self.blob.data)} bytes)", header_at)

    def data(self, sec: Section) -> bytes:
        if sec.type == SHT_NOBITS:
            return b""
        return self.blob.bytes(sec.offset, sec.size, f"section {sec.name}")

    def symbols(self) -> list[tuple[str, int, int, int, int, int]]:
        """(name, value, size, info, other, shndx) for every symbol of ``.symtab``."""
        sec = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
        if sec is None:
            return []
        if not 0 <= sec.link < len(self.sections):
            raise self.blob.fail(f"symbol table links to missing section {sec.link}", sec.offset)
        strsec = self.sections[sec.link]
        strtab = Blob(bytes(self.blob.data[strsec.offset:strsec.offset + strsec.size]), self.blob.path,
                      self.blob.base + strsec.offset, self.blob.what)
        e = self.end
        fmt, size = (e + "IBBHQQ", 24) if self.is64 else (e + "IIIBBH", 16)
        count = sec.size // size
        table = self.blob.bytes(sec.offset, count * size, "symbol table")  # bounds checked once
        out = []
        cstring = strtab.cstring
        for i, fields in enumerate(struct.iter_unpack(fmt, table)):
            if self.is64:
                name, info, other, shndx, value, sz = fields
            else:
                name, value, sz, info, other, shndx = fields
            out.append((cstring(name, f"symbol {i} name") if name else "", value, sz, info, other, shndx))
        return out


def parse_nv_info(elf: Elf, sec: Section) -> list[tuple[int, int, bytes | int]]:
    """Entries of an ``.nv.info`` section: (attribute, format, value or payload)."""
    data = elf.data(sec)
    out: list[tuple[int, int, bytes | int]] = []
    pos = 0
    e = elf.end
    while pos < len(data):
        if pos + 4 > len(data):
            raise elf.blob.fail(f"truncated attribute in {sec.name}", sec.offset + pos)
        fmt, attr = data[pos], data[pos + 1]
        (value,) = struct.unpack_from(e + "H", data, pos + 2)
        if fmt == EIFMT_SVAL:
            if pos + 4 + value > len(data):
                raise elf.blob.fail(f"attribute 0x{attr:02x} in {sec.name} claims {value} bytes, "
                                    f"only {len(data) - pos - 4} remain", sec.offset + pos)
            out.append((attr, fmt, data[pos + 4:pos + 4 + value]))
            pos += 4 + value
        elif fmt in (EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL):
            out.append((attr, fmt, value & 0xFF if fmt == EIFMT_BVAL else value))
            pos += 4
        else:
            raise elf.blob.fail(f"unknown attribute format 0x{fmt:02x} in {sec.name}", sec.offset + pos)
    return out


def _u32s(payload: bytes | int, count: int, end: str) -> tuple[int, ...] | None:
    if isinstance(payload, int) or len(payload) < 4 * count:
        return None
    return struct.unpack_from(f"{end}{count}I", payload, 0)


def cubin_arch(elf: Elf) -> str:
    note = elf.by_name.get(".note.nv.tkinfo")
    if note is not None and note.type != SHT_NOBITS:
        m = _ARCH_IN_NOTE.search(elf.data(note))
        if m:
            return m.group(1).decode().replace("compute_", "sm_")
    if elf.osabi == 0x41 or elf.abiversion >= 8:
        number = (elf.flags >> 8) & 0xFF
    else:
        number = elf.flags & 0xFF
    return f"sm_{number}" if number else "unknown"


def is_cuda_elf(head: bytes) -> bool:
    if len(head) < 20 or head[:4] != ELF_MAGIC:
        return False
    end = "<" if head[5] == 1 else ">"
    (machine,) = struct.unpack_from(end + "H", head, 18)
    return machine == EM_CUDA


def read_cubin(data: bytes | memoryview, path: str, base: int = 0, what: str = "",
               source_prefix: str | None = None) -> list[KernelRecord]:
    """Records for every function of one CUDA ELF image."""
    blob = Blob(data, path, base, what)
    elf = Elf(blob)
    if elf.machine != EM_CUDA:
        raise blob.fail(f"ELF machine {elf.machine} is not CUDA ({EM_CUDA})", 18)
    arch = cubin_arch(elf)
    e = elf.end
    prefix = source_prefix if source_prefix is not None else os.path.basename(path)
    symbols = elf.symbols()

    # Module-wide .nv.info: per-function registers and stack, keyed by symbol index.
    regs: dict[int, int] = {}
    frame: dict[int, int] = {}
    min_stack: dict[int, int] = {}
    max_stack: dict[int, int] = {}
    info = elf.by_name.get(".nv.info")
    if info is not None:
        for attr, _fmt, payload in parse_nv_info(elf, info):
            pair = _u32s(payload, 2, e)
            if pair is None:
                continue
            target = {EIATTR_REGCOUNT: regs, EIATTR_FRAME_SIZE: frame,
                      EIATTR_MIN_STACK_SIZE: min_stack, EIATTR_MAX_STACK_SIZE: max_stack}.get(attr)
            if target is not None:
                target[pair[0]] = pair[1]

    uses_reserved_base = any(s.name.startswith(".nv.shared.reserved.") for s in elf.sections) or any(
        sym[0].startswith((".nv.reservedSmem", "__nv_reservedSMEM")) for sym in symbols)
    module_banks: dict[int, int] = {}
    for s in elf.sections:
        m = re.fullmatch(r"\.nv\.constant(\d+)", s.name)
        if m:
            module_banks[int(m.group(1))] = s.size

    records: list[KernelRecord] = []
    for index, (name, _value, _size, st_info, other, shndx) in enumerate(symbols):
        if st_info & 0xF != 2 or not name:  # STT_FUNC
            continue
        entry = bool(other & STO_CUDA_ENTRY)
        if not entry and index not in regs and index not in frame:
            continue
        display = name
        if not entry and name.startswith("$") and name.count("$") >= 2:
            display = name.rsplit("$", 1)[1]  # "$kernel$device_function"
        text = elf.sections[shndx] if 0 < shndx < len(elf.sections) else None
        registers = regs.get(index)
        if registers is None and text is not None and entry:
            registers = (text.info >> 24) & 0xFF
        stack = max_stack.get(index, min_stack.get(index, 0))
        local = max(stack, frame.get(index, 0))

        barriers = 0
        max_threads = req = cluster = max_reg = None
        kinfo = elf.by_name.get(f".nv.info.{name}") if entry else None
        from_flags = (text.flags >> 20) & 0x7F if text is not None else 0
        if from_flags:
            barriers = from_flags
        if kinfo is not None:
            for attr, fmt, payload in parse_nv_info(elf, kinfo):
                if attr == EIATTR_NUM_BARRIERS and isinstance(payload, int):
                    barriers = payload
                elif attr == EIATTR_MAX_THREADS:
                    dims = _u32s(payload, 3, e)
                    if dims:
                        max_threads = dims[0] * max(dims[1], 1) * max(dims[2], 1)
                elif attr == EIATTR_REQNTID:
                    dims = _u32s(payload, 3, e)
                    if dims:
                        req = (dims[0], dims[1], dims[2])
                elif attr == EIATTR_CTA_PER_CLUSTER:
                    dims = _u32s(payload, 3, e)
                    if dims:
                        cluster = (dims[0], dims[1], dims[2])
                elif attr == EIATTR_MAXREG_COUNT and isinstance(payload, int):
                    max_reg = payload
                elif attr == EIATTR_REGCOUNT and registers is None:
                    pair = _u32s(payload, 2, e)
                    if pair:
                        registers = pair[1]
        if req is not None and max_threads is None:
            max_threads = req[0] * max(req[1], 1) * max(req[2], 1)

        smem_sec = elf.by_name.get(f".nv.shared.{name}") if entry else None
        section_smem = smem_sec.size if smem_sec is not None else 0
        reserved = 0
        if uses_reserved_base and section_smem >= RESERVED_SMEM_BASE:
            reserved = RESERVED_SMEM_BASE
        c0 = elf.by_name.get(f".nv.constant0.{name}") if entry else None
        banks = dict(module_banks)
        if c0 is not None:
            banks[0] = c0.size
        where = f".nv.info.{name}" if kinfo is not None else ".nv.info"
        records.append(KernelRecord(
            name=display, arch=arch, registers=registers or 0, is_kernel=entry,
            static_smem=section_smem - reserved, reserved_smem=reserved, local_bytes=local,
            spill_stores=None, spill_loads=None, barriers=barriers if entry else None,
            const_bytes=c0.size if c0 is not None else None, const_banks=banks,
            max_threads=max_threads, min_blocks=None, req_threads=req, cluster_dims=cluster,
            max_registers=max_reg,
            source=f"{prefix}:ELF section {where}",
        ))
    return records


def import_cubin(path: str | os.PathLike[str], progress=None, cancel=None) -> list[KernelRecord]:
    name, data = read_input(path)
    records = read_cubin(data, name)
    if progress is not None:
        progress(len(data), len(data))
    return records
