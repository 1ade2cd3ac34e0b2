"""``cuobjdump --dump-resource-usage`` output.

::

    Fatbin elf code:
    ================
    arch = sm_80
    ...
    Resource usage:
     Common:
      GLOBAL:0 CONSTANT[3]:256
     Function _Z6kernelPf:
      REG:10 STACK:0 SHARED:2048 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0

A plain ``.cubin`` dump has no ``Fatbin`` header; its architecture is then unknown unless the caller
passes one.  ``SHARED`` is the ``.nv.shared`` section size, which on sm_90+ includes the 1 KiB the
toolchain reserves; it is split off into ``reserved_smem`` so that ``static_smem`` means what
``ptxas -v`` reports.

PowerShell 5 saves redirected output as UTF-16LE with a BOM; UTF-16 either way round, with or
without a BOM, and UTF-8 with or without one are all read (undecodable bytes become U+FFFD).
"""

from __future__ import annotations

import os
import re

from ..base import CancelFn, ImportFailure, ProgressFn
from ..files import read_input
from ..record_list import Records
from ..records import RESERVED_SMEM_BASE, arch_number, new_state, split_reserved_smem
from .line_chunks import sniff_utf16

_PAIR = re.compile(r"([A-Z_]+)(?:\[([^\]\s]*)\])?:(\S*)")
_FIGURE = re.compile(r"[0-9]{1,18}", re.ASCII)
"""A figure as cuobjdump prints it: ASCII digits only (``int()`` would take Arabic-Indic or fullwidth
ones, and refuse more than 4,300 digits with a ``ValueError``), at most 18 of them (no GPU has 10^18
of anything)."""
_READ = frozenset({"REG", "STACK", "SHARED", "LOCAL", "CONSTANT"})
"""The fields read; a malformed value of another field is ignored like the field itself."""


def _cut(text: str, limit: int = 60) -> str:
    """A name or value for a message: a mangled name may run to megabytes."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def looks_like_cuobjdump(head: bytes) -> bool:
    return b"Resource usage:" in head and (b" Function " in head or b"Common:" in head)


def parse_text(text: str, source_name: str, default_arch: str = "unknown", path: str | None = None) -> Records:
    """Records of a dump; ``source_name`` goes into each record's source, ``path`` (default: the
    same) into error messages."""
    path = source_name if path is None else path
    records = Records()
    states = records.states()
    arch = default_arch
    function: str | None = None
    function_line = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("arch ="):
            arch = line.split("=", 1)[1].strip() or default_arch
            function = None
        elif line.startswith("Fatbin "):
            arch = default_arch
            function = None
        elif line.startswith("Function ") and line.endswith(":"):
            function = line[len("Function ") : -1].strip()
            function_line = number
        elif function is not None and ":" in line:
            values: dict[str, int] = {}
            banks: dict[int, int] = {}
            unbounded = False
            for m in _PAIR.finditer(line):
                key, bank, value = m.groups()
                if key not in _READ:
                    continue
                if key == "STACK" and value == "UNKNOWN":  # recursion, indirect calls: no static bound
                    unbounded = True
                    continue
                for text in (value, bank) if bank is not None else (value,):
                    if not _FIGURE.fullmatch(text):
                        raise ImportFailure(
                            path,
                            f"{key} of {_cut(function)}: {_cut(text, 30)!r} is not a figure (0-9, at most 18 digits)",
                            line=number,
                        )
                if bank is not None and key == "CONSTANT":
                    banks[int(bank)] = int(value)
                else:
                    values[key] = int(value)
            if "REG" not in values:
                raise ImportFailure(path, f"resource line without REG for {_cut(function)}", line=number)
            static, reserved = split_reserved_smem(arch, values.get("SHARED", 0))
            states.append(
                new_state(  # copies of one function: merge_records keeps each distinct one
                    name=function,
                    arch=arch,
                    registers=values["REG"],
                    static_smem=static,
                    reserved_smem=reserved,
                    stack_bytes=None if unbounded else max(values.get("STACK", 0), values.get("LOCAL", 0)),
                    const_bytes=banks.get(0),
                    const_banks=banks,
                    source=f"{source_name}:{function_line}",
                )
            )
            function = None
    return records


def window_notes(path: str, records: Records) -> list[str]:
    """The assumptions behind shared memory read from cuobjdump's text, where they were made.

    cuobjdump's SHARED is the size of a kernel's ``.nv.shared`` section.  A linked sm_90+ image's
    starts with the driver's 1 KiB window, which is split off (as the binary reader does); a
    relocatable ``-rdc`` object's has no window, yet its text looks the same (measured: a kernel
    with 2,048 bytes of its own prints SHARED:2048 in a ``-rdc`` object and SHARED:3072 linked).
    Run on a bare cubin, cuobjdump names no architecture: SHARED is then kept whole.
    """
    notes = []
    states = records.states()
    split = sum(1 for state in states if state["reserved_smem"])
    if split:
        notes.append(
            f"{path}: the shared memory of {split} sm_90+ kernel{'s' if split != 1 else ''} is read as a "
            "linked image's, its first 1 KiB the driver's window; cuobjdump's text does not say whether an "
            "image is linked, and a relocatable (-rdc) object's has no window: import the file itself for "
            "exact figures"
        )
    whole = sum(
        1 for state in states if arch_number(state["arch"]) is None and state["static_smem"] >= RESERVED_SMEM_BASE
    )
    if whole:
        notes.append(
            f"{path}: {whole} kernel{'s' if whole != 1 else ''} of no named architecture (cuobjdump names "
            "none for a bare cubin) keep all of SHARED; in a linked sm_90+ image its first 1 KiB is the "
            "driver's window: import the cubin itself for exact figures"
        )
    return notes


def decode_dump(data: bytes) -> str:
    """The text of a dump in whichever encoding the shell that redirected it chose.

    The BOM is dropped, since ``str.strip`` keeps U+FEFF and the first line would not match.
    """
    utf16 = sniff_utf16(data[:4096])
    text = data.decode(utf16 or "utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


def import_cuobjdump_text(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    name, data = read_input(path)
    records = parse_text(decode_dump(data), os.path.basename(name), path=name)
    if progress is not None:
        progress(len(data), len(data))
    return records
