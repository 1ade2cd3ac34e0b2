"""The one memory and work budget of everything an import inflates.

Every decompressor of the importers goes through an :class:`InflateBudget`: fatbin entries (LZ4,
zstd), LLVM offload binaries (zlib, zstd), and the AMD readers' code objects.  A budget bounds two
things, and nothing else (no ratio: a kernel with a large initialised ``__device__`` array honestly
inflates a few KiB of zeros to 64 MiB, thousands of times its size):

* **held**: bytes of inflated data kept at once, claimed before a stream is inflated and released when
  its reader is done with it (:data:`HELD_LIMIT`; one image may be that large);
* **total**: bytes inflated in all by one import, the work it may do (``max(4 GiB, 16 x`` the input's
  size): a real library inflates to ~4x its size).

A stream is never inflated past the size its container declares, so what is claimed is what can be
held.  Passing a limit raises :class:`BudgetExceeded`, a ``ValueError`` whose message says which limit;
the caller turns it into its one-line ``ImportFailure`` naming the file and offset.

Usage, for a reader that parses an inflated stream and drops it::

    budget = InflateBudget.for_input(file_size)
    with budget.inflate("zstd", packed, declared_size) as data:   # bytes, exactly declared_size long
        parse(data)

A pipeline that inflates on other threads claims on its own thread (:meth:`claim`), decodes with
:func:`decode` wherever it likes, and calls :meth:`release` when the bytes are dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .decompress import CODECS, decode

__all__ = ["CODECS", "HELD_LIMIT", "BudgetExceeded", "InflateBudget", "decode"]

HELD_LIMIT = 1 << 30
"""Bytes of inflated data one import keeps at once: the largest image it can read (1 GiB)."""
MIN_TOTAL = 4 << 30
TOTAL_PER_INPUT_BYTE = 16


class BudgetExceeded(ValueError):
    """An inflation that would pass the import's budget; the message names the limit."""


class InflateBudget:
    """What one import may inflate: ``total`` bytes in all, ``held`` bytes kept at once.

    Not thread-safe: claims and releases come from the import's own thread (inflating may happen on
    others, see :func:`decode`).
    """

    __slots__ = ("held", "held_limit", "inflated", "total_limit")

    def __init__(self, total_limit: int, held_limit: int = HELD_LIMIT):
        self.total_limit = total_limit
        self.held_limit = held_limit
        self.inflated = 0  # bytes claimed so far (the work done or under way)
        self.held = 0  # bytes claimed and not yet released

    @classmethod
    def for_input(cls, size: int) -> InflateBudget:
        """The budget of an import of an input of ``size`` bytes."""
        return cls(max(MIN_TOTAL, TOTAL_PER_INPUT_BYTE * size))

    def claim(self, size: int) -> None:
        """Count ``size`` bytes about to be inflated, held until :meth:`release`; raises
        :class:`BudgetExceeded` (counting nothing) where either limit would be passed."""
        if size < 0:
            raise BudgetExceeded(f"a negative size ({size} bytes) to inflate")
        if self.held + size > self.held_limit:
            held = f" beside the {self.held} bytes already held" if self.held else ""
            raise BudgetExceeded(
                f"inflating {size} bytes{held} passes the import's budget of {self.held_limit} bytes held at once"
            )
        if self.inflated + size > self.total_limit:
            raise BudgetExceeded(
                f"the file's compressed data inflates to more than {self.total_limit} bytes in "
                "all (the import's budget)"
            )
        self.inflated += size
        self.held += size

    def release(self, size: int) -> None:
        """``size`` bytes claimed earlier are dropped (or were never inflated)."""
        self.held = max(0, self.held - size)

    @contextmanager
    def inflate(self, codec: str, packed: bytes | memoryview, size: int) -> Iterator[bytes | None]:
        """The ``codec`` stream ``packed`` inflated to exactly ``size`` bytes, held while the block runs.

        ``None`` where this Python has no decoder for the codec (zstd before Python 3.14 without the
        ``zstandard`` wheel).  A stream that is corrupt, or inflates to more or fewer bytes than
        ``size``, is a ``ValueError`` saying so.
        """
        self.claim(size)
        try:
            yield decode(codec, packed, size)
        finally:
            self.release(size)
