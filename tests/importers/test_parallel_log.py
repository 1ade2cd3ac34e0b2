"""A big log read by two processes (``parallel_log``): cut at any line, the records and the errors are the
one parser's, whether the worker's table is taken or this process reads the tail itself."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from occupancy_gui._process import child_process
from occupancy_gui.importers import ImportCancelled, KernelRecord, import_file
from occupancy_gui.importers.json_rows import record_json
from occupancy_gui.importers.text import parallel as parallel_log
from occupancy_gui.importers.text.ptxas_log import import_ptxas_log, parse_bytes, parse_stream
from tests.helpers.frozen_bundle import ROOT

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="worker processes are POSIX-only (child_process)")

NOISE = [
    "[3/90] Building CUDA object src/k.cu.o",
    "nvcc -Xptxas -v -c k.cu",
    "",
    '/src/k.cu(118): warning #177-D: variable "tmp" was declared but never referenced',
]


def _entry(rng: random.Random, i: int) -> list[str]:
    name = f"_Z6kernel{i % 23}Pf"  # kernels repeat: a later record replaces an earlier one in place
    arch = f"sm_{rng.choice([80, 90, 120])}"
    lines = [
        f"ptxas info    : Compiling entry function '{name}' for '{arch}'",
        f"ptxas info    : Function properties for {name}",
        f"    {i % 4 * 8} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
        f"ptxas info    : Used {i % 200} registers, used 1 barriers, {i} bytes smem, 380 bytes cmem[0]",
    ]
    if rng.random() < 0.3:
        lines.append(f"ptxas info    : Compile time = {i}.5 ms")
    return lines


def _piece(rng: random.Random, i: int) -> list[str]:
    """One of the shapes a log holds: standard blocks, device functions (some before their module's
    first entry, which names their architecture), two ptxas runs interleaved, nvlink's figures, colours,
    noise.  (Old nvlink's lines without a target make every tail before them need the head: they are
    tested on their own.)"""
    shape = rng.randrange(8)
    if shape == 0:
        return ["ptxas info    : 0 bytes gmem", *_entry(rng, i)]
    if shape == 1:  # a device function of a module whose architecture the next entry names
        return [
            "ptxas info    : 0 bytes gmem",
            f"ptxas info    : Function properties for dev{i % 5}",
            "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
            *_entry(rng, i),
        ]
    if shape == 2:  # a device function of the module in hand
        return [
            f"ptxas info    : Function properties for dev{i % 5}",
            "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
        ]
    if shape == 3:  # two runs interleaved: the Used lines go to the oldest open entry
        a, b = _entry(rng, i), _entry(rng, i + 1)
        return [a[0], b[0], a[1], a[2], b[1], b[2], a[3], b[3]]
    if shape == 4:  # nvlink's figures of the kernel just compiled, for sm_80 (without a target: see below)
        name = f"_Z6kernel{i % 23}Pf"
        entry = [line.replace("sm_90", "sm_80").replace("sm_120", "sm_80") for line in _entry(rng, i)]
        return [
            *entry,
            f"nvlink info    : Function properties for '{name}': (target: sm_80)",
            f"nvlink info    : used {i % 90} registers, used 0 barriers, 8 stack, 2048 bytes smem, "
            "372 bytes cmem[0], 0 bytes lmem",
        ]
    if shape == 5:
        return [f"\x1b[1mptxas info    :\x1b[0m Used {i % 50} registers"]  # a Used line with no entry open
    if shape == 6:
        return rng.sample(NOISE, rng.randrange(1, len(NOISE)))
    return _entry(rng, i)


def mixed_log(seed: int, pieces: int = 60, crlf: bool = False) -> bytes:
    rng = random.Random(seed)
    lines = [line for i in range(pieces) for line in _piece(rng, i)]
    return (("\r\n" if crlf else "\n").join(lines) + "\n").encode()


_EVERY_CUT = """
import json, sys
from occupancy_gui._process import child_process
from occupancy_gui.importers.text import parallel as parallel_log
from occupancy_gui.importers.json_rows import record_json
from occupancy_gui.importers.text.ptxas_log import parse_stream
from tests.importers.test_parallel_log import mixed_log, outcome

path, bad = sys.argv[1], 0
threads = child_process.single_threaded()
for seed, crlf in ((1, False), (2, True), (3, False)):
    data = mixed_log(seed, crlf=crlf)
    with open(path, "wb") as fh:
        fh.write(data)
    whole = outcome(lambda: parse_stream(open(path, "rb"), "x.log", len(data), chunk_size=101))
    starts = [i + 1 for i, byte in enumerate(data[:-1]) if byte == 10]
    for cut in starts:
        if outcome(lambda: parallel_log.read_cut(path, "x.log", len(data), cut, chunk_size=101)) != whole:
            bad += 1
print(json.dumps({"single_threaded": threads, "bad": bad, "tails": parallel_log.TAILS,
                  "starts": child_process.STARTS}))
"""


def outcome(read: Callable[[], list[KernelRecord] | None]) -> object:
    """What a read gives, as JSON can say it: every record's fields, or the error's message."""
    try:
        return [record_json(rec) for rec in read()]
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.slow  # a parse per cut line: ~10 s
def test_a_log_cut_at_any_line_reads_as_one_parser_reads_it(tmp_path: Path) -> None:
    """Every line start of three logs of every shape as the cut, in a process with one thread (forked
    workers, ~3 ms each): the records, their order and their lines are the one parser's, and both ways of
    reading the tail happen (the worker's table taken; this process reading it, where the head ends
    inside a block or the tail needs the head)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", _EVERY_CUT, str(tmp_path / "x.log")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout.splitlines()[-1])
    assert said["single_threaded"] and said["starts"]["exec"] == 0
    assert said["bad"] == 0
    assert said["tails"]["adopted"] > 200 and said["tails"]["read_here"] > 50, said["tails"]


