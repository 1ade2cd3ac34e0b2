"""ELF files read with every offset checked: section headers, section names, symbols.

Nothing here is CUDA-specific; ``elf_cubin`` reads the CUDA figures out of what this gives, and
``fatbin`` walks the sections of host binaries to find the fatbinaries inside them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from .binary_data import MAX_NAME, Blob

ELF_MAGIC = b"\x7fELF"
SHT_SYMTAB = 2
SHT_NOBITS = 8
READ_GAP = 16 << 10
"""The largest gap between two wanted sections that one read spans rather than two."""


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

    def __init__(self, blob: Blob, read_ahead_except: tuple[str, ...] | None = None):
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
        if b.image is not None and read_ahead_except is not None:
            self._read_ahead(read_ahead_except)

    def _read_ahead(self, skipped: tuple[str, ...]) -> None:
        """Read, in a few large reads, every section whose name does not start with ``skipped``."""
        wanted = sorted((s.offset, s.offset + s.size) for s in self.sections[1:]
                        if s.type != SHT_NOBITS and s.size and not s.name.startswith(skipped))
        lo = hi = -1
        for start, end in wanted:
            if start > hi + READ_GAP:
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


def _header_fields(row: tuple) -> tuple:
    """(type, flags, offset, size, link, info, entsize) of an unpacked section header."""
    return row[1], row[2], row[4], row[5], row[6], row[7], row[9]
