"""``occupancy batch --jobs N``: the same answers byte for byte as one process, whatever the line breaks."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from occupancy_gui.cli import batch_parallel
from occupancy_gui.cli.batch_input import MAX_LINE_CHARS
from occupancy_gui.cli.batch_parallel import count_lines, cut
from occupancy_gui.cli.devices import load_catalog
from occupancy_gui.cli.main import main
from tests.cli.batch_queries import random_lines
from tests.helpers.frozen_bundle import ENTRY_SCRIPTS, act_frozen


def _batch(path: Path, *extra: str) -> bytes:
    """The command's standard output, as a user running it sees it (a real process, real workers)."""
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", "batch", str(path), *extra],
        capture_output=True,
        check=True,
        timeout=300,
    )
    return proc.stdout


@pytest.mark.parametrize(
    ("text", "final", "limit", "expected"),
    [
        (b"ab\ncd", False, None, 3),
        (b"ab\r\ncd", False, None, 4),
        (b"ab\rcd", False, None, 3),
        (b"ab\r", False, None, 0),
        (b"ab\r", True, None, 3),
        (b"a\nb\r", False, None, 2),
        (b"a\rb\r", False, None, 2),
        (b"abc", False, None, 0),
        (b"a\nb\nc\n", False, 3, 2),
        (b"abcdef\ngh\n", False, 3, 7),
        (b"abc\r\nd", False, 4, 5),
        (b"abcd\r", False, 2, 0),
    ],
)
def test_a_block_is_cut_after_a_whole_line_break(text: bytes, final: bool, limit: int | None, expected: int) -> None:
    assert cut(text, final, limit) == expected


def test_lines_are_counted_as_text_mode_splits_them() -> None:
    assert count_lines(b"a\nb\r\nc\rd\n\n") == len("a\nb\r\nc\rd\n\n".splitlines())


def _mixed_breaks(lines: list[str]) -> bytes:
    breaks = ["\n", "\r\n", "\r", "\n\n", " \n"]
    return "".join(line + breaks[i % len(breaks)] for i, line in enumerate(lines)).encode()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_jobs_answer_as_one_process_does_byte_for_byte(tmp_path: Path, fmt: str) -> None:
    """~0.9 MB: the first block (256 KiB) is answered by the parent, the rest by the workers."""
    lines = random_lines(20261203, 6000, load_catalog().names())
    path = tmp_path / "q.jsonl"
    path.write_bytes(_mixed_breaks(lines) + b'{"device": "sm_90", "threads": 32, "registers": 3')  # no last break
    one = _batch(path, "--format", fmt)
    assert one.count(b"\n") >= len(lines)
    assert _batch(path, "--format", fmt, "--jobs", "2") == one
    assert _batch(path, "--format", fmt, "--jobs", "3") == one


def test_small_blocks_match_and_an_overlong_line_is_refused_unheld(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of a few lines, a line far over the limit ending in a \\r\\n split between reads: every answer
    as one process gives it, the long line's refusal included."""
    query = json.dumps({"device": "sm_80", "threads": 128, "registers": 40})
    long_line = '{"device": "' + "y" * (4 * MAX_LINE_CHARS + 100) + '"}'
    text = "\n".join([query] * 50) + "\n" + long_line + "\r\n" + "\r".join([query] * 50) + "\n"
    path = tmp_path / "q.jsonl"
    path.write_text(text, newline="")
    monkeypatch.setattr(batch_parallel, "FIRST_BLOCK_BYTES", 512)
    monkeypatch.setattr(batch_parallel, "BLOCK_BYTES", 2048)
    one, many = io.StringIO(), io.StringIO()
    assert main(["batch", str(path)], out=one) == 0
    assert main(["batch", str(path), "--jobs", "2"], out=many) == 0
    assert many.getvalue() == one.getvalue()
    answers = many.getvalue().splitlines()
    assert len(answers) == 101 and "line longer than" in answers[50]


def test_a_worker_that_cannot_start_leaves_its_blocks_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(module: str) -> None:
        raise OSError("no processes left")

    monkeypatch.setattr(batch_parallel.child_process, "start", refuse)
    monkeypatch.setattr(batch_parallel, "FIRST_BLOCK_BYTES", 1024)
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(random_lines(7, 400, load_catalog().names())) + "\n")
    one, many = io.StringIO(), io.StringIO()
    assert main(["batch", str(path)], out=one) == 0
    assert main(["batch", str(path), "--jobs", "4"], out=many) == 0
    assert many.getvalue() == one.getvalue()
    said = capsys.readouterr().err.splitlines()
    assert said == [
        "occupancy batch: 4 of 4 worker processes could not start (no processes left); "
        "their share is answered in this process"
    ]


def test_jobs_is_refused_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["batch", "--jobs", "0", "x.jsonl"])
    assert "--jobs" in capsys.readouterr().err


@pytest.mark.parametrize("entry", ENTRY_SCRIPTS)
def test_a_frozen_bundle_answers_with_itself_as_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], entry: str
) -> None:
    """In the bundle a worker is the executable started with ``--occupancy-worker``: every block but the
    first is answered by such a worker (none falls back to the parent), and the answers are the same."""
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(random_lines(11, 600, load_catalog().names())) + "\n")
    one = io.StringIO()
    assert main(["batch", str(path)], out=one) == 0
    act_frozen(tmp_path, monkeypatch, entry)
    monkeypatch.setattr(batch_parallel, "FIRST_BLOCK_BYTES", 4096)
    monkeypatch.setattr(batch_parallel, "BLOCK_BYTES", 8192)
    here: list[int] = []
    answer_here = batch_parallel._Run._answer_here

    def counted(run: batch_parallel._Run, block: batch_parallel._Block) -> None:
        here.append(block.first_number)
        answer_here(run, block)

    monkeypatch.setattr(batch_parallel._Run, "_answer_here", counted)
    many = io.StringIO()
    assert main(["batch", str(path), "--jobs", "2"], out=many) == 0
    assert many.getvalue() == one.getvalue()
    assert here == [0]  # the first block only: the workers answered the rest
    assert capsys.readouterr().err == ""


def test_a_worker_that_dies_has_its_block_answered_by_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first worker is killed as it is handed its second block: that block, and every later one it
    would have had, are answered all the same, once each, in order; standard error says so."""
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(random_lines(12, 600, load_catalog().names())) + "\n")
    one = io.StringIO()
    assert main(["batch", str(path)], out=one) == 0
    monkeypatch.setattr(batch_parallel, "FIRST_BLOCK_BYTES", 4096)
    monkeypatch.setattr(batch_parallel, "BLOCK_BYTES", 8192)
    given: list[batch_parallel._Worker] = []
    give = batch_parallel._Worker.give

    def give_then_kill(worker: batch_parallel._Worker, block: batch_parallel._Block) -> None:
        give(worker, block)
        given.append(worker)
        if given.count(given[0]) == 2 and worker is given[0]:
            worker.child.proc.kill()

    monkeypatch.setattr(batch_parallel._Worker, "give", give_then_kill)
    many = io.StringIO()
    assert main(["batch", str(path), "--jobs", "2"], out=many) == 0
    assert many.getvalue() == one.getvalue()
    assert "occupancy batch: a worker process stopped" in capsys.readouterr().err


def test_jobs_auto_is_the_cpus_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    from occupancy_gui.cli.main import build_parser

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert build_parser().parse_args(["batch", "--jobs", "auto"]).jobs == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert build_parser().parse_args(["batch", "--jobs", "auto"]).jobs == batch_parallel.MAX_JOBS
