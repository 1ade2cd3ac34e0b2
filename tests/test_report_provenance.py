"""The HTML report: demangled names, each input's provenance, the step curves inline, nothing fetched."""

from __future__ import annotations

import io
import re
from pathlib import Path

from occupancy_gui.cli.main import main
from occupancy_gui.importers import import_file
from occupancy_gui.report import provenance, report_data, to_html
from occupancy_gui.session import Session

GEN = Path(__file__).resolve().parent / "data" / "importers" / "gen"
CUBIN = GEN / "b_sm90.cubin"


def _cells(html_text: str, table: str) -> dict[str, str]:
    body = html_text[html_text.index(f'<table id="{table}">') :]
    body = body[: body.index("</table>")]
    rows = re.findall(r'data-key="(\w+)">[^<]*</td><td class="source">([^<]*)</td>', body)
    return dict(rows)


def test_cli_report_names_each_inputs_provenance_and_draws_the_curves(tmp_path):
    out = tmp_path / "r.html"
    code = main(
        [
            "report",
            str(CUBIN),
            "--kernel",
            "local_array",
            "--device",
            "sm_90",
            "--threads",
            "64",
            "--dynamic-smem",
            "1024",
            "-o",
            str(out),
        ],
        out=io.StringIO(),
    )
    assert code == 0
    text = out.read_text()
    sources = _cells(text, "inputs")
    origin = f"imported from {CUBIN}:local_array(Pair*, int) (sm_90)"
    assert sources["registers"] == origin and sources["static_smem"] == origin
    assert sources["max_threads_per_block"] == origin  # __launch_bounds__(128) from the cubin
    assert sources["threads"] == "typed" and sources["dynamic_smem"] == "typed"
    assert sources["carveout"] == "default" and sources["max_dynamic_smem"] == "default"
    assert "local_array(Pair*, int)" in text and "_Z11local_arrayP4Pairi" not in text.split('id="kernel"')[1][:200]
    assert "400 B (stack frame and spills)" in text  # a cubin's local memory, in the report too
    svgs = re.findall(r"<svg .*?</svg>", text, re.S)
    assert len(svgs) == 4 and all('class="steps"' in s and 'class="current"' in s for s in svgs)
    assert 'class="cannot-launch"' in svgs[0]  # block sizes above the bound of 128
    # Opens with no network: nothing refers outside the file.
    outside = re.findall(r"(?:src|href)\s*=|@import|url\(|<script|<link", text)
    assert outside == [] and not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text)


def test_typed_values_equal_to_the_import_still_count_as_typed(catalog):
    record = next(r for r in import_file(CUBIN) if r.name == "_Z12spill_kernelPKfPfi")
    session = Session(catalog, "sm_90", registers=record.registers, threads=100)
    sources = provenance(
        session.inputs, record, "k.cubin:spill_kernel", typed=frozenset({"registers"}), device=session.device
    )
    assert sources["registers"] == "typed" and sources["static_smem"].startswith("imported from k.cubin")
    assert sources["threads"] == "typed" and sources["dynamic_smem"] == "default"


def test_report_without_a_kernel(catalog):
    session = Session(catalog, "sm_100", threads=256, registers=64, static_smem=24 * 1024)
    text = to_html(report_data(session))
    sources = _cells(text, "inputs")
    assert sources["threads"] == "default" and sources["registers"] == "typed"
    assert text.count("<svg ") == 4 and 'class="cannot-launch"' not in text


def test_a_report_for_a_device_the_cubin_cannot_run_on_says_so(tmp_path):
    out = tmp_path / "r.html"
    assert (
        main(
            ["report", str(CUBIN), "--kernel", "spill_kernel", "--device", "sm_86", "--threads", "128", "-o", str(out)],
            out=io.StringIO(),
        )
        == 0
    )
    text = out.read_text()
    assert "cannot run on the selected device (CC 8.6)" in text and "sm_90 SASS runs on compute capability 9.x" in text


def test_every_gpu_respects_the_launch_bound(catalog):
    from occupancy_gui import report
    from occupancy_gui.session import Inputs

    within = report.every_gpu(catalog, Inputs(device="sm_90", threads=128, registers=32, max_threads_per_block=128))
    above = report.every_gpu(catalog, Inputs(device="sm_90", threads=256, registers=32, max_threads_per_block=128))
    assert within and all(r.blocks_per_sm > 0 for r in within)
    assert all(r.blocks_per_sm == 0 for r in above)  # the kernel cannot launch 256 threads on any GPU


TRITON_ADD = (
    Path(__file__).resolve().parent
    / "data"
    / "importers"
    / "triton"
    / "cache"
    / "LN5HH7MKGKLXQ6TXKXE7VY3X6ZSLEGKJAQOZLOWTZ7F553PNRSWQ"
    / "add_kernel.cubin"
)


def test_report_carries_the_required_block_size_and_says_when_min_blocks_is_missed(tmp_path):
    out = tmp_path / "r.html"
    err = io.StringIO()
    code = main(
        [
            "report",
            str(TRITON_ADD),
            "--device",
            "sm_86",
            "--threads",
            "64",
            "--min-blocks-per-sm",
            "32",
            "-o",
            str(out),
        ],
        out=err,
    )
    assert code == 0, err.getvalue()
    text = out.read_text()
    sources = _cells(text, "inputs")
    assert sources["required_block_size"].startswith("imported from") and sources["min_blocks_per_sm"] == "typed"
    svg = re.findall(r"<svg .*?</svg>", text, re.S)[0]
    assert svg.count('class="cannot-launch"') == 2 and "cannot launch (≠ 64)" in svg  # both sides of 64 threads
    # 64 threads × 48 registers on sm_86: 16 blocks per SM (its block slots), fewer than the 32 asked for.
    assert "Only 16 blocks per SM, below the 32 the kernel asked for" in text
    code = main(["report", str(TRITON_ADD), "--device", "sm_86", "--threads", "128", "-o", str(out)], out=io.StringIO())
    assert code == 2  # 128 threads: not the kernel's required block size
