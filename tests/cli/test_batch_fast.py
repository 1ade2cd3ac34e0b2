"""``occupancy batch``'s fast path (``batch_plain``) answers byte for byte as the exact per-line path.

The exact path (every line parsed by ``json`` and read by ``kernel_query``) is what the batch did before
the fast path; ``test_batch.py`` holds it to one ``compute_occupancy`` per line.  Here the same files go
through both, in JSON Lines and in CSV, and the bytes must agree: the random queries, every hostile
line, and the lines where msgspec and ``json`` could part ways (escaped keys, duplicate keys, figures at
the edges of int64, digits beyond CPython's limit, nesting near the recursion limit, words for
``carveout`` and ``cache_config``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from occupancy_gui.cli import batch as batch_module
from occupancy_gui.cli import batch_input
from occupancy_gui.cli.batch_input import Line
from occupancy_gui.cli.batch_plain import decode_plain, plain_columns
from occupancy_gui.cli.devices import load_catalog
from occupancy_gui.cli.main import main
from occupancy_gui.cli.serialize import BatchAnswer, answer_json, answers_to_csv
from tests.cli.batch_queries import random_lines
from tests.cli.test_batch import HOSTILE

CATALOG = load_catalog()
BASE = '"device": "sm_90", "threads": 256, "registers": 32'
KEYS = (
    "threads",
    "registers",
    "static_smem",
    "dynamic_smem",
    "barriers",
    "max_dynamic_smem",
    "carveout",
    "cache_config",
    "max_threads_per_block",
)
EDGES = (
    0,
    1,
    -1,
    2**31 - 1,
    2**31,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    10**30,
    "9" * 1900,
    "-" + "9" * 1900,
    "256.0",
    "1e2",
    "-0",
    "true",
    "false",
    '"256"',
    '"default"',
    '"50%"',
    '" 50"',
    '"101"',
    '"-1"',
    '"abc"',
    '"L1"',
    '"Shared"',
    '"none"',
    '"big"',
    "[]",
    "{}",
    "null",
    "NaN",
    "Infinity",
    '"\\ud800"',
)


def edge_lines() -> list[str]:
    """Every query key at every edge value, and JSON that msgspec and ``json`` might read differently."""
    lines = [
        f'{{"device": "sm_80", "threads": 128, "registers": 40, "{key}": {value}}}' for key in KEYS for value in EDGES
    ]
    lines += [
        f'{{"device": {device}, "threads": 128, "registers": 40}}'
        for device in ('"sm_\\u0039\\u0030"', '"no such gpu"', "null", "7", '""', '"SM_90"', '"9.0"', "[]")
    ]
    lines += [
        '{"device": "sm_90", "thr\\u0065ads": 64, "registers": 32}',
        '{"device": "sm_90", "threads": 64, "registers": 32, "static_sm\\u0065m": 40000}',
        '{"device": "sm_90", "threads": 64, "threads": 1024, "registers": 32}',
        '{"device": "sm_90", "threads": 64, "registers": 32, "static_smem": 4096, "static_smem": null}',
        '{"device": "sm_90", "threads": 64, "registers": 32, "x": ' + "9" * 5000 + "}",
        '{"device": "sm_90", "threads": 64, "registers": 32, "x": ' + "9" * 2000 + "}",
        '{"device": "sm_90", "threads": 64, "registers": 32, "x": NaN}',
        '{"device": "sm_90", "threads": 64, "registers": 32, "x": "\\ud800"}',
        '{"device": "sm_90", "threads": 64, "registers": 32, "x": 1e999}',
        '{"device": "sm_90", "threads": 64, "registers": 32, "x": {"y": [1, {"z": 2}]}}',
        '{"device": "sm_90", "threads": 64, "registers": 32, "x": "a{b[c"}',
        '{"device": "sm_90", "threads": 64, "registers": 32,}',
        '{"device": "sm_90", "threads": 64 "registers": 32}',
        '\t{"device": "sm_90",\t"threads" : 64 ,"registers":32 }  ',
        '{"device": "sm_90", "threads": 64, "registers": 32}\f',
        '{"device": "sm_90", "threads": 64, "registers": 32} {}',
        "{}",
        "[]",
        '"text"',
        "42",
        "null",
        "\ufeff{" + BASE + "}",
    ]
    for depth in (10, 500, 990, 995, 999, 1000, 1010, 3000):
        lines.append(f'{{{BASE}, "x": {"[" * depth}{"]" * depth}}}')
        lines.append("{" + BASE + ', "x": ' + '{"a": ' * depth + "1" + "}" * depth + "}")
    return lines


def batch_bytes(path: Path, fmt: str) -> bytes:
    out = io.StringIO()
    assert main(["batch", str(path), "--format", fmt], out=out) == 0
    return out.getvalue().encode()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_the_fast_path_writes_the_exact_paths_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    monkeypatch.setattr(batch_input, "CHUNK_LINES", 3000)  # several chunks
    monkeypatch.setattr(batch_module, "DECODE_LINES", 700)  # several decoded slices per chunk
    lines = random_lines(20261203, 12000, CATALOG.names())
    lines[100:100] = edge_lines()
    lines[5000:5000] = [v for k, v in HOSTILE.items() if k != "nested 10^6 deep"]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fast = batch_bytes(path, fmt)
    monkeypatch.setattr(batch_module, "FAST_PATH", False)
    exact = batch_bytes(path, fmt)
    assert fast.count(b"\n") == len(lines) + (fmt == "csv")
    got, want = fast.decode().splitlines(), exact.decode().splitlines()
    differ = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not differ and fast == exact, f"{len(differ)} lines differ; first: {differ[:1]}"


def test_plain_lines_take_the_fast_path_and_others_do_not() -> None:
    plain = [
        '{"device": "sm_90", "threads": 256, "registers": 32}',
        '{"device": "A100", "threads": 64, "registers": 255, "static_smem": null, "carveout": "50%", "cache_config": "L1"}',
        '{"device": "sm_80", "threads": 1, "registers": 0, "max_dynamic_smem": 0, "name": "ignored"}',
    ]
    other = [
        '{"device": {"schema": 1}, "threads": 1, "registers": 1}',
        '{"device": "sm_90", "threads": 1.0, "registers": 1}',
        '{"device": "sm_90", "threads": 1, "registers": 1, "x": [' + "[" * 300 + "]" * 300 + "]}",
        "not json",
        '{"device": "sm_90", "threads": true}',
    ]
    positions, queries = decode_plain([*plain, *other, None])
    assert positions == [0, 1, 2]
    devices, columns, defer = plain_columns(queries)
    assert devices == ["sm_90", "A100", "sm_80"] and not defer.any()
    assert columns["carveout"].tolist() == [-1, 50, -1] and columns["cache_config"].tolist() == [0, 2, 0]
    assert columns["barriers"].tolist() == [1, 1, 1] and columns["has_max_dynamic_smem"].tolist() == [0, 0, 1]
    assert columns["max_threads_per_block"].tolist() == [2**31 - 1] * 3
    # a short line cannot nest deeply enough for json to refuse it: its brackets are not screened
    assert decode_plain(['{"device": "sm_90", "threads": 1, "registers": 1, "x": [[1], {"y": 2}]}'])[0] == [0]


def test_values_kernel_query_would_refuse_are_deferred() -> None:
    texts = [
        f'{{"device": "sm_90", "threads": 1, "registers": 1, {field}}}'
        for field in (
            '"carveout": 101',
            '"carveout": "lots"',
            '"cache_config": 4',
            '"cache_config": "big"',
            '"max_threads_per_block": 0',
            '"barriers": 9223372036854775808',
            '"dynamic_smem": 5',
        )
    ]
    texts.append('{"device": "sm_90", "registers": 1}')
    _, queries = decode_plain(texts)
    _, _, defer = plain_columns(queries)
    assert defer.tolist() == [True] * 6 + [False, True]


def test_most_random_lines_take_the_fast_path() -> None:
    lines: list[Line] = [(n, text, True) for n, text in enumerate(random_lines(5, 4000, CATALOG.names()), 1)]
    answerer = batch_module.BatchAnswerer(CATALOG, "q")
    _, exact = answerer._fast(lines, [None] * len(lines))
    assert len(exact) < 0.15 * len(lines)  # the 5 % invalid lines, the inline devices, the odd ignored key


def test_json_that_only_msgspec_reads_is_left_to_the_exact_path() -> None:
    # msgspec skips an ignored key's value where json refuses it: digits beyond CPython's limit, and
    # nesting json's recursion limit refuses a few levels earlier than msgspec's (stack depth differs).
    # Both need a long line: a short one's answer is the same either way (the bytes test holds it to that).
    # A line too short to nest that deep is not screened for brackets; a longer one is.
    deep = [f'{{{BASE}, "x": {"[" * d}{"]" * d}}}' for d in (300, 990, 1000)]
    deep += ["{" + BASE + ', "x": ' + '{"a": ' * d + "1" + "}" * d + "}" for d in (300, 990)]
    texts = [
        f'{{{BASE}, "x": {"9" * 4301}}}',
        *deep,
        f'{{{BASE}, "x": [[1]]}}',
        f'{{{BASE}, "x": {{"y": 1}}}}',
        f'{{{BASE}, "x": [1]}}',
        f'{{{BASE}, "x": "y"}}',
    ]
    positions, _ = decode_plain(texts)
    assert positions == [len(deep) + 1, len(deep) + 2, len(deep) + 3, len(deep) + 4]


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_rows_are_written_as_serialize_writes_their_figures(fmt: str) -> None:
    lines = random_lines(11, 3000, CATALOG.names()) + edge_lines()
    chunk: list[Line] = [(n, text, True) for n, text in enumerate(lines, 1)]
    answered = batch_module.BatchAnswerer(CATALOG, "q").answer(chunk)
    at = answered.rows.within(0, len(chunk))
    assert len(at) > 2000
    full: list[BatchAnswer] = [a for a in answered.answers if a is not None]
    for p, figures in zip(at.tolist(), answered.rows.figures(at)):
        full.insert(p, figures)
    assert len(full) == len(chunk)
    want = answers_to_csv(answered.numbers, full) if fmt == "csv" else "".join(answer_json(a) + "\n" for a in full)
    assert answered.text(fmt, 0, len(chunk)) == want
