"""Parsing and formatting of the quantities users type: plain counts and byte sizes (B / KiB / MiB).

One parser for the window's fields, the GUI's and the CLI's ``--static-smem``-style options: each accepts
what the others accept.  Qt-free, so the CLI uses it without loading the window.
"""

from __future__ import annotations

import re
from fractions import Fraction

KIB = 1024
_BYTES = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(b|bytes?|k|kb|kib|m|mb|mib)?\s*$", re.IGNORECASE)
_PARTIAL = re.compile(r"^\s*\d*(?:\.\d*)?\s*(?:b|by|byt|byte|bytes|k|ki|kb|kib|m|mi|mb|mib)?\s*$", re.IGNORECASE)
_MULTIPLIER = {
    "": 1,
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "k": KIB,
    "kb": KIB,
    "kib": KIB,
    "m": KIB * KIB,
    "mb": KIB * KIB,
    "mib": KIB * KIB,
}


def parse_bytes(text: str) -> int | None:
    """Bytes from ``"24576"``, ``"24576 B"``, ``"24 KiB"``, ``"1.5k"``, ``"2 MiB"``; ``None`` if ``text``
    is not a whole, non-negative byte count (``"1.0001k"`` is 1024.1 bytes: refused, not truncated).

    K, KB and KiB all mean 1024 bytes (M, MB, MiB 1024²), as CUDA's documentation uses "48 KB" for
    49152 bytes.  The arithmetic is exact (a fraction, not a float), whatever the number of digits.
    """
    match = _BYTES.match(text)
    if not match:
        return None
    number, unit = match.group(1), (match.group(2) or "").casefold()
    value = Fraction(number) * _MULTIPLIER[unit]
    return int(value) if value.denominator == 1 else None


def is_partial_bytes(text: str) -> bool:
    """Whether ``text`` could still become a byte count by typing more (``"24 K"``, ``""``)."""
    return bool(_PARTIAL.match(text))


def format_bytes(value: int) -> str:
    """``"4 MiB"`` for whole MiB, ``"24 KiB"`` for whole KiB, ``"1000 B"`` otherwise."""
    if value >= KIB * KIB and value % (KIB * KIB) == 0:
        return f"{value // (KIB * KIB)} MiB"
    if value >= KIB and value % KIB == 0:
        return f"{value // KIB} KiB"
    return f"{value} B"


def format_bytes_long(value: int) -> str:
    """``"24 KiB (24576 B)"``: both spellings, for read-only displays and tooltips."""
    if value >= KIB:
        kib = value / KIB
        text = f"{kib:.0f}" if value % KIB == 0 else f"{kib:.2f}"
        return f"{text} KiB ({value} B)"
    return f"{value} B"


def parse_count(text: str) -> int | None:
    """A non-negative integer, digits only (spaces around are fine)."""
    text = text.strip()
    return int(text) if text.isdigit() else None


# ----------------------------------------------------------------------------- display convention
# One convention for every read-only display: counts with digit grouping and the right plural,
# shared memory in KiB (exact bytes in the tooltip, :func:`bytes_tooltip`).


def group(value: int) -> str:
    """``"65,536"``: digit grouping for large counts (and none below 10,000, where it only adds noise)."""
    return f"{value:,}" if abs(value) >= 10_000 else str(value)


def count(value: int, word: str, plural: str | None = None) -> str:
    """``"1 block"``, ``"2 blocks"``, ``"1 SM"``, ``"132 SMs"``: grouped, with the plural where it belongs (the
    engine's ``words.count`` with digit grouping)."""
    return f"{group(value)} {word if value == 1 else (plural or word + 's')}"


def kib(value: int) -> str:
    """A size for display, exact: whole KiB (MiB) as ``"24 KiB"``, any other size in bytes, grouped
    (``"24,577 B"``, ``"512 B"``) - never a rounded ``"24.00 KiB"`` beside an exact figure."""
    if value >= KIB * KIB and value % (KIB * KIB) == 0:
        return f"{value // (KIB * KIB)} MiB"
    if value >= KIB and value % KIB == 0:
        return f"{value // KIB} KiB"
    return f"{group(value)} B"


def bytes_tooltip(value: int) -> str:
    """The exact figure behind :func:`kib`: ``"24,576 bytes"``."""
    return f"{value:,} bytes" if value != 1 else "1 byte"


_BYTES_IN_TEXT = re.compile(r"\b(\d+) B\b")
_LARGE_IN_TEXT = re.compile(r"(?<![\d,.])\d{5,}(?![\d,.])")


def quantities(text: str) -> str:
    """An engine sentence in the display convention: byte figures as :func:`kib` ("49,153 B", "24 KiB"), other
    large counts grouped ("65,536 regs")."""
    text = _BYTES_IN_TEXT.sub(lambda m: kib(int(m.group(1))), text)
    return _LARGE_IN_TEXT.sub(lambda m: group(int(m.group(0))), text)
