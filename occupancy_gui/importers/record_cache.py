"""The record cache: our own persistent cache of import results (not a JIT compiler's cache, ``jit``), so
that the second open of an unchanged library is instant.

Listing libcublasLt takes seconds; the same file opened again (same path, size, modification time,
inode and importer version) is read back from one file in the user cache directory instead.

An entry is ``MAGIC``, a header, the key it was made for, the import's notes, a block table and
blocks of 1,024 records each: every record's field values (its demangled name too) as a tuple,
``marshal``-ed (builtin types only; the fastest codec the standard library has for them) and
LZ4-compressed.  Opening an entry checks the header, the key and a CRC-32 of everything after it,
then hands back its records as :class:`.record_list.LazyRecords`: a block is decompressed and decoded the
first time one of its records is read, so opening libcusparse's 40,667 records reads ~4 MB and makes none of
them (nor any per-row object: libtorch_cuda's 143,409 lazy records took 96-103 ms of the GIL to make).
An entry that fails any check is ignored and removed, never trusted.  The directory is kept under a
size cap by removing the least recently used entries.  Nothing here raises to the caller: a cache
that cannot be read or written is no cache.
"""

from __future__ import annotations

import hashlib
import marshal
import operator
import os
import struct
import sys
import tempfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import lz4.block
import platformdirs

from .. import __version__
from .._process.cache_trim import remove, touch, trim
from .._process.collector import collection_paused
from .record_list import LazyRecords, Records, built_states, demangled_names
from .records import FIELDS, LATE_DEFAULTS, KernelRecord

CACHE_DIR_ENV = "OCCUPANCY_GUI_CACHE_DIR"
MAGIC = b"OCCRECS\x02"
FORMAT = 2  # bump when the payload's layout changes
DEFAULT_CAP = 512 << 20
"""Bytes the cache directory may hold (libcusparse's 63,400 records take ~1.5 MiB)."""
_HEADER = struct.Struct("<IIII")  # key length, CRC-32 of what follows the header, records, blocks
_BLOCK = struct.Struct("<QQQ")  # offset in the entry, compressed length, decoded length
_BLOCK_ROWS = 1024
_SUFFIX = ".records"
_COLUMNS = (*FIELDS, "demangled")


def default_cache_dir() -> Path:
    """``$OCCUPANCY_GUI_CACHE_DIR``, else the platform's user cache directory (``~/.cache`` here)."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_cache_dir("occupancy_gui")) / "imports"


def importer_version() -> str:
    """What the cached figures depend on besides the file: this package's version, the cache
    format, and the importer sources themselves (so that a fixed importer never serves old figures).
    A frozen bundle has no sources: it goes by its executable's size and time, which every rebuild
    changes (a bundle of a fixed importer may well keep the version number)."""
    digest = hashlib.blake2b(digest_size=8)
    if getattr(sys, "frozen", False):
        try:
            built = os.stat(sys.executable)
        except OSError:
            return f"{__version__}/{FORMAT}/unreadable"
        return f"{__version__}/{FORMAT}/frozen-{built.st_size}-{built.st_mtime_ns}"
    here = Path(__file__).resolve().parent  # the importers, their sub-packages too
    for source in sorted(here.rglob("*.py")):
        try:
            digest.update(source.relative_to(here).as_posix().encode() + b"\0" + source.read_bytes())
        except OSError:
            return f"{__version__}/{FORMAT}/unreadable"
    return f"{__version__}/{FORMAT}/{digest.hexdigest()}"


@dataclass(frozen=True)
class CachedImport:
    records: Records
    notes: list[str]


class RecordCache:
    """Import results by file identity in ``directory``, at most ``cap`` bytes of them."""

    def __init__(self, directory: Path | None = None, cap: int = DEFAULT_CAP):
        self.directory = directory if directory is not None else default_cache_dir()
        self.cap = cap
        self._version: str | None = None

    def _entry(self, path: str) -> Path:
        name = hashlib.blake2b(os.path.abspath(path).encode("utf-8", "surrogateescape"), digest_size=16)
        return self.directory / (name.hexdigest() + _SUFFIX)

    def key(self, path: str, fmt: str) -> bytes | None:
        """The identity of ``path`` as it is now; ``None`` where it cannot be stat-ed."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if self._version is None:
            self._version = importer_version()
        return "\0".join(
            (os.path.abspath(path), fmt, str(st.st_size), str(st.st_mtime_ns), str(st.st_ino), self._version)
        ).encode("utf-8", "surrogateescape")

    def get(self, path: str, key: bytes) -> CachedImport | None:
        """The cached import of ``path`` if one was stored under ``key`` (:meth:`key`)."""
        entry = self._entry(path)
        try:
            blob = entry.read_bytes()
        except OSError:
            return None
        with collection_paused():  # the notes; the records' states are made when first read
            decoded = _decode(blob, key)
        if decoded is None:
            remove(entry)
            return None
        touch(entry)  # least recently *used* is what the cap evicts
        return decoded

    def put(self, path: str, key: bytes, records: Sequence[KernelRecord], notes: list[str]) -> None:
        """Store an import under the key taken *before* the file was read (a file rewritten during
        the import then never matches it); a failure to write (read-only home, full disk) is no cache."""
        with collection_paused():  # 10^4-10^5 row tuples, none in a cycle
            blob = _encode(key, records, notes)
        if len(blob) > self.cap:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(blob)
                os.replace(tmp, self._entry(path))
            except BaseException:
                remove(Path(tmp))
                raise
        except OSError:
            return
        self._trim()

    def _trim(self) -> None:
        """Remove the least recently used entries until the directory holds at most ``cap`` bytes."""
        trim(self.directory, self.cap, lambda name: name.endswith(_SUFFIX) or name.startswith(".tmp-"))


