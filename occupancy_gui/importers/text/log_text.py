"""What a build log says beyond its figures, and logs as people paste them.

* **Findings** (:class:`LogFindings`): ptxas's or nvlink's first error (a failed build prints no figures
  for what it could not compile), the entry functions whose stack ptxas says "cannot be statically
  determined" (recursion, indirect calls: cuobjdump's ``STACK:UNKNOWN``), and the kernels a log starts to
  describe and never finishes (cut off mid-kernel).  The parser looks for them only in chunks that hold
  their words (a C ``in`` per chunk), so a clean log pays nothing.
* **Pasted logs** (:func:`needs_repair`, :func:`repair`): text copied from forums and chats, with
  typographic quotes (‘ ’ “ ”) for ptxas's ``'``, long lines wrapped (a name cut in two, ``for`` and its
  ``'sm_80'`` on two lines, a ``Used`` line ending in ``380 bytes`` with ``cmem[0]`` below), and mangled
  names whose leading underscore Markdown took for emphasis (``Z6kernelPf``, :func:`restore_underscore`).
  A wrapped line is joined, its line break moved after it, so that every later line keeps its number.
  Only chunks of at most :data:`PASTE_MAX` bytes are looked at (a log smaller than that, or the last chunk
  of a larger one): nobody pastes a 200 MB build log, and the look costs 7 ms a MB (bench_import: 200 MB
  of ptxas lines went from 1.9 to 2.6 s when every chunk was looked at).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..base import IncompleteKernel
from ..record_list import Records

PASTE_MAX = 4 << 20
"""The largest chunk checked for the marks of a paste (see the module's docstring)."""
_TYPOGRAPHIC = ((b"\xe2\x80\x98", b"'"), (b"\xe2\x80\x99", b"'"), (b"\xe2\x80\x9c", b'"'), (b"\xe2\x80\x9d", b'"'))
_COMPLETE_ENTRY = re.compile(rb"entry function '[^'\r\n]+' for '[^'\r\n]+'")
_TOOL_LINE = re.compile(rb"\s*(?:\d+>)?(?:ptxas|nvlink|nvcc|\S+\.(?:cu|ptx|o|log)\b)")
_MAX_JOINED = 8
_ERROR = re.compile(rb"(?m)^[^\n]*?\b(?:ptxas|nvlink)\b[^\n]*?\b(?:error|fatal)\s*:[^\n]*")
_UNBOUNDED = re.compile(rb"Stack size for entry function '([^'\r\n]+)' cannot be statically determined")


@dataclass
class LogFindings:
    """What a log's text says beyond its resource lines (see the module's docstring)."""

    first_error: tuple[int, str] | None = None
    """(line, text) of the first line where ptxas or nvlink reports an error."""
    unbounded: set[str] = field(default_factory=set)
    """Entry functions whose stack ptxas cannot bound."""

    def scan(self, chunk: bytes | bytearray, end: int, line: int) -> None:
        """Look at ``chunk[:end]`` (whose first line is ``line``) for errors and unbounded stacks."""
        # ptxas and nvlink pad the word to the colon ("error   :"): the longer needle is the faster search
        if self.first_error is None and (
            chunk.find(b"error   :", 0, end) >= 0 or chunk.find(b"fatal   :", 0, end) >= 0
        ):
            found = _ERROR.search(chunk, 0, end)
            if found is not None:
                text = bytes(found.group()).decode("utf-8", "replace").strip()
                self.first_error = (line + chunk.count(b"\n", 0, found.start()), text)
        if chunk.find(b"statically determined", 0, end) >= 0:
            for m in _UNBOUNDED.finditer(chunk, 0, end):
                self.unbounded.add(restore_underscore(bytes(m.group(1)).decode("utf-8", "replace").strip()))


class LogRecords(Records):
    """A log's records (its states, or the builds of its standard blocks: see ``ptxas_log``), with what the log
    said beyond them."""

    __slots__ = ("findings", "incomplete")

    def __init__(self, items: list[Any], findings: LogFindings, incomplete: list[IncompleteKernel]):
        super().__init__(items, builds=True)
        self.findings = findings
        self.incomplete = incomplete


def needs_repair(chunk: bytes | bytearray, end: int) -> bool:
    """Whether ``chunk[:end]`` may hold typographic quotes or a wrapped ptxas line (C searches only)."""
    find = chunk.find
    if find(b"\xe2\x80", 0, end) >= 0:
        return True
    if find(b"entry function '", 0, end) >= 0 and chunk.count(b"entry function '", 0, end) != chunk.count(
        b"' for '", 0, end
    ):
        return True
    return any(
        find(tail, 0, end) >= 0
        for tail in (
            b",\n",
            b",\r\n",
            b" bytes\n",
            b" bytes\r\n",
            b"properties for\n",
            b"properties for\r\n",
            b"properties for \n",
        )
    )


def repair(chunk: bytes | bytearray) -> bytes:
    """``chunk`` with typographic quotes made ASCII and wrapped ptxas lines joined (each joined line's breaks
    moved after it: the number of lines is kept)."""
    text = bytes(chunk)
    for fancy, plain in _TYPOGRAPHIC:
        text = text.replace(fancy, plain)
    lines = text.split(b"\n")
    out: list[bytes] = []
    i = 0
    while i < len(lines):
        line, joined = lines[i], 0
        while (
            joined < _MAX_JOINED and i + 1 < len(lines) and _continues(lines[i + 1]) and _incomplete(line, lines[i + 1])
        ):
            line = _join(line, lines[i + 1])
            i += 1
            joined += 1
        out.append(line)
        out.extend([b""] * joined)
        i += 1
    return b"\n".join(out)


_ITEM = (
    rb"(?:used )?\d+(?:\+\d+)? (?:bytes )?(?:registers|barriers|smem|lmem|stack frame|stack|cmem\[\d+\]|"
    rb"cumulative stack size|gmem|spill stores|spill loads)"
)
_COMPLETE_FIGURES = re.compile(rb"(?:.*?[Uu]sed |\s*)" + _ITEM + rb"(?:, " + _ITEM + rb")*\s*(?:\(target: ?\w+\)\s*)?")


def _continues(following: bytes) -> bool:
    """Whether a line may be the rest of a wrapped one: not blank, no tool's line, no stack-frame line."""
    return bool(following.strip()) and not _TOOL_LINE.match(following) and _STACK_LINE.match(following) is None


_STACK_LINE = re.compile(rb"\s*\d+ bytes stack frame")


def _incomplete(line: bytes, following: bytes) -> bool:
    """A ptxas or nvlink line that stops before its end: an entry function without ``'NAME' for 'ARCH'``, a
    ``Function properties for`` followed by a line that continues it (a name is cut anywhere), a ``Used`` or
    stack-frame line
    whose figures do not run to its end in ptxas's grammar (``380 bytes`` without its ``cmem[0]``)."""
    body = line.rstrip()
    if b"entry function" in body:
        return _COMPLETE_ENTRY.search(body) is None
    if b"properties for" in body:  # its name may be cut anywhere (it needs no quotes): a one-word line goes on
        return b" " not in following.strip()
    if b"Used " in body or b"used " in body or b"stack frame" in body:
        return _COMPLETE_FIGURES.fullmatch(body) is None
    return False


def _join(line: bytes, following: bytes) -> bytes:
    """Two pieces of one wrapped line: straight on inside a quoted name or a word a chat cut in two (no blank
    either side of the cut), else with one space."""
    head = line.rstrip(b"\r")
    if head.count(b"'") % 2 == 1:
        return head + following.lstrip()
    if head[-1:].isspace() or following[:1].isspace() or (head[-1:] == b"'") != (following[:1] == b"'"):
        return head.rstrip() + b" " + following.strip(b" \t")  # ptxas puts a blank on either side of 'NAME'
    return head + following.rstrip(b" \t")


_MANGLED_WITHOUT_UNDERSCORE = re.compile(r"Z(?:N|L|\d)")


def restore_underscore(name: str) -> str:
    """``Z6kernelPf`` -> ``_Z6kernelPf``: a mangled name whose leading underscore was lost (Markdown read
    ``_..._`` as emphasis), where the name with it demangles; any other name as it is."""
    if not _MANGLED_WITHOUT_UNDERSCORE.match(name):
        return name
    from ..names.demangle import demangle  # noqa: PLC0415 - lazy: only for names that need it

    candidate = "_" + name
    return candidate if demangle(candidate) != candidate else name


def failure_reason(error: tuple[int, str]) -> str:
    """The one-line reason a log with no figures gives when its build failed."""
    return f"the build failed, so it printed no resource usage for what it could not compile: {error[1]}"
