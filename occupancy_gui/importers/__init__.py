"""Importers: kernel resource usage from compiler logs, ``cuobjdump`` output, CUDA binaries and JIT caches.

Public API (everything outside this package imports from here, never from a submodule: an import-linter
``protected`` contract holds it)::

    detect_format(path, head) -> str        # "ptxas_log", "cuobjdump_text", "ncu_csv", "cubin", "fatbin",
                                            # "host_binary" (ELF/PE/Mach-O, ``!<arch>`` static libraries
                                            # and clang's LLVM offload binaries),
                                            # "jit_cache" (a Triton NAME.json, a CuPy cache file; folders too)
    import_file(path, progress=None, cancel=None) -> Records   # a sequence of KernelRecord (record_list)
    import_file_detailed(path, ...) -> ImportResult   # records plus per-entry notes (skipped entries);
                                            # its amd_records: AMD kernels (importers.amd), which
                                            # import_file leaves out until the window takes them
    IMPORTERS                               # format name -> importer
    RecordCache                             # our own cache of import results (a binary's second open)

The house, by kind of input:

* ``base``: what every reader returns and takes (:class:`ImportResult`, :class:`ImportFailure`,
  :class:`ImportCancelled`, the progress and cancel callbacks); ``records``: :class:`KernelRecord` and what is
  worked out from records (merging copies, impossible figures); ``files``: opening an input;
* ``detect`` and ``dispatch``: which reader reads a file, and the import of a file as a whole;
* ``binary``: ELF/cubin, fatbin containers, host binaries (ELF, PE), offload binaries, ``ar`` archives, the
  inflation of compressed images within one budget, and the parallel reader of big binaries;
* ``text``: ``ptxas``/``nvlink`` logs, ``cuobjdump`` text, Nsight Compute CSV, and the parallel log reader;
* ``jit``: the kernel caches of JIT compilers (Triton, torch inductor, CuPy);
* ``names``: demangling and printable names; ``amd``: the AMD vendor package;
* ``record_cache``: our cache of import results; ``json_rows``: ``occupancy import --json``'s rows.

Every failure is an :class:`ImportFailure` (a ``ValueError``) whose message names the file and the line or byte
offset.  Nothing here imports Qt.  The names below load on first use (PEP 562): the window starts without
loading an importer, and a binary's import loads no text parser.  (The frozen bundle collects every submodule
whatever names it, ``packaging/occupancy_gui.spec``.)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "HEAD_SIZE",
    "IMPORTERS",
    "LAUNCH_BOUNDS_NOTE",
    "STACK_UNKNOWN",
    "AmdKernelRecord",
    "CancelFn",
    "ImportCancelled",
    "ImportFailure",
    "ImportResult",
    "IncompleteKernel",
    "KernelRecord",
    "ProgressFn",
    "RecordCache",
    "Records",
    "amd_json_rows",
    "amd_table",
    "arch_number",
    "built_states",
    "demangle",
    "demangled_names",
    "detect_format",
    "impossible_figure",
    "impossible_figures",
    "import_file",
    "import_file_detailed",
    "json_records",
    "merge_records",
    "padded_vgprs",
    "parse_ptxas_log",
    "printable",
    "read_cubin",
    "reader_modules",
    "record_json",
]

if TYPE_CHECKING:  # what the names below are, for a type checker; at run time they load on first use
    from .amd.json_rows import amd_json_rows, amd_table
    from .amd.record import AmdKernelRecord, padded_vgprs
    from .base import CancelFn, ImportCancelled, ImportFailure, ImportResult, IncompleteKernel, ProgressFn
    from .binary.cubin import read_cubin
    from .detect import HEAD_SIZE, detect_format
    from .dispatch import IMPORTERS, LAUNCH_BOUNDS_NOTE, import_file, import_file_detailed
    from .json_rows import json_records, record_json
    from .names.demangle import demangle
    from .names.printable import printable
    from .record_cache import RecordCache
    from .record_list import Records, built_states, demangled_names, impossible_figures, merge_records
    from .records import STACK_UNKNOWN, KernelRecord, arch_number, impossible_figure
    from .text.ptxas_log import parse_bytes as parse_ptxas_log

_WHERE = {
    **dict.fromkeys(
        ("CancelFn", "ImportCancelled", "ImportFailure", "ImportResult", "IncompleteKernel", "ProgressFn"), ".base"
    ),
    **dict.fromkeys(("STACK_UNKNOWN", "KernelRecord", "arch_number", "impossible_figure"), ".records"),
    **dict.fromkeys(
        ("Records", "built_states", "demangled_names", "impossible_figures", "merge_records"), ".record_list"
    ),
    **dict.fromkeys(("IMPORTERS", "LAUNCH_BOUNDS_NOTE", "import_file", "import_file_detailed"), ".dispatch"),
    **dict.fromkeys(("HEAD_SIZE", "detect_format"), ".detect"),
    **dict.fromkeys(("json_records", "record_json"), ".json_rows"),  # the command's: the window never loads msgspec
    **dict.fromkeys(("amd_json_rows", "amd_table"), ".amd.json_rows"),
    **dict.fromkeys(("AmdKernelRecord", "padded_vgprs"), ".amd.record"),
    "RecordCache": ".record_cache",  # platformdirs, hashlib, tempfile: 25 ms a worker process never needs
    "demangle": ".names.demangle",
    "printable": ".names.printable",
    "read_cubin": ".binary.cubin",
}
"""Where each public name lives (``parse_ptxas_log``: ``.text.ptxas_log``'s ``parse_bytes``)."""

_READERS_LOADED_LATER = (
    ".text.parallel",
    ".text.cuobjdump_text",
    ".text.ncu_csv",
    ".jit.triton_cache",
    ".binary.parallel",
    ".amd.dispatch",
)
"""The readers an import loads only when a file needs them."""


def __getattr__(name: str) -> Any:
    if name == "parse_ptxas_log":
        value: Any = importlib.import_module(".text.ptxas_log", __name__).parse_bytes
    elif name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next read is a plain one
    return value


def reader_modules() -> tuple[Any, ...]:
    """Every reader that an import loads only when a file needs it, loaded now: the window's self-test asks
    a frozen bundle for them (a bundle that lacks one would fail only on the first file that needs it)."""
    return tuple(importlib.import_module(module, __name__) for module in _READERS_LOADED_LATER)
