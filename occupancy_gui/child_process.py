"""Worker processes: a fresh interpreter running one of this package's worker modules, a pipe each way.

Not ``multiprocessing.Process``: its spawn and forkserver starts import the caller's ``__main__``
again in the child (the window's module, a user's unguarded script), and its fork start is unsafe in
a process with threads (the window's).  A fresh interpreter needs neither.

A worker module has ``serve(read_fd, write_fd)``, run by ``python -m MODULE READ_FD WRITE_FD``.  The
frozen bundle has no ``python -m``: there the executable itself is started with ``WORKER_FLAG``, and
its entry points hand over to :func:`run_worker` before they import anything else.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if sys.platform != "win32":
    import fcntl

if TYPE_CHECKING:  # at run time both are imported on first start: ~20 ms that a serial import never needs
    import subprocess
    from multiprocessing.connection import Connection

WORKER_FLAG = "--occupancy-worker"
WORKER_MODULES = frozenset({"occupancy_gui.importers.binary_worker", "occupancy_gui.cli.batch_worker"})
"""The modules a worker may run (the flag names no other code)."""


@dataclass
class Child:
    """A started worker: its process, the pipe to it and the pipe from it."""

    proc: subprocess.Popen[bytes]
    to_child: Connection
    from_child: Connection

    def close(self, kill: bool) -> None:
        """Gone: killed at once if ``kill`` (a cancel, a failure), else once it has read the end of its pipe."""
        import subprocess  # noqa: PLC0415 - lazy: see the imports

        if kill:
            self.proc.kill()
        self.to_child.close()
        self.from_child.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _command(module: str, read_fd: int, write_fd: int) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_FLAG, module, str(read_fd), str(write_fd)], env
    # the child finds this package where the parent did (never ahead of the stdlib)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.basename(here) not in ("site-packages", "dist-packages"):
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (here, env.get("PYTHONPATH"))))
    return [sys.executable, "-m", module, str(read_fd), str(write_fd)], env


PIPE_BYTES = 1 << 20
"""A worker's pipes hold this much where the system allows (Linux: 64 KiB by default; at that size
sending ``batch`` answers took a context switch per 64 KiB, and the workers waited on them)."""


def _widen(fd: int) -> None:
    if sys.platform != "win32" and hasattr(fcntl, "F_SETPIPE_SZ"):
        with contextlib.suppress(OSError):  # above /proc/sys/fs/pipe-max-size: the default stays
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def start(module: str) -> Child:
    """``module`` running in a fresh process; raises ``OSError`` if it cannot be started (on Windows
    always: a child is handed its pipes by number, ``pass_fds``, which only POSIX has)."""
    if sys.platform == "win32":
        raise OSError("worker processes need POSIX pipes")
    import subprocess  # noqa: PLC0415 - lazy: see the imports
    from multiprocessing.connection import Connection  # noqa: PLC0415 - lazy: see the imports

    assert module in WORKER_MODULES, module
    to_child, from_parent = os.pipe()
    to_parent, from_child = os.pipe()
    for fd in (from_parent, to_parent):
        _widen(fd)
    try:
        cmd, env = _command(module, to_child, from_child)
        proc = subprocess.Popen(cmd, pass_fds=(to_child, from_child), env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    except OSError:
        for fd in (from_parent, to_parent):
            os.close(fd)
        raise
    finally:
        os.close(to_child)
        os.close(from_child)
    return Child(proc, Connection(from_parent, readable=False), Connection(to_parent, writable=False))


def run_worker(argv: Sequence[str]) -> bool:
    """In a frozen executable: if ``argv`` starts a worker, serve as one and return True (the entry point
    then exits); else False, and nothing was imported."""
    if len(argv) != 5 or argv[1] != WORKER_FLAG or argv[2] not in WORKER_MODULES:
        return False
    importlib.import_module(argv[2]).serve(int(argv[3]), int(argv[4]))
    return True
