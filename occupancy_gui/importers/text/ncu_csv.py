"""Nsight Compute CSV: ``ncu --csv`` reports, one record per profiled kernel launch.

Two layouts are read, whatever precedes the header (``==PROF==`` lines, the program's output):

* the long "details" page (``ncu --csv --section LaunchStats --section Occupancy``), one row per
  metric::

      "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",
      "Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"[,"Rule ..."]
      "0","4711","app","host","k(float *)","1","7","(256, 1, 1)","(196, 1, 1)","0","8.0",
      "Launch Statistics","Registers Per Thread","register/thread","16"

  (older releases have "Kernel Time" instead of the block, grid, device and CC columns);
* the wide "raw" page (``ncu --csv --page raw``), one row per launch, one column per metric
  (``launch__registers_per_thread``, ...), with a row of units under the header unless
  ``--print-units`` ... hides it.

Numbers may carry thousands separators (``"1,024"``); sizes are converted to bytes from their unit
(``byte``, ``Kbyte`` = 1000 bytes as Nsight Compute uses SI prefixes, ``KiB`` = 1024, with or
without ``/block``) in exact decimal arithmetic.  Nsight Compute rounds scaled values when it prints
them (1024 bytes is ``"1.02" Kbyte``); such a value is read as the whole number of bytes within the
printed precision that is divisible by the largest power of two (see ``_bytes``).  ``ncu
--print-units base`` prints plain bytes and avoids the question.  Occupancies are percentages.

A report redirected in a Windows shell is often UTF-16 (PowerShell 5's ``>``: little-endian with a
BOM) or UTF-8 with a BOM and CRLF line ends; all of these are read, streamed, with bytes that do not
decode replaced by U+FFFD.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from ..base import CancelFn, ImportCancelled, ImportFailure, ProgressFn
from ..files import open_regular
from ..record_list import Records
from .line_chunks import sniff_utf16

_ID_COLUMNS = ('"ID"', '"Process ID"', '"Kernel Name"')
_LONG_COLUMNS = ("Section Name", "Metric Name", "Metric Unit", "Metric Value")
_MAX_ROWS_BEFORE_HEADER = 100_000
_SNIFF_SIZE = 4096

# Metric -> field, for the details page (metric names) and the raw page (metric identifiers).
_METRICS = {
    "Block Size": "block_size",
    "launch__block_size": "block_size",
    "Grid Size": "grid_size",
    "launch__grid_size": "grid_size",
    "Registers Per Thread": "registers",
    "launch__registers_per_thread": "registers",
    "Static Shared Memory Per Block": "static_smem",
    "launch__shared_mem_per_block_static": "static_smem",
    "Dynamic Shared Memory Per Block": "dynamic_smem",
    "launch__shared_mem_per_block_dynamic": "dynamic_smem",
    "Driver Shared Memory Per Block": "reserved_smem",
    "launch__shared_mem_per_block_driver": "reserved_smem",
    "Theoretical Occupancy": "theoretical_occupancy",
    "sm__maximum_warps_per_active_cycle_pct": "theoretical_occupancy",
    "Achieved Occupancy": "achieved_occupancy",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy",
    "Waves Per SM": "waves_per_sm",
    "launch__waves_per_multiprocessor": "waves_per_sm",
    "device__attribute_display_name": "device_name",
    "device__attribute_compute_capability_major": "cc_major",
    "device__attribute_compute_capability_minor": "cc_minor",
}
_INT_FIELDS = {
    "block_size",
    "grid_size",
    "registers",
    "static_smem",
    "dynamic_smem",
    "reserved_smem",
    "cc_major",
    "cc_minor",
}
_BYTE_FIELDS = {"static_smem", "dynamic_smem", "reserved_smem"}
_FLOAT_FIELDS = {"theoretical_occupancy", "achieved_occupancy", "waves_per_sm"}
_BYTE_UNITS = {
    "byte": 1,
    "kbyte": 10**3,
    "mbyte": 10**6,
    "gbyte": 10**9,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "kibyte": 1 << 10,
    "mibyte": 1 << 20,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "": 1,
}
_DIMS = re.compile(r"^\(?\s*(\d[\d,]{0,24})\s*(?:,\s*(\d[\d,]{0,24})\s*,\s*(\d[\d,]{0,24})\s*)?\)?$", re.ASCII)
_CC = re.compile(r"^(\d{1,2})\.(\d)$", re.ASCII)
MAX_ROW_CHARS = 1 << 22
"""Longest row (4 Mi characters; a real one is at most a few hundred KiB with very long kernel names):
the CSV reader holds a row's fields all at once, about ten times the row's size."""


def looks_like_ncu_csv(head: bytes) -> bool:
    """A ``"ID","Process ID",...,"Kernel Name"`` header anywhere in the first bytes."""
    text = head.decode("utf-8", "replace")
    at = text.find(_ID_COLUMNS[0] + "," + _ID_COLUMNS[1])
    if at < 0:
        return False
    line = text[at : text.find("\n", at) if "\n" in text[at:] else len(text)]
    return _ID_COLUMNS[2] in line


def _number(text: str, name: str, line: int, field: str) -> Decimal | None:
    raw = text.strip().replace(",", "").replace("\u202f", "").replace(" ", "")
    if not raw or raw.lower() in ("n/a", "na", "nan", "-", "inf", "-inf", "+inf"):
        return None
    try:
        if not raw.isascii():  # Decimal() would read Arabic-Indic or fullwidth digits
            raise InvalidOperation
        value = Decimal(raw)
    except InvalidOperation:
        raise ImportFailure(name, f"{field}: {text.strip()[:40]!r} is not a number", line=line) from None
    # adjusted() is the exponent as written: no arithmetic, so 1e999999999 cannot raise decimal.Overflow
    if not value.is_finite() or (value and value.adjusted() > 18):
        raise ImportFailure(name, f"{field}: {text.strip()[:40]!r} is out of range", line=line)
    if not value or value.adjusted() < -18:
        # 0e30624179 or 1e-999999999: zero for every figure read here, with a plain exponent (the
        # precision of a scaled size is 10**exponent, which would overflow)
        return Decimal(0)
    return value


def _convert(field: str, value: str, unit: str, name: str, line: int) -> str | int | float | None:
    if field == "device_name":
        return value.strip() or None
    if field in ("block_size", "grid_size"):
        dims = _DIMS.match(value.strip())
        if dims and dims.group(2) is not None:  # "(256, 1, 1)"
            product = 1
            for g in dims.groups():
                product *= int(g.replace(",", ""))
            return product
    number = _number(value, name, line, field)
    if number is None:
        return None
    if field in _BYTE_FIELDS:
        base = unit.strip().lower().split("/", 1)[0].strip()
        scale = _BYTE_UNITS.get(base)
        if scale is None:
            raise ImportFailure(name, f"{field}: unknown unit {unit.strip()[:20]!r}", line=line)
        if number < 0:
            raise ImportFailure(name, f"{field}: negative value {value.strip()[:40]!r}", line=line)
        return _bytes(number, scale)
    if field in _INT_FIELDS:
        if number < 0:
            raise ImportFailure(name, f"{field}: negative value {value.strip()[:40]!r}", line=line)
        return int(number.to_integral_value())
    return float(number)


def _bytes(number: Decimal, scale: int) -> int:
    """``number`` x ``scale`` bytes, as printed with ``number``'s decimals.

    ``"8.19" Kbyte`` stands for anything in [8185, 8195] bytes: where that interval holds more than
    one whole number, take the one divisible by the largest power of two (8192), the size a kernel
    most likely has; a value in base units is taken as it is.
    """
    exact = number * scale
    exponent = number.as_tuple().exponent
    half = Decimal(scale) * Decimal(10) ** exponent / 2 if isinstance(exponent, int) else Decimal(0)
    lo = int((exact - half).to_integral_value(rounding="ROUND_CEILING"))
    hi = int((exact + half).to_integral_value(rounding="ROUND_FLOOR"))
    if half <= Decimal("0.5") or hi <= lo:
        return int(exact.to_integral_value())
    for bit in range(min(hi.bit_length(), 40), -1, -1):
        step = 1 << bit
        candidate = -(-lo // step) * step
        if candidate <= hi:
            return candidate
    return int(exact.to_integral_value())  # pragma: no cover - bit 0 always fits


class _Launch:
    __slots__ = ("name", "line", "cc", "device", "block_dims", "grid_dims", "values")

    def __init__(self, name: str, line: int):
        self.name = name
        self.line = line
        self.cc = ""
        self.device = ""
        self.block_dims = ""
        self.grid_dims = ""
        self.values: dict[str, object] = {}


def _arch(launch: _Launch) -> str:
    m = _CC.match(launch.cc.strip())
    if m:
        return f"sm_{int(m.group(1))}{m.group(2)}"
    major, minor = launch.values.get("cc_major"), launch.values.get("cc_minor")
    if isinstance(major, int) and isinstance(minor, int) and major < 100 and minor < 10:
        return f"sm_{major}{minor}"
    return "unknown"


def _record(launch: _Launch, source: str, name: str) -> dict[str, Any]:
    """The state of one launch's record (``records.new_state``'s keys, all of them)."""
    v = launch.values
    for field, dims in (("block_size", launch.block_dims), ("grid_size", launch.grid_dims)):
        if v.get(field) is None and dims:
            v[field] = _convert(field, dims, "", name, launch.line)
    device = v.get("device_name")
    if device is None and launch.device and not launch.device.strip().isdigit():
        device = launch.device.strip()
    registers = v.get("registers")
    return {
        "name": launch.name,
        "arch": _arch(launch),
        "registers": registers if isinstance(registers, int) else 0,
        "is_kernel": True,
        "static_smem": v.get("static_smem") or 0,
        "stack_bytes": 0,
        "spill_stores": None,
        "spill_loads": None,
        "barriers": None,
        "const_bytes": None,
        "const_banks": {},
        "max_threads": None,
        "min_blocks": None,
        "req_threads": None,
        "cluster_dims": None,
        "max_registers": None,
        "reserved_smem": v.get("reserved_smem") or 0,
        "relocatable": False,
        "embedded": False,
        "copies": 1,
        "source": f"{source}:{launch.line}",
        "block_size": v.get("block_size"),
        "grid_size": v.get("grid_size"),
        "dynamic_smem": v.get("dynamic_smem"),
        "theoretical_occupancy": v.get("theoretical_occupancy"),
        "achieved_occupancy": v.get("achieved_occupancy"),
        "waves_per_sm": v.get("waves_per_sm"),
        "device_name": device,
        "launch_source": f"{source}:{launch.line}" if v.get("block_size") is not None else None,
    }


def parse_ncu_csv(
    stream: io.TextIOBase,
    name: str,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    size: int = 0,
    position: Callable[[], int] | None = None,
) -> Records:
    """Records from an ``ncu --csv`` report read from a text stream (opened with ``newline=""``)."""
    source = os.path.basename(name)
    lines = _BoundedLines(stream, name)
    reader = csv.reader(lines)
    header: list[str] | None = None
    launches: dict[str, _Launch] = {}
    units: list[str] | None = None
    rows = 0
    try:
        for row in reader:
            lines.used = 0
            rows += 1
            line = reader.line_num
            if rows % 4096 == 0:
                if cancel is not None and cancel():
                    raise ImportCancelled(name)
                if progress is not None and position is not None:
                    progress(position(), size)
            if header is None:
                if len(row) >= 3 and row[0] == "ID" and row[1] == "Process ID" and "Kernel Name" in row:
                    header = row
                    col = {title: i for i, title in enumerate(header)}
                    long = all(c in col for c in _LONG_COLUMNS)
                    if len(col) != len(header):
                        raise ImportFailure(name, "the header row repeats a column name", line=line)
                elif rows > _MAX_ROWS_BEFORE_HEADER:
                    break
                continue
            if not row or row == header:  # a blank line, or the header again (appended reports)
                continue
            if len(row) != len(header):
                raise ImportFailure(name, f"row has {len(row)} fields, the header {len(header)}", line=line)
            if not long and units is None and not row[col["ID"]].strip().isdigit():
                units = row  # the raw page's unit row
                continue
            launch_id = row[col["ID"]]
            launch = launches.get(launch_id)
            if launch is None:
                kernel = row[col["Kernel Name"]].strip()
                if not kernel:
                    raise ImportFailure(name, "empty kernel name", line=line)
                launch = launches[launch_id] = _Launch(kernel, line)
                launch.cc = row[col["CC"]] if "CC" in col else ""
                launch.device = row[col["Device"]] if "Device" in col else ""
                launch.block_dims = row[col["Block Size"]] if "Block Size" in col else ""
                launch.grid_dims = row[col["Grid Size"]] if "Grid Size" in col else ""
            if long:
                field = _METRICS.get(row[col["Metric Name"]].strip())
                if field is not None:
                    launch.values[field] = _convert(
                        field, row[col["Metric Value"]], row[col["Metric Unit"]], name, line
                    )
            else:
                for title, i in col.items():
                    field = _METRICS.get(title)
                    if field is not None and title not in ("Block Size", "Grid Size"):
                        unit = units[i] if units is not None else ""
                        launch.values[field] = _convert(field, row[i], unit, name, line)
    except csv.Error as exc:
        raise ImportFailure(name, f"malformed CSV: {exc}", line=reader.line_num) from None
    if header is None:
        raise ImportFailure(name, 'no Nsight Compute header ("ID","Process ID",...,"Kernel Name") found', line=1)
    if not launches:
        raise ImportFailure(name, "the report lists no kernel launches", line=reader.line_num)
    if progress is not None:
        progress(size, size)
    return Records([_record(launch, source, name) for launch in launches.values()])


class _BoundedLines:
    """The stream's lines for the CSV reader, refusing a row longer than ``MAX_ROW_CHARS`` before
    reading more of it (the caller resets ``used`` after each row; a quoted field may span lines)."""

    def __init__(self, stream: io.TextIOBase, name: str) -> None:
        self.stream, self.name = stream, name
        self.used = 0
        self.line = 0

    def __iter__(self) -> _BoundedLines:
        return self

    def __next__(self) -> str:
        text = self.stream.readline(MAX_ROW_CHARS + 1 - self.used)
        if not text:
            raise StopIteration
        self.line += 1
        self.used += len(text)
        if self.used > MAX_ROW_CHARS:
            raise ImportFailure(self.name, f"a row longer than {MAX_ROW_CHARS} characters", line=self.line)
        return text


def text_encoding(head: bytes) -> str:
    """The codec for a report that starts with ``head``, as ``detect_format`` decided it is one.

    With a BOM the ``utf-16`` codec reads the byte order from it and drops it (a ``utf-16-le``
    decoder would hand the BOM to the CSV reader as part of the first field); without one the
    byte order comes from where the NULs of ASCII text fall.  ``utf-8-sig`` drops a UTF-8 BOM.
    """
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return sniff_utf16(head) or "utf-8-sig"


def import_ncu_csv(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    """Records of an ``ncu --csv`` report file in any of the encodings Windows shells save.

    The file is decoded as a stream, so memory does not grow with its size; progress counts bytes
    of the file, whatever the encoding.
    """
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        with open_regular(name) as raw:
            encoding = text_encoding(raw.read(_SNIFF_SIZE))
            raw.seek(0)
            text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
            return parse_ncu_csv(text, name, progress, cancel, size, raw.tell)
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
