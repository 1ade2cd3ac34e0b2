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

from .binary_data import Blob, FileImage
from .elf import ELF_MAGIC, SHT_NOBITS, Elf, Section, StringTable
from .records import _LAUNCH_KEYS, RESERVED_SMEM_BASE, KernelRecord, fast_record, read_input

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
_ARCH_IN_NOTE = re.compile(rb"-arch[ =]+((?:sm|compute)_[0-9]+[a-z]?)")


# Sections whose contents the importer never reads (only their sizes).
_NOT_PARSED = (".text", ".nv.constant", ".nv.global", ".rel", ".debug", ".nv_debug", ".nv.rel", ".nv.merc",
               ".nv.capmerc")  # the last two: sm_100+ "Mercury" copies of code and data


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
    elf = Elf(blob, read_ahead_except=_NOT_PARSED)
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
