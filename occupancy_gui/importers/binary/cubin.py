"""CUDA ELF images (``.cubin``) read directly, without the CUDA toolkit.

Where the figures live (checked against ``cuobjdump`` and ``ptxas -v`` of CUDA 13.x; older layouts
are read as fallbacks):

* registers: ``EIATTR_REGCOUNT`` in ``.nv.info`` (symbol index, count); fallback the top byte of the
  kernel's ``.text`` section ``sh_info``;
* stack: ``EIATTR_MIN_STACK_SIZE`` (0xffffffff: unbounded) of a linked image, ``EIATTR_FRAME_SIZE`` of a relocatable one;
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
from typing import Any

from ..base import CancelFn, ImportFailure, ProgressFn
from ..files import open_regular
from ..record_list import Records
from ..records import LAUNCH_KEYS, RESERVED_SMEM_BASE, arch_number
from .blob import Blob, FileImage
from .elf import ELF_MAGIC, FLAGS, INFO, MAX_PARSED_SECTION, OFFSET, SHT_NOBITS, SIZE, TYPE, Elf

EM_CUDA = 190

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
STT_FUNC, STT_SECTION = 2, 3
ET_REL = 1  # a relocatable image (``-rdc`` before nvlink); ET_EXEC = 2 is linked
EF_CUDA_ARCH_SPECIFIC_V7 = 0x800
EF_CUDA_ARCH_SPECIFIC_V8 = 0x08
STACK_UNBOUNDED = 0xFFFFFFFF
"""``EIATTR_MIN_STACK_SIZE`` of a function whose stack has no static bound: cuobjdump's ``STACK:UNKNOWN``."""
SHT_CUDA_SHARED = 0x7000000A  # shared-memory sections of relocatable images (NOBITS once linked)
STT_CUDA_SHARED = 13  # a __shared__ variable's symbol in a relocatable image
_NOBITS = frozenset((SHT_NOBITS, SHT_CUDA_SHARED))  # occupy no bytes of the image
_ARCH_IN_NOTE = re.compile(rb"-arch[ =]+((?:sm|compute)_[0-9]+[a-z]?)")


# Sections whose contents the importer never reads (only their sizes).
_NOT_PARSED = (
    ".text",
    ".nv.constant",
    ".nv.global",
    ".rel",
    ".debug",
    ".nv_debug",
    ".nv.rel",
    ".nv.merc",
    ".nv.capmerc",
)  # the last two: sm_100+ "Mercury" copies of code and data


def nv_info_entries(
    data: bytes,
    little: bool,
    wanted: frozenset[int] | None,
    blob: Blob,
    name: str,
    offset: int,
    skip_runs: bool = False,
) -> list[tuple[int, int, bytes | int]]:
    """Entries of an ``.nv.info`` section: (attribute, format, value or payload).

    Every entry is walked and checked; only those whose attribute is in ``wanted`` (all, for
    ``None``) are returned.  ``skip_runs``: step over runs of unwanted entries with one regex
    match (see :func:`_skipper`), for sections where few are wanted: a kernel's holds ~20 entries,
    mostly parameter descriptions.  ``offset`` is the section's place in ``blob``, for messages.
    """
    out: list[tuple[int, int, bytes | int]] = []
    append = out.append
    pos = 0
    n = len(data)
    skip = _skipper(wanted) if skip_runs and little and wanted is not None else None
    while pos < n:
        if skip is not None:
            pos = skip(data, pos).end()  # type: ignore[union-attr]  # (it matches the empty string)
            if pos >= n:
                break
        if pos + 4 > n:
            raise blob.fail(f"truncated attribute in {name}", offset + pos)
        fmt, attr = data[pos], data[pos + 1]
        value = data[pos + 2] | data[pos + 3] << 8 if little else data[pos + 2] << 8 | data[pos + 3]
        if fmt == EIFMT_SVAL:
            if pos + 4 + value > n:
                raise blob.fail(
                    f"attribute 0x{attr:02x} in {name} claims {value} bytes, only {n - pos - 4} remain", offset + pos
                )
            if wanted is None or attr in wanted:
                append((attr, fmt, data[pos + 4 : pos + 4 + value]))
            pos += 4 + value
        elif fmt in (EIFMT_NVAL, EIFMT_HVAL, EIFMT_BVAL):
            if wanted is None or attr in wanted:
                append((attr, fmt, value & 0xFF if fmt == EIFMT_BVAL else value))
            pos += 4
        else:
            raise blob.fail(f"unknown attribute format 0x{fmt:02x} in {name}", offset + pos)
    return out


