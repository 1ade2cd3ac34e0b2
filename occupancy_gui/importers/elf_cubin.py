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
from collections.abc import Callable

from .binary_data import MAX_NAME, Blob, FileImage
from .records import _LAUNCH_KEYS, RESERVED_SMEM_BASE, KernelRecord, fast_record, read_input

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
_ARCH_IN_NOTE = re.compile(rb"-arch[ =]+((?:sm|compute)_[0-9]+[a-z]?)")


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


# Sections whose contents the importer never reads (only their sizes), and the largest gap between
# two wanted sections that one read spans rather than two.
_NOT_PARSED = (".text", ".nv.constant", ".nv.global", ".rel", ".debug", ".nv_debug", ".nv.rel", ".nv.merc",
               ".nv.capmerc")  # the last two: sm_100+ "Mercury" copies of code and data
_READ_GAP = 16 << 10


class StringTable:
    """An ELF string table; names are looked up by offset, decoded once, and cached.

    Cubins of a vendor library hold 10^4 section and symbol names: an ASCII table is decoded to one
    ``str`` up front, so a name is a ``str.find`` and a slice.  Anything else takes ``Blob.cstring``,
    which also builds the error messages.
    """

    __slots__ = ("blob", "text")

    def __init__(self, raw: bytes, path: str, base: int, what: str):
        self.blob = Blob(raw, path, base, what)
        self.text = raw.decode("ascii") if raw.isascii() else None

    def get(self, at: int, what: str | Callable[[], str]) -> str:
        text = self.text
        if text is not None and 0 <= at < len(text):
            end = text.find("\0", at, at + MAX_NAME)
            if end >= 0:
                return text[at:end]
        return self.blob.cstring(at, what if isinstance(what, str) else what())


class Elf:
    """Section headers, names and symbols of an ELF file, every offset checked."""

    def __init__(self, blob: Blob):
        self.blob = blob
        b = blob
        b.load(0, 64)
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
        self._shoff, self._shentsize = shoff, shentsize
        # The whole table in one read: a cubin of a vendor library has hundreds of sections.
        table = b.bytes(shoff, shnum * shentsize, "section header table")
        if shentsize == sh_min:
            raw = list(struct.iter_unpack(sh_fmt, table))
        else:
            unpack = struct.Struct(sh_fmt).unpack_from
            raw = [unpack(table, i * shentsize) for i in range(shnum)]
        if not 0 <= shstrndx < shnum:
            raise b.fail(f"section name table index {shstrndx} is out of range (0..{shnum - 1})", 0x3E)
        str_sec = raw[shstrndx]
        self._check_range(str_sec[4], str_sec[5], "section name table", shoff + shstrndx * shentsize)
        names = StringTable(b.bytes(str_sec[4], str_sec[5], "section name table"), b.path,
                            b.base + str_sec[4], b.what)
        get, limit, check = names.get, len(b.data), self._check_range
        self.sections: list[Section] = [Section(0, "", *_header_fields(raw[0]))] if raw else []
        append = self.sections.append
        for i in range(1, len(raw)):
            row = raw[i]
            sname = get(row[0], lambda: f"section {i} name")
            type_, offset, size = row[1], row[4], row[5]
            if type_ != SHT_NOBITS and size and offset + size > limit:
                check(offset, size, f"section {sname or i}", shoff + i * shentsize)
            append(Section(i, sname, *_header_fields(row)))
        self.by_name = {s.name: s for s in self.sections}
        if b.image is not None and self.machine == EM_CUDA:
            self._prefetch()

    def _prefetch(self) -> None:
        """Read, in a few large reads, every section the importer parses (not code or constants)."""
        wanted = sorted((s.offset, s.offset + s.size) for s in self.sections[1:]
                        if s.type != SHT_NOBITS and s.size and not s.name.startswith(_NOT_PARSED))
        lo = hi = -1
        for start, end in wanted:
            if start > hi + _READ_GAP:
                if hi > lo:
                    self.blob.load(lo, hi - lo)
                lo = start
            hi = max(hi, end)
        if hi > lo:
            self.blob.load(lo, hi - lo)

    def _check_range(self, offset: int, size: int, what: str, header_at: int) -> None:
        if offset < 0 or size < 0 or offset + size > len(self.blob.data):
            raise self.blob.fail(f"{what} ({size} bytes at offset {offset}) runs past the end of "
                                 f"the data ({len(self.blob.data)} bytes)", header_at)

    def data(self, sec: Section) -> bytes:
        if sec.type == SHT_NOBITS:
            return b""
        return self.blob.bytes(sec.offset, sec.size, f"section {sec.name}")

    def symbol_table(self) -> tuple[list[tuple[int, int, int, int]], StringTable | None]:
        """(name offset, info, other, shndx) of every ``.symtab`` entry, and its string table.

        Names are left to the caller: most symbols of a cubin are never looked at.
        """
        sec = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
        if sec is None:
            return [], None
        if not 0 <= sec.link < len(self.sections):
            raise self.blob.fail(f"symbol table links to missing section {sec.link}", sec.offset)
        strsec = self.sections[sec.link]
        strtab = StringTable(self.data(strsec), self.blob.path, self.blob.base + strsec.offset,
                             self.blob.what)
        e = self.end
        fmt, size = (e + "IBBHQQ", 24) if self.is64 else (e + "IIIBBH", 16)
        count = sec.size // size
        table = self.blob.bytes(sec.offset, count * size, "symbol table")  # bounds checked once
        if self.is64:
            rows = [(name, info, other, shndx) for name, info, other, shndx, _v, _s
                    in struct.iter_unpack(fmt, table)]
        else:
            rows = [(name, info, other, shndx) for name, _v, _s, info, other, shndx
                    in struct.iter_unpack(fmt, table)]
        return rows, strtab

    def symbols(self) -> list[str]:
        """The name of every symbol of ``.symtab``, in order."""
        rows, strtab = self.symbol_table()
        if strtab is None:
            return []
        return [strtab.get(name, f"symbol {i} name") if name else "" for i, (name, *_rest) in enumerate(rows)]


