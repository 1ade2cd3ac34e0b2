"""An input file opened as a reader needs it: only a regular file, never blocking on a FIFO or reading a device."""

from __future__ import annotations

import io
import os
import stat

from .base import ImportFailure

_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def open_regular(path: os.PathLike[str] | str) -> io.BufferedReader:
    """``path`` opened for reading if it is a regular file; anything else is an ``ImportFailure``.

    Opened non-blocking and checked on the open descriptor: a FIFO (or a file replaced by one
    after a check) never blocks the caller waiting for a writer, and a device is never read.
    """
    name = os.fspath(path)
    try:
        fd = os.open(
            name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        )
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((what for test, what in _FILE_KINDS if test(mode)), "not a regular file")
            raise ImportFailure(name, f"{kind}, not a file: only regular files are imported")
        stream = os.fdopen(fd, "rb")
        assert isinstance(stream, io.BufferedReader)
        return stream
    except BaseException:
        os.close(fd)
        raise


def read_input(path: os.PathLike[str] | str) -> tuple[str, bytes]:
    """A whole input file as bytes, its path as text; an unreadable file is an ``ImportFailure``."""
    name = os.fspath(path)
    try:
        with open_regular(name) as fh:
            return name, fh.read()
    except OSError as exc:
        raise ImportFailure(name, exc.strerror or str(exc)) from None
