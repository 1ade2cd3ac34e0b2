"""Static libraries (``!<arch>``, GNU or BSD member names): every member that holds a fatbin."""

from __future__ import annotations

import os

from ..base import ImportFailure, ImportResult
from .blob import Blob, FileImage
from .elf import ELF_MAGIC
from .embedded import MagicScan
from .fatbin import FATBIN_MAGIC_BYTES, read_fatbin_bytes
from .host import read_host_binary
from .inflate import Decoding, inflate_pool

AR_MAGIC = b"!<arch>\n"
_MAX_MEMBERS = 100_000


_MAX_LONG_NAMES = 64 << 20  # a GNU long-name table; real ones are KBs


def read_ar_archive(
    data: bytes | memoryview,
    path: str,
    image: FileImage | None = None,
    work: Decoding | None = None,
    result: ImportResult | None = None,
) -> ImportResult:
    """Every member of a static library (``!<arch>``, GNU or BSD names) that holds a fatbin.

    Members without device code (host-only objects, symbol tables) are skipped; an archive with
    none at all is an ImportFailure, as is a member header that is damaged or runs past the end.
    ``image``: the file ``data`` is a view of, read only where parsed (a 700 MB ``libcublas_static.a``
    costs its headers and fatbins, not its size).
    """
    result = result if result is not None else ImportResult()
    blob = Blob(data, path, image=image)
    work = work if work is not None else Decoding(inflate_pool(), len(data))
    prefix = os.path.basename(path)
    long_names = b""
    pos = len(AR_MAGIC)
    members = 0
    n = len(data)
    while pos < n:
        if pos + 1 == n and blob.bytes(pos, 1, "ar padding") == b"\n":
            break  # the padding byte of an odd-sized last member
        work.step(pos)
        header = blob.bytes(pos, 60, "ar member header")
        if header[58:60] != b"`\n":
            raise blob.fail("ar member header has no end marker (damaged archive)", pos + 58)
        members += 1
        if members > _MAX_MEMBERS:
            raise blob.fail("too many ar members", pos)
        size_text = header[48:58].strip()
        if not size_text.isdigit():
            raise blob.fail(f"ar member size {size_text[:10]!r} is not a number", pos + 48)
        size = int(size_text)
        start = pos + 60
        if start + size > n:
            raise blob.fail(f"ar member of {size} bytes runs past the end of the archive", pos + 48)
        raw_name = header[:16].rstrip(b" ")
        body_start = start
        if raw_name.startswith(b"#1/") and raw_name[3:].isdigit():  # BSD: the name follows the header
            name_len = min(int(raw_name[3:]), size, 4096)
            raw_name = blob.bytes(start, name_len, "ar member name").rstrip(b"\0")
            body_start = start + name_len
        elif raw_name == b"//":  # GNU long-name table
            if size > _MAX_LONG_NAMES:
                raise blob.fail(f"ar long-name table claims {size} bytes", pos + 48)
            long_names = blob.bytes(start, size, "ar long-name table")
        elif raw_name.startswith(b"/") and raw_name[1:].isdigit():
            at = int(raw_name[1:])
            end = long_names.find(b"/\n", at)
            raw_name = long_names[at : end if end >= 0 else at + 256]
        member = raw_name.rstrip(b"/").decode("utf-8", "replace") or "?"
        end = start + size
        head = blob.bytes(body_start, min(4, end - body_start), "ar member") if end > body_start else b""
        if raw_name not in (b"/", b"//", b"__.SYMDEF", b"__.SYMDEF SORTED", b"/SYM64/") and (
            head in (ELF_MAGIC, FATBIN_MAGIC_BYTES)
            or next(iter(MagicScan(blob, body_start, end, work)), None) is not None
        ):
            label = f"{prefix}({member})"
            body = memoryview(data)[body_start:end]
            try:
                if head == FATBIN_MAGIC_BYTES:
                    read_fatbin_bytes(body, path, base=body_start, prefix=label, result=result, image=image, work=work)
                else:
                    read_host_binary(body, path, base=body_start, prefix=label, result=result, image=image, work=work)
            except ImportFailure as exc:
                if "no CUDA fatbinary found" not in exc.reason:
                    raise
        pos = end + (size & 1)
    if not result.records and not result.notes:
        raise ImportFailure(path, f"no CUDA device code in any of the archive's {members} members", offset=0)
    return result