_SKIPPERS: dict[frozenset[int], Callable[..., re.Match[bytes] | None]] = {}


def _skipper(wanted: frozenset[int]) -> Callable[..., re.Match[bytes] | None]:
    """A regex ``match`` that steps over a run of well-formed little-endian entries that are not
    ``wanted``: fixed-size values, and payloads of 0-252 bytes, a multiple of 4.

    It stops before anything else (a wanted entry, another size, a truncated or unknown entry),
    which the walker then reads and checks one by one; the run in between costs one C call.
    """
    skip = _SKIPPERS.get(wanted)
    if skip is None:
        other = b"[^" + b"".join(re.escape(bytes([attr])) for attr in sorted(wanted)) + b"]"
        sizes = b"|".join(re.escape(bytes([size, 0])) + b".{%d}" % size for size in _SKIPPED_SIZES)
        skip = re.compile(b"(?:[\x01-\x03]" + other + b"..|\x04" + other + b"(?:" + sizes + b"))*", re.DOTALL).match
        _SKIPPERS[wanted] = skip
    return skip


# Payload sizes the skipper steps over, the commonest first (the regex tries them in turn).  Beyond
# 0-16 bytes, kernels hold exit-offset lists and the like of every multiple of 4 (libcusparse: 0.19 ->
# 0.15 s for its 40,548 kernel sections); a larger payload is stepped over by the walk.
_SKIPPED_SIZES = (12, 4, 8, 0, 16, *range(20, 256, 4))


_U32 = {(end, count): struct.Struct(f"{end}{count}I").unpack_from for end in "<>" for count in (2, 3)}


def _u32s(payload: bytes | int, count: int, end: str) -> tuple[int, ...] | None:
    if isinstance(payload, int) or len(payload) < 4 * count:
        return None
    return _U32[end, count](payload, 0)


def cubin_arch(elf: Elf) -> str:
    """The image's target, ``a``/``f`` suffix kept, as cuobjdump names it.

    ``.note.nv.tkinfo`` names it where ptxas wrote it (``-arch sm_100f``; CUDA 12.8+).  Without it (the
    note of an image from NVIDIA's own assembler carries no ``-arch``: flashinfer-cubin's trtllm-gen
    kernels), the header, measured on ptxas 11.8, 12.4, 12.8, 12.9, 13.0 and 13.5 against ``cuobjdump
    -elf``:

    * ABI 7 (CUDA 11.x-12.x up to sm_90a): the SM number is the low byte of ``e_flags``, bit ``0x800``
      marks an arch-specific target (0x5a0d5a is sm_90a, 0x5a055a sm_90);
    * ABI 8 (sm_100+ from CUDA 12.8, every target from 13.0): the number is bits 8-15; ptxas 12.8-12.9
      and NVIDIA's assembler set bit ``0x08`` for an arch-specific target (0x600640a sm_100a), ptxas 13.x
      leaves the flags alike and says it in ``.nv.compat`` (``EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET``).

    A family target (``f``) is in no flag of either ABI (sm_100f's flags are sm_100's, and cuobjdump
    then prints sm_100): only the note says it."""
    note = elf.find(".note.nv.tkinfo")
    if note is not None and note.type != SHT_NOBITS:
        m = _ARCH_IN_NOTE.search(elf.data(note))
        if m:
            return m.group(1).decode().replace("compute_", "sm_")
    suffix = ""
    if elf.osabi == 0x41 or elf.abiversion >= 8:
        number = (elf.flags >> 8) & 0xFF
        if elf.flags & EF_CUDA_ARCH_SPECIFIC_V8 or _accelerator_target(elf):
            suffix = "a"
    else:
        number = elf.flags & 0xFF
        if elf.flags & EF_CUDA_ARCH_SPECIFIC_V7:
            suffix = "a"
    return f"sm_{number}{suffix}" if number else "unknown"


