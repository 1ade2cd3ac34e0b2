"""Where AMD inputs meet ``importers.import_file_detailed``: the one hook the shared entry point calls.

* A file only AMD readers understand (a code object, a bundle file, an AMD log; a Triton ``NAME.json``
  whose ``NAME.hsaco`` is beside it) is read here alone.
* A host container (object, library, executable, static library) and a cache folder may hold NVIDIA and AMD
  kernels both: the AMD readers run first, then the NVIDIA ones; where AMD kernels were found, the NVIDIA
  readers' "nothing of mine here" failure is no failure, and any other becomes a note.

The result is the NVIDIA readers' ``ImportResult`` with its ``amd_records`` filled.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..base import ImportFailure
from .reader import FOLDER, HOST, ONLY_AMD, AmdImport, RowsFn, read_amd, sniff

if TYPE_CHECKING:
    from ..base import CancelFn, ImportResult, ProgressFn

_HOST_FORMATS = ("host_binary",)
_NOT_NVIDIA = ("no CUDA", "not NVIDIA device code", "a directory with no Triton kernel folders")
_AMD_NOTE_WORDS = ("amdgcn", "AMDGPU")


def amd_format(path: str, head: bytes) -> str | None:
    """The AMD-only kind of ``path`` (``detect_format``'s answer for it), or ``None``."""
    kind = sniff(path, head)
    if kind is not None:
        return kind
    from .triton import hsaco_beside  # noqa: PLC0415 - lazy: only JSON files ask

    if path.endswith(".json") and head.lstrip()[:1] == b"{" and hsaco_beside(path):
        return "amd_triton_json"
    return None


def import_with_amd(
    path: str,
    fmt: str,
    nvidia: Callable[[], ImportResult],
    progress: ProgressFn | None,
    cancel: CancelFn | None,
    rows: RowsFn | None = None,
) -> ImportResult | None:
    """The import of ``path`` (format ``fmt``, ``"folder"`` for a directory) with its AMD kernels, or ``None``
    where AMD readers have nothing to say about this format (the caller goes on as before).  ``nvidia()``
    runs the NVIDIA import; ``rows`` is told the AMD records read so far (``reader.read_amd``)."""
    from ..base import ImportResult  # noqa: PLC0415 - the result type, filled here

    if fmt in ONLY_AMD or fmt == "amd_triton_json":
        amd = _read(path, fmt, progress, cancel, rows)
        if not amd.records:
            raise ImportFailure(
                path,
                amd.notes[0].split(": ", 1)[-1]
                if amd.notes
                else "no kernels in it (a code object's kernels are its metadata entries with a kernel descriptor)",
            )
        return ImportResult(notes=amd.notes, amd_records=amd.records)
    if fmt not in _HOST_FORMATS and fmt != FOLDER:
        return None
    amd = _read(path, HOST if fmt != FOLDER else FOLDER, progress, cancel, rows)
    if not amd.records:  # the NVIDIA import as it always was; where it finds nothing, AMD's notes say why
        try:
            return nvidia()
        except ImportFailure as exc:
            if amd.notes and any(words in exc.reason for words in _NOT_NVIDIA):
                raise ImportFailure(path, amd.notes[0].split(": ", 1)[-1]) from None
            raise
    try:
        result = nvidia()
    except ImportFailure as exc:
        result = ImportResult()
        if not any(words in exc.reason for words in _NOT_NVIDIA):
            result.notes.append(f"{path}: NVIDIA device code: {exc.reason}")
    result.notes = [note for note in result.notes if not any(word in note for word in _AMD_NOTE_WORDS)] + amd.notes
    result.amd_records = amd.records
    return result


def _read(
    path: str, fmt: str, progress: ProgressFn | None, cancel: CancelFn | None, rows: RowsFn | None = None
) -> AmdImport:
    if fmt == "amd_triton_json":
        from .bundles import Walk  # noqa: PLC0415 - lazy: as below
        from .record import merge_copies  # noqa: PLC0415 - lazy: a single kernel's JSON
        from .triton import json_kernel  # noqa: PLC0415 - lazy: only Triton JSON files

        walk = Walk(os.fspath(path), 0)
        return AmdImport(merge_copies(json_kernel(path, walk)), walk.reading.notes)
    return read_amd(path, fmt, progress, cancel, rows)
