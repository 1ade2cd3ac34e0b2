from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys

from occupancy_gui.cli.import_command import run_import
from occupancy_gui.importers import import_file, impossible_figure, impossible_figures
from occupancy_gui.importers.json_rows import record_json
from tests.helpers.random_records import random_records

from .conftest import GEN, HAND


def test_table(capsys):
    assert run_import([str(GEN / "a_sm80.cubin")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["arch", "regs", "smem"]
    assert any("void occ::tiled_sum<512>(float const*, float*, int)" in line for line in out)


def test_json(capsys):
    assert run_import([str(HAND / "cuda11_ninja.log"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert set(rows[0]) == {
        "name",
        "demangled",
        "arch",
        "registers",
        "static_smem",
        "stack_bytes",
        "local_bytes",
        "spill_stores",
        "spill_loads",
        "barriers",
        "const_bytes",
        "max_threads",
        "min_blocks",
        "source",
        "kind",
        "reserved_smem",
        "relocatable",
        "embedded",
        "copies",
        "threads_per_block",
        "dynamic_smem",
        "launch_source",
    }
    assert rows[0]["threads_per_block"] is None and rows[0]["launch_source"] is None  # a log has no launch
    assert rows[1]["registers"] == 30 and rows[1]["source"] == "cuda11_ninja.log:10"


def test_json_carries_reqntid_cluster_and_register_cap_where_a_kernel_has_them(capsys):
    assert run_import([str(GEN / "b_sm90.cubin"), "--json", "--no-cache"]) == 0
    rows = {(r["name"], r["arch"]): r for r in json.loads(capsys.readouterr().out)}
    cluster = rows[("_Z14cluster_kernelPj", "sm_90")]
    assert cluster["cluster_dims"] == [2, 1, 1] and cluster["max_registers"] == 32
    records = {(r.name, r.arch): r for r in import_file(GEN / "b_sm90.cubin")}
    for key, row in rows.items():
        for field in ("req_threads", "cluster_dims", "max_registers"):
            value = getattr(records[key], field)
            assert row.get(field) == (list(value) if isinstance(value, tuple) else value), (key, field)
    assert any("cluster_dims" not in row for row in rows.values())


def test_errors_are_one_line_exit_2(tmp_path, capsys):
    missing = tmp_path / "missing.log"
    assert run_import([str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"occupancy import: error: {missing}: ") and err.count("\n") == 1
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    assert run_import([str(junk)]) == 2
    err = capsys.readouterr().err
    assert "unrecognised binary file" in err and "Traceback" not in err
    broken = tmp_path / "broken.cubin"
    broken.write_bytes((GEN / "a_sm80.cubin").read_bytes()[:100])
    assert run_import([str(broken)]) == 2
    assert "byte" in capsys.readouterr().err


def _plain_json(rec) -> dict:
    """A record's JSON as ``to_json`` wrote it before rows were made in bulk (kept here as the
    reference the bulk rows are held to)."""
    out = {"name": rec.name, "demangled": rec.demangled, "kind": rec.kind, "arch": rec.arch}
    for key in (
        "registers",
        "static_smem",
        "stack_bytes",
        "local_bytes",
        "spill_stores",
        "spill_loads",
        "barriers",
        "const_bytes",
        "max_threads",
        "min_blocks",
        "reserved_smem",
        "relocatable",
        "embedded",
        "copies",
        "source",
    ):
        out[key] = getattr(rec, key)
    out["local_bytes"] = rec.stack_bytes  # the JSON's alias: the same value, null where unknown
    out |= {"threads_per_block": rec.block_size, "dynamic_smem": rec.dynamic_smem, "launch_source": rec.launch_source}
    for key in (
        "block_size",
        "grid_size",
        "dynamic_smem",
        "theoretical_occupancy",
        "achieved_occupancy",
        "waves_per_sm",
        "device_name",
    ):
        if getattr(rec, key) is not None:
            out[key] = getattr(rec, key)
    for key in ("req_threads", "cluster_dims", "max_registers"):
        if getattr(rec, key) is not None:
            out[key] = list(getattr(rec, key)) if isinstance(getattr(rec, key), tuple) else getattr(rec, key)
    if rec.stack_bytes is None:
        out["stack_note"] = "unknown — recursion or indirect calls"
    if impossible_figure(rec) is not None:
        out["impossible"] = impossible_figure(rec)
    return out


def test_bulk_json_rows_and_impossible_reasons_equal_the_record_by_record_ones():
    rng = random.Random(20261202)
    records = random_records(rng, 3000)
    assert impossible_figures(records) == [impossible_figure(r) for r in records]
    assert [record_json(r) for r in records] == [_plain_json(r) for r in records]
    assert any("impossible" in record_json(r) for r in records) and any("block_size" in record_json(r) for r in records)


def test_json_bytes_on_stdout_equal_the_text_written_to_a_stream(tmp_path):
    """The command writes UTF-8 bytes to a real stdout and text to a caller's stream: the same
    characters, one record per line."""
    path = GEN / "b_sm90.cubin"
    script = "import sys; from occupancy_gui.cli.import_command import run_import; sys.exit(run_import(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path), "--json", "--all-functions", "--no-cache"],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    stream = io.StringIO()
    with contextlib.redirect_stdout(stream):
        assert run_import([str(path), "--json", "--all-functions", "--no-cache"]) == 0
    assert proc.stdout.decode() == stream.getvalue()
    lines = stream.getvalue().splitlines()
    rows = [record_json(r) for r in import_file(path)]
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == len(rows) + 2
    assert json.loads(stream.getvalue()) == rows


def test_json_written_a_slice_at_a_time_is_one_list(monkeypatch, capsys):
    """Slices of any size join into the same list, on a text stream and on a byte stream alike."""
    from occupancy_gui.cli import import_command as cli

    path = str(GEN / "b_host.o")
    assert run_import([path, "--json", "--all-functions", "--no-cache"]) == 0
    whole = capsys.readouterr().out
    assert len(json.loads(whole)) >= 5
    for size in (1, 2, 3):
        monkeypatch.setattr(cli, "JSON_SLICE", size)
        assert run_import([path, "--json", "--all-functions", "--no-cache"]) == 0
        assert capsys.readouterr().out == whole
        stream = io.StringIO()  # no byte buffer: the text is written
        with contextlib.redirect_stdout(stream):
            assert run_import([path, "--json", "--all-functions", "--no-cache"]) == 0
        assert stream.getvalue() == whole
    script = (
        "import sys; from occupancy_gui.cli import import_command as cli; cli.JSON_SLICE = 2; "
        "sys.exit(cli.run_import(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, path, "--json", "--all-functions", "--no-cache"],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.stdout.decode() == whole
