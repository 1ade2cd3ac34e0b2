"""Triton caches compiled for HIP: ``NAME.hsaco`` beside ``NAME.json`` in each kernel's folder.

The code object gives what any code object gives; the JSON gives the launch, which no code object records:
threads per block = ``num_warps`` x ``warp_size`` (64 on CDNA, 32 on RDNA), and the dynamic LDS =
``shared``, which Triton's launcher passes as the launch's dynamic shared memory (the code object's
``.group_segment_fixed_size`` stays 0: Triton keeps its LDS dynamic).  The same folder may hold NVIDIA
kernels (``NAME.cubin``), which the NVIDIA reader lists.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ..base import ImportCancelled, ImportFailure
from ..binary.blob import Blob
from ..files import read_input
from ..jit.triton_cache import MAX_DEPTH, MAX_ENTRIES, read_meta, triton_launch
from .bundles import Batch, Walk
from .code_object import read_code_object
from .record import AmdKernelRecord, with_launch

HSACO = ".hsaco"


def folder_batches(top: str, walk: Walk) -> Iterator[Batch]:
    """Every ``.hsaco`` below ``top`` (bounded depth and count), with its launch where a Triton JSON is
    beside it."""
    root = os.path.dirname(top.rstrip(os.sep)) or top
    found = _scan(top, walk)
    for i, path in enumerate(found):
        if walk.cancel is not None and walk.cancel():
            raise ImportCancelled(top)
        if walk.progress is not None:
            walk.progress(i + 1, len(found))
        yield _kernel_file(path, root, walk)


def beside_code_object(path: str, records: Batch, root: str = "") -> Batch:
    """``records`` of the code object ``path``, with the launch of a Triton ``NAME.json`` beside it (named
    relative to ``root`` where it lies below it)."""
    meta_path = path[: -len(HSACO)] + ".json" if path.endswith(HSACO) else None
    if meta_path is None or not os.path.isfile(meta_path):
        return records
    meta = read_meta(meta_path)
    return records if meta is None else _launched(records, meta, meta_path, _relative(meta_path, root))


def json_kernel(meta_path: str, walk: Walk) -> Batch:
    """The kernel a Triton ``NAME.json`` describes, read from the ``NAME.hsaco`` beside it."""
    return _kernel_file(meta_path[: -len(".json")] + HSACO, os.path.dirname(meta_path), walk)


def hsaco_beside(meta_path: str) -> bool:
    """Whether a ``NAME.json`` has the ``NAME.hsaco`` of a Triton HIP kernel beside it."""
    return meta_path.endswith(".json") and os.path.isfile(meta_path[: -len(".json")] + HSACO)


def _relative(path: str, root: str) -> str:
    rel = os.path.relpath(path, root) if root else path
    return path if rel.startswith("..") else rel


def _kernel_file(path: str, root: str, walk: Walk) -> Batch:
    name, data = read_input(path)
    records = read_code_object(Blob(data, name), _relative(path, root), walk.reading)
    return beside_code_object(path, records, root)


def _launched(records: Batch, meta: dict[str, Any], meta_path: str, shown: str) -> Batch:
    launch = triton_launch(meta, meta_path)
    kernel = meta.get("name")
    out: list[AmdKernelRecord] = []
    for rec in records:
        if kernel is None or rec.name == kernel:
            rec = with_launch(rec, launch["block_size"], launch["dynamic_smem"] or 0, shown)
        out.append(rec)
    return out


def _scan(top: str, walk: Walk) -> list[str]:
    """The ``.hsaco`` files below ``top``, sorted (bounded depth and entry count, as the NVIDIA scan)."""
    found: list[str] = []
    seen = 0
    stack = [(top, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            if folder == top:
                raise ImportFailure(top, exc.strerror or str(exc)) from None
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                raise ImportFailure(
                    top,
                    f"more than {MAX_ENTRIES} files and folders below it: choose the "
                    "cache folder itself (e.g. ~/.triton/cache)",
                )
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH:
                    stack.append((entry.path, depth + 1))
            elif entry.name.endswith(HSACO) and entry.is_file():
                found.append(entry.path)
        if walk.cancel is not None and walk.cancel():
            raise ImportCancelled(top)
    return sorted(found)
