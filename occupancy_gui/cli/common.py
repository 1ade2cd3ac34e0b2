"""What every ``occupancy`` subcommand shares: the one-line error, its exit status, the argument types.

Kept apart from ``main`` (the parser and dispatch) and ``commands`` (the work) so both import it and
neither imports the other back.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from ..units import parse_bytes

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {cut(message)}\n")


MAX_MESSAGE = 300


def cut(message: str) -> str:
    """A message of at most :data:`MAX_MESSAGE` characters: a value typed with 5,000 digits is quoted
    by argparse and by the engine's refusals in full, and one line must stay one readable line."""
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE - 1] + "…"


def fail(prog: str, message: str) -> int:
    """Print ``prog: error: message`` (cut) on stderr; the exit status for a user's mistake."""
    print(f"{prog}: error: {cut(message)}", file=sys.stderr)
    return EXIT_USAGE


def byte_size(text: str) -> int:
    """An argparse type: a whole number of bytes, with an optional B / KiB / MiB suffix (see units)."""
    value = parse_bytes(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number of bytes (e.g. 24576, 24KiB, 1.5 KiB or 2 MiB), "
                                         f"got {text!r}")
    return value
