"""Which format a file is in, from its first bytes (the extension only a hint): the one place that decides which
reader reads it."""

from __future__ import annotations

import os

from .base import ImportFailure
from .binary.cubin import is_cuda_elf
from .binary.elf import ELF_MAGIC
from .binary.fatbin import FATBIN_MAGIC_BYTES
from .binary.offload import MAGIC as OFFLOAD_MAGIC
from .text.line_chunks import sniff_utf16

HEAD_SIZE = 64 << 10
"""Bytes of a file's head that :func:`detect_format` needs at most."""

_BINARY_MAGICS = (b"MZ", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"!<arch>\n", OFFLOAD_MAGIC)
"""PE, Mach-O (64-bit, universal), static libraries and LLVM offload binaries (``llvm-offload-binary -o``)."""
# Bytes a text log may hold: everything but the C0 controls other than \t \n \f \r ESC, and DEL.
_TEXT_BYTES = bytes([9, 10, 12, 13, 27]) + bytes(range(32, 127)) + bytes(range(128, 256))
_LOG_MARKERS = (b"ptxas", b"nvlink", b"nvcc", b"Compiling entry function", b"bytes stack frame")


def detect_format(path: str | os.PathLike[str], head: bytes) -> str:
    """The format of a file from its first bytes (``HEAD_SIZE`` is plenty), extension as a hint.

    Raises :class:`ImportFailure` when the content is none of the known formats.
    """
    name = os.fspath(path)
    from .amd.dispatch import amd_format  # noqa: PLC0415 - lazy: the AMD readers load with the first file

    amd = amd_format(name, head)
    if amd is not None:
        return amd  # an AMD code object, bundle, log or Triton JSON (importers.amd)
    if head.startswith(FATBIN_MAGIC_BYTES):
        return "fatbin"
    if head.startswith(ELF_MAGIC):
        return "cubin" if is_cuda_elf(head) else "host_binary"
    if head.startswith(_BINARY_MAGICS):
        return "host_binary"
    from .jit.triton_cache import cupy_payload, looks_like_triton_json  # noqa: PLC0415 - lazy: as below

    if cupy_payload(head) or (name.endswith(".json") and looks_like_triton_json(head)):
        return "jit_cache"  # a CuPy cache file, a Triton kernel's NAME.json
    from .text.cuobjdump_text import looks_like_cuobjdump  # noqa: PLC0415 - lazy: binaries need no text parser
    from .text.ncu_csv import looks_like_ncu_csv  # noqa: PLC0415 - lazy: as above

    utf16 = sniff_utf16(head)
    text = head
    if utf16:
        text = head.decode(utf16, "replace").encode("utf-8", "replace")
    if looks_like_ncu_csv(text):
        return "ncu_csv"
    if looks_like_cuobjdump(text):
        return "cuobjdump_text"
    if not head:
        raise ImportFailure(name, "the file is empty", offset=0)
    sample = text[:8192]
    if utf16 is None and len(sample.translate(None, _TEXT_BYTES)) > len(sample) // 100 + 1:
        raise ImportFailure(
            name, "unrecognised binary file (not ELF, fatbin, cubin or a PE/Mach-O container)", offset=0
        )
    if any(marker in text for marker in _LOG_MARKERS):
        return "ptxas_log"
    if os.path.splitext(name)[1].lower() in (".log", ".txt", ".out", ".err", ".tlog", ""):
        return "ptxas_log"  # a big build log may print its first ptxas line late
    raise ImportFailure(
        name, "unrecognised file: no ptxas/nvlink lines, cuobjdump output or CUDA binary header", line=1
    )
