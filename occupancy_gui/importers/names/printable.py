"""Names and messages made safe to print: every control character escaped.

A kernel name comes from the file being read: an Nsight Compute CSV quotes a field with a line break in
it, a crafted ELF's string table holds any byte, and a file name may hold an escape sequence.  Printed as
they are, a newline splits a table row or a note in two, a carriage return or an ANSI escape rewrites
what a terminal shows, and a bidirectional override reorders it.  :func:`printable` writes each such
character as Python writes it in a string literal (``\\n``, ``\\x1b``, ``\\u202e``); every other character,
non-ASCII letters included, is kept.  ``occupancy import`` prints every name, cell and note through it,
``ImportFailure`` its path and reason, and the notes an import carries are made with it, so the window
shows them escaped too.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
"""C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional marks and overrides."""


def _escaped(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]


def printable(text: str) -> str:
    """``text`` with every control character escaped: ``"a\\nb"`` -> ``"a\\\\nb"``; one C search where there is none."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_escaped, text)
