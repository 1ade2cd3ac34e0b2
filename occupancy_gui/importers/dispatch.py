"""A file's import, whatever its format: the reader :func:`.detect.detect_format` names, the record cache where
a binary is concerned, the AMD readers beside the NVIDIA ones, and what the result must say of itself (the notes
of a log, the failure that explains an empty listing)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from .base import CancelFn, ImportFailure, ImportResult, ProgressFn
from .binary.cubin import import_cubin
from .binary.reader import import_fatbin_detailed
from .detect import HEAD_SIZE, detect_format
from .files import open_regular
from .names.printable import printable
from .record_list import Records, merge_records

if TYPE_CHECKING:
    from .amd.reader import RowsFn
    from .record_cache import RecordCache

Importer = Callable[..., Records]


def _host_binary(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    return import_fatbin_detailed(path, progress, cancel).records


# The text parsers load on first use (listing a binary needs none of them).  Plain import statements,
# not importlib: a bundler (PyInstaller) finds its modules by reading them.
def _ptxas_log(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    from .text.parallel import import_log  # noqa: PLC0415 - lazy: see above

    return import_log(path, progress=progress, cancel=cancel)


def _cuobjdump_text(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    from .text.cuobjdump_text import import_cuobjdump_text  # noqa: PLC0415 - lazy: see above

    return import_cuobjdump_text(path, progress=progress, cancel=cancel)


def _ncu_csv(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    from .text.ncu_csv import import_ncu_csv  # noqa: PLC0415 - lazy: see above

    return import_ncu_csv(path, progress=progress, cancel=cancel)


def _jit_cache(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    from .jit.triton_cache import import_jit_cache  # noqa: PLC0415 - lazy: see above

    return import_jit_cache(path, progress=progress, cancel=cancel)


IMPORTERS: dict[str, Importer] = {
    "jit_cache": _jit_cache,
    "ptxas_log": _ptxas_log,
    "cuobjdump_text": _cuobjdump_text,
    "ncu_csv": _ncu_csv,
    "cubin": import_cubin,
    "fatbin": _host_binary,
    "host_binary": _host_binary,
}
"""Format name -> ``importer(path, progress=None, cancel=None) -> Records``."""


_CACHED_FORMATS = ("cubin", "fatbin", "host_binary")
"""Formats whose import is worth a cache entry: binaries (seconds for a vendor library).  A log is
read at hundreds of MB/s and may list a million launches; it is read again."""


def import_file_detailed(
    path: str | os.PathLike[str],
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    cache: RecordCache | None = None,
    amd_rows: RowsFn | None = None,
) -> ImportResult:
    """The records and notes of a file; ``cache``: where a binary's import is looked up first and
    stored after (``RecordCache()`` is the user's cache directory); ``amd_rows`` is told the AMD records read so
    far, batch by batch (``amd.reader.read_amd``: the window lists them while the rest is read)."""
    name = os.fspath(path)
    fmt = "folder"
    if not os.path.isdir(name):
        try:
            with open_regular(name) as fh:
                head = fh.read(HEAD_SIZE)
        except OSError as exc:
            raise ImportFailure(name, exc.strerror or str(exc)) from None
        fmt = detect_format(name, head)
    from .amd.dispatch import import_with_amd  # noqa: PLC0415 - lazy: as in detect_format

    # AMD kernels (importers.amd): read alone where only AMD readers know the format; beside the NVIDIA
    # import (_nvidia_detailed) in host binaries and cache folders, which may hold both vendors' kernels.
    both = import_with_amd(
        name, fmt, lambda: _nvidia_detailed(name, fmt, progress, cancel, cache), progress, cancel, amd_rows
    )
    return both if both is not None else _nvidia_detailed(name, fmt, progress, cancel, cache)


def _nvidia_detailed(
    name: str, fmt: str, progress: ProgressFn | None, cancel: CancelFn | None, cache: RecordCache | None
) -> ImportResult:
    """The NVIDIA readers' import of ``name`` (format ``fmt``, ``"folder"`` for a directory)."""
    if fmt == "folder":  # a Triton / torch inductor / CuPy cache, or one kernel's folder
        return ImportResult(records=_jit_cache(name, progress, cancel))
    key = cache.key(name, fmt) if cache is not None and fmt in _CACHED_FORMATS else None
    if cache is not None and key is not None:
        hit = cache.get(name, key)
        if hit is not None:
            return _checked(name, fmt, ImportResult(records=hit.records, notes=hit.notes))
    if fmt in ("fatbin", "host_binary"):
        result = _binary(name, fmt, progress, cancel)
    else:
        result = ImportResult(records=IMPORTERS[fmt](name, progress=progress, cancel=cancel))
    if fmt == "ptxas_log":
        _log_notes(name, result)
    if fmt == "cuobjdump_text":  # binaries are merged as they are read; a log lists each launch/line
        result.records = merge_records(result.records)
        from .text.cuobjdump_text import window_notes  # noqa: PLC0415 - lazy: binaries need no text parser

        result.notes.extend(window_notes(name, result.records))
    _checked(name, fmt, result)
    if cache is not None and key is not None and result.records:  # (an empty listing's note is not kept)
        cache.put(name, key, result.records, result.notes)
    return result


def _binary(name: str, fmt: str, progress: ProgressFn | None, cancel: CancelFn | None) -> ImportResult:
    """A fatbin or host binary: a big host ELF by worker processes where they can, else serially."""
    if fmt == "host_binary" and os.path.getsize(name) >= PARALLEL_MIN_BYTES:
        from .binary.parallel import import_host_binary  # noqa: PLC0415 - lazy: multiprocessing, for big files only

        result = import_host_binary(name, progress, cancel)
        if result is not None:
            return result
    return import_fatbin_detailed(name, progress, cancel)


PARALLEL_MIN_BYTES = 32 << 20
"""Smaller binaries are read serially: starting worker processes costs more than they save."""


LAUNCH_BOUNDS_NOTE = (
    "a build log does not record launch bounds (__launch_bounds__, .maxntid, .reqntid) or cluster "
    "shapes: the object, cubin or executable the build wrote, or the source (occupancy import "
    "FILE.cu --arch sm_XY), carries them"
)
"""What to say of an import whose ``launch_bounds_unknown`` is set (its table shows "?" for the bound)."""


def _log_notes(name: str, result: ImportResult) -> None:
    """What a log's records cannot say, as notes and typed fields of ``result``: the build's first error (the
    failure itself where it printed no figures), the kernels it never finished (``incomplete``), and that no
    log records a launch bound (``launch_bounds_unknown``: no note, see :data:`LAUNCH_BOUNDS_NOTE`)."""
    from .text.log_text import LogRecords, failure_reason  # noqa: PLC0415 - lazy: loaded with the log parser

    records = result.records
    if not isinstance(records, LogRecords):
        return
    error = records.findings.first_error
    if error is not None and not records:
        raise ImportFailure(name, failure_reason(error), line=error[0])
    if error is not None:
        result.notes.append(
            f"{name}:{error[0]}: the build failed; kernels it could not compile are not in the log: {error[1]}"
        )
    result.incomplete = list(records.incomplete)
    for cut in result.incomplete:
        result.notes.append(
            f"{name}:{cut.line}: the log ends inside kernel {printable(cut.name)} ({cut.arch}): "
            "its figures are not in it, so it is not listed (the log was cut off)"
        )
    result.launch_bounds_unknown = bool(records)  # said by occupancy import (LAUNCH_BOUNDS_NOTE) and the window


def _checked(name: str, fmt: str, result: ImportResult) -> ImportResult:
    """``result``, unless it holds no records: then the failure that explains why."""
    if not result.records and not result.amd_records and not result.no_functions:
        if result.notes:
            raise ImportFailure(name, result.notes[0].split(": ", 1)[-1])
        if fmt == "ptxas_log":
            raise ImportFailure(
                name, "no ptxas or nvlink resource-usage lines found (build with -Xptxas -v or --resource-usage)"
            )
    return result


def import_file(
    path: str | os.PathLike[str],
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    cache: RecordCache | None = None,
) -> Records:
    """All kernels of a file, whatever its format (detected from its content)."""
    return import_file_detailed(path, progress, cancel, cache).records
