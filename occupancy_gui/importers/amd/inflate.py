"""The one place the AMD readers inflate compressed data, always under an explicit byte budget.

Every caller states how many bytes the container declares and how many it may have; the declared size is
checked against the budget *before* anything is inflated, and the decoder is never allowed to write more
than the declared size (+1 byte, to tell a stream that lies).  When the project gains one budget module
for every decompressor, this function is the only one to point at it.
"""

from __future__ import annotations

import zlib

ZLIB, ZSTD = 0, 1
"""``llvm::compression::Format`` as a compressed offload bundle's ``method`` field stores it."""
METHODS = {ZLIB: "zlib", ZSTD: "zstd"}


class InflateError(ValueError):
    """Data that does not inflate to what its container declares, or would pass the budget; one line."""


def inflate(data: bytes | memoryview, method: int, declared: int, budget: int) -> bytes:
    """``data`` inflated with ``method`` (:data:`ZLIB` or :data:`ZSTD`): exactly ``declared`` bytes, of
    which at most ``budget`` are allowed.  Raises :class:`InflateError` with what went wrong."""
    if declared > budget:
        raise InflateError(f"declares {declared} bytes once inflated, over the budget of {budget}")
    if method == ZSTD:
        out = _zstd(data, declared)
    elif method == ZLIB:
        out = _zlib(data, declared)
    else:
        raise InflateError(f"compression method {method} is none this reader knows (0 zlib, 1 zstd)")
    if len(out) > declared:
        raise InflateError(f"{METHODS[method]} data inflates to more than the {declared} bytes declared")
    if len(out) < declared:
        raise InflateError(f"{METHODS[method]} data inflates to only {len(out)} bytes, not the {declared} declared")
    return out


def _zstd(data: bytes | memoryview, limit: int) -> bytes:
    import zstandard  # noqa: PLC0415 - lazy: only compressed bundles need it

    try:
        # A stream reader: the output never grows past limit + 1 bytes, whatever the frame header claims.
        with zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True) as reader:
            out: bytes = reader.read(limit + 1)
    except zstandard.ZstdError as exc:
        raise InflateError(f"zstd data is corrupt ({exc})") from None
    return out


def _zlib(data: bytes | memoryview, limit: int) -> bytes:
    try:
        return zlib.decompressobj().decompress(data, limit + 1)
    except zlib.error as exc:
        raise InflateError(f"zlib data is corrupt ({exc})") from None
