"""Kernels from JIT caches: Triton's (and torch inductor's) ``NAME.json`` + ``NAME.cubin`` folders, CuPy's.

A Triton cache (``TRITON_CACHE_DIR``, ``~/.triton/cache``; inductor's ``/tmp/torchinductor_$USER/triton``)
holds one folder per compiled kernel; the folder holds ``NAME.cubin`` and ``NAME.json``, the
metadata the launcher reads.  The cubin gives what any cubin gives (registers, static shared memory,
barriers, launch bounds); the JSON gives the launch, which a cubin never records:

* threads per block = ``num_warps`` x ``warp_size`` (Triton launches ``blockDim.x = 32 * num_warps``);
* dynamic shared memory = ``shared`` (the launcher passes it as ``sharedMemBytes`` and, above 48 KiB,
  sets the kernel's opt-in attribute itself);
* cluster: ``cluster_dims`` (Triton < 3.4) or ``num_ctas`` CTAs along x, where above one;
* ``maxnreg``, the register cap it compiled with.

CuPy keeps each cubin in its kernel cache behind the hex digest of the cubin (MD5 before CuPy 14, SHA-1
after); such files are recognised by content, whatever their name.

Accepted paths: a cache root (searched ``MAX_DEPTH`` folders down), one kernel folder, one ``NAME.json``
beside its cubin, or one CuPy cache file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from typing import Any

from ..base import ImportCancelled, ImportFailure
from ..binary.cubin import read_cubin
from ..binary.elf import ELF_MAGIC
from ..files import read_input
from ..record_list import Records

MAX_DEPTH = 6
"""Folders below the given one that are searched (inductor: ``triton/<device>/<hash>/``)."""
MAX_ENTRIES = 200_000
"""Directory entries visited at most: a user who drops their home folder gets an answer, not a hang."""
MAX_THREADS = 1024
"""CUDA's limit on threads per block: a bigger launch is no Triton kernel's."""
_JSON_LIMIT = 4 << 20
"""A kernel's metadata is a few KiB; a bigger ``.json`` is not Triton's."""
_CUPY_PREFIX = re.compile(rb"([0-9a-f]{40}|[0-9a-f]{32})\x7fELF")
_DIGESTS = {32: hashlib.md5, 40: hashlib.sha1}

ProgressFn = Callable[[int, int], None]
CancelFn = Callable[[], bool]


def cupy_payload(data: bytes) -> tuple[int, str] | None:
    """(offset of the cubin, digest name) of a CuPy cache file, ``None`` for anything else."""
    m = _CUPY_PREFIX.match(data[:45])
    return (len(m.group(1)), "md5" if len(m.group(1)) == 32 else "sha1") if m else None


def looks_like_triton_json(head: bytes) -> bool:
    """A Triton kernel's metadata: a JSON object naming ``num_warps`` and a ``target``."""
    start = head.lstrip()[:1]
    return start == b"{" and b'"num_warps"' in head and b'"name"' in head


def import_jit_cache(
    path: str | os.PathLike[str], progress: ProgressFn | None = None, cancel: CancelFn | None = None
) -> Records:
    """Every kernel of a Triton/inductor/CuPy cache path (see the module docstring)."""
    name = os.fspath(path)
    if os.path.isdir(name):
        records = _import_tree(name, progress, cancel)
        if not records:
            raise ImportFailure(
                name,
                "a directory with no Triton kernel folders (NAME.json beside NAME.cubin) or CuPy cache files in it",
            )
        return records
    root = os.path.dirname(name)
    if name.endswith(".json"):
        return _triton_kernel(name, root)
    return _cupy_file(name, root)


def _relative(path: str, root: str) -> str:
    rel = os.path.relpath(path, root) if root else path
    return path if rel.startswith("..") else rel


def _import_tree(top: str, progress: ProgressFn | None, cancel: CancelFn | None) -> Records:
    root = os.path.dirname(top.rstrip(os.sep)) or top
    jsons, cubins = _scan(top, cancel)
    records = Records()
    claimed: set[str] = set()
    total = len(jsons) + len(cubins)
    for i, meta in enumerate(jsons):
        if cancel is not None and cancel():
            raise ImportCancelled(top)
        cubin = _cubin_beside(meta)
        if cubin is None or read_meta(meta) is None:
            continue  # some other JSON (inductor's own files, Triton's __grp__ lists)
        claimed.add(cubin)
        records += _triton_kernel(meta, root)
        if progress is not None:
            progress(i + 1, total)
    for j, cubin in enumerate(cubins):
        if cubin in claimed:
            continue
        if cancel is not None and cancel():
            raise ImportCancelled(top)
        records += _cupy_file(cubin, root, plain_ok=True)
        if progress is not None:
            progress(len(jsons) + j + 1, total)
    return records


