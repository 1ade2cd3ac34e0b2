"""Atomic file writes: a path holds either its old content or all of the new, never a part.

Used for session files, autosaves, reports and exported images alike (the window and the command line).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) so that ``path`` holds either its old content or all of the new."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` so that ``path`` holds either its old content or all of the new, never a part.

    The bytes go to a temporary file in the same directory, are flushed and fsync'ed, and then
    ``os.replace`` swaps the file in (atomic on POSIX and Windows).  On any failure the temporary
    file is removed and the old file is left as it was.  A missing directory is an error
    (``FileNotFoundError``), never created: a mistyped folder must not appear on the user's disk.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        _chmod_as_new_file(fd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(target.parent)


def _chmod_as_new_file(fd: int) -> None:
    """Give the temporary file the mode ``open()`` would: 0666 less the umask (``mkstemp`` makes 0600).

    The umask can only be read by setting it; it is put back at once.
    """
    if not hasattr(os, "fchmod"):
        return  # Windows: no POSIX modes
    umask = os.umask(0o022)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable where the platform allows it (POSIX; a no-op on Windows)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