def _accelerator_target(elf: Elf) -> bool:
    """Whether ``.nv.compat`` marks an arch-specific target (ABI 8 images of ptxas 13.x)."""
    compat = elf.find(".nv.compat")
    if compat is None or compat.type == SHT_NOBITS:
        return False
    entries = nv_info_entries(elf.data(compat), elf.end == "<", _COMPAT_WANTED, elf.blob, compat.name, compat.offset)
    return any(value == 1 for _attr, _fmt, value in entries)


_COMPAT_WANTED = frozenset((0x09,))  # EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET


def is_cuda_elf(head: bytes) -> bool:
    if len(head) < 20 or head[:4] != ELF_MAGIC:
        return False
    end = "<" if head[5] == 1 else ">"
    (machine,) = struct.unpack_from(end + "H", head, 18)
    return bool(machine == EM_CUDA)


def read_cubin(
    data: bytes | memoryview,
    path: str,
    base: int = 0,
    what: str = "",
    source_prefix: str | None = None,
    image: FileImage | None = None,
    embedded: bool = False,
) -> Records:
    """Records for every function of one CUDA ELF image (``image``: the file behind ``data``).

    ``embedded``: the image sits in a fatbin outside the sections the CUDA runtime registers
    (a library loads it itself at run time); its records say so.  Every record is built here (a
    library's copies are told apart by their figures), so a damaged section fails the import.
    """
    blob = Blob(data, path, base, what, image)
    elf = Elf(blob, read_ahead_except=_NOT_PARSED, nobits=_NOBITS)
    if elf.machine != EM_CUDA:
        raise blob.fail(f"ELF machine {elf.machine} is not CUDA ({EM_CUDA})", 18)
    module = _Module(elf, source_prefix if source_prefix is not None else os.path.basename(path), embedded)
    symbols, strtab = module.symbols, module.strtab
    owners = module.text_owners
    # cuobjdump lists the functions that own a .text section (every kernel does): not the local copies
    # ptxas makes inside a kernel's code ("$kernel$__cuda_sm20_rem_u64", "$__internal_0_$..."), which
    # carry .nv.info figures but no section of their own.
    functions = [
        (index, name_at, bool(other & STO_CUDA_ENTRY), shndx)
        for index, (name_at, st_info, other, shndx, _value, _size) in enumerate(symbols)
        if st_info & 0xF == 2  # STT_FUNC
        and name_at
        and (other & STO_CUDA_ENTRY or index in owners)
    ]
    names: list[str] = []
    if functions:
        assert strtab is not None  # functions imply a symtab
        names = strtab.get_all([f[1] for f in functions], lambda i: f"symbol {functions[i][0]} name")
    states: list[dict[str, Any]] = []
    append = states.append
    for (index, _at, entry, shndx), name in zip(functions, names):
        if not name:
            continue
        display = name
        if not entry and name.startswith("$") and name.count("$") >= 2:
            display = name.rsplit("$", 1)[1]  # "$kernel$device_function"
        append(_function_fields(module, index, name, display, entry, shndx))
    return Records(states)


_NO_LAUNCH_FIGURES = {key: None for key in LAUNCH_KEYS}
_MODULE_ATTRS = (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE)
_KERNEL_ATTRS = frozenset(
    (
        EIATTR_NUM_BARRIERS,
        EIATTR_MAX_THREADS,
        EIATTR_REQNTID,
        EIATTR_CTA_PER_CLUSTER,
        EIATTR_MAXREG_COUNT,
        EIATTR_REGCOUNT,
    )
)