def test_the_tail_says_when_it_needs_the_head() -> None:
    """A device function before any module line (its architecture is the head's), an nvlink line whose
    kernel the tail has not seen (its figures build on the head's record), and old nvlink's guess of an
    architecture each make the worker's table unusable; a tail of whole entries does not."""

    def verdict(text: str) -> bool:
        parser = parallel_log._TailParser("x.log", "x.log")
        parser.feed(text.encode())
        parser.finish()
        return parser.depends_on_head()

    entry = "\n".join(_entry(random.Random(0), 5)) + "\n"
    assert not verdict(entry)
    assert verdict(
        "ptxas info    : Function properties for dev\n"
        "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" + entry
    )
    assert not verdict(
        "ptxas info    : 0 bytes gmem\nptxas info    : Function properties for dev\n"
        "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" + entry
    )
    nvlink = (
        "nvlink info    : Function properties for '_Z6kernel5Pf': (target: sm_80)\n"
        "nvlink info    : used 9 registers, 0 stack, 0 bytes smem, 0 bytes lmem\n"
    )
    assert verdict(nvlink)
    same = entry.replace("sm_90", "sm_80").replace("sm_120", "sm_80")
    assert not verdict(same + nvlink)
    assert verdict(same + nvlink.replace(" (target: sm_80)", ""))


def test_an_error_in_the_tail_is_the_one_parser_s(tmp_path: Path) -> None:
    bad = "\n".join(_entry(random.Random(0), 3)).replace("Used 3 registers", "Used -3 registers") + "\n"
    data = mixed_log(4) + bad.encode() + mixed_log(5)
    path = tmp_path / "bad.log"
    path.write_bytes(data)
    whole = outcome(lambda: import_ptxas_log(path))
    assert "bad.log:295: negative figure" in str(whole)
    cut = data.index(b"\n", len(data) // 4) + 1
    assert outcome(lambda: parallel_log.read_cut(str(path), "bad.log", len(data), cut)) == whole


def test_a_fresh_interpreter_as_the_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window's workers are fresh interpreters (``python -m occupancy_gui.importers.text.worker``)."""
    monkeypatch.setattr(child_process, "single_threaded", lambda: False)
    data = mixed_log(6, pieces=200)
    path = tmp_path / "build.log"
    path.write_bytes(data)
    before = dict(parallel_log.TAILS), child_process.STARTS["exec"]
    with path.open("rb") as fh:
        cut = parallel_log._line_start(fh, len(data) // 2, len(data))  # before a module's or an entry's first line
    assert cut is not None
    got = parallel_log.read_cut(str(path), "build.log", len(data), cut)
    assert child_process.STARTS["exec"] == before[1] + 1
    assert parallel_log.TAILS["adopted"] == before[0]["adopted"] + 1
    assert got is not None
    assert [record_json(r) for r in got] == [record_json(r) for r in parse_bytes(data, "build.log")]


def test_import_file_reads_a_big_log_in_two_and_reports_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = mixed_log(7, pieces=400)
    path = tmp_path / "build.log"
    path.write_bytes(data)
    monkeypatch.setattr(parallel_log, "MIN_BYTES", 1)
    monkeypatch.setattr(child_process, "single_threaded", lambda: True)  # (this test process has threads)
    before = sum(parallel_log.TAILS.values())
    seen: list[tuple[int, int]] = []
    records = import_file(path, progress=lambda done, total: seen.append((done, total)))
    assert sum(parallel_log.TAILS.values()) == before + 1
    assert [record_json(r) for r in records] == [record_json(r) for r in parse_bytes(data, "build.log")]
    assert seen and seen[-1] == (len(data), len(data))
    assert all(total == len(data) for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_cancel_is_heard_while_the_worker_reads(tmp_path: Path) -> None:
    data = mixed_log(8, pieces=400)
    path = tmp_path / "build.log"
    path.write_bytes(data)
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(ImportCancelled):
        parallel_log.read_cut(
            str(path), "build.log", len(data), data.index(b"\n", 100) + 1, cancel=cancel, chunk_size=4096
        )


def test_small_and_utf16_logs_and_the_window_s_are_read_by_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """And in a process with threads of its own (the window), whose worker would be a fresh interpreter."""
    monkeypatch.setattr(child_process, "single_threaded", lambda: True)
    data = mixed_log(9)
    small = tmp_path / "small.log"
    small.write_bytes(data)
    assert parallel_log.parse_split(str(small), "small.log", len(data)) is None
    monkeypatch.setattr(parallel_log, "MIN_BYTES", 1)
    wide = tmp_path / "wide.log"
    wide.write_bytes(b"\xff\xfe" + data.decode().encode("utf-16-le"))
    assert parallel_log.parse_split(str(wide), "wide.log", wide.stat().st_size) is None
    assert [record_json(r) for r in import_file(wide)] == [
        record_json(r) for r in parse_stream(io.BytesIO(data), "wide.log", len(data))
    ]
    assert parallel_log.parse_split(str(small), "small.log", len(data)) is not None
    monkeypatch.setattr(child_process, "single_threaded", lambda: False)
    assert parallel_log.parse_split(str(small), "small.log", len(data)) is None
