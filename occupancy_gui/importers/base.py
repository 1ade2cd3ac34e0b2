"""What every reader returns and takes: the result of an import, its failure, its cancellation and the
progress and cancel callbacks.

Every reader, whatever its input (``binary``, ``text``, ``jit``, ``amd``), fills an :class:`ImportResult` or
raises an :class:`ImportFailure` (one line naming the file and the place) or :class:`ImportCancelled`; it
hears ``progress(done, total)`` and polls ``cancel()`` (:data:`ProgressFn`, :data:`CancelFn`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .names.printable import printable
from .record_list import Records

if TYPE_CHECKING:
    from .amd.record import AmdKernelRecord

ProgressFn = Callable[[int, int], None]
"""``progress(done, total)``: bytes (or items) of the input read so far."""
CancelFn = Callable[[], bool]
"""``cancel()``: true once the import should stop (the reader then raises :class:`ImportCancelled`)."""


class ImportCancelled(Exception):
    """Raised when the ``cancel`` callback asked an import to stop."""


class ImportFailure(ValueError):
    """A file that cannot be imported.  The message is one line that names the file and the place (control
    characters of the path or of a name in the reason escaped: see ``names.printable``).

    ``line`` is a 1-based line number for text formats, ``offset`` a byte offset for binaries.
    """

    def __init__(self, path: str, reason: str, *, line: int | None = None, offset: int | None = None):
        self.path = printable(str(path))
        self.reason = printable(" ".join(str(reason).split()))
        self.line = line
        self.offset = offset
        where = self.path
        if line is not None:
            where += f":{line}"
        elif offset is not None:
            where += f": at byte {offset} (0x{offset:x})"
        super().__init__(f"{where}: {self.reason}")


@dataclass(frozen=True)
class IncompleteKernel:
    """A kernel a build log starts to describe and never finishes (the log was cut off mid-kernel)."""

    name: str
    arch: str
    line: int
    """The 1-based line of its ``Compiling entry function``."""


@dataclass
class ImportResult:
    """What an import found: its records, and notes (one line each: entries skipped, assumptions made,
    what a record cannot say)."""

    records: Records = field(default_factory=Records)
    notes: list[str] = field(default_factory=list)
    no_functions: bool = False
    """The file is valid and holds device code, but no function (its CUDA ELF images hold none, as a
    translation unit without device functions compiles to): no records is then the answer, not a failure
    (cuobjdump exits 0 with an empty listing); the first note says so."""
    incomplete: list[IncompleteKernel] = field(default_factory=list)
    """Kernels a log names whose figures it never gives (cut off mid-kernel): not listed, each one noted."""
    launch_bounds_unknown: bool = False
    """Records from a text that never states launch bounds (a build log): ``max_threads`` ``None`` there
    means "not recorded", not "no bound"; a note says where the bound is (the object, cubin or source)."""
    amd_records: list[AmdKernelRecord] = field(default_factory=list)
    """The file's AMD kernels (``importers.amd``): a host binary or cache folder may hold both vendors'."""
