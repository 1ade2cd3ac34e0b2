"""Resource usage from compiler logs: ``ptxas -v`` / ``nvcc --resource-usage`` / ``nvlink -v``.

The input is a build log as bytes, in whatever shape a build system left it: make or ninja lines,
MSBuild's ``1>`` prefixes, CRLF, UTF-16 from Windows shells, ANSI colours, stray non-UTF-8 bytes and
unrelated warnings in between.  Only lines with the few markers below matter, so the reader scans
large chunks with one compiled byte regex and never decodes the rest; memory stays bounded by the
chunk size whatever the size of the log.

Recognised lines, across CUDA 8 to 13::

    ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_80'
    ptxas info    : Function properties for _Z6kernelPf          (a device function when no entry is open)
        8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 10 registers, used 1 barriers, 2048 bytes smem, 372 bytes cmem[0]
    ptxas info    : Used 32 registers, 688 bytes cumulative stack size, 372 bytes cmem[0]
    ptxas info    : Used 8 registers, 4+0 bytes lmem, 2048+16 bytes smem, 40 bytes cmem[1]   (old)
    nvlink info    : Function properties for '_Z6kernelPf': (target: sm_80)
    nvlink info    : used 107 registers, used 1 barriers, 0 stack, 0 bytes smem, 372 bytes cmem[0], 0 bytes lmem

``nvlink``'s figures are final for ``-rdc`` builds and replace ``ptxas``' for the same kernel and
architecture.  When parallel builds interleave two ``ptxas`` runs, a ``Used`` line goes to the oldest
open entry function whose ``Function properties`` line has been seen.
"""

from __future__ import annotations

import io
import operator
import os
import re
from typing import Any

from ..._process.collector import collection_paused
from ..base import CancelFn, ImportCancelled, ImportFailure, IncompleteKernel, ProgressFn
from ..files import open_regular
from ..records import new_state, split_nvlink_smem
from .line_chunks import CHUNK_SIZE, feed_stream, sniff_utf16
from .log_text import PASTE_MAX, LogFindings, LogRecords, needs_repair, repair, restore_underscore

__all__ = [
    "CHUNK_SIZE",
    "ImportCancelled",
    "PtxasLogParser",
    "import_ptxas_log",
    "parse_bytes",
    "parse_stream",
    "sniff_utf16",
]

BUILD_KEY = operator.itemgetter(1, 2)
"""A standard block's key in the table, (name, arch), from its build."""


def built(item: Any) -> dict[str, Any]:
    """A table item's state: the item itself, or what its build returns (see :class:`PtxasLogParser`)."""
    return item[0](*item[1:]) if type(item) is tuple else item  # type: ignore[no-any-return]  # a build's dict


def moved_source(source: str, lines: int) -> str:
    """A record's ``source`` (``"build.log:LINE"``) ``lines`` further down: where a worker process read a
    log's tail (``text.parallel``), counting its lines from 1."""
    name, _, line = source.rpartition(":")
    return f"{name}:{int(line) + lines}"


# The scanner: one compiled byte regex over a whole chunk, whose literal prefix ("info") lets the
# regex engine skip unrelated text at C speed.  Its first alternative is the standard ptxas block of
# one entry function (4 lines, plus the "Compile time" line of CUDA 12.8+), checked exactly and
# captured with the text of its figures; that covers nearly every kernel of a real log in one match.
# Anything else with "info" in it is one line, handed to the general event code below.
#
# The patterns are written for the speed of Python's regex engine, which runs a group's "?" through
# a slow general repeat but tries alternatives cheaply (skipping one whose first character is a
# literal that does not match): an optional part is written "(?:A|)", or as alternatives "(?:B|AB)".
_P = rb"(?:\d+>|)"  # MSBuild's project prefix
_PTXAS = rb"(?:ptxas info    : |\d+>ptxas info    : )"  # the start of a ptxas line, prefix or not
# A name the state machine would take as is: no quote, line break or leading/trailing blank, quote
# or colon (those go the general way, which strips them); non-ASCII edges go that way too.
_EDGE = rb"[^'\s\":\x1c-\x1f\x80-\xff]"
# The name runs up to the first quote (no quote can be in it), so checking its last character
# after the quote (a lookbehind) is the same as ending it on an _EDGE character, and cheaper.
_NAME = rb"(?P<name>" + _EDGE + rb"[^'\r\n]*)'(?<=" + _EDGE + rb"')"

