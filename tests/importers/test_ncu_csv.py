"""Nsight Compute ``--csv`` reports (hand-written fixtures in the shape ncu 2023-2025 prints)."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from occupancy_gui.importers import ImportCancelled, ImportFailure, detect_format, import_file, import_file_detailed
from occupancy_gui.importers.json_rows import record_json
from occupancy_gui.importers.text.ncu_csv import _bytes, import_ncu_csv

from .conftest import DATA

NCU = DATA / "ncu"
HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
    '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
    '"Metric Value"\n'
)


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


# How Windows shells save redirected text: PowerShell 5 ``>`` writes UTF-16LE with a BOM, ``Out-File
# -Encoding BigEndianUnicode`` UTF-16BE, some tools UTF-16LE without one, PowerShell 7 and editors
# UTF-8 with a BOM and CRLF line ends.  Shared with the cuobjdump text tests.
WINDOWS_SAVES: dict[str, Callable[[str], bytes]] = {
    "utf-16-le-bom": lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
    "utf-16-be-bom": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
    "utf-16-le-no-bom": lambda text: text.encode("utf-16-le"),
    "utf-8-bom-crlf": lambda text: codecs.BOM_UTF8 + _crlf(text).encode("utf-8"),
}


def save_both_ways(tmp_path: Path, fname: str, text: str, save: Callable[[str], bytes]) -> tuple[Path, Path]:
    """The same text as UTF-8 and re-encoded, under one file name (records name their file)."""
    plain, encoded = tmp_path / "utf8" / fname, tmp_path / "windows" / fname
    for path, data in ((plain, text.encode("utf-8")), (encoded, save(text))):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
    return plain, encoded


def _big_report() -> str:
    """The details fixture with its launches repeated, long enough for several cancel polls."""
    text = (NCU / "details_launchstats_occupancy.csv").read_text()
    head, _, rows = text.partition('"ID",')
    header, body = rows.split("\n", 1)
    return head + '"ID",' + header + "\n" + body * 400


def test_detected_by_content_despite_profiler_preamble(tmp_path):
    for fname in ("details_launchstats_occupancy.csv", "raw_base_units.csv"):
        data = (NCU / fname).read_bytes()
        renamed = tmp_path / "report.txt"
        renamed.write_bytes(data)
        assert detect_format(renamed, data[:65536]) == "ncu_csv"


def test_details_page_one_record_per_launch():
    recs = import_file(NCU / "details_launchstats_occupancy.csv")
    assert [r.name for r in recs] == [
        "vectorAdd(const float *, const float *, float *, int)",
        "void occ::tiled_sum<512>(const float *, float *, int)",
        "void occ::tiled_sum<512>(const float *, float *, int)",
    ]
    va, ts1, ts2 = recs
    assert va.arch == "sm_86" and va.demangled == va.name
    assert (va.block_size, va.grid_size, va.registers, va.static_smem, va.dynamic_smem) == (256, 196, 16, 0, 0)
    assert va.reserved_smem == 1024  # "1.02" Kbyte/block
    assert (va.theoretical_occupancy, va.achieved_occupancy, va.waves_per_sm) == (100.0, 79.68, 0.39)
    assert va.source == "details_launchstats_occupancy.csv:13"
    assert (ts1.block_size, ts1.grid_size, ts1.registers, ts1.static_smem) == (512, 1024, 10, 2048)
    assert (ts2.grid_size, ts2.dynamic_smem, ts2.theoretical_occupancy, ts2.achieved_occupancy) == (
        64,
        8192,
        66.67,
        31.02,
    )
    assert va.device_name is None  # the details page names the device by number only
    row = record_json(va)
    assert row["block_size"] == 256 and row["achieved_occupancy"] == 79.68 and row["registers"] == 16


def test_raw_page_base_units():
    recs = import_file(NCU / "raw_base_units.csv")
    gemm, scan = recs
    assert gemm.name == "_ZN4gemm6kernelILi128ELi8EEEvPKfS2_Pfi"
    assert gemm.demangled == "void gemm::kernel<128, 8>(float const*, float const*, float*, int)"
    assert (
        gemm.arch,
        gemm.block_size,
        gemm.grid_size,
        gemm.registers,
        gemm.static_smem,
        gemm.dynamic_smem,
        gemm.reserved_smem,
    ) == ("sm_90", 128, 4096, 64, 32768, 0, 1024)
    assert gemm.device_name == "NVIDIA H100 80GB HBM3"
    assert (gemm.theoretical_occupancy, gemm.achieved_occupancy, gemm.waves_per_sm) == (50.0, 48.97, 1.82)
    assert (scan.block_size, scan.grid_size, scan.registers, scan.dynamic_smem) == (1024, 132, 30, 4224)
    assert scan.source == "raw_base_units.csv:4"


def test_old_layout_with_kernel_time_and_no_block_columns(tmp_path):
    path = tmp_path / "old.csv"
    path.write_text(
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context","Stream",'
        '"Section Name","Metric Name","Metric Unit","Metric Value"\n'
        '"1","1234","app","HOST","ampere_sgemm_128x64_nt","2024-Jan-01 00:00:00","1","7",'
        '"Launch Statistics","Registers Per Thread","register/thread","122"\n'
        '"1","1234","app","HOST","ampere_sgemm_128x64_nt","2024-Jan-01 00:00:00","1","7",'
        '"Launch Statistics","Static Shared Memory Per Block","Kbyte/block","32.77"\n'
        '"1","1234","app","HOST","ampere_sgemm_128x64_nt","2024-Jan-01 00:00:00","1","7",'
        '"Launch Statistics","Block Size","","128"\n'
        '"1","1234","app","HOST","ampere_sgemm_128x64_nt","2024-Jan-01 00:00:00","1","7",'
        '"Occupancy","Achieved Occupancy","%","n/a"\n'
    )
    (rec,) = import_file(path)
    assert (rec.registers, rec.static_smem, rec.block_size, rec.arch) == (122, 32768, 128, "unknown")
    assert rec.achieved_occupancy is None and rec.grid_size is None


@pytest.mark.parametrize(
    "value,scale,expected",
    [
        ("1.02", 1000, 1024),
        ("2.05", 1000, 2048),
        ("8.19", 1000, 8192),
        ("32.77", 1000, 32768),
        ("100", 1, 100),
        ("4100", 1, 4100),
        ("1", 1024, 1024),
        ("1.5", 1 << 20, 1572864),
        ("0", 1000, 0),
        ("0.10", 1000, 96),
    ],
)
def test_scaled_sizes_snap_within_printed_precision(value, scale, expected):
    assert _bytes(Decimal(value), scale) == expected


@pytest.mark.parametrize(
    "body,match",
    [
        (
            '"0","1","p","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","8.0","Launch Statistics",'
            '"Registers Per Thread","register/thread","many"',
            "'many' is not a number",
        ),
        (
            '"0","1","p","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","8.0","Launch Statistics",'
            '"Static Shared Memory Per Block","parsec/block","3"',
            "unknown unit",
        ),
        ('"0","1","p","h","k","1","7"', "row has 7 fields, the header 15"),
        (
            '"0","1","p","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","8.0","Launch Statistics",'
            '"Registers Per Thread","register/thread","1e999"',
            "out of range",
        ),
        (
            '"0","1","p","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","8.0","Launch Statistics",'
            '"Registers Per Thread","register/thread","-3"',
            "negative",
        ),
    ],
)
def test_bad_rows_name_the_line(tmp_path, body, match):
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + body + "\n")
    with pytest.raises(ImportFailure, match=match) as info:
        import_file_detailed(path)
    assert info.value.line == 2 and str(info.value).startswith(f"{path}:2: ")


def test_header_only_and_cancel(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text(
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
        '"Section Name","Metric Name","Metric Unit","Metric Value"\n'
    )
    with pytest.raises(ImportFailure, match="no kernel launches"):
        import_file(path)
    big = tmp_path / "big.csv"
    big.write_text(_big_report())
    with pytest.raises(ImportCancelled):
        import_ncu_csv(big, cancel=lambda: True)
    seen = []
    assert len(import_ncu_csv(big, progress=lambda d, t: seen.append((d, t)))) == 3
    assert seen[-1][0] == seen[-1][1] == big.stat().st_size


@pytest.mark.parametrize("encoding", sorted(WINDOWS_SAVES))
@pytest.mark.parametrize("fname", ["details_launchstats_occupancy.csv", "raw_base_units.csv"])
def test_windows_encodings_read_like_utf8(tmp_path, fname, encoding):
    plain, encoded = save_both_ways(tmp_path, fname, (NCU / fname).read_bytes().decode(), WINDOWS_SAVES[encoding])
    expected = import_file(plain)
    assert expected  # the baseline holds launches to compare
    assert import_file(encoded) == expected  # names, values and source lines alike


@pytest.mark.parametrize("encoding", sorted(WINDOWS_SAVES))
def test_windows_encodings_keep_error_lines(tmp_path, encoding):
    text = (
        HEADER + '"0","1","p","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","8.0","Launch Statistics",'
        '"Registers Per Thread","register/thread","-3"\n'
    )
    _, encoded = save_both_ways(tmp_path, "bad.csv", text, WINDOWS_SAVES[encoding])
    with pytest.raises(ImportFailure, match="negative") as info:
        import_file(encoded)
    assert info.value.line == 2 and str(info.value).startswith(f"{encoded}:2: ")
    assert "\n" not in str(info.value)


def test_invalid_utf8_bytes_are_replaced(tmp_path):
    # A Latin-1 console (e.g. cp1252 program output before the header, or in a kernel name) is
    # not UTF-8: the bytes become U+FFFD instead of failing the whole report.
    row = (
        '"0","1","p","h","k\xe9rnel","1","7","(64, 1, 1)","(2, 1, 1)","0","8.0",'
        '"Launch Statistics","Registers Per Thread","register/thread","32"\n'
    )
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"Temp\xe9rature \xb0C\n" + (HEADER + row).encode("latin-1"))
    (rec,) = import_file(path)
    assert (rec.name, rec.registers, rec.block_size, rec.source) == ("k\ufffdrnel", 32, 64, "latin1.csv:3")


@pytest.mark.parametrize("encoding", ["utf-16-le-bom", "utf-16-be-bom"])
def test_utf16_progress_and_cancel(tmp_path, encoding):
    big = tmp_path / "big.csv"
    big.write_bytes(WINDOWS_SAVES[encoding](_big_report()))
    with pytest.raises(ImportCancelled):
        import_ncu_csv(big, cancel=lambda: True)
    seen: list[tuple[int, int]] = []
    assert len(import_ncu_csv(big, progress=lambda d, t: seen.append((d, t)))) == 3
    assert len(seen) > 1 and seen == sorted(seen)
    assert seen[-1][0] == seen[-1][1] == big.stat().st_size