def _header_fields(row: tuple) -> tuple:
    """(type, flags, offset, size, link, info, entsize) of an unpacked section header."""
    return row[1], row[2], row[4], row[5], row[6], row[7], row[9]


def parse_nv_info(elf: Elf, sec: Section) -> list[tuple[int, int, bytes | int]]:
    """Entries of an ``.nv.info`` section: (attribute, format, value or payload)."""
    data = elf.data(sec)
    out: list[tuple[int, int, bytes | int]] = []
    append = out.append
    pos = 0
    n = len(data)
    little = elf.end == "<"
    while pos < n:
        if pos + 4 > n:
            raise elf.blob.fail(f"truncated attribute in {sec.name}", sec.offset + pos)
        fmt, attr = data[pos], data[pos + 1]
        value = data[pos + 2] | data[pos + 3] << 8 if little else data[pos + 2] << 8 | data[pos + 3]
        if fmt == EIFMT_SVAL:
            if pos + 4 + value > n:
                raise elf.blob.fail(f"attribute 0x{attr:02x} in {sec.name} claims {value} bytes, "
                                    f"only {n - pos - 4} remain", sec.offset + pos)
            append((attr, fmt, data[pos + 4:pos + 4 + value]))
            pos += 4 + value
        elif fmt == EIFMT_BVAL:
            append((attr, fmt, value & 0xFF))
            pos += 4
        elif fmt == EIFMT_NVAL or fmt == EIFMT_HVAL:
            append((attr, fmt, value))
            pos += 4
        else:
            raise elf.blob.fail(f"unknown attribute format 0x{fmt:02x} in {sec.name}", sec.offset + pos)
    return out


_U32 = {(end, count): struct.Struct(f"{end}{count}I").unpack_from for end in "<>" for count in (2, 3)}


def _u32s(payload: bytes | int, count: int, end: str) -> tuple[int, ...] | None:
    if isinstance(payload, int) or len(payload) < 4 * count:
        return None
    return _U32[end, count](payload, 0)


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
               source_prefix: str | None = None, image: FileImage | None = None) -> list[KernelRecord]:
    """Records for every function of one CUDA ELF image (``image``: the file behind ``data``)."""
    blob = Blob(data, path, base, what, image)
    elf = Elf(blob)
    if elf.machine != EM_CUDA:
        raise blob.fail(f"ELF machine {elf.machine} is not CUDA ({EM_CUDA})", 18)
    arch = cubin_arch(elf)
    prefix = source_prefix if source_prefix is not None else os.path.basename(path)
    symbols, strtab = elf.symbol_table()
    per_function = _module_info(elf)
    regs, frame = per_function[EIATTR_REGCOUNT], per_function[EIATTR_FRAME_SIZE]
    min_stack, max_stack = per_function[EIATTR_MIN_STACK_SIZE], per_function[EIATTR_MAX_STACK_SIZE]
    uses_reserved_base = _uses_reserved_base(elf, symbols, strtab)
    module_banks = _module_banks(elf)
    sections, by_name = elf.sections, elf.by_name

    records: list[KernelRecord] = []
    for index, (name_at, st_info, other, shndx) in enumerate(symbols):
        if st_info & 0xF != 2 or not name_at:  # STT_FUNC
            continue
        entry = bool(other & STO_CUDA_ENTRY)
        if not entry and index not in regs and index not in frame:
            continue
        name = strtab.get(name_at, lambda: f"symbol {index} name")
        if not name:
            continue
        display = name
        if not entry and name.startswith("$") and name.count("$") >= 2:
            display = name.rsplit("$", 1)[1]  # "$kernel$device_function"
        text = sections[shndx] if 0 < shndx < len(sections) else None
        registers = regs.get(index)
        if registers is None and text is not None and entry:
            registers = (text.info >> 24) & 0xFF
        stack = max_stack.get(index, min_stack.get(index, 0))
        kinfo = by_name.get(f".nv.info.{name}") if entry else None
        launch = _kernel_info(elf, kinfo, text)
        if registers is None:
            registers = launch.pop("registers", None)
        else:
            launch.pop("registers", None)
        smem_sec = by_name.get(f".nv.shared.{name}") if entry else None
        section_smem = smem_sec.size if smem_sec is not None else 0
        reserved = RESERVED_SMEM_BASE if uses_reserved_base and section_smem >= RESERVED_SMEM_BASE else 0
        c0 = by_name.get(f".nv.constant0.{name}") if entry else None
        banks = dict(module_banks)
        if c0 is not None:
            banks[0] = c0.size
        where = f".nv.info.{name}" if kinfo is not None else ".nv.info"
        records.append(fast_record({
            "name": display, "arch": arch, "registers": registers or 0, "is_kernel": entry,
            "static_smem": section_smem - reserved, "reserved_smem": reserved,
            "local_bytes": max(stack, frame.get(index, 0)), "spill_stores": None, "spill_loads": None,
            "barriers": launch["barriers"] if entry else None,
            "const_bytes": c0.size if c0 is not None else None, "const_banks": banks,
            "max_threads": launch["max_threads"], "min_blocks": None, "req_threads": launch["req_threads"],
            "cluster_dims": launch["cluster_dims"], "max_registers": launch["max_registers"],
            "source": f"{prefix}:ELF section {where}", **_NO_LAUNCH_FIGURES,
        }))
    return records


