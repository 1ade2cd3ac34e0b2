"""Worker processes started by forking: the command line runs one thread, so ``child_process`` forks its
workers there instead of starting fresh interpreters.  Each test runs in a process of its own, started
here, where that is so (this test process has other threads: ``conftest`` makes its workers fresh
interpreters)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from occupancy_gui._process import child_process
from tests.helpers.frozen_bundle import ROOT
from tests.importers.test_parallel_binary import chain, data_section, host

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="forking workers is Linux-only (child_process)")


def _run(code: str, *args: str) -> dict[str, object]:
    """``code`` run in a fresh, single-threaded interpreter; what it printed last, as JSON."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}  # numpy's BLAS: no thread of its own
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env
    )
    assert proc.returncode == 0, proc.stderr
    said: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return said


@pytest.mark.skipif(shutil.which("objcopy") is None, reason="binutils objcopy is not installed")
def test_a_single_threaded_process_forks_its_workers_and_reads_as_the_serial_reader(tmp_path: Path) -> None:
    rng = random.Random(10)
    path = host(tmp_path, chain(rng, 40), data_section(rng, 20))
    said = _run(
        """
import json, sys
from occupancy_gui._process import child_process
from occupancy_gui.importers.binary import parallel as parallel_binary
from occupancy_gui.importers.binary.reader import import_fatbin_detailed
from occupancy_gui.importers.json_rows import record_json
parallel_binary._PIECE_MIN, parallel_binary._MIN_IMAGES = 1 << 10, 0
threads = child_process.single_threaded()
parallel = parallel_binary.import_host_binary(sys.argv[1], workers=2)
serial = import_fatbin_detailed(sys.argv[1])
same = parallel is not None and parallel.notes == serial.notes and \
    [record_json(r) for r in parallel.records] == [record_json(r) for r in serial.records]
print(json.dumps({"threads": threads, "starts": child_process.STARTS, "read": parallel is not None, "same": same}))
""",
        str(path),
    )
    assert said == {"threads": True, "starts": {"fork": 2, "exec": 0}, "read": True, "same": True}


def test_a_forked_worker_holds_only_its_own_pipes() -> None:
    """The second worker is forked while the parent holds the first's pipes: it must have closed its copies,
    or the first would never see its input end when the parent closes it."""
    said = _run("""
import json, time
from occupancy_gui._process import child_process
first = child_process.start("occupancy_gui.cli.batch_worker")
second = child_process.start("occupancy_gui.cli.batch_worker")
first.to_child.close()
t0 = time.monotonic()
code = first.proc.wait(timeout=10)
waited = time.monotonic() - t0
alive = second.proc.poll() is None
second.close(kill=False)
print(json.dumps({"starts": child_process.STARTS, "code": code, "quick": waited < 2, "second_alive": alive}))
""")
    assert said == {"starts": {"fork": 2, "exec": 0}, "code": 0, "quick": True, "second_alive": True}


def test_a_window_s_worker_runs_below_its_parent_s_priority() -> None:
    """This test process has threads of its own, as the window has: its workers are fresh interpreters, and
    each runs ``WORKER_NICENESS`` below it (two workers at the window's priority stalled its event loop
    past 50 ms on two cores).  A forked worker, of the single-threaded command line, keeps its priority."""
    assert not child_process.single_threaded()
    child = child_process.start("occupancy_gui.cli.batch_worker")
    try:
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, child.proc.pid) == min(19, mine + child_process.WORKER_NICENESS)
    finally:
        child.close(kill=True)
    said = _run("""
import json, os
from occupancy_gui._process import child_process
child = child_process.start("occupancy_gui.cli.batch_worker")
same = os.getpriority(os.PRIO_PROCESS, child.proc.pid) == os.getpriority(os.PRIO_PROCESS, 0)
child.close(kill=True)
print(json.dumps({"starts": child_process.STARTS, "same": same}))
""")
    assert said == {"starts": {"fork": 1, "exec": 0}, "same": True}