def _scan(top: str, cancel: CancelFn | None) -> tuple[list[str], list[str]]:
    """The ``.json`` and ``.cubin`` files below ``top`` (sorted; bounded depth and entry count)."""
    jsons: list[str] = []
    cubins: list[str] = []
    seen = 0
    stack = [(top, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            if folder == top:
                raise ImportFailure(top, exc.strerror or str(exc)) from None
            continue  # an unreadable subfolder of a big tree: skip it
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
            elif not entry.is_file():  # a FIFO, a device, a dangling link: nothing a cache holds
                continue
            elif entry.name.endswith(".json") and not entry.name.startswith("__grp__"):
                jsons.append(entry.path)
            elif entry.name.endswith(".cubin"):
                cubins.append(entry.path)
        if cancel is not None and cancel():
            raise ImportCancelled(top)
    return sorted(jsons), sorted(cubins)


def _cubin_beside(meta_path: str) -> str | None:
    cubin = meta_path[: -len(".json")] + ".cubin"
    return cubin if os.path.isfile(cubin) else None


def read_meta(path: str) -> dict[str, Any] | None:
    """The metadata of a Triton kernel, ``None`` for a JSON file that is not one (NVIDIA's and AMD's caches alike)."""
    try:
        if os.path.getsize(path) > _JSON_LIMIT:
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ImportFailure(path, exc.strerror or str(exc)) from None
    if not looks_like_triton_json(data):
        return None
    try:
        meta = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ImportFailure(path, f"invalid JSON: {exc}", line=getattr(exc, "lineno", None)) from None
    return meta if isinstance(meta, dict) and "num_warps" in meta else None


def _int(meta: dict[str, Any], key: str, path: str, default: int | None = None, low: int = 0) -> int | None:
    value = meta.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ImportFailure(path, f"field {key!r}: expected an integer >= {low}, got {value!r}")
    return value


def _cluster(meta: dict[str, Any], path: str) -> tuple[int, int, int] | None:
    dims = meta.get("cluster_dims")
    if dims is not None:
        if (
            not isinstance(dims, list)
            or len(dims) != 3
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims)
        ):
            raise ImportFailure(path, f"field 'cluster_dims': expected three integers >= 1, got {dims!r}")
        if tuple(dims) != (1, 1, 1):
            return (dims[0], dims[1], dims[2])
    ctas = _int(meta, "num_ctas", path, 1, low=1)
    return (ctas, 1, 1) if ctas and ctas > 1 else None


def triton_launch(meta: dict[str, Any], path: str) -> dict[str, Any]:
    """The record fields a Triton kernel's metadata sets: its launch, cluster and register cap."""
    warps = _int(meta, "num_warps", path, low=1)
    if warps is None:
        raise ImportFailure(path, "field 'num_warps': missing (Triton writes the launch's warps there)")
    warp_size = _int(meta, "warp_size", path, None, low=1)
    if warp_size is None:
        target = meta.get("target")
        warp_size = target.get("warp_size", 32) if isinstance(target, dict) else 32
        warp_size = _int({"warp_size": warp_size}, "warp_size", path, 32, low=1)
    assert warp_size is not None
    if warps * warp_size > MAX_THREADS:
        raise ImportFailure(
            path,
            f"field 'num_warps': {warps} warps of {warp_size} threads is above CUDA's {MAX_THREADS} threads per block",
        )
    shared = _int(meta, "shared", path, 0)
    if shared is not None and shared >= 1 << 31:
        raise ImportFailure(path, f"field 'shared': {shared} bytes is not a shared memory size")
    out: dict[str, Any] = {"block_size": warps * warp_size, "dynamic_smem": shared, "launch_source": path}
    cluster = _cluster(meta, path)
    if cluster is not None:
        out["cluster_dims"] = cluster
    maxnreg = _int(meta, "maxnreg", path, None, low=1)
    if maxnreg is not None:
        out["max_registers"] = maxnreg
    return out


def _with(state: dict[str, Any], changes: dict[str, Any]) -> None:
    """A kernel's state given its launch (``changes``), in place."""
    # A cubin's own figures (EIATTR cluster dims, max reg count) win over the metadata's.
    for key in ("cluster_dims", "max_registers"):
        if state.get(key) is not None:
            changes.pop(key, None)
    state.update(changes)


def _triton_kernel(meta_path: str, root: str) -> Records:
    meta = read_meta(meta_path)
    if meta is None:
        raise ImportFailure(meta_path, 'not a Triton kernel\'s metadata (no "num_warps" and "name" keys)', line=1)
    cubin = _cubin_beside(meta_path)
    if cubin is None:
        raise ImportFailure(
            meta_path,
            f"no {os.path.basename(meta_path)[:-5]}.cubin beside it (Triton writes both into the kernel's folder)",
        )
    name, data = read_input(cubin)
    launch = triton_launch(meta, _relative(meta_path, root))
    kernel = meta.get("name")
    records = read_cubin(data, name, source_prefix=_relative(cubin, root))
    for state in records.states():
        if state["is_kernel"] and (kernel is None or state["name"] == kernel):
            _with(state, dict(launch))
    return records


def _cupy_file(path: str, root: str, plain_ok: bool = False) -> Records:
    name, data = read_input(path)
    found = cupy_payload(data)
    if found is None:
        if plain_ok and data.startswith(ELF_MAGIC):  # a plain cubin in a cache folder
            return read_cubin(data, name, source_prefix=_relative(path, root))
        if plain_ok:
            return Records()
        raise ImportFailure(name, "not a CuPy kernel-cache file (a hex digest followed by a cubin)", offset=0)
    start, digest = found
    payload = data[start:]
    if _DIGESTS[start](payload).hexdigest().encode() != data[:start]:
        raise ImportFailure(
            name,
            f"the {digest} digest at the start does not match the cubin after it "
            "(a damaged or partly written cache file)",
            offset=0,
        )
    return read_cubin(payload, name, base=start, source_prefix=_relative(path, root))
