"""Session files from strangers (issue 15): bombs, deep nesting, huge numbers, duplicates, ranges, side effects.

Each test here failed on the code before the hardened reader: the alias bomb grew memory without end,
depth 100,000 raised RecursionError, 5,000 digits raised ValueError, duplicates and out-of-range
values were accepted, saving created missing folders and relative import paths followed the cwd.
"""

from __future__ import annotations

import os
import time
import tracemalloc

import pytest

from occupancy_gui.session import Inputs
from occupancy_gui.session import file as sf

HEAD = "occupancy_session: 1\ndevice: sm_90\n"


def _bomb(levels: int) -> str:
    """The 600-byte billion-laughs session of the issue: ``device`` expands to 9**levels strings."""
    lines = ["occupancy_session: 1", 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    lines.append(f"device: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def _refused(catalog, text: str) -> sf.SessionFileError:
    with pytest.raises(sf.SessionFileError) as info:
        sf.loads(text, catalog, "s.occsession")
    message = str(info.value)
    # the longest: a key cut to 120 characters, then the names of every input (the keys a file may use)
    assert message.startswith("s.occsession") and "\n" not in message and len(message) < 400, message[:500]
    return info.value


@pytest.mark.parametrize("levels", [7, 9])
def test_billion_laughs_is_refused_at_the_first_anchor(catalog, levels):
    tracemalloc.start()
    start = time.perf_counter()
    try:
        error = _refused(catalog, _bomb(levels))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "anchors and aliases" in error.message and error.line == 2
    assert time.perf_counter() - start < 2 and peak < 10 << 20  # the old reader expanded 9**levels strings


def test_a_long_value_is_cut_in_the_message(catalog):
    error = _refused(catalog, "occupancy_session: 1\ndevice: " + "x" * 500_000 + "\n")
    assert error.field == "device" and "…" in error.message
    error = _refused(catalog, HEAD + "inputs:\n  threads: [" + "1, " * 4000 + "1]\n")
    assert "a list of 4001 entries" in error.message
    error = _refused(catalog, HEAD + "inputs:\n  ? " + "k" * 100_000 + "\n  : 1\n")
    assert "unknown key" in error.message and len(error.field) <= 120


@pytest.mark.parametrize("opener", ["[", "{a: ", "- "])
def test_nesting_100000_deep_is_an_error_not_a_recursion_error(catalog, opener):
    text = HEAD + "inputs: " + opener * 100_000 + "\n"
    if opener == "- ":
        text = HEAD + "inputs:\n" + "".join("  " * i + "-\n" for i in range(3000))
    error = _refused(catalog, text)
    assert "nested more than" in error.message or "syntax error" in error.message


def test_a_5000_digit_number_names_its_line_and_field(catalog):
    error = _refused(catalog, HEAD + "inputs:\n  registers: " + "9" * 5000 + "\n")
    assert error.line == 4 and error.field == "inputs.registers" and "5000 characters" in error.message
    error = _refused(catalog, "occupancy_session: " + "1" * 5000 + "\ndevice: sm_90\n")
    assert error.line == 1 and error.field == "occupancy_session"


@pytest.mark.parametrize(
    "text, line, field",
    [
        (HEAD + "device: sm_80\n", 3, "device"),
        (HEAD + "inputs:\n  threads: 128\n  registers: 32\n  threads: 256\n", 6, "inputs.threads"),
        (HEAD + "compare:\n  device: sm_80\n  inputs: {threads: 1, threads: 2}\n", 5, "compare.inputs.threads"),
    ],
    ids=["top", "inputs", "compare-flow"],
)
def test_duplicate_keys_are_refused(catalog, text, line, field):
    error = _refused(catalog, text)
    assert "duplicate key" in error.message and error.line == line and error.field == field


@pytest.mark.parametrize("name", sorted(sf.VALUE_RANGES))
def test_out_of_range_values_are_refused_not_replaced(catalog, name):
    low, high = sf.VALUE_RANGES[name]
    for bad in (low - 1, high + 1, 10**30):
        error = _refused(catalog, HEAD + f"inputs:\n  {name}: {bad}\n")
        assert error.field == f"inputs.{name}" and f"expected {low}..{high}" in error.message
    for good in (low, high):
        # a block within the smallest bound; exactly the required size
        block = {"max_threads_per_block": "  threads: 1\n", "required_block_size": f"  threads: {good}\n"}.get(name, "")
        assert getattr(sf.loads(HEAD + f"inputs:\n  {name}: {good}\n{block}", catalog).inputs, name) == good


def test_saving_into_a_missing_folder_creates_nothing(tmp_path):
    target = tmp_path / "missing" / "dir" / "x.occsession"
    with pytest.raises(FileNotFoundError):
        sf.save(target, sf.SessionState(Inputs(device="sm_90")))
    assert not (tmp_path / "missing").exists()


def test_a_relative_import_path_is_relative_to_the_session_file(tmp_path, catalog, monkeypatch):
    folder = tmp_path / "project"
    (folder / "logs").mkdir(parents=True)
    path = folder / "a.occsession"
    path.write_text(HEAD + "import:\n  path: logs/k.log\n  kernel: k\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    state = sf.load(path, catalog)
    assert state.source == (os.path.join(str(folder), "logs", "k.log"), "k")
    absolute = str(tmp_path / "abs.log")
    path.write_text(HEAD + f"import:\n  path: {absolute}\n")
    assert sf.load(path, catalog).source == (absolute, "")
