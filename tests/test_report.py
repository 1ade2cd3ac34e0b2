"""Reports (pure) and ``occupancy report``: the files parse and hold the numbers the engine gives."""

from __future__ import annotations

import csv
import io
from html.parser import HTMLParser

import pytest

from occupancy_gui import report
from occupancy_gui.cli.main import main as cli_main
from occupancy_gui.engine import Limit
from occupancy_gui.session import Session

WORKED = dict(device="sm_100", threads=256, registers=64, static_smem=24 * 1024)


class _Cells(HTMLParser):
    """Collects ``data-key`` cells, table rows (with their class) and elements by id."""

    def __init__(self) -> None:
        super().__init__()
        self.keyed: dict[str, str] = {}
        self.rows: list[tuple[str, list[str]]] = []
        self.ids: dict[str, str] = {}
        self._key: str | None = None
        self._id: list[str] = []
        self._row: list[str] | None = None
        self._row_class = ""
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-key" in a:
            self._key = a["data-key"]
            self.keyed[self._key] = ""
        if "id" in a:
            self._id.append(a["id"])
            self.ids[a["id"]] = ""
        if tag == "tr":
            self._row, self._row_class = [], a.get("class") or ""
        if tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell))
            self._cell = None
            self._key = None
        if tag == "tr" and self._row is not None:
            self.rows.append((self._row_class, self._row))
            self._row = None

    def handle_data(self, data):
        if self._key:
            self.keyed[self._key] += data
        for i in self._id:
            self.ids[i] += data
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture
def data(catalog):
    return report.report_data(Session(catalog, **WORKED))


def test_html_holds_the_summary_table_and_binding_row(data):
    page = _Cells()
    page.feed(report.to_html(data))
    assert page.keyed["active_blocks"] == "4"
    assert page.keyed["occupancy"] == "50 %"
    assert page.keyed["binding"] == "Registers"
    assert page.keyed["threads"] == "256" and page.keyed["static_smem"] == "24 KiB (24576 B)"
    binding_rows = [cells for cls, cells in page.rows if cls == "binding"]
    assert binding_rows == [[f"{report.BINDING_MARK} Registers", *binding_rows[0][1:]]]
    assert binding_rows[0][5] == "4"
    assert "4 blocks, 32 warps, 50 %" in page.ids["estimate"]
    assert "1024 threads per block" in page.ids["advisor"]
    text = report.to_html(data)
    assert "prefers-color-scheme: dark" in text and "<link" not in text and "<script" not in text
    assert "test source for regs_per_multiprocessor" in text  # the device figures carry their sources


def test_zero_blocks_lists_the_reasons(catalog):
    data = report.report_data(Session(catalog, **{**WORKED, "threads": 1025}))
    page = _Cells()
    page.feed(report.to_html(data))
    assert page.keyed["active_blocks"] == "0" and page.keyed["binding"] == "—"
    assert "1025 threads per block > 1024 allowed" in page.ids["reasons"]
    assert not [cells for cls, cells in page.rows if cls == "binding"]
    assert "1025 threads per block > 1024 allowed" in report.to_markdown(data)


def test_markdown_tables(data):
    text = report.to_markdown(data)
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2:
            rows.setdefault(cells[0], cells[1:])
    assert rows["Active blocks per SM"] == ["4"]
    assert rows["Theoretical occupancy"] == ["50 %"]
    assert rows["Binding limit"] == ["Registers"]
    assert rows[f"**{report.BINDING_MARK} Registers**"][4] == "4"


def test_csv_is_the_constraint_table(data):
    rows = list(csv.DictReader(io.StringIO(report.to_csv(data))))
    assert [r["limit"] for r in rows] == [row.limit.value for row in data.result.rows]
    binding = [r for r in rows if r["binding"] == "yes"]
    assert [r["limit"] for r in binding] == [Limit.REGISTERS.value]
    assert int(binding[0]["blocks"]) == data.result.active_blocks == 4
    assert min(int(r["blocks"]) for r in rows if r["blocks"]) == 4


