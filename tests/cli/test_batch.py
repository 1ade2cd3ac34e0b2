"""``occupancy batch``: the chunked, vectorised path answers exactly as one ``compute_occupancy`` per line.

The oracle below is the per-line batch as it was (parse, look the device up, ``kernel_query``,
``compute_occupancy``, ``result_to_json``), plus the words for what used to be a traceback.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from occupancy_gui.cli import batch as batch_module
from occupancy_gui.cli import batch_input
from occupancy_gui.cli.devices import DeviceLookupError, device_from_query, load_catalog
from occupancy_gui.cli.inputs import QueryError, kernel_query
from occupancy_gui.cli.main import main
from occupancy_gui.cli.serialize import CSV_FIELDS, result_to_json
from occupancy_gui.engine import OccupancyError, compute_occupancy
from tests.cli.batch_queries import random_lines

CATALOG = load_catalog()


def oracle(line: str, number: int, source: str) -> dict[str, Any]:
    """One line answered on its own, as ``occupancy batch`` always did."""
    where = f"{source}:{number}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": f"{where}: invalid JSON: {exc.msg} at column {exc.colno}"}
    except RecursionError:
        return {"error": f"{where}: invalid JSON: nested too deeply"}
    except ValueError:
        return {"error": f"{where}: invalid JSON: a number of more than {sys.get_int_max_str_digits()} digits"}
    if not isinstance(data, dict):
        return {"error": f"{where}: expected a JSON object"}
    try:
        device = device_from_query(data.get("device"), CATALOG, where)
        q = kernel_query(data)
        return result_to_json(compute_occupancy(device, q.func, q.launch, q.state))
    except (QueryError, OccupancyError, DeviceLookupError) as exc:
        return {"error": f"{where}: {exc}"}


def run_batch_file(path: Path, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["batch", str(path), *extra], out=out), out.getvalue()


def oracle_lines(text: str, source: str) -> list[str]:
    lines = io.StringIO(text, newline=None)  # text mode's line splitting, as the old batch read files
    return [json.dumps(oracle(line, n, source)) for n, line in enumerate(lines, 1) if line.strip()]


def test_random_lines_match_the_per_line_oracle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_input, "CHUNK_LINES", 700)  # several chunks, groups split across them
    lines = random_lines(20261202, 5000, CATALOG.names())
    lines[10:10] = ["", "   ", "\t"]  # blank lines are skipped but counted
    text = "\n".join(lines[:2000]) + "\r\n" + "\r\n".join(lines[2000:4000]) + "\r" + "\n".join(lines[4000:])
    path = tmp_path / "q.jsonl"
    path.write_bytes(text.encode())
    code, out = run_batch_file(path)
    got = out.splitlines()
    want = oracle_lines(text, str(path))
    assert code == 0 and len(got) == len(want) == 5000
    mismatches = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not mismatches, f"{len(mismatches)} lines differ; first: {mismatches[0]}"
    answers = [json.loads(line) for line in got]
    errors = sum("error" in a for a in answers)
    zero = sum(a.get("active_blocks") == 0 for a in answers)
    assert 150 < errors < 600 and zero > 100  # errors and no-fit launches are both well represented


HOSTILE = {
    "nested 10^6 deep": "[" * 10**6 + "]" * 10**6,
    "nested 20000 deep": '{"a": ' * 20000 + "1" + "}" * 20000,
    "barriers 1e23": '{"device": "sm_90", "threads": 256, "registers": 32, "barriers": 1e23}',
    "barriers 10^23": '{"device": "sm_90", "threads": 256, "registers": 32, "barriers": 100000000000000000000000}',
    "max_dynamic_smem 1e23": '{"device": "sm_90", "threads": 256, "registers": 32, "max_dynamic_smem": 1e23}',
    "max_dynamic_smem 10^23": '{"device": "sm_90", "threads": 256, "registers": 32, '
    '"max_dynamic_smem": 100000000000000000000000}',
    "5000 digits": '{"device": "sm_90", "threads": 256, "registers": ' + "7" * 5000 + "}",
    "static beyond int64": '{"device": "sm_90", "threads": 256, "registers": 32, "static_smem": ' + "9" * 40 + "}",
    "threads beyond int64": '{"device": "sm_90", "threads": -' + "9" * 40 + ', "registers": 32}',
}
HOSTILE_ERRORS = {
    "nested 10^6 deep": "line longer than 1048576 characters, skipped",
    "nested 20000 deep": "invalid JSON: nested too deeply",
    "barriers 1e23": "barriers: expected an integer, got 1e+23",
    "barriers 10^23": "block barriers 100000000000000000000000 is beyond 2147483647",
    "max_dynamic_smem 1e23": "max_dynamic_smem: expected an integer, got 1e+23",
    "max_dynamic_smem 10^23": "max dynamic shared memory 100000000000000000000000 B is beyond 2147483647 B",
    "5000 digits": "invalid JSON: a number of more than 4300 digits",
    "static beyond int64": f"shared memory per block {'9' * 40} B is beyond 2146435072 B",
    "threads beyond int64": f"threads per block must be at least 1 (got -{'9' * 40})",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_line_gets_an_error_and_later_lines_an_answer(tmp_path: Path, name: str) -> None:
    good = '{"device": "sm_90", "threads": 256, "registers": 32}'
    path = tmp_path / "q.jsonl"
    path.write_text(f"{good}\n{HOSTILE[name]}\n{good}\n")
    code, out = run_batch_file(path)
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == 3
    assert answers[1] == {"error": f"{path}:2: {HOSTILE_ERRORS[name]}"}
    assert answers[0] == answers[2] and answers[2]["active_blocks"] == 8


def test_an_overlong_line_is_skipped_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_input, "READ_BYTES", 7)
    monkeypatch.setattr(batch_input, "MAX_LINE_CHARS", 100)
    monkeypatch.setattr(batch_module, "MAX_LINE_CHARS", 100)
    good = '{"device": "sm_90", "threads": 256, "registers": 32}'
    path = tmp_path / "q.jsonl"
    path.write_text(f"{good}\n{' ' * 99}{good}\n{good}\n{'x' * 101}")  # the last line has no newline
    _, out = run_batch_file(path)
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a.get("error") for a in answers] == [
        None,
        f"{path}:2: line longer than 100 characters, skipped",
        None,
        f"{path}:4: line longer than 100 characters, skipped",
    ]


def test_every_key_kernel_query_reads_is_on_the_fast_path() -> None:
    # A key only kernel_query knows still gets the right answer (compute_occupancy answers the line), but
    # slowly: teach the fast path (batch._plain and the columns) the new key.
    assert frozenset() == batch_module._UNCOVERED


def test_csv_has_a_header_and_the_json_figures_flattened(tmp_path: Path) -> None:
    lines = random_lines(7, 300, CATALOG.names())
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n")
    _, out_json = run_batch_file(path)
    code, out_csv = run_batch_file(path, "--format", "csv")
    import csv

    rows = list(csv.DictReader(io.StringIO(out_csv)))
    assert code == 0 and tuple(rows[0].keys()) == CSV_FIELDS and len(rows) == 300
    for n, (row, answer) in enumerate(zip(rows, map(json.loads, out_json.splitlines())), 1):
        assert row["line"] == str(n)
        if "error" in answer:
            assert row["error"] == answer["error"] and row["active_blocks"] == ""
            continue
        assert row["limits.warps"] == str(answer["limits"]["warps"])
        assert row["limits.barriers"] == (
            "" if answer["limits"]["barriers"] is None else str(answer["limits"]["barriers"])
        )
        assert row["occupancy"] == repr(answer["occupancy"])
        assert row["estimate.occupancy"] == repr(answer["estimate"]["occupancy"])
        assert row["binding"] == "; ".join(answer["binding"]) and row["reasons"] == "; ".join(answer["reasons"])


@pytest.mark.parametrize("jobs", [[], ["--jobs", "2"]])
def test_answers_stream_before_the_input_ends(jobs: list[str]) -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "occupancy_gui.cli.main", "batch", *jobs],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for threads in (64, 128, 256):
            proc.stdin.write(json.dumps({"device": "sm_90", "threads": threads, "registers": 32}) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())  # the producer has not closed its end
            assert answer["active_threads"] == 2048
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0


def test_many_distinct_devices_keep_their_own_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_module, "CACHE_ENTRIES", 3)  # the device caches are reset between chunks
    monkeypatch.setattr(batch_input, "CHUNK_LINES", 5)
    names = CATALOG.names()[:20]
    lines = [json.dumps({"device": name, "threads": 1024, "registers": 33}) for name in names * 2]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n")
    _, out = run_batch_file(path)
    assert out.splitlines() == oracle_lines("\n".join(lines) + "\n", str(path))
