"""ELF files read with every offset checked: section headers, section names, symbols.

Nothing here is CUDA-specific; ``cubin`` reads the CUDA figures out of what this gives, and
``fatbin`` walks the sections of host binaries to find the fatbinaries inside them.

A vendor library holds hundreds of cubins of hundreds of sections each, so the section table is
kept as the raw unpacked rows plus a name list; :class:`Section` objects are made only for the
sections a caller asks for.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable

from .blob import MAX_NAME, Blob

ELF_MAGIC = b"\x7fELF"
SHT_SYMTAB = 2
SHT_RELA, SHT_REL = 4, 9
SHT_NOBITS = 8
READ_GAP = 16 << 10
READ_AHEAD_MAX = 16 << 20
"""Sections larger than this are not read ahead (a parsed one is loaded when it is parsed)."""
MAX_PARSED_SECTION = 512 << 20
"""The largest section the reader parses (names, symbols, ``.nv.info``): libcublasLt's largest
image holds ~2 MB of them."""
"""The largest gap between two wanted sections that one read spans rather than two."""

# Fields of an unpacked section header row (32- and 64-bit layouts unpack to the same order).
NAME, TYPE, FLAGS, OFFSET, SIZE, LINK, INFO, ENTSIZE = 0, 1, 2, 4, 5, 6, 7, 9


class Section:
    __slots__ = ("index", "name", "type", "flags", "offset", "size", "link", "info", "entsize")

    def __init__(self, index: int, name: str, row: tuple[int, ...]):
        self.index = index
        self.name = name
        self.type = row[TYPE]
        self.flags = row[FLAGS]
        self.offset = row[OFFSET]
        self.size = row[SIZE]
        self.link = row[LINK]
        self.info = row[INFO]
        self.entsize = row[ENTSIZE]


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

    def get_all(self, offsets: list[int], what: Callable[[int], str]) -> list[str]:
        """The names at ``offsets``; ``what(i)`` names entry ``i`` in an error message.

        An ASCII table that ends in a NUL, with every offset inside it, is one slice per name
        (no call per name); anything else goes through :meth:`get` one by one.
        """
        text = self.text
        if text and text[-1] == "\0" and offsets and min(offsets) >= 0 and max(offsets) < len(text):
            find = text.find
            names = [text[at : find("\0", at)] for at in offsets]
            if max(map(len, names)) < MAX_NAME:
                return names
        return [self.get(at, functools.partial(what, i)) for i, at in enumerate(offsets)]


class Elf:
    """Section headers, names and symbols of an ELF file, every offset checked.

    ``rows[i]`` is section ``i``'s header as unpacked (index it with ``NAME``, ``TYPE``, ...),
    ``names[i]`` its name, ``index`` maps a name to the last section of that name.
    """

    def __init__(
        self,
        blob: Blob,
        read_ahead_except: tuple[str, ...] | None = None,
        nobits: frozenset[int] = frozenset((SHT_NOBITS,)),
    ):
        """``nobits``: section types that occupy no bytes of the file (a processor may add its own:
        CUDA's relocatable shared-memory sections)."""
        self.blob = b = blob
        self.nobits = nobits
        b.load(0, 64)
        if len(b.data) < 16 or bytes(b.data[:4]) != ELF_MAGIC:
            raise b.fail("not an ELF image (bad magic)", 0)
        ei_class, ei_data = b.data[4], b.data[5]
        if ei_class not in (1, 2) or ei_data not in (1, 2):
            raise b.fail(f"unsupported ELF class {ei_class} / data encoding {ei_data}", 4)
        self.is64 = ei_class == 2
        self.end = e = "<" if ei_data == 1 else ">"
        self.osabi = b.data[7]
        self.abiversion = b.data[8]
        if self.is64:
            (
                self.type,
                self.machine,
                _ver,
                _entry,
                _phoff,
                shoff,
                self.flags,
                _ehsize,
                _phentsize,
                _phnum,
                shentsize,
                shnum,
                shstrndx,
            ) = b.unpack(e + "HHIQQQIHHHHHH", 16, "ELF header")
            sh_fmt, sh_min = e + "IIQQQQIIQQ", 64
        else:
            (
                self.type,
                self.machine,
                _ver,
                _entry,
                _phoff,
                shoff,
                self.flags,
                _ehsize,
                _phentsize,
                _phnum,
                shentsize,
                shnum,
                shstrndx,
            ) = b.unpack(e + "HHIIIIIHHHHHH", 16, "ELF header")
            sh_fmt, sh_min = e + "IIIIIIIIII", 40
        if shoff == 0:
            raise b.fail("ELF image has no section header table", 0x28 if self.is64 else 0x20)
        if shentsize < sh_min:
            raise b.fail(f"ELF section header entry size {shentsize} is smaller than {sh_min}", 0x3A)
        if shnum == 0:  # extended numbering: the count is in section 0's sh_size
            shnum = b.unpack(sh_fmt, shoff, "section header 0")[SIZE]
        if shstrndx == 0xFFFF:
            shstrndx = b.unpack(sh_fmt, shoff, "section header 0")[LINK]
        if shoff + shnum * shentsize > len(b.data) or shoff + shnum * shentsize < shoff:
            raise b.fail(
                f"section header table ({shnum} entries of {shentsize} bytes) runs past "
                f"the end of the data ({len(b.data)} bytes)",
                shoff,
            )
        self._shoff: int = shoff
        self._shentsize: int = shentsize
        # The whole table in one read: a cubin of a vendor library has hundreds of sections.
        table = b.bytes(shoff, shnum * shentsize, "section header table")
        if shentsize == sh_min:
            rows = list(struct.iter_unpack(sh_fmt, table))
        else:
            unpack = struct.Struct(sh_fmt).unpack_from
            rows = [unpack(table, i * shentsize) for i in range(shnum)]
        if not 0 <= shstrndx < shnum:
            raise b.fail(f"section name table index {shstrndx} is out of range (0..{shnum - 1})", 0x3E)
        str_row = rows[shstrndx]
        self._check_range(str_row[OFFSET], str_row[SIZE], "section name table", self._header_at(shstrndx))
        if str_row[SIZE] > MAX_PARSED_SECTION:
            raise b.fail(
                f"section name table claims {str_row[SIZE]} bytes (the reader's limit is {MAX_PARSED_SECTION})",
                self._header_at(shstrndx),
            )
        names = StringTable(
            b.bytes(str_row[OFFSET], str_row[SIZE], "section name table"), b.path, b.base + str_row[OFFSET], b.what
        )
        self.section_names = names
        self.rows: list[tuple[int, ...]] = rows
        self.names: list[str] = (
            [""] + names.get_all([row[NAME] for row in rows[1:]], lambda i: f"section {i + 1} name") if rows else []
        )
        self._check_bounds()
        self.index: dict[str, int] = dict(zip(self.names, range(len(rows))))
        self._sections: list[Section] | None = None
        if b.image is not None and read_ahead_except is not None:
            self._read_ahead(read_ahead_except)

    def _header_at(self, i: int) -> int:
        return self._shoff + i * self._shentsize

    def _check_bounds(self) -> None:
        """Every section with contents lies inside the data (one pass; the first bad one named)."""
        limit = len(self.blob.data)
        nobits = self.nobits
        if (
            max((row[OFFSET] + row[SIZE] for row in self.rows[1:] if row[TYPE] not in nobits and row[SIZE]), default=0)
            <= limit
        ):
            return
        for i in range(1, len(self.rows)):
            row = self.rows[i]
            if row[TYPE] not in nobits and row[SIZE]:
                self._check_range(row[OFFSET], row[SIZE], f"section {self.names[i] or i}", self._header_at(i))

    def _read_ahead(self, skipped: tuple[str, ...]) -> None:
        """Read, in a few large reads, every section whose name does not start with ``skipped``."""
        wanted = sorted(
            (row[OFFSET], row[OFFSET] + row[SIZE])
            for row, name in zip(self.rows[1:], self.names[1:])
            if row[TYPE] not in self.nobits and 0 < row[SIZE] <= READ_AHEAD_MAX and not name.startswith(skipped)
        )
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
            raise self.blob.fail(
                f"{what} ({size} bytes at offset {offset}) runs past the end of the data ({len(self.blob.data)} bytes)",
                header_at,
            )

    @property
    def sections(self) -> list[Section]:
        """Every section as a :class:`Section` (made on first use)."""
        if self._sections is None:
            self._sections = [Section(i, name, row) for i, (name, row) in enumerate(zip(self.names, self.rows))]
        return self._sections

    def find(self, name: str) -> Section | None:
        """The (last) section called ``name``."""
        i = self.index.get(name)
        return None if i is None else Section(i, name, self.rows[i])

    def data(self, sec: Section) -> bytes:
        if sec.type in self.nobits:
            return b""
        self._check_parsed_size(sec.size, sec.name, sec.index)
        return self.blob.bytes(sec.offset, sec.size, f"section {sec.name}")

    def _check_parsed_size(self, size: int, name: str, i: int) -> None:
        """A section this reader parses (names, symbols, ``.nv.info``) is at most
        :data:`MAX_PARSED_SECTION`: memory follows what a real image needs, not what a header claims."""
        if size > MAX_PARSED_SECTION:
            raise self.blob.fail(
                f"section {name or i} claims {size} bytes; no CUDA image's tables come near "
                f"that (the reader's limit is {MAX_PARSED_SECTION})",
                self._header_at(i),
            )

    def section_bytes(self, i: int) -> bytes:
        """The contents of section ``i`` (empty for ``SHT_NOBITS`` and the other ``nobits``)."""
        row = self.rows[i]
        if row[TYPE] in self.nobits:
            return b""
        self._check_parsed_size(row[SIZE], self.names[i], i)
        return self.blob.bytes(row[OFFSET], row[SIZE], f"section {self.names[i]}")

    def symbol_table(self) -> tuple[list[tuple[int, int, int, int, int, int]], StringTable | None]:
        """(name offset, info, other, shndx, value, size) of every ``.symtab`` entry, and its
        string table.  Names are left to the caller: most symbols of a cubin are never looked at.
        """
        at = next((i for i, row in enumerate(self.rows) if row[TYPE] == SHT_SYMTAB), None)
        if at is None:
            return [], None
        row = self.rows[at]
        link = row[LINK]
        if not 0 <= link < len(self.rows):
            raise self.blob.fail(f"symbol table links to missing section {link}", row[OFFSET])
        strtab = StringTable(
            self.section_bytes(link), self.blob.path, self.blob.base + self.rows[link][OFFSET], self.blob.what
        )
        e = self.end
        fmt, size = (e + "IBBHQQ", 24) if self.is64 else (e + "IIIBBH", 16)
        count = row[SIZE] // size
        self._check_parsed_size(row[SIZE], self.names[at], at)
        table = self.blob.bytes(row[OFFSET], count * size, "symbol table")  # bounds checked once
        if self.is64:  # already in that order
            return list(struct.iter_unpack(fmt, table)), strtab
        return [
            (name, info, other, shndx, value, size)
            for name, value, size, info, other, shndx in struct.iter_unpack(fmt, table)
        ], strtab

    def relocation_sections(self, skip: tuple[str, ...] = ()) -> dict[int, list[int]]:
        """Section number -> the ``.rel``/``.rela`` sections that apply to it (a section may have
        one of each), leaving out those whose names start with ``skip``."""
        out: dict[int, list[int]] = {}
        for i, (row, name) in enumerate(zip(self.rows, self.names)):
            if row[TYPE] in (SHT_RELA, SHT_REL) and not (skip and name.startswith(skip)):
                out.setdefault(row[INFO], []).append(i)
        return out

    def relocation_symbols(self, rel: int) -> set[int]:
        """Symbol indices relocation section ``rel`` refers to (``r_info``: the symbol in the top
        32 bits of ELF64's, the top 24 of ELF32's)."""
        rela = self.rows[rel][TYPE] == SHT_RELA
        data = self.section_bytes(rel)
        if self.is64:
            step, fmt, shift = (24 if rela else 16), self.end + "8xQ", 32
        else:
            step, fmt, shift = (12 if rela else 8), self.end + "4xI", 8
        unpack = struct.Struct(fmt).unpack_from
        return {unpack(data, at)[0] >> shift for at in range(0, len(data) - step + 1, step)}
