"""What every ``occupancy`` subcommand shares: the one-line error, its exit status, the argument types.

Kept apart from ``main`` (the parser and dispatch) and ``commands`` (the work) so both import it and
neither imports the other back.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from ..fields import NVIDIA, VENDOR_NAMES
from ..units import parse_bytes

EXIT_USAGE = 2


class QueryError(ValueError):
    """A query field (a flag or a batch key) is missing or malformed; the message names the field."""


def not_for(key: str, device: str, vendor: str) -> str:
    """The words for a field (flag or key) given for ``device``, of ``vendor``, that only the other vendor's
    devices take."""
    owner = VENDOR_NAMES["amd" if vendor == NVIDIA else NVIDIA]
    return f"{key}: for {owner} devices only; {device} is an {VENDOR_NAMES[vendor]} device"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {cut(message)}\n")


MAX_MESSAGE = 300


def cut(message: str) -> str:
    """A message of at most :data:`MAX_MESSAGE` characters: a value typed with 5,000 digits is quoted
    by argparse and by the engine's refusals in full, and one line must stay one readable line."""
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def fail(prog: str, message: str) -> int:
    """Print ``prog: error: message`` (cut) on stderr; the exit status for a user's mistake."""
    print(f"{prog}: error: {cut(message)}", file=sys.stderr)
    return EXIT_USAGE


def byte_size(text: str) -> int:
    """An argparse type: a whole number of bytes, with an optional B / KiB / MiB suffix (see units)."""
    value = parse_bytes(text)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of bytes (e.g. 24576, 24KiB, 1.5 KiB or 2 MiB), got {text!r}"
        )
    return value


def min_max(text: str) -> tuple[int, int] | int:
    """An argparse type: ``N`` or ``N,M`` (a minimum, or a minimum and maximum: ``amdgpu_waves_per_eu``)."""
    parts = text.split(",")
    if len(parts) in (1, 2) and all(p.strip().isdigit() for p in parts):
        values = [int(p) for p in parts]
        return values[0] if len(values) == 1 else (values[0], values[1])
    raise argparse.ArgumentTypeError(f"expected N or N,M (minimum and maximum), got {text!r}")