_LATE = tuple(name for name in FIELDS if name in LATE_DEFAULTS)
assert FIELDS[len(FIELDS) - len(_LATE) :] == _LATE, "the fields a bulk dict may leave out come last"
_get_early = operator.itemgetter(*FIELDS[: len(FIELDS) - len(_LATE)])


def _rows(states: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Each record's ``_COLUMNS`` values, a record's fields read in one C call (``itemgetter``): one
    ``getattr`` a field took libcublasLt's 42,517 records 0.4-0.5 s, a first open's longest step after
    the reading (and a field at a time over every record, 0.2 s: each pass misses the cache on every
    record).  The demangled names are :func:`.record_list.demangled_names`'s."""
    late = [list(map(operator.methodcaller("get", name, LATE_DEFAULTS[name]), states)) for name in _LATE]
    return list(map(operator.add, map(_get_early, states), zip(*late, demangled_names(states))))


def _encode(key: bytes, records: Sequence[KernelRecord], notes: list[str]) -> bytes:
    # A block's rows at a time: all rows at once were freed in one go when this returned (libtorch_cuda's
    # 143,409 tuples: ~50 ms holding the GIL, felt by the window).
    states = built_states(records)
    raw = [marshal.dumps(_rows(states[at : at + _BLOCK_ROWS]), 4) for at in range(0, len(states), _BLOCK_ROWS)]
    count = len(states)
    blocks = [lz4.block.compress(block, store_size=False) for block in raw]
    notes_blob = marshal.dumps(list(notes), 4)
    table_at = len(MAGIC) + _HEADER.size + len(key) + 4 + len(notes_blob)
    at = table_at + _BLOCK.size * len(blocks)
    table = bytearray()
    for block, decoded in zip(blocks, raw):
        table += _BLOCK.pack(at, len(block), len(decoded))
        at += len(block)
    body = struct.pack("<I", len(notes_blob)) + notes_blob + bytes(table) + b"".join(blocks)
    return MAGIC + _HEADER.pack(len(key), zlib.crc32(body), count, len(blocks)) + key + body


class _Blocks:
    """The compressed blocks of one opened entry, each decoded when its records are first read (the build of
    :class:`.record_list.LazyRecords`): a block's states are made in C (``map``), a listing reads them all,
    and one by one each cost a Python call (libcusparse's 40,667: 0.25 s)."""

    def __init__(self, blob: bytes, table: list[tuple[int, int, int]]):
        self.blob = blob
        self.table = table

    def states(self, number: int) -> list[dict[str, Any]]:
        at, size, decoded = self.table[number]
        rows = marshal.loads(lz4.block.decompress(self.blob[at : at + size], uncompressed_size=decoded))
        return list(map(dict, map(zip, repeat(_COLUMNS), rows)))


def _decode(blob: bytes, key: bytes) -> CachedImport | None:
    """The entry's import, or ``None`` for anything that is not an intact entry for ``key``."""
    start = len(MAGIC) + _HEADER.size
    if len(blob) < start or not blob.startswith(MAGIC):
        return None
    key_len, crc, count, nblocks = _HEADER.unpack_from(blob, len(MAGIC))
    if blob[start : start + key_len] != key:
        return None  # another file's (a hash collision) or a stale one
    body = start + key_len
    if zlib.crc32(memoryview(blob)[body:]) != crc or nblocks != -(-count // _BLOCK_ROWS):
        return None
    try:
        (notes_len,) = struct.unpack_from("<I", blob, body)
        notes = marshal.loads(blob[body + 4 : body + 4 + notes_len])
        table_at = body + 4 + notes_len
        table = [_BLOCK.unpack_from(blob, table_at + _BLOCK.size * i) for i in range(nblocks)]
    except (ValueError, EOFError, TypeError, struct.error):
        return None
    if not isinstance(notes, list) or any(at + size > len(blob) for at, size, _ in table):
        return None
    return CachedImport(LazyRecords(count, _BLOCK_ROWS, _Blocks(blob, table).states), notes)
