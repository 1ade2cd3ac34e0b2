"""``occupancy report`` for an AMD device: both answers, each limit of both rules, exactly ``occupancy calc``'s."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.cli.test_cli_amd import one_line_error, run

QUERIES = [
    ["--device", "MI300X", "--threads", "256", "--vgprs", "128", "--sgprs", "96", "--lds", "16KiB"],
    ["--device", "RX 7900 XTX", "--threads", "256", "--vgprs", "96", "--sgprs", "40", "--wave-size", "64", "--cu-mode"],
    [
        "--device",
        "MI100",
        "--threads",
        "192",
        "--vgprs",
        "72",
        "--agprs",
        "128",
        "--dynamic-smem",
        "3000",
        "--waves-per-eu",
        "2,6",
        "--max-flat-workgroup-size",
        "256",
    ],
    ["--device", "gfx1151", "--threads", "1025", "--vgprs", "600"],
]


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q[1])
def test_the_report_holds_calcs_answers(tmp_path, query):
    code, out = run("calc", *query, "--json")
    assert code == 0
    answer = json.loads(out)
    path = tmp_path / "r.csv"
    code, out = run("report", *query, "-o", str(path))
    assert code == 0 and out.strip() == f"wrote {path}"
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    for rule, key in (("hip_runtime", "hip_runtime"), ("compiler", "compiler")):
        limits = {r["limit"]: (int(r["value"]) if r["value"] else None) for r in rows if r["rule"] == rule}
        assert limits == answer[key]["limits"], rule
        assert [r["limit"] for r in rows if r["rule"] == rule and r["binding"]] == answer[key]["binding"], rule
    html_path = tmp_path / "r.html"
    assert run("report", *query, "-o", str(html_path))[0] == 0
    html = html_path.read_text()
    assert f'data-key="llvm_waves">{answer["compiler"]["waves_per_simd"]} of ' in html
    assert answer["explanation"].replace("'", "&#x27;").replace(">", "&gt;") in html


def test_an_nvidia_flag_or_a_kernel_file_is_refused_for_an_amd_device(tmp_path):
    out = str(tmp_path / "r.html")
    error = one_line_error(
        "report", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--barriers", "2", "-o", out
    )
    assert "--barriers: for NVIDIA devices only" in error and not (tmp_path / "r.html").exists()
    log = tmp_path / "k.log"
    log.write_text("ptxas info    : Used 32 registers\n")
    error = one_line_error("report", str(log), "--device", "MI300X", "--threads", "256", "--vgprs", "64", "-o", out)
    assert "reading an AMD kernel into a report is not supported yet" in error