_NO_LAUNCH_FIGURES = {key: None for key in _LAUNCH_KEYS}
_MODULE_ATTRS = (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE)


def _module_info(elf: Elf) -> dict[int, dict[int, int]]:
    """Module-wide ``.nv.info``: attribute -> {symbol index: value} for registers and stack."""
    out: dict[int, dict[int, int]] = {attr: {} for attr in _MODULE_ATTRS}
    info = elf.by_name.get(".nv.info")
    if info is None:
        return out
    e = elf.end
    for attr, _fmt, payload in parse_nv_info(elf, info):
        target = out.get(attr)
        if target is not None:
            pair = _u32s(payload, 2, e)
            if pair is not None:
                target[pair[0]] = pair[1]
    return out


def _kernel_info(elf: Elf, kinfo: Section | None, text: Section | None) -> dict[str, object]:
    """Barriers and launch bounds of one kernel: its ``.nv.info.<name>``, else its ``.text`` flags."""
    from_flags = (text.flags >> 20) & 0x7F if text is not None else 0
    out: dict[str, object] = {"barriers": from_flags or 0, "max_threads": None, "req_threads": None,
                              "cluster_dims": None, "max_registers": None}
    if kinfo is None:
        return out
    e = elf.end
    for attr, _fmt, payload in parse_nv_info(elf, kinfo):
        if attr == EIATTR_NUM_BARRIERS and isinstance(payload, int):
            out["barriers"] = payload
        elif attr == EIATTR_MAX_THREADS:
            dims = _u32s(payload, 3, e)
            if dims:
                out["max_threads"] = dims[0] * max(dims[1], 1) * max(dims[2], 1)
        elif attr in (EIATTR_REQNTID, EIATTR_CTA_PER_CLUSTER):
            dims = _u32s(payload, 3, e)
            if dims:
                out["req_threads" if attr == EIATTR_REQNTID else "cluster_dims"] = (dims[0], dims[1], dims[2])
        elif attr == EIATTR_MAXREG_COUNT and isinstance(payload, int):
            out["max_registers"] = payload
        elif attr == EIATTR_REGCOUNT and "registers" not in out:
            pair = _u32s(payload, 2, e)
            if pair:
                out["registers"] = pair[1]
    req = out["req_threads"]
    if req is not None and out["max_threads"] is None:
        out["max_threads"] = req[0] * max(req[1], 1) * max(req[2], 1)
    return out


_RESERVED_PREFIXES = (".nv.reservedSmem", "__nv_reservedSMEM")


def _uses_reserved_base(elf: Elf, symbols: list, strtab: StringTable | None) -> bool:
    """Whether the toolchain put the driver's 1 KiB at the start of each ``.nv.shared`` section."""
    if any(s.name.startswith(".nv.shared.reserved.") for s in elf.sections):
        return True
    if strtab is None or not any(p.encode() in strtab.blob.data for p in _RESERVED_PREFIXES):
        return False  # no such name anywhere in the table: no need to decode every symbol name
    return any(strtab.get(at, "symbol name").startswith(_RESERVED_PREFIXES)
               for at, *_rest in symbols if at)


def _module_banks(elf: Elf) -> dict[int, int]:
    """Constant bank number -> bytes, for the module-wide ``.nv.constant<N>`` sections."""
    banks: dict[int, int] = {}
    for s in elf.sections:
        if s.name.startswith(".nv.constant"):
            m = re.fullmatch(r"\.nv\.constant(\d+)", s.name)
            if m:
                banks[int(m.group(1))] = s.size
    return banks


def import_cubin(path: str | os.PathLike[str], progress=None, cancel=None) -> list[KernelRecord]:
    name, data = read_input(path)
    records = read_cubin(data, name)
    if progress is not None:
        progress(len(data), len(data))
    return records
