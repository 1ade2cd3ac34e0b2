"""A binary import, whatever the container: a ``.fatbin``, a static library, a bare offload binary or a host
binary (ELF, PE, Mach-O), read serially; one record per distinct copy of a function, and what a file without
any says of itself."""

from __future__ import annotations

import os
from collections.abc import Callable

from ..._process.collector import collection_paused
from ..base import ImportFailure, ImportResult
from ..files import open_regular
from ..record_list import merge_records
from . import offload
from .archive import AR_MAGIC, read_ar_archive
from .blob import Blob, FileImage
from .fatbin import FATBIN_MAGIC_BYTES, read_fatbin_bytes
from .host import read_host_binary, read_offload_section
from .inflate import Decoding, inflate_pool

_SKIPPED_HINTS = {
    "PTX": "registers and shared memory are decided when PTX is compiled (compile it with ptxas -v for a "
    "target, or rebuild with -arch=sm_XY)",
    "LTO IR": "registers and shared memory are decided at the device link of an nvcc -dlto build (import "
    "the linked executable, or rebuild with code=sm_XY beside lto_XY)",
}


def _note_skipped(path: str, result: ImportResult, work: Decoding) -> None:
    """A fatbin that yields no records says what it held: ELF images without a function (cuDSS's
    communication layers hold one each, beside an empty PTX entry), a valid file with no kernel, listed as
    cuobjdump lists it (nothing, exit 0) with a note; or it fails where instead of ELF images it holds PTX,
    LTO IR (libcufft carries 12,728 such entries) or kinds this reader does not know, skipped as cuobjdump
    skips them."""
    if result.records or result.notes:
        return
    skipped = work.skipped
    listed = ", ".join(f"{n} {what}" for what, n in sorted(skipped.items()))
    entries = f"entr{'ies' if sum(skipped.values()) != 1 else 'y'}"
    hints = [_SKIPPED_HINTS[what] for what in sorted(skipped) if what in _SKIPPED_HINTS]
    hint = "; ".join(hints) if len(hints) == len(skipped) else "nothing this reader can list"
    if work.images:
        empty = f"no function in the fatbin's {work.images} CUDA ELF image{'s' if work.images != 1 else ''}"
        beside = f"; beside {'it' if work.images == 1 else 'them'}, {listed} {entries}: {hint}" if skipped else ""
        result.notes.append(f"{path}: {empty}{beside}")
        result.no_functions = True
        return
    if not skipped:
        raise ImportFailure(path, "the fatbin holds no entries")
    raise ImportFailure(path, f"the fatbin holds no CUDA ELF image, only {listed} {entries}: {hint}")


def import_fatbin_detailed(
    path: str | os.PathLike[str],
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> ImportResult:
    """A fatbin, host binary or static library; only the parts that are parsed are read.

    One record per distinct copy of a function (see ``record_list.merge_records``).  ``progress(done,
    total)`` hears the bytes of the file reached; ``cancel()`` is polled at every container, image
    and 8 MB of data scanned (it raises ``ImportCancelled``).
    """
    name = os.fspath(path)
    try:
        with collection_paused(), open_regular(name) as stream:
            size = os.fstat(stream.fileno()).st_size
            image = FileImage(stream, size, name)
            image.load(0, 64)
            head = bytes(image.buffer[:8])
            result = ImportResult()
            work = Decoding(inflate_pool(), size, cancel, progress)
            work.path = name
            if head[:4] == FATBIN_MAGIC_BYTES:
                read_fatbin_bytes(image.view, name, image=image, result=result, work=work)
            elif head == AR_MAGIC:
                read_ar_archive(image.view, name, image=image, work=work, result=result)
            elif head[:4] == offload.MAGIC:  # a bare offload binary, as llvm-offload-binary -o writes one
                read_offload_section(Blob(image.view, name, image=image), 0, size, result, os.path.basename(name), work)
            else:
                read_host_binary(image.view, name, image=image, result=result, work=work)
            _note_skipped(name, result, work)
            result.records = merge_records(result.records)
            return result
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