class _Module:
    """What the functions of one cubin share: its arch, symbols, module-wide ``.nv.info`` figures,
    constant banks and shared-memory layout (the last two worked out on first use)."""

    def __init__(self, elf: Elf, prefix: str, embedded: bool = False):
        self.elf = elf
        self.prefix = prefix
        self.embedded = embedded
        self.relocatable = elf.type == ET_REL
        self.arch = cubin_arch(elf)
        number = arch_number(self.arch)
        # Linked sm_90+ images start every non-empty .nv.shared.<kernel> with the driver's 1 KiB
        # (every toolkit 11.8-13.5, with or without .nv.shared.reserved.* markers); relocatable ones
        # do not (nvlink adds it).  ptxas -v counts it nowhere.
        self.reserved_base = not self.relocatable and number is not None and number >= 90
        self.symbols, self.strtab = elf.symbol_table()
        per_function = _module_info(elf)
        self.regs, self.frame = per_function[EIATTR_REGCOUNT], per_function[EIATTR_FRAME_SIZE]
        self.min_stack, self.max_stack = per_function[EIATTR_MIN_STACK_SIZE], per_function[EIATTR_MAX_STACK_SIZE]
        self._banks: dict[int, int] | None = None
        # A function with a .text section of its own is named by the section's sh_info (low 24
        # bits; the top 8 hold its registers): cuobjdump lists each such function.
        self.text_owners = frozenset(
            row[INFO] & 0xFFFFFF for row, name in zip(elf.rows, elf.names) if name.startswith(".text.")
        )
        # The fields every record of this image shares; a kernel's own figures replace the Nones.
        self.template: dict[str, object] = {
            "name": "",
            "arch": self.arch,
            "registers": 0,
            "is_kernel": False,
            "static_smem": 0,
            "reserved_smem": 0,
            "stack_bytes": 0,
            "spill_stores": None,
            "spill_loads": None,
            "barriers": None,
            "const_bytes": None,
            "const_banks": None,
            "max_threads": None,
            "min_blocks": None,
            "req_threads": None,
            "cluster_dims": None,
            "max_registers": None,
            "relocatable": self.relocatable,
            "embedded": embedded,
            "copies": 1,
            "source": "",
            **_NO_LAUNCH_FIGURES,
            "launch_source": None,
        }
        self._relocations: dict[int, list[int]] | None = None  # section -> its .rel/.rela sections
        self._shared_sections: frozenset[int] = frozenset()

    def stack(self, index: int) -> int | None:
        """A function's stack as cuobjdump prints it (``None``: ``STACK:UNKNOWN``).

        A linked image states it as ``EIATTR_MIN_STACK_SIZE`` (the function's frame and the deepest
        chain of calls below it), 0xffffffff where no bound exists (recursion, indirect calls whose
        targets ptxas cannot see); ``EIATTR_MAX_STACK_SIZE`` is not a bound (CUDA 11.8 writes 0 beside
        a minimum of 8-24 B) and is not read.  A function with no minimum (device functions of sm_90+
        images) has none listed: 0.  A relocatable image's stack is decided by nvlink: its record keeps
        the function's own frame, as ``ptxas -v`` prints it (cuobjdump prints 0 for every function)."""
        if self.relocatable:
            return self.frame.get(index, 0)
        low = self.min_stack.get(index)
        if low is None:
            return 0
        return None if low == STACK_UNBOUNDED else low

    @property
    def banks(self) -> dict[int, int]:
        if self._banks is None:
            self._banks = _module_banks(self.elf)
        return self._banks

    def unit_shared_bytes(self, text_section: int, own_section: int | None) -> int:
        """Bytes of the ``__shared__`` variables a relocatable image keeps outside the kernel's own
        ``.nv.shared.<kernel>`` (file-scope variables, in a common shared section) that the kernel
        or a device function of this image it calls refers to, each placed at its alignment.

        Variables of other translation units are known only after nvlink: the record of a
        relocatable image is the translation unit's share.
        """
        elf = self.elf
        rows, symbols = elf.rows, self.symbols
        if self._relocations is None:  # .nv.merc*: the sm_100+ Mercury copies, not the code's own
            self._relocations = elf.relocation_sections(skip=(".nv.merc",))
            self._shared_sections = frozenset(i for i, row in enumerate(rows) if row[TYPE] == SHT_CUDA_SHARED)
        shared_sections = self._shared_sections
        seen_text, variables = {text_section}, {}
        todo = [text_section]
        while todo:
            rels = self._relocations.get(todo.pop(), ())
            for index in {i for rel in rels for i in elf.relocation_symbols(rel)}:
                if not 0 <= index < len(symbols):
                    continue
                _name, info, _other, shndx, value, size = symbols[index]
                kind = info & 0xF
                if kind == STT_FUNC and 0 < shndx < len(rows) and shndx not in seen_text:
                    seen_text.add(shndx)
                    todo.append(shndx)
                elif kind != STT_SECTION and shndx in shared_sections and shndx != own_section:
                    variables[index] = (value, size)
        total = 0
        for index in sorted(variables):
            align, size = variables[index]
            align = align if 0 < align <= 4096 and align & (align - 1) == 0 else 1
            total = -(-total // align) * align + size
        return total


def _function_fields(
    module: _Module, index: int, name: str, display: str, entry: bool, shndx: int
) -> dict[str, object]:
    """Every field of one function's record (``name``: its symbol, ``display``: the record's name).

    The fields that are the module's (arch, the launch figures no image holds, ...) come from one
    template dict copied per function: libcublas builds 31,356 of these.
    """
    elf = module.elf
    rows = elf.rows
    text = rows[shndx] if 0 < shndx < len(rows) else None
    fields = module.template.copy()
    fields["name"] = display
    fields["is_kernel"] = entry
    fields["stack_bytes"] = module.stack(index)
    banks = module.banks.copy()
    fields["const_banks"] = banks
    if not entry:
        # As cuobjdump prints it: the top byte of its .text section's sh_info, which sm_90+ images
        # leave 0 (their EIATTR_REGCOUNT is not read; see docs/intake.md, "Kernels and device functions").
        fields["registers"] = (text[INFO] >> 24) & 0xFF if text is not None else 0
        fields["source"] = f"{module.prefix}: ELF section .nv.info (symbol {name})"
        return fields
    registers = module.regs.get(index)
    if registers is None and text is not None:
        registers = (text[INFO] >> 24) & 0xFF
    find = elf.index.get
    kinfo = find(".nv.info." + name)
    barriers, max_threads, req_threads, cluster_dims, max_registers, info_registers = _kernel_info(elf, kinfo, text)
    if registers is None:
        registers = info_registers
    section_smem = reserved = 0
    at = find(".nv.shared." + name)
    if at is not None:
        section_smem = rows[at][SIZE]
        if section_smem >= RESERVED_SMEM_BASE and module.reserved_base:
            reserved = RESERVED_SMEM_BASE
    if module.relocatable and text is not None:
        section_smem += module.unit_shared_bytes(shndx, at)
    at = find(".nv.constant0." + name)
    if at is not None:
        fields["const_bytes"] = banks[0] = rows[at][SIZE]
    fields["registers"] = registers or 0
    fields["static_smem"] = section_smem - reserved
    fields["reserved_smem"] = reserved
    fields["barriers"] = barriers
    fields["max_threads"] = max_threads
    fields["req_threads"] = req_threads
    fields["cluster_dims"] = cluster_dims
    fields["max_registers"] = max_registers
    fields["source"] = module.prefix + ": ELF section .nv.info" + ("." + name if kinfo is not None else "")
    return fields


def _module_info(elf: Elf) -> dict[int, dict[int, int]]:
    """Module-wide ``.nv.info``: attribute -> {symbol index: value} for registers and stack."""
    out: dict[int, dict[int, int]] = {attr: {} for attr in _MODULE_ATTRS}
    info = elf.find(".nv.info")
    if info is None:
        return out
    e = elf.end
    data = elf.data(info)
    if len(data) % 12 == 0:
        # The usual layout: nothing but (symbol, value) pairs, 12 bytes an entry; one unpack.
        rows = list(struct.iter_unpack(e + "BBHII", data))
        if all(fmt == EIFMT_SVAL and size == 8 for fmt, _attr, size, _sym, _value in rows):
            for _fmt, attr, _size, symbol, value in rows:
                target = out.get(attr)
                if target is not None:
                    target[symbol] = value
            return out
    for attr, _fmt, payload in nv_info_entries(data, e == "<", _MODULE_WANTED, elf.blob, info.name, info.offset):
        pair = _u32s(payload, 2, e)
        if pair is not None:
            out[attr][pair[0]] = pair[1]
    return out


_MODULE_WANTED = frozenset(_MODULE_ATTRS)


def _kernel_info(elf: Elf, kinfo: int | None, text: tuple[int, ...] | None) -> tuple[Any, ...]:
    """(barriers, max threads, required block, cluster dims, register cap, registers) of one
    kernel: its ``.nv.info.<name>`` (section number ``kinfo``), else the flags of its ``.text``
    section (header row ``text``)."""
    barriers = (text[FLAGS] >> 20) & 0x7F if text is not None else 0
    if kinfo is None:
        return barriers, None, None, None, None, None
    row = elf.rows[kinfo]
    if (
        elf.end == "<"
        and row[TYPE] not in elf.nobits
        and row[SIZE] <= MAX_PARSED_SECTION
        and row[OFFSET] + row[SIZE] <= len(elf.blob.data)
    ):  # else the general walk says it runs past the end
        found = _walk_kernel_info(elf.blob, row[OFFSET], row[OFFSET] + row[SIZE], barriers)
        if found is not None:
            return found
    return _kernel_info_entries(elf, kinfo, barriers)  # big-endian, or damaged: says what is wrong


def _walk_kernel_info(blob: Blob, lo: int, hi: int, barriers: int) -> tuple[Any, ...] | None:
    """:func:`_kernel_info` of a little-endian section at ``blob.data[lo:hi]``, walked in place (no copy,
    no entry list: libcusparse's 40,400 kernels, 6.4 -> 3.6 us each); ``None`` at anything but a
    well-formed entry, which :func:`_kernel_info_entries` then reports.  The same entries are taken
    as there (the tests compare the two)."""
    max_threads = req_threads = cluster_dims = max_registers = registers = None
    blob.load(lo, hi - lo)  # (read ahead already, unless left for later)
    data = blob.data
    skip = _skipper(_KERNEL_ATTRS)
    pos = lo
    while True:
        pos = skip(data, pos, hi).end()  # type: ignore[union-attr]  # (it matches the empty string)
        if pos >= hi:
            break
        if pos + 4 > hi:
            return None
        fmt, attr = data[pos], data[pos + 1]
        value = data[pos + 2] | data[pos + 3] << 8
        if fmt == EIFMT_SVAL:
            if pos + 4 + value > hi:
                return None
            if attr == EIATTR_MAX_THREADS and value >= 12:
                x, y, z = _U32["<", 3](data, pos + 4)
                max_threads = x * max(y, 1) * max(z, 1)
            elif attr == EIATTR_REQNTID and value >= 12:
                req_threads = _U32["<", 3](data, pos + 4)
            elif attr == EIATTR_CTA_PER_CLUSTER and value >= 12:
                cluster_dims = _U32["<", 3](data, pos + 4)
            elif attr == EIATTR_REGCOUNT and value >= 8 and registers is None:
                registers = _U32["<", 2](data, pos + 4)[1]
            pos += 4 + value
        elif fmt in (EIFMT_NVAL, EIFMT_HVAL, EIFMT_BVAL):
            if attr == EIATTR_NUM_BARRIERS:
                barriers = value & 0xFF if fmt == EIFMT_BVAL else value
            elif attr == EIATTR_MAXREG_COUNT:
                max_registers = value & 0xFF if fmt == EIFMT_BVAL else value
            pos += 4
        else:
            return None
    if req_threads is not None and max_threads is None:
        max_threads = req_threads[0] * max(req_threads[1], 1) * max(req_threads[2], 1)
    return barriers, max_threads, req_threads, cluster_dims, max_registers, registers


def _kernel_info_entries(elf: Elf, kinfo: int, barriers: int) -> tuple[Any, ...]:
    """:func:`_kernel_info` by the general walk (:func:`nv_info_entries`), which raises at a damaged entry."""
    row = elf.rows[kinfo]
    entries = nv_info_entries(
        elf.section_bytes(kinfo), elf.end == "<", _KERNEL_ATTRS, elf.blob, elf.names[kinfo], row[OFFSET], skip_runs=True
    )
    return kernel_figures(entries, barriers, elf.end)


def kernel_figures(entries: list[tuple[int, int, bytes | int]], barriers: int, e: str) -> tuple[Any, ...]:
    """:func:`_kernel_info` from a kernel section's wanted entries (``barriers``: the fallback)."""
    max_threads = req_threads = cluster_dims = max_registers = registers = None
    for attr, _fmt, payload in entries:
        if attr == EIATTR_NUM_BARRIERS:
            if isinstance(payload, int):
                barriers = payload
        elif attr == EIATTR_MAX_THREADS:
            dims = _u32s(payload, 3, e)
            if dims:
                max_threads = dims[0] * max(dims[1], 1) * max(dims[2], 1)
        elif attr == EIATTR_REQNTID:
            dims = _u32s(payload, 3, e)
            if dims:
                req_threads = (dims[0], dims[1], dims[2])
        elif attr == EIATTR_CTA_PER_CLUSTER:
            dims = _u32s(payload, 3, e)
            if dims:
                cluster_dims = (dims[0], dims[1], dims[2])
        elif attr == EIATTR_MAXREG_COUNT:
            if isinstance(payload, int):
                max_registers = payload
        elif attr == EIATTR_REGCOUNT and registers is None:
            pair = _u32s(payload, 2, e)
            if pair:
                registers = pair[1]
    if req_threads is not None and max_threads is None:
        max_threads = req_threads[0] * max(req_threads[1], 1) * max(req_threads[2], 1)
    return barriers, max_threads, req_threads, cluster_dims, max_registers, registers


_BANK_NAME = re.compile(r"\.nv\.constant\d+(?=\0)")


def _module_banks(elf: Elf) -> dict[int, int]:
    """Constant bank number -> bytes, for the module-wide ``.nv.constant<N>`` sections."""
    banks: dict[int, int] = {}
    text = elf.section_names.text
    found: list[int] | range
    if text is not None:  # the candidates, found in the name table at C speed
        found = sorted(i for i in map(elf.index.get, set(_BANK_NAME.findall(text))) if i is not None)
    else:
        found = range(len(elf.names))
    for i in found:
        name = elf.names[i]
        if name.startswith(".nv.constant"):
            number = name[12:]
            if number.isascii() and number.isdigit():  # not ".nv.constant0.<kernel>"
                banks[int(number)] = elf.rows[i][SIZE]
    return banks


def import_cubin(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    """A ``.cubin`` file, read only where it is parsed (a 6 GB sparse file costs what its tables do)."""
    name = os.fspath(path)
    try:
        with open_regular(name) as stream:
            size = os.fstat(stream.fileno()).st_size
            image = FileImage(stream, size, name)
            records = read_cubin(image.view, name, image=image)
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
    if progress is not None:
        progress(size, size)
    return records