def test_a_forked_batch_answers_as_one_process(tmp_path: Path) -> None:
    """``occupancy batch --jobs 2`` in a process with one thread (OpenBLAS told to start none): forked
    workers, the one process's answers byte for byte."""
    from occupancy_gui.cli.devices import load_catalog
    from tests.cli.batch_queries import random_lines

    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(random_lines(13, 4000, load_catalog().names())) + "\n")
    said = _run(
        """
import hashlib, io, json, sys
from occupancy_gui._process import child_process
from occupancy_gui.cli import batch_parallel
from occupancy_gui.cli.main import main
batch_parallel.FIRST_BLOCK_BYTES, batch_parallel.BLOCK_BYTES = 8192, 32768
one, many = io.StringIO(), io.StringIO()
main(["batch", sys.argv[1]], out=one)
threads = child_process.single_threaded()
main(["batch", sys.argv[1], "--jobs", "2"], out=many)
print(json.dumps({"threads": threads, "starts": child_process.STARTS, "same": one.getvalue() == many.getvalue()}))
""",
        str(path),
    )
    assert said == {"threads": True, "starts": {"fork": 2, "exec": 0}, "same": True}


def _cgroup(tmp_path, own: str, files: dict[str, str]) -> tuple[str, str]:
    """A fake ``/sys/fs/cgroup`` and ``/proc/self/cgroup``."""
    root = tmp_path / "cgroup"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (tmp_path / "own").write_text(own)
    return str(root), str(tmp_path / "own")


@pytest.mark.parametrize(
    "own,files,expected",
    [
        ("0::/\n", {"cpu.max": "200000 100000\n"}, 2),  # a container's view: its own cgroup is the root
        ("0::/\n", {"cpu.max": "150000 100000\n"}, 2),  # 1.5 CPUs: rounded up
        ("0::/\n", {"cpu.max": "max 100000\n"}, None),
        (
            "0::/kubepods/pod1/c1\n",
            {
                "kubepods/pod1/cpu.max": "400000 100000",
                "kubepods/pod1/c1/cpu.max": "max 100000",
                "cpu.max": "max 100000",
            },
            4,
        ),  # a parent's quota binds
        ("0::/docker/abc\n", {"cpu.max": "300000 100000"}, 3),  # the host's path, not seen inside: the root's
        (
            "4:cpu,cpuacct:/job\n1:memory:/job\n",
            {"cpu,cpuacct/job/cpu.cfs_quota_us": "50000", "cpu,cpuacct/job/cpu.cfs_period_us": "100000"},
            1,
        ),  # v1
        ("4:cpu,cpuacct:/\n", {"cpu,cpuacct/cpu.cfs_quota_us": "-1", "cpu,cpuacct/cpu.cfs_period_us": "100000"}, None),
        ("0::/\n", {"cpu.max": "garbage\n"}, None),
        ("0::/\n", {"cpu.max": "\u00b3 1\n"}, None),  # a digit int() refuses
        ("0::/\n", {}, None),
        ("", {"cpu.max": "200000 100000"}, None),  # no cgroup named
    ],
)
def test_a_cgroup_cpu_quota_bounds_the_workers(tmp_path, own, files, expected):
    root, proc = _cgroup(tmp_path, own, files)
    assert child_process.cgroup_cpu_limit(root, proc) == expected
    assert child_process.cgroup_cpu_limit(root, str(tmp_path / "missing")) is None  # no /proc/self/cgroup


def test_usable_cpus_takes_the_smaller_of_affinity_and_quota(monkeypatch):
    monkeypatch.setattr(child_process, "cgroup_cpu_limit", lambda: 1)
    assert child_process.usable_cpus() == 1
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    monkeypatch.setattr(child_process, "cgroup_cpu_limit", lambda: 10_000)
    assert child_process.usable_cpus() == affinity
    monkeypatch.setattr(child_process, "cgroup_cpu_limit", lambda: None)
    assert child_process.usable_cpus() == affinity
