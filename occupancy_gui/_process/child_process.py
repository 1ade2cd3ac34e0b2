"""Worker processes: one of this package's worker modules in a process of its own, a pipe each way.

A process that runs one thread (the command line; Linux) forks: the copy has every module loaded, so
a worker costs ~2 ms, not the ~70 ms of a fresh interpreter importing them again (libcufft's and
libcublas's imports: 0.70 -> 0.63 s and 1.11 -> 1.02 s on two cores).  Any other process (the
window, whose imports run on threads of their own) starts a fresh interpreter: a fork copies only
the forking thread, and a lock another thread held stays held in the copy for ever.

Not ``multiprocessing.Process``: its spawn and forkserver starts import the caller's ``__main__``
again in the child (the window's module, a user's unguarded script), and its fork start forks
whatever the threads.

A worker module has ``serve(read_fd, write_fd)``, run by ``python -m MODULE READ_FD WRITE_FD``.  The
frozen bundle has no ``python -m``: there the executable itself is started with ``WORKER_FLAG``, and
its entry points hand over to :func:`run_worker` before they import anything else.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if sys.platform != "win32":
    import fcntl

if TYPE_CHECKING:  # at run time imported on the first start: ~20 ms that a serial import never needs
    import subprocess
    from multiprocessing.connection import Connection

WORKER_FLAG = "--occupancy-worker"
WORKER_MODULES = frozenset(
    {"occupancy_gui.importers.binary.worker", "occupancy_gui.importers.text.worker", "occupancy_gui.cli.batch_worker"}
)
"""The modules a worker may run (the flag names no other code)."""


@dataclass
class Child:
    """A started worker: its process, the pipe to it and the pipe from it."""

    proc: subprocess.Popen[bytes] | Forked
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
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity where the system has one (a ``taskset``'s or a
    cpuset's share, not the machine's count), else the machine's; and no more than a cgroup CPU quota
    allows (``docker run --cpus=2``, a Kubernetes CPU limit): there the affinity still lists every
    CPU of the host, and a worker per CPU would share two CPUs' time."""
    count = max(1, len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    quota = cgroup_cpu_limit()
    return count if quota is None else max(1, min(count, quota))


def cgroup_cpu_limit(root: str = "/sys/fs/cgroup", own: str = "/proc/self/cgroup") -> int | None:
    """The CPUs a cgroup CPU quota allows this process, rounded up (the smallest along its cgroup's path,
    up to ``root``); ``None`` where no quota is set or none can be read.  cgroup v2 writes
    ``cpu.max`` ("QUOTA PERIOD" or "max PERIOD"); v1 ``cpu.cfs_quota_us`` (-1: none) and
    ``cpu.cfs_period_us`` in the ``cpu`` controller's hierarchy."""
    try:
        with open(own, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    limits: list[int] = []
    for line in lines:
        _number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":  # v2's one hierarchy
            limits += _quota_limits(root, path, lambda d: _v2_quota(os.path.join(d, "cpu.max")))
        elif "cpu" in controllers.split(","):
            for mount in ("cpu,cpuacct", "cpu", "cpuacct,cpu"):
                base = os.path.join(root, mount)
                if os.path.isdir(base):
                    limits += _quota_limits(base, path, _v1_quota)
                    break
    return min(limits) if limits else None


def _quota_limits(base: str, path: str, read: Callable[[str], int | None]) -> list[int]:
    """The quota of each folder from ``base/path`` up to ``base`` (a container sees its own cgroup as the
    root, under a path of the host's that it cannot see: those folders are missing and skipped)."""
    parts = [part for part in path.split("/") if part and part not in (".", "..")]
    found = []
    for depth in range(len(parts), -1, -1):
        limit = read(os.path.join(base, *parts[:depth]))
        if limit is not None:
            found.append(limit)
    return found


def _v2_quota(path: str) -> int | None:
    fields = _read_words(path)
    if len(fields) != 2 or fields[0] == "max":
        return None
    return _ceil_ratio(fields[0], fields[1])


def _v1_quota(folder: str) -> int | None:
    quota = _read_words(os.path.join(folder, "cpu.cfs_quota_us"))
    period = _read_words(os.path.join(folder, "cpu.cfs_period_us"))
    if len(quota) != 1 or len(period) != 1:
        return None
    return _ceil_ratio(quota[0], period[0])


def _read_words(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read(256).split()
    except OSError:
        return []


def _ceil_ratio(quota: str, period: str) -> int | None:
    """``quota / period`` rounded up, ``None`` for no quota (v1's -1) or anything that is not two
    positive whole numbers."""
    if not all(word.isascii() and word.isdigit() for word in (quota, period)) or int(quota) <= 0 or int(period) <= 0:
        return None
    return max(1, -(-int(quota) // int(period)))


def single_threaded() -> bool:
    """Whether this process runs one thread, counted by the kernel (Linux): then a fork copies all it
    has and holds no lock another thread took.  The window imports on threads of its own, the
    command line on none; numpy's OpenBLAS threads count too, which Python's own count misses."""
    if sys.platform != "linux":
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


STARTS: dict[str, int] = {"fork": 0, "exec": 0}
"""How many workers this process started each way (a forked copy of itself, a fresh interpreter)."""


def start(module: str) -> Child:
    """``module`` running in a worker process; raises ``OSError`` if it cannot be started (on Windows
    always: a child is handed its pipes by number, ``pass_fds``, which only POSIX has).

    A single-threaded process forks (~2 ms, the modules it has loaded ready in the copy), any other
    starts a fresh interpreter (~70 ms, importing them again): see :func:`single_threaded`."""
    if sys.platform == "win32":
        raise OSError("worker processes need POSIX pipes")
    from multiprocessing.connection import Connection  # noqa: PLC0415 - lazy: see the imports

    assert module in WORKER_MODULES, module
    to_child, from_parent = os.pipe()
    to_parent, from_child = os.pipe()
    for fd in (from_parent, to_parent):
        _widen(fd)
    try:
        proc = _fork(module, to_child, from_child) if single_threaded() else _exec(module, to_child, from_child)
    except OSError:
        for fd in (from_parent, to_parent):
            os.close(fd)
        raise
    finally:
        os.close(to_child)
        os.close(from_child)
    return Child(proc, Connection(from_parent, readable=False), Connection(to_parent, writable=False))


def _exec(module: str, read_fd: int, write_fd: int) -> subprocess.Popen[bytes]:
    import subprocess  # noqa: PLC0415 - lazy: see the imports

    cmd, env = _command(module, read_fd, write_fd)
    proc = subprocess.Popen(
        cmd,
        pass_fds=(read_fd, write_fd),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    STARTS["exec"] += 1
    _lower_priority(proc.pid)
    return proc


WORKER_NICENESS = 10
"""How much less CPU priority a worker of a parent with threads of its own (the window) has than its parent.

On two cores, libcublasLt's two workers at the window's priority took the CPU from its GUI thread: the
longest stall of the event loop in ``bench_responsiveness.py --libraries`` was 53-67 ms in 2 runs of 4;
with the workers at +10, 26-28 ms in every run, and the import took 2.07-2.25 s against 1.94-2.06 s.
An otherwise idle machine gives a niced worker every cycle its parent leaves.  (A forked worker, of the
command line, keeps its parent's priority: nothing there waits on a user.)"""


def _lower_priority(pid: int) -> None:
    """The worker ``pid`` at ``WORKER_NICENESS`` below this process (set from here: a ``preexec_fn`` is not
    safe in a process with threads).  Where the system refuses, it keeps this process's priority."""
    if not hasattr(os, "setpriority"):
        return
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS)


def _fork(module: str, read_fd: int, write_fd: int) -> Forked:
    """A copy of this process serving ``module`` on the two pipe ends and nothing else: every other file
    descriptor closed (another worker's pipe held open here would never see its end), the standard
    streams on /dev/null, and ``os._exit`` whatever happens, so that the copy never runs on into its
    parent's code, its exit handlers or its buffered output."""
    serve = importlib.import_module(module).serve  # imported before the fork: once, not in every copy
    pid = os.fork()
    if pid:
        STARTS["fork"] += 1
        return Forked(pid)
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        # The open ones, listed: os.closerange up to a limit is one close() per number where glibc has no
        # close_range (the bundle's 2.31), ~0.2 s for a million.
        for fd in map(int, os.listdir("/proc/self/fd")):
            if fd > 2 and fd not in (read_fd, write_fd):
                with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
                    os.close(fd)
        serve(read_fd, write_fd)
        code = 0
    finally:
        os._exit(code)


class Forked:
    """A forked worker, with the part of ``subprocess.Popen`` that :class:`Child` uses."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        import subprocess  # noqa: PLC0415 - lazy: see the imports

        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0.0)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return code

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def run_worker(argv: Sequence[str]) -> bool:
    """In a frozen executable: if ``argv`` starts a worker, serve as one and return True (the entry point
    then exits); else False, and nothing was imported."""
    if len(argv) != 5 or argv[1] != WORKER_FLAG or argv[2] not in WORKER_MODULES:
        return False
    importlib.import_module(argv[2]).serve(int(argv[3]), int(argv[4]))
    return True
