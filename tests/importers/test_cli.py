from __future__ import annotations

import json

from occupancy_gui.importers.cli import run_import

from .conftest import GEN, HAND


def test_table(capsys):
    assert run_import([str(GEN / "a_sm80.cubin")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["arch", "regs", "smem"]
    assert any("void occ::tiled_sum<512>(float const*, float*, int)" in line for line in out)


def test_json(capsys):
    assert run_import([str(HAND / "cuda11_ninja.log"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert set(rows[0]) == {"name", "demangled", "arch", "registers", "static_smem", "local_bytes",
                            "spill_stores", "spill_loads", "barriers", "const_bytes", "max_threads",
                            "min_blocks", "source", "kind", "reserved_smem", "relocatable", "embedded",
                            "copies", "threads_per_block", "dynamic_smem", "launch_source"}
    assert rows[0]["threads_per_block"] is None and rows[0]["launch_source"] is None  # a log has no launch
    assert rows[1]["registers"] == 30 and rows[1]["source"] == "cuda11_ninja.log:10"


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
