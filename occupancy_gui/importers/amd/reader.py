"""The AMD readers' entry points: what kind of AMD input a file is, and its records, streamed or whole.

Kinds (:func:`sniff`): ``amd_code_object`` (an HSACO: ``.co``, ``.hsaco``), ``amd_bundle`` (a plain or
compressed offload bundle file, as ``clang --cuda-device-only`` without ``--no-gpu-bundle-output`` writes),
``amd_log`` (clang's ``-Rpass-analysis=kernel-resource-usage`` remarks, ``--save-temps`` assembly); host
containers (objects, libraries, executables) and cache folders are read by :func:`iter_batches` with kind
``host`` and ``folder``, beside the NVIDIA readers.

:func:`iter_batches` hands out records a code object at a time, so that a caller shows the first rows of a
library of 10^5 kernels while the rest is read; :func:`read_amd` gathers them, merging identical copies.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..._process.collector import collection_paused
from ..base import ImportFailure
from ..binary.blob import Blob, FileImage
from ..files import open_regular
from .bundle import CCOB_MAGIC, PLAIN_MAGIC
from .bundles import Batch, Walk, bundles_in
from .code_object import is_amdgpu_elf, read_code_object
from .host import host_batches
from .record import AmdKernelRecord, CopyMerger

CODE_OBJECT, BUNDLE, LOG, HOST, FOLDER = "amd_code_object", "amd_bundle", "amd_log", "host", "folder"
ONLY_AMD = (CODE_OBJECT, BUNDLE, LOG)
"""Kinds that hold AMD kernels only (the NVIDIA readers are not asked)."""

ProgressFn = Callable[[int, int], None]
CancelFn = Callable[[], bool]


@dataclass
class AmdImport:
    """An AMD import's records (identical copies merged) and its notes (entries skipped, and why)."""

    records: list[AmdKernelRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def sniff(path: str, head: bytes) -> str | None:
    """The AMD-only kind of a file from its first bytes (``None``: not one; a host container is not)."""
    if is_amdgpu_elf(head):
        return CODE_OBJECT
    if head.startswith(PLAIN_MAGIC) or (head.startswith(CCOB_MAGIC) and head[4:5] in (b"\1", b"\2", b"\3")):
        return BUNDLE
    from .logs import looks_like_amd_log  # noqa: PLC0415 - lazy: binaries need no text parser

    return LOG if looks_like_amd_log(head) else None


def iter_batches(path: str, kind: str, walk: Walk) -> Iterator[Batch]:
    """The records of ``path`` read as ``kind``, a code object (or a log, or a cache folder) at a time."""
    if kind == FOLDER:
        from .triton import folder_batches  # noqa: PLC0415 - lazy: only folders need it

        yield from folder_batches(path, walk)
        return
    if kind == LOG:
        from .logs import log_records  # noqa: PLC0415 - lazy: only logs need it

        yield log_records(path, walk)
        return
    with open_regular(path) as stream:
        size = os.fstat(stream.fileno()).st_size
        walk.file_size = size
        image = FileImage(stream, size, path)
        blob = Blob(image.view, path, image=image)
        prefix = os.path.basename(path)
        if kind == CODE_OBJECT:
            records = read_code_object(blob, prefix, walk.reading)
            from .triton import beside_code_object  # noqa: PLC0415 - lazy: a Triton JSON beside it, if any

            yield beside_code_object(path, records)
        elif kind == BUNDLE:
            yield from bundles_in(blob, 0, size, prefix, walk)
        else:
            yield from host_batches(blob, prefix, walk)


RowsFn = Callable[[list[AmdKernelRecord]], None]
"""Told the records read so far (identical copies merged) after each batch: a live list, to copy if kept."""


def read_amd(
    path: str | os.PathLike[str],
    kind: str,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    rows: RowsFn | None = None,
) -> AmdImport:
    """Every AMD kernel of ``path`` read as ``kind`` (:func:`sniff`'s, or ``host``/``folder``); ``rows`` is told
    the records merged so far after each batch (the window lists them while the rest is read)."""
    name = os.fspath(path)
    walk = Walk(name, 0, cancel=cancel, progress=progress)
    merger = CopyMerger()
    try:
        with collection_paused():
            for batch in iter_batches(name, kind, walk):
                merger.add(batch)
                if rows is not None and batch:
                    rows(merger.records)
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
    return AmdImport(merger.records, walk.reading.notes + skipped_notes(walk))


def skipped_notes(walk: Walk) -> list[str]:
    """One note per kind of bundle entry passed over."""
    notes = []
    for what, count in sorted(walk.skipped.items()):
        why = (
            (
                "built with -fgpu-rdc or offload LTO: registers are decided at the device link, so import the "
                "linked library"
            )
            if what.startswith("LLVM bitcode")
            else "no AMDGPU code object in it"
        )
        notes.append(f"{walk.path}: {count} {what} entr{'ies' if count != 1 else 'y'} skipped: {why}")
    return notes
