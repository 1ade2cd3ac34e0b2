"""The ``occupancy`` command line: outputs, JSON shapes, and one-line errors with exit code 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from occupancy_gui.cli.main import main

RESULT_KEYS = {
    "active_blocks",
    "active_warps",
    "active_threads",
    "occupancy",
    "limits",
    "binding",
    "allocated_registers_per_block",
    "allocated_shared_memory_per_block",
    "reasons",
}
LIMIT_KEYS = {"warps", "blocks", "registers", "shared_memory", "barriers"}


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_calc_json_seed_example() -> None:
    code, out = run(
        "calc", "--device", "sm_100", "--threads", "256", "--registers", "64", "--static-smem", "24KiB", "--json"
    )
    data = json.loads(out)
    assert code == 0
    assert set(data) >= RESULT_KEYS and set(data["limits"]) >= LIMIT_KEYS
    assert (data["active_blocks"], data["occupancy"], data["binding"]) == (4, 0.5, ["registers"])
    assert data["limits"]["registers"] == 4 and data["limits"]["shared_memory"] == 9


def test_calc_table_marks_binding_row() -> None:
    code, out = run("calc", "--device", "9.0", "--threads", "256", "--registers", "32")
    assert code == 0
    assert "occupancy 100.0%" in out
    assert "* warps" in out and "* registers" in out


def test_every_cc_reachable_by_both_spellings() -> None:
    for spelling in ("sm_90", "9.0", "sm_120", "12.0", "sm_35", "3.5", "sm_107", "10.7"):
        assert run("calc", "--device", spelling, "--threads", "128", "--registers", "32", "--json")[0] == 0


def test_batch_mixes_results_and_errors(tmp_path) -> None:
    queries = tmp_path / "q.jsonl"
    lines = [
        {"device": "sm_80", "threads": 256, "registers": 64, "dynamic_smem": 49152},
        "not json",
        {"device": "sm_80", "threads": 256},
        {"device": "sm_80", "threads": 1025, "registers": 32},
        {
            "device": {
                "schema": 1,
                "name": "mine",
                "kind": "gpu",
                "inherits": "sm_86",
                "architecture": "Ampere",
                "segment": "consumer",
                "sm_count": {"value": 10, "source": "test"},
                "limits": {},
            },
            "threads": 128,
            "registers": 32,
            "carveout": 50,
        },
    ]
    queries.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    code, out = run("batch", str(queries))
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(results) == 5
    assert results[0]["active_blocks"] == 3
    assert "error" in results[1] and ":2:" in results[1]["error"]
    assert results[2] == {"error": f"{queries}:3: registers: required"}
    assert results[3]["active_blocks"] == 0 and results[3]["reasons"] == ["1025 threads per block > 1024 allowed"]
    assert results[4]["active_blocks"] > 0


def test_suggest_reports_header_and_exact_headroom() -> None:
    code, out = run("suggest", "--device", "sm_80", "--registers", "32", "--threads", "256", "--blocks", "2", "--json")
    data = json.loads(out)
    assert code == 0 and {"block_size", "min_grid_size", "dynamic_smem_reference", "dynamic_smem_exact"} <= set(data)


def test_devices_json_lists_profiles() -> None:
    code, out = run("devices", "--json")
    data = json.loads(out)
    nvidia = [d for d in data if d["vendor"] == "nvidia"]
    assert code == 0 and len(nvidia) >= 55
    assert all("limits" in d and "sm_count" in d for d in nvidia)  # AMD's entries: tests/cli/test_cli_amd.py


@pytest.mark.parametrize(
    "argv",
    [
        ["calc", "--device", "nope", "--threads", "1", "--registers", "1"],
        ["calc", "--device", "sm_90", "--threads", "x", "--registers", "1"],
        ["calc", "--device", "sm_90", "--threads", "0", "--registers", "1"],
        ["calc", "--device", "sm_90", "--threads", "64", "--registers", "1", "--carveout", "150"],
        ["calc", "--device", "sm_90", "--threads", "64", "--registers", "1", "--static-smem", "lots"],
        ["frobnicate"],
        ["batch", "/nonexistent/file.jsonl"],
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(argv: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "occupancy_gui.cli.main", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_import_table_notes_a_cluster_kernel(capsys) -> None:
    """The text listing's note column says a kernel's cluster shape (``__cluster_dims__(2,1,1)`` in this
    cubin's EIATTR_CTA_PER_CLUSTER), as the JSON's ``cluster_dims`` does."""
    from pathlib import Path

    cubin = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen" / "b_sm90.cubin"
    assert main(["import", "--no-cache", str(cubin)]) == 0
    lines = {line.split("  ")[-1]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert " cluster 2x1x1  " in lines["cluster_kernel(unsigned int*)"]
    assert "cluster" not in lines["spill_kernel(float const*, float*, int)"]
