"""``--write-docs``: a benchmark's output, as printed, in ``docs/benchmarks/<script>.md`` with the run's facts."""

from __future__ import annotations

import sys
import types

import pytest

from tests.benchmarks import publish


def _main() -> int:
    print("ratio engine / C: 0.75x (target <= 1.5x)")
    print("```")  # a fence in the output must not close the file's own
    return 1


@pytest.fixture
def docs(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "DOCS", tmp_path)
    return tmp_path


def test_without_the_flag_nothing_is_written(docs, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["bench_engine.py", "--repeat", "3"])
    assert publish.run(_main, "tests/benchmarks/bench_engine.py") == 1
    assert "0.75x" in capsys.readouterr().out
    assert list(docs.iterdir()) == []


def test_the_file_holds_what_was_printed_and_the_run_s_facts(docs, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["bench_engine.py", "--repeat", "3", "--write-docs"])
    monkeypatch.setitem(sys.modules, "__main__", types.SimpleNamespace(__spec__=None))  # run as a file, not -m
    stdout = sys.stdout
    assert publish.run(_main, str(publish.ROOT / "tests" / "benchmarks" / "bench_engine.py")) == 1
    assert sys.stdout is stdout
    printed = capsys.readouterr().out
    assert printed.startswith("ratio engine / C: 0.75x") and "wrote " in printed
    text = (docs / "bench_engine.md").read_text(encoding="utf-8")
    assert text.startswith("# bench_engine\n")
    for row in (
        "| date |",
        "| command | `python tests/benchmarks/bench_engine.py --repeat 3 --write-docs` |",
        "| commit |",
        "| CPU |",
        "| CPUs |",
        "| load average at start (1/5/15 min) |",
        "| Python |",
        "exit status 1 |",
    ):
        assert row in text, row
    assert "````text\nratio engine / C: 0.75x (target <= 1.5x)\n```\n````\n" in text


def test_a_mode_publishes_to_a_file_of_its_own(docs, monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", ["bench_responsiveness.py", "--libraries", "--write-docs"])
    publish.run(_main, "tests/benchmarks/bench_responsiveness.py", modes=("--libraries", "--filter"))
    assert [p.name for p in docs.iterdir()] == ["bench_responsiveness-libraries.md"]


def test_a_benchmark_that_raises_publishes_nothing(docs, monkeypatch) -> None:
    def broken() -> int:
        print("half a figure")
        raise RuntimeError("no harness")

    monkeypatch.setattr(sys, "argv", ["bench_engine.py", "--write-docs"])
    stdout = sys.stdout
    with pytest.raises(RuntimeError):
        publish.run(broken, "tests/benchmarks/bench_engine.py")
    assert sys.stdout is stdout
    assert list(docs.iterdir()) == []