# In the standard block the figures read at once have at most MAX_DIGITS digits, and the rest of the
# "Used" line holds no minus sign, no non-ASCII byte and at most 1000 characters (so any figure in it
# converts): anything else goes the general way, which refuses what would be misread (_check_figures).
_N = rb"(\d{1,18})"
_STACK_TEXT = (
    _P + rb"[ \t]*" + _N + rb" bytes stack frame, " + _N + rb" bytes spill stores, " + _N + rb" bytes spill loads\r?\n"
)
_TAIL_TEXT = (
    _STACK_TEXT
    + _PTXAS
    + rb"Used ("
    + _N
    + rb" registers(?:, used "
    + _N
    + rb" barriers|)(?:, "
    + _N
    + rb" bytes smem|)"
    rb"(?:, " + _N + rb" bytes cmem\[0\]|)([^\n]*))\n"
)
_SCAN = re.compile(
    rb"info(?:(?<=ptxas info)    : "
    rb"(?:Compiling entry function '|\d+ bytes gmem[^\n]*(\n)"
    + _PTXAS
    + rb"Compiling entry function ')"
    + _NAME
    + rb" for '([^'\n]*)'\r?\n"
    + _PTXAS
    + rb"Function properties for (?P=name)\r?\n"
    # The "Used" line's figures are read when the record is built (by _TAIL): here any rest will do.
    rb"(" + re.sub(rb"\((?!\?)", b"(?:", _STACK_TEXT) + _PTXAS + rb"Used \d{1,18} registers[^\n\x80-\xff-]{0,1000}\n)"
    rb"(?:" + _PTXAS + rb"Compile time = [^\n]*\n()|)"
    rb"|[^\n]*)"
)
"""The standard block of one entry function (the "N bytes gmem" line of its module and the
"Compile time" line of CUDA 12.8+ optional), or else any line with "info" in it (no groups).
Groups: 1 gmem line present, 2 name, 3 arch, 4 the stack-frame and "Used" lines, 5 the "Compile
time" line present.  So a block's ``lastindex`` (4 or 5) is its number of lines from the
"Compiling entry function" on, and ``None`` marks the one-line alternative."""
_TAIL = re.compile(_TAIL_TEXT)
"""Groups of those two lines: 1 stack frame, 2/3 spill stores/loads, 4 the "Used" figures,
5 registers, 6 barriers, 7 smem, 8 cmem[0], 9 the rest of the "Used" line."""
_CLEAN_TAILS = (b"", b"\r")
# Both patterns start with a literal, so the regex engine's fast literal search does the scanning;
# the tool name ("ptxas"/"nvlink") in front of "info" is checked in Python for the few hits.
_EVENT = re.compile(
    rb"info\s*:[ \t]*(?:"
    rb"Compiling entry function '([^'\r\n]+)' for '([^'\r\n]+)'"
    rb"|Function properties for ([^\r\n]*)"
    rb"|[Uu]sed ([^\r\n]*)"
    rb"|(\d+) bytes gmem)"
)
_STACK = re.compile(rb" bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_DIGITS = frozenset(b"0123456789")
_ITEM = re.compile(
    rb"(\d+)(?:\+(\d+))? (?:bytes )?"
    rb"(registers|barriers|smem|lmem|stack frame|stack|cmem\[(\d+)\]|cumulative stack size|gmem)"
)
_TARGET = re.compile(rb"\(target: ?([A-Za-z0-9_]+)\)")
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
MAX_DIGITS = 18
"""Most digits a figure may have: no GPU has 10^18 of anything, and CPython refuses to convert more
than 4,300 digits at all (a ``ValueError`` out of ``int()``)."""
_NEGATIVE = re.compile(rb"-[ \t]*\d")
_TOO_LONG = re.compile(rb"\d{19}")
"""With ``_NEGATIVE`` and non-ASCII text, what a "Used" or stack-frame line must not hold: a minus sign
before a figure, a figure longer than MAX_DIGITS, or digits of another script (Arabic-Indic, fullwidth),
which the byte patterns would skip and so read a figure as 0."""


class _OddFigure(Exception):
    """A figure that cannot be read as written (its line is added where the line is known)."""


def _check_figures(text: bytes | bytearray) -> None:
    """Refuse a line whose figures would be misread (see ``_TOO_LONG``); cheap for the usual line."""
    if b"-" in text and _NEGATIVE.search(text):
        raise _OddFigure(f"negative figure in {_shown(text)}")
    long = _TOO_LONG.search(text)
    if long is not None:
        run = re.match(rb"\d+", text[long.start() :])
        digits = len(run.group()) if run else 0
        raise _OddFigure(f"a figure of {digits} digits (at most {MAX_DIGITS}) in {_shown(text[: long.start() + 20])}")
    if not text.isascii() and any(ch.isdigit() and not ch.isascii() for ch in text.decode("utf-8", "replace")):
        raise _OddFigure(f"figures must be written with the digits 0-9: {_shown(text)}")


def _shown(text: bytes | bytearray) -> str:
    line = text.decode("utf-8", "replace").strip()
    return repr(line if len(line) <= 60 else line[:59] + "…")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").strip()


class _Entry:
    __slots__ = ("name", "arch", "line", "is_kernel", "fp_seen", "stack", "spill_st", "spill_ld")

    def __init__(self, name: str, arch: str, line: int, is_kernel: bool):
        self.name = name
        self.arch = arch
        self.line = line
        self.is_kernel = is_kernel
        self.fp_seen = False
        self.stack: int | None = None
        self.spill_st: int | None = None
        self.spill_ld: int | None = None


def _parse_items(tail: bytes, check: bool = True) -> dict[str, int]:
    """``10 registers, used 1 barriers, 2048 bytes smem, 372 bytes cmem[0]`` as a dict.

    ``check=False`` for a standard block's line, which the scanner's pattern has already judged."""
    if check:
        _check_figures(tail)
    out: dict[str, int] = {}
    for m in _ITEM.finditer(tail):
        what = m.group(3)
        value = int(m.group(1))
        if m.group(2) and what != b"smem":  # "2048+16 bytes smem": the +16 is the system's part
            value += int(m.group(2))
        if m.group(4) is not None:
            out[f"cmem{int(m.group(4))}"] = out.get(f"cmem{int(m.group(4))}", 0) + value
        else:
            key = what.decode()
            out[key] = out.get(key, 0) + value
    return out


def _block_fields(name: str, arch: str, tail: bytes, line: int, source: str) -> dict[str, Any]:
    """The fields of a standard block's record: ``tail`` is its stack-frame and "Used" lines,
    ``line`` the line of its "Compiling entry function"."""
    g = _TAIL.match(tail).groups()  # type: ignore[union-attr]  # the scanner matched this tail with _TAIL
    stack = int(g[0])
    if g[8] in _CLEAN_TAILS:  # "Used N registers[, used N barriers][, N bytes smem][, N bytes cmem[0]]"
        c0 = int(g[7]) if g[7] is not None else None
        banks = {0: c0} if c0 is not None else {}
        registers, barriers = int(g[4]), (int(g[5]) if g[5] is not None else None)
        smem, local = (int(g[6]) if g[6] is not None else 0), stack
    else:
        items = _parse_items(g[3], check=False)
        banks = {int(k[4:]): v for k, v in items.items() if k.startswith("cmem")}
        c0 = banks.get(0)
        registers, barriers, smem = items.get("registers", 0), items.get("barriers"), items.get("smem", 0)
        local = max(items.get("cumulative stack size", 0), stack, items.get("stack frame", 0))
        local += items.get("lmem", 0)
    return {
        "name": name,
        "arch": arch,
        "registers": registers,
        "is_kernel": True,
        "static_smem": smem,
        "stack_bytes": local,
        "spill_stores": int(g[1]),
        "spill_loads": int(g[2]),
        "barriers": barriers,
        "const_bytes": c0,
        "const_banks": banks,
        "max_threads": None,
        "min_blocks": None,
        "req_threads": None,
        "cluster_dims": None,
        "max_registers": None,
        "reserved_smem": 0,
        "relocatable": False,
        "embedded": False,
        "copies": 1,
        "source": f"{source}:{line}",
        "block_size": None,
        "grid_size": None,
        "dynamic_smem": None,
        "theoretical_occupancy": None,
        "achieved_occupancy": None,
        "waves_per_sm": None,
        "device_name": None,
        "launch_source": None,
    }


def block_fields_below(name: str, arch: str, tail: bytes, line: int, source: str, lines: list[int]) -> dict[str, Any]:
    """A standard block's fields (:func:`_block_fields`) where its ``line`` was counted from a later start,
    ``lines[0]`` lines further down: the lazy build of a block a worker process read (``text.parallel``),
    whose offset is known only once the head is read, and then set once for all of them."""
    return _block_fields(name, arch, tail, line + lines[0], source)


_BATCH = 1024
"""Records of standard blocks put into the parser's table at a time.  A large dict takes its
inserts faster in a row than one at a time between other work; a batch keeps alive the records
that later ones of the same kernel replace, so it is kept small."""


class PtxasLogParser:
    """Feed chunks of log text (bytes, UTF-8 or any ASCII superset) and collect records."""

    def __init__(self, source_name: str, path: str | None = None):
        self.source_name = source_name
        self.path = source_name if path is None else path  # named in errors
        # (name, arch) -> the record's state, or the build of a standard block's, (_block_fields, name, arch, ...):
        # its figures are read from the block's text when first needed (a later block of a kernel replaces it
        # unread; the records of a big log are ``record_list.Records`` of these items).
        self.records: dict[tuple[str, str], Any] = {}
        self.pending: list[_Entry] = []  # entry functions waiting for their "Used" line
        self.await_stack: list[_Entry] = []  # functions waiting for their stack-frame line
        self.arch = ""  # the architecture of the latest "Compiling entry function"
        self.deferred: list[_Entry] = []  # device functions printed before their module's first entry
        self.nvlink_name: str | None = None
        self.nvlink_target: str | None = None
        self.nvlink_line = 0
        self.nvlink_done: set[tuple[str, str]] = set()
        self.line_base = 1
        self._archs: dict[bytes, str] = {}
        self.findings = LogFindings()

    # -- feeding ------------------------------------------------------------------------------
    def feed(self, chunk: bytes | bytearray, end: int | None = None) -> None:
        """Parse ``chunk[:end]``, which must end at a line boundary (or be the last text)."""
        if end is None:
            end = len(chunk)
        if chunk.find(b"\x1b", 0, end) >= 0:
            chunk = _ANSI.sub(b"", chunk[:end])
            end = len(chunk)
        if end <= PASTE_MAX and needs_repair(chunk, end):  # pasted from a forum or a chat (see log_text)
            chunk = repair(chunk[:end])
            end = len(chunk)
        self.findings.scan(chunk, end, self.line_base)
        line = self.line_base
        last = 0  # the offset that `line` is the line of
        follow = -1  # where a standard block right after the previous one starts (past its "ptxas ")
        gap = 0  # end of the previous general match: a stray stack-frame line may follow it
        count = chunk.count
        # The records of standard blocks go to the table in batches (see _BATCH), put in before
        # anything else reads or adds to it: the table's order is that of the log.  A block costs a
        # tuple here, the build of its state (see self.records).
        made: list[tuple[Any, ...]] = []
        add = made.append
        archs = self._archs
        arch_text = self._arch_text
        source = self.source_name
        busy = bool(self.pending or self.await_stack or self.deferred)
        arch = None  # the architecture of the latest standard block, for self.arch
        for m in _SCAN.finditer(chunk, 0, end):
            lines = m.lastindex
            if lines and not busy:
                # The standard block of one entry function: the state machine would open, describe
                # and close the entry in turn.  Its record reads the figures from the block's text
                # when first used (most records of a big log never are).
                start = m.start()
                if start != follow:  # else only "ptxas " lies between: `line` is start's line
                    line += count(b"\n", last, start)
                    last = start
                gmem, raw_name, raw_arch, tail, _ = m.groups()
                block_arch = archs.get(raw_arch) or arch_text(raw_arch)
                if block_arch and raw_name[0] != 0x5A:  # else (no arch, a carriage return in it, or a name that
                    # may have lost its leading underscore: "Z6kernelPf") the state machine reads the block
                    arch = block_arch
                    if gmem is not None:
                        line += 1
                    add((_block_fields, raw_name.decode("utf-8", "replace"), arch, tail, line, source))
                    line += lines  # the block's lines are known: its text needs no counting
                    last = m.end()
                    follow = last + 6
                    if len(made) >= _BATCH:
                        self._add_records(made)
                    continue
                last = start
            else:
                start = m.start()
                if busy and self.await_stack:
                    self._stack_lines(chunk, gap, start)
                line += count(b"\n", last, start)
                last = start
            if made:
                self._add_records(made)
            if arch is not None:
                self.arch = arch
                arch = None
            gap = m.end()
            self._general(chunk, start, gap, line)
            busy = bool(self.pending or self.await_stack or self.deferred)
        if made:
            self._add_records(made)
        if arch is not None:
            self.arch = arch
        if self.await_stack:
            self._stack_lines(chunk, gap, end)
        self.line_base = line + count(b"\n", last, end)

    def _add_records(self, made: list[tuple[Any, ...]]) -> None:
        """Put the records of standard blocks (their builds) into the table in order (a later one of a key
        replaces an earlier one)."""
        self.records.update(zip(map(BUILD_KEY, made), made))
        made.clear()

    def _arch_text(self, raw: bytes) -> str:
        arch = _text(raw) if b"\r" not in raw else ""
        if len(self._archs) < 4096:
            self._archs[raw] = arch
        return arch

    def _stack_lines(self, chunk: bytes | bytearray, lo: int, hi: int) -> None:
        """Stack-frame lines between two scanner matches (they carry no "info")."""
        for st in _STACK.finditer(chunk, lo, hi):
            self._stack_match(chunk, st)
            if not self.await_stack:
                return

    def _general(self, chunk: bytes | bytearray, lo: int, hi: int, line: int) -> None:
        """Every event of ``chunk[lo:hi]`` (which starts on ``line``), one at a time."""
        last = lo
        count = chunk.count
        stacks = _STACK.finditer(chunk, lo, hi)
        stack = next(stacks, None)
        for m in _EVENT.finditer(chunk, lo, hi):
            start = m.start()
            while stack is not None and stack.start() < start:
                self._stack_match(chunk, stack)
                stack = next(stacks, None)
            before = chunk[max(0, start - 12) : start]
            if b"ptxas" in before:
                is_nvlink = False
            elif b"nvlink" in before:
                is_nvlink = True
            else:
                continue
            line += count(b"\n", last, start)
            last = start
            if m.group(1) is not None:
                entry = _Entry(restore_underscore(_text(m.group(1))), _text(m.group(2)), line, True)
                self.arch = entry.arch
                self.pending.append(entry)
                if self.deferred:
                    for dev in self.deferred:
                        dev.arch = entry.arch
                        self._emit_device_function(dev)
                    self.deferred.clear()
            elif m.group(3) is not None:
                if is_nvlink:
                    self._nvlink_properties(m.group(3), line)
                else:
                    self._properties(restore_underscore(_text(m.group(3)).strip("'\":")), line)
            elif m.group(4) is not None:
                try:
                    if is_nvlink:
                        self._nvlink_used(m.group(4))
                    else:
                        self._used(m.group(4))
                except _OddFigure as exc:
                    raise ImportFailure(self.path, str(exc), line=line) from None
            elif not is_nvlink:  # "N bytes gmem": a new ptxas module (one per architecture)
                self.arch = ""
        while stack is not None:
            self._stack_match(chunk, stack)
            stack = next(stacks, None)

    def _stack_match(self, chunk: bytes | bytearray, m: re.Match[bytes]) -> None:
        j = start = m.start()
        while j > 0 and chunk[j - 1] in _DIGITS and start - j <= MAX_DIGITS:
            j -= 1
        if j == start:
            return
        line_start = chunk.rfind(b"\n", 0, j) + 1
        try:
            _check_figures(chunk[line_start : m.end()])
        except _OddFigure as exc:
            raise ImportFailure(self.path, str(exc), line=self.line_base + chunk.count(b"\n", 0, start)) from None
        self._stack_line(int(chunk[j:start]), int(m.group(1)), int(m.group(2)))

    # -- ptxas ----------------------------------------------------------------------------------
    def _properties(self, name: str, line: int) -> None:
        for entry in self.pending:
            if entry.name == name and not entry.fp_seen:
                entry.fp_seen = True
                self.await_stack.append(entry)
                return
        # No open entry of that name: a device (non-entry) function.
        entry = _Entry(name, self.arch, line, False)
        entry.fp_seen = True
        self.await_stack.append(entry)

    def _stack_line(self, stack: int, spill_st: int, spill_ld: int) -> None:
        if not self.await_stack:
            return
        entry = self.await_stack.pop(0)
        entry.stack, entry.spill_st, entry.spill_ld = stack, spill_st, spill_ld
        if not entry.is_kernel:
            if entry.arch:
                self._emit_device_function(entry)
            else:
                self.deferred.append(entry)

    def _emit_device_function(self, entry: _Entry) -> None:
        arch = entry.arch or "unknown"
        self.records[(entry.name, arch)] = new_state(
            name=entry.name,
            arch=arch,
            registers=0,
            is_kernel=False,
            stack_bytes=entry.stack or 0,
            spill_stores=entry.spill_st,
            spill_loads=entry.spill_ld,
            source=f"{self.source_name}:{entry.line}",
        )

    def _used(self, tail: bytes) -> None:
        if not self.pending:
            return
        index = 0
        for i, entry in enumerate(self.pending):
            if entry.fp_seen:
                index = i
                break
        entry = self.pending.pop(index)
        if entry in self.await_stack:  # its stack line never came
            self.await_stack.remove(entry)
        items = _parse_items(tail)
        banks = {int(k[4:]): v for k, v in items.items() if k.startswith("cmem")}
        local = max(items.get("cumulative stack size", 0), entry.stack or 0, items.get("stack frame", 0))
        local += items.get("lmem", 0)
        self.records[(entry.name, entry.arch)] = new_state(
            name=entry.name,
            arch=entry.arch,
            registers=items.get("registers", 0),
            is_kernel=True,
            static_smem=items.get("smem", 0),
            stack_bytes=local,
            spill_stores=entry.spill_st,
            spill_loads=entry.spill_ld,
            barriers=items.get("barriers"),
            const_bytes=banks.get(0),
            const_banks=banks,
            source=f"{self.source_name}:{entry.line}",
        )

    # -- nvlink ---------------------------------------------------------------------------------
    def _nvlink_properties(self, rest: bytes, line: int) -> None:
        target = _TARGET.search(rest)
        if target:
            rest = rest[: target.start()]
        self.nvlink_name = _text(rest).rstrip(":").strip().strip("'\"").rstrip(":").strip("'\"")
        self.nvlink_target = target.group(1).decode() if target else None
        self.nvlink_line = line

    def _nvlink_arch(self, name: str) -> str:
        # Old nvlink prints no target: take the first ptxas architecture not yet linked.
        for rec_name, arch in self.records:
            if rec_name == name and (name, arch) not in self.nvlink_done:
                return arch
        return self.arch or "unknown"

    def _nvlink_used(self, tail: bytes) -> None:
        name = self.nvlink_name
        if not name:
            return
        self.nvlink_name = None
        target = _TARGET.search(tail)
        arch = target.group(1).decode() if target else self.nvlink_target
        if not arch:
            arch = self._nvlink_arch(name)
        items = _parse_items(tail[: target.start()] if target else tail)
        banks = {int(k[4:]): v for k, v in items.items() if k.startswith("cmem")}
        prior = self._record((name, arch))
        # Not the pre-link figure plus the window: ptxas leaves out the unit's file-scope __shared__
        # variables that the linked section holds (the toolkit matrix's -rdc kernels).
        static, reserved = split_nvlink_smem(arch, items.get("smem", 0))
        local = max(items.get("stack", 0), items.get("lmem", 0))
        self.records[(name, arch)] = new_state(
            name=name,
            arch=arch,
            registers=items.get("registers", 0),
            is_kernel=True,
            static_smem=static,
            reserved_smem=reserved,
            stack_bytes=local,
            spill_stores=prior["spill_stores"] if prior else None,
            spill_loads=prior["spill_loads"] if prior else None,
            barriers=items.get("barriers", prior["barriers"] if prior else None),
            const_bytes=banks.get(0, prior["const_bytes"] if prior else None),
            const_banks=banks or (dict(prior["const_banks"]) if prior else {}),
            source=f"{self.source_name}:{self.nvlink_line}",
        )
        self.nvlink_done.add((name, arch))

    def _record(self, key: tuple[str, str]) -> dict[str, Any] | None:
        """The state of the record of ``key`` in the table, if any (a build's: made for this read only)."""
        item = self.records.get(key)
        return None if item is None else built(item)

    def finish(self) -> LogRecords:
        """The records (a list), with the log's findings and the kernels it never finished (see ``log_text``)."""
        for entry in self.deferred + self.await_stack:
            if not entry.is_kernel:
                self._emit_device_function(entry)
        self.await_stack.clear()
        self.deferred.clear()
        incomplete = [IncompleteKernel(e.name, e.arch, e.line) for e in self.pending if e.is_kernel]
        items = list(self.records.values())
        unbounded = self.findings.unbounded
        if unbounded:
            for i, item in enumerate(items):
                if (item[1] if type(item) is tuple else item["name"]) in unbounded:
                    items[i] = state = built(item)
                    state["stack_bytes"] = None  # ptxas: "cannot be statically determined"
        return LogRecords(items, self.findings, incomplete)


def parse_stream(
    stream: io.BufferedIOBase,
    source_name: str,
    total: int = 0,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    chunk_size: int = CHUNK_SIZE,
    path: str | None = None,
) -> LogRecords:
    """Parse a log from a binary stream in bounded memory: the chunk buffer plus one small entry
    per distinct (kernel, architecture).  ``cancel()`` is polled before every chunk; when it
    returns true, :class:`ImportCancelled` is raised and nothing is returned.  ``path`` (default:
    ``source_name``) is the name an :class:`ImportFailure` gives."""
    parser = PtxasLogParser(source_name, path)
    with collection_paused():
        feed_stream(stream, parser, total, progress, cancel, chunk_size)
        return parser.finish()


def parse_bytes(data: bytes, source_name: str = "<log>") -> LogRecords:
    return parse_stream(io.BytesIO(data), source_name, total=len(data))


def import_ptxas_log(
    path: str | os.PathLike[str],
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> LogRecords:
    name = os.fspath(path)
    try:
        total = os.path.getsize(name)
        with open_regular(name) as fh:
            return parse_stream(fh, os.path.basename(name), total, progress, cancel, path=name)
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