def test_render_by_extension(data):
    assert report.render(data, "x.HTML").startswith("<!DOCTYPE html>")
    assert report.render(data, "x.md").startswith("# Occupancy report")
    with pytest.raises(ValueError, match="unknown report format '.pdf'"):
        report.render(data, "x.pdf")


def test_describe_and_every_gpu(catalog):
    session = Session(catalog, **{**WORKED, "device": "H100"})
    figures = {f.key: f.text for f in report.describe(session.profile, session.inputs, session.result)}
    assert figures["active_blocks"] == "4" and figures["blocks_per_gpu"] == str(4 * 132)
    rows = {r.name: r for r in report.every_gpu(catalog, session.inputs)}
    assert set(rows) == {"H100 SXM5", "My Card"}  # named GPUs only, not compute capabilities
    assert rows["H100 SXM5"].blocks_per_gpu == 4 * 132 and rows["H100 SXM5"].binding == "Registers"


def test_cli_report_html_md_csv(tmp_path, capsys):
    common = ["report", "--device", "sm_100", "--threads", "256", "--registers", "64", "--static-smem", "24KiB"]
    for suffix in ("html", "md", "csv"):
        out = tmp_path / f"r.{suffix}"
        assert cli_main([*common, "-o", str(out)]) == 0
        assert out.stat().st_size > 100
    page = _Cells()
    page.feed((tmp_path / "r.html").read_text(encoding="utf-8"))
    assert page.keyed["active_blocks"] == "4" and page.keyed["binding"] == "Registers"
    assert page.keyed["registers"] == "64"
    assert "wrote" in capsys.readouterr().out


def test_cli_report_from_compiler_output(tmp_path):
    log = tmp_path / "k.log"
    log.write_text(
        "ptxas info    : Compiling entry function '_Z5firstPf' for 'sm_90'\n"
        "ptxas info    : Used 40 registers, 4096 bytes smem, 352 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function '_Z6secondPf' for 'sm_90'\n"
        "ptxas info    : Used 128 registers, 352 bytes cmem[0]\n"
    )
    out = tmp_path / "r.html"
    assert (
        cli_main(["report", "--device", "sm_90", "--threads", "256", str(log), "--kernel", "second", "-o", str(out)])
        == 0
    )
    page = _Cells()
    page.feed(out.read_text(encoding="utf-8"))
    assert page.keyed["registers"] == "128" and page.keyed["static_smem"] == "0 B"
    assert cli_main(["report", "--device", "sm_90", "--threads", "256", str(log), "-o", str(out)]) == 0
    page = _Cells()
    page.feed(out.read_text(encoding="utf-8"))
    assert page.keyed["registers"] == "40" and page.keyed["static_smem"] == "4 KiB (4096 B)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--threads", "256", "-o", "r.html"], "--registers is required without FILE"),
        (["--threads", "256", "--registers", "32", "-o", "r.pdf"], "unknown report format"),
        (["--threads", "0", "--registers", "32", "-o", "r.html"], "threads: expected 1..16384, got 0"),
        (["--threads", "256", "--registers", "32", "missing.log", "-o", "r.html"], "missing.log"),
    ],
)
def test_cli_report_errors_are_one_line(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["report", "--device", "sm_90", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("occupancy report: error:") and message in err and err.count("\n") == 1
    assert not (tmp_path / "r.html").exists()


def test_device_table_is_readable_and_names_no_install_path(tmp_path):
    """The device table says "Warp size", not "warp_size", names a profile once, and gives its file name, not
    the folder it was installed at (a report travels)."""
    out = tmp_path / "r.html"
    assert cli_main(["report", "--device", "H100", "--threads", "256", "--registers", "64", "-o", str(out)]) == 0
    text = out.read_text()
    table = text[text.index('<table id="device">') :]
    table = table[: table.index("</table>")]
    names = [cell.split("</th>")[0] for cell in table.split("<tr><th>")[2:]]
    assert "Warp size" in names and not any("_" in name for name in names), names
    assert "device_profiles/" not in table and "bundled profile gpu_h100_sxm5.yaml" in table
    assert "(NVIDIA H100 80GB HBM3 (NVIDIA H100 80GB HBM3)" not in table
    assert "228 KiB (233,472 bytes)" in table
