"""Hostile text inputs (issue 15): figures that would be misread or crash, and rows that cost memory.

Each case failed on the code before: ``Used -12 registers`` read as 12, Arabic-Indic and fullwidth
digits as 0 registers, 5000 digits raised CPython's ``ValueError`` (ptxas, cuobjdump), ncu's
``1e999999999`` raised ``decimal.Overflow``, and a 256 MB CSV row was read whole into ~10x its size.
"""

from __future__ import annotations

import tracemalloc

import pytest

from occupancy_gui.importers import ImportFailure, import_file_detailed
from occupancy_gui.importers.text.ncu_csv import MAX_ROW_CHARS

from .conftest import DATA, GEN

HUGE = "9" * 5000


def _block(used: str, stack: str = "0", arch: str = "sm_80") -> str:
    return (
        f"ptxas info    : Compiling entry function '_Z1kv' for '{arch}'\n"
        "ptxas info    : Function properties for _Z1kv\n"
        f"    {stack} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        f"ptxas info    : Used {used}\n"
    )


def _refused(tmp_path, text: str, name: str = "b.log") -> ImportFailure:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFailure) as info:
        import_file_detailed(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message and len(message) < 400, message[:500]
    return info.value


@pytest.mark.parametrize(
    "text, line, needle",
    [
        (_block("-12 registers, 356 bytes cmem[0]"), 4, "negative figure"),
        (_block("12 registers, -1024 bytes smem, 356 bytes cmem[0]"), 4, "negative figure"),
        (_block("12 registers, 356 bytes cmem[0]", stack="-8"), 3, "negative figure"),
        (_block("\u0664\u0662 registers, 356 bytes cmem[0]"), 4, "digits 0-9"),  # Arabic-Indic 42
        (_block("\uff11\uff12 registers, 356 bytes cmem[0]"), 4, "digits 0-9"),  # fullwidth 12
        (_block("12 registers, \u0661\u0660\u0662\u0664 bytes smem"), 4, "digits 0-9"),
        (_block(f"{HUGE} registers, 356 bytes cmem[0]"), 4, "5000 digits"),
        (_block(f"12 registers, {HUGE} bytes smem"), 4, "5000 digits"),
        (_block("12 registers, 356 bytes cmem[0]", stack=HUGE), 3, "5000 digits"),
        (
            "nvlink info    : Function properties for '_Z1kv': (target: sm_80)\n"
            "nvlink info    : used -107 registers, used 1 barriers, 0 stack, 0 bytes smem, 0 bytes lmem\n",
            2,
            "negative figure",
        ),
        ("x\n" * 3 + _block("12 registers") + _block(f"{'1' * 25} registers", arch="sm_90"), 11, "25 digits"),
    ],
    ids=[
        "minus-registers",
        "minus-smem",
        "minus-stack",
        "arabic-indic",
        "fullwidth",
        "arabic-smem",
        "5000-registers",
        "5000-smem",
        "5000-stack",
        "nvlink-minus",
        "25-digits-second-block",
    ],
)
def test_ptxas_figures_that_would_be_misread_are_refused_with_their_line(tmp_path, text, line, needle):
    error = _refused(tmp_path, text)
    assert error.line == line and needle in error.reason


def test_plain_ptxas_figures_still_read(tmp_path):
    path = tmp_path / "ok.log"
    path.write_text(
        _block("40 registers, used 1 barriers, 2048 bytes smem, 356 bytes cmem[0]")
        + _block("12 registers, 16 bytes cumulative stack size, 356 bytes cmem[0]", arch="sm_90")
    )
    records = import_file_detailed(path).records
    assert [(r.arch, r.registers) for r in records] == [("sm_80", 40), ("sm_90", 12)]
    assert records[0].static_smem == 2048 and records[1].local_bytes == 16


@pytest.mark.parametrize(
    "value, needle",
    [("-12", "'-12'"), ("\u0664\u0662", "not a figure"), (HUGE, "not a figure"), ("12x", "'12x'")],
    ids=["minus", "arabic-indic", "5000-digits", "suffix"],
)
def test_cuobjdump_reg_field_that_is_no_figure(tmp_path, value, needle):
    dump = sorted(GEN.glob("*.cuobjdump.txt"))[0].read_text()
    at = dump.index("REG:")
    end = dump.index(" ", at)
    lineno = dump.count("\n", 0, at) + 1
    error = _refused(tmp_path, dump[:at] + "REG:" + value + dump[end:], "d.cuobjdump.txt")
    assert error.line == lineno and needle in error.reason


def _ncu(value: str) -> str:
    text = (DATA / "ncu" / "raw_base_units.csv").read_text()
    assert '"64","1,024"' in text
    return text.replace('"64","1,024"', f'"{value}","1,024"', 1)


@pytest.mark.parametrize(
    "value, needle",
    [
        ("1e999999999", "out of range"),
        ("-1e999999999", "out of range"),
        ("1e19", "out of range"),
        ("\u0664\u0662", "not a number"),
        ("\uff16\uff14", "not a number"),
        (HUGE, "out of range"),
    ],
    ids=["1e999999999", "-1e999999999", "1e19", "arabic-indic", "fullwidth", "5000-digits"],
)
def test_ncu_numbers_out_of_range_or_script(tmp_path, value, needle):
    error = _refused(tmp_path, _ncu(value), "r.csv")
    assert error.line == 3 and "registers" in error.reason and needle in error.reason


@pytest.mark.parametrize("value", ["1e-999999999", "0e030624179", "0e-999999999"])
def test_ncu_tiny_exponent_reads_as_zero(tmp_path, value):
    path = tmp_path / "r.csv"
    path.write_text(_ncu(value))
    assert import_file_detailed(path).records[0].registers == 0


def test_ncu_zero_with_a_huge_exponent_in_a_size(tmp_path):
    # Found by the structured long run (ncu_gen): "0e030624179" byte/block raised decimal.Overflow when
    # the size's printed precision (10**exponent) was worked out.
    text = (DATA / "ncu" / "raw_base_units.csv").read_text()
    assert '"1,024","0","32,768"' in text
    path = tmp_path / "r.csv"
    path.write_text(text.replace('"1,024","0","32,768"', '"0e030624179","0","32,768"', 1))
    assert import_file_detailed(path).records[0].reserved_smem == 0


def test_ncu_a_huge_row_is_refused_in_bounded_memory(tmp_path):
    head = (DATA / "ncu" / "raw_base_units.csv").read_text().splitlines()[:2]
    path = tmp_path / "big.csv"
    with path.open("w") as fh:
        fh.write("\n".join(head) + "\n")
        for _ in range(64):
            fh.write('"0",' * (1 << 20))  # 256 MiB in one row
        fh.write("\n")
    tracemalloc.start()
    try:
        with pytest.raises(ImportFailure, match="a row longer than") as info:
            import_file_detailed(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.line == 3
    assert peak < 12 * MAX_ROW_CHARS, peak  # the old reader held the whole 256 MiB row and its fields
