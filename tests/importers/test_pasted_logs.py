"""Logs as people have them: a failed build, a log cut off mid-kernel, text pasted from a forum or a chat,
and names that hold control characters (issues #37 and #39).

Real compiler output (the committed ``a_ptxas_v.log`` of nvcc 13.5, and ptxas 13.5 run here on a kernel
that does not build for sm_90) is the input, transformed as a forum or a chat transforms text.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys

import pytest

from occupancy_gui.cli.import_command import run_import
from occupancy_gui.importers import LAUNCH_BOUNDS_NOTE, ImportFailure, import_file_detailed
from occupancy_gui.importers.names.printable import printable
from occupancy_gui.importers.text.log_text import repair, restore_underscore
from tests.helpers import toolchains

from .conftest import GEN, HAND

LOG = GEN / "a_ptxas_v.log"

NOT_FOR_SM90 = """.version 8.0
.target sm_90
.address_size 64

.visible .entry grow()
{
\tsetmaxnreg.inc.sync.aligned.u32 240;
\tret;
}
"""


def figures(records) -> list[tuple]:
    return sorted(
        (
            r.name,
            r.arch,
            r.kind,
            r.registers,
            r.static_smem,
            r.stack_bytes,
            r.spill_stores,
            r.spill_loads,
            r.barriers,
            r.const_bytes,
        )
        for r in records
    )


def _failed_build_log(tmp_path) -> str:
    ptx = tmp_path / "grow.ptx"
    ptx.write_text(NOT_FOR_SM90)
    proc = subprocess.run(
        [str(toolchains.ptxas("13.5")), "-v", "-arch=sm_90", str(ptx), "-o", str(tmp_path / "x")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    return proc.stdout + proc.stderr


@pytest.mark.slow
def test_a_failed_build_says_so_with_ptxas_first_error_and_its_line(tmp_path, capsys):
    """It said "no ptxas resource-usage lines found (build with -Xptxas -v)" of a log whose build failed."""
    text = _failed_build_log(tmp_path)
    log = tmp_path / "build.log"
    log.write_text("make[2]: Entering directory '/src'\n" + text + "make[2]: *** [k.o] Error 255\n")
    with pytest.raises(ImportFailure) as info:
        import_file_detailed(log)
    assert info.value.line == 2
    assert "the build failed" in info.value.reason
    assert "error : Instruction 'setmaxnreg.inc' not supported on .target 'sm_90'" in info.value.reason
    assert run_import([str(log)]) == 2
    err = capsys.readouterr().err
    assert "line 2: the build failed" in err and "setmaxnreg.inc" in err and err.count("\n") == 1
    # Beside a run that built, the records are listed and the failure is a note.
    both = tmp_path / "both.log"
    both.write_bytes(LOG.read_bytes() + text.encode())
    result = import_file_detailed(both)
    assert figures(result.records) == figures(import_file_detailed(LOG).records)
    assert any("the build failed" in note and "setmaxnreg.inc" in note for note in result.notes)


def test_an_error_in_a_kernel_name_is_no_failure():
    result = import_file_detailed(HAND / "cuda11_ninja.log")
    assert result.records and not any("build failed" in note for note in result.notes)


def test_a_log_cut_off_mid_kernel_says_which_kernel_it_lost(tmp_path, capsys):
    data = LOG.read_bytes()
    last = data.rindex(b"Compiling entry function")
    cut_at = data.index(b"\n", last) + 1
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[:cut_at])
    whole = import_file_detailed(LOG).records
    name, arch = re.search(rb"Compiling entry function '([^']+)' for '([^']+)'", data[last:]).groups()
    result = import_file_detailed(cut)
    assert len(result.records) == len(whole) - 1
    (lost,) = result.incomplete
    assert (lost.name, lost.arch, lost.line) == (name.decode(), arch.decode(), data[:last].count(b"\n") + 1)
    assert any(
        f"cut.log:{lost.line}: the log ends inside kernel {lost.name} ({lost.arch})" in note for note in result.notes
    )
    assert run_import([str(cut)]) == 0
    assert f"the log ends inside kernel {lost.name}" in capsys.readouterr().err
    assert not import_file_detailed(LOG).incomplete


def test_a_log_says_it_records_no_launch_bound(capsys):
    result = import_file_detailed(LOG)
    assert result.launch_bounds_unknown and "occupancy import FILE.cu" in LAUNCH_BOUNDS_NOTE
    assert run_import([str(LOG)]) == 0
    out, err = capsys.readouterr()
    head, *rows = out.splitlines()
    end = head.index("max thr") + len("max thr")
    assert rows and all(row[:end].endswith(" ?") for row in rows), rows
    assert "does not record launch bounds" in err
    assert not import_file_detailed(GEN / "a_sm80.cubin").launch_bounds_unknown


def _as_pasted(data: bytes, width: int) -> bytes:
    """``data`` as a forum shows it: typographic quotes, ``_Z`` names without their underscore (Markdown
    emphasis), and every line longer than ``width`` wrapped (cut at ``width`` columns, as a chat wraps)."""
    text = data.decode()
    text = re.sub(r"'([^'\n]*)'", "\u2018\\1\u2019", text)
    text = re.sub(r"(?<=\u2018)_Z", "Z", text)  # the quoted names lose their underscore
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return "\n".join(out).encode()


@pytest.mark.parametrize("width", [40, 57, 80, 1000])
def test_a_log_pasted_from_a_forum_reads_as_the_log(tmp_path, width):
    """Typographic quotes, names that lost their leading underscore and wrapped lines: every entry function
    stays an entry function (a wrapped "Compiling entry function" made its kernel a device function)."""
    pasted = tmp_path / "pasted.log"
    pasted.write_bytes(_as_pasted(LOG.read_bytes(), width))
    assert b"\xe2\x80\x98Z" in pasted.read_bytes()
    want = import_file_detailed(LOG).records
    got = import_file_detailed(pasted).records
    assert figures(got) == figures(want)
    assert {r.name for r in got if r.is_kernel} == {r.name for r in want if r.is_kernel}


def test_repair_keeps_every_line_number():
    text = b"a\nptxas info    : Compiling entry function '_Z6ker\nnelPf' for\n'sm_80'\nb\n"
    fixed = repair(text)
    assert fixed.count(b"\n") == text.count(b"\n")
    assert fixed.split(b"\n")[1] == b"ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_80'", fixed
    assert fixed.split(b"\n")[4] == b"b"


def test_restore_underscore_only_where_it_demangles():
    assert restore_underscore("Z6kernelPf") == "_Z6kernelPf"
    assert restore_underscore("Zebra") == "Zebra" and restore_underscore("Z9") == "Z9"
    assert restore_underscore("_Z6kernelPf") == "_Z6kernelPf" and restore_underscore("plain") == "plain"


def test_unbounded_stack_from_the_ptxas_warning(tmp_path):
    log = tmp_path / "recursive.log"
    log.write_text(
        "ptxas warning : Stack size for entry function '_Z9recursivePii' cannot be statically determined\n"
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function '_Z9recursivePii' for 'sm_80'\n"
        "ptxas info    : Function properties for _Z9recursivePii\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 26 registers, 364 bytes cmem[0]\n"
    )
    (rec,) = import_file_detailed(log).records
    assert rec.stack_bytes is None and rec.registers == 26


# -- control characters --------------------------------------------------------------------------------


def test_printable_escapes_controls_only():
    assert printable("void k<\u00e9>(int)") == "void k<\u00e9>(int)"
    assert printable("a\nb\rc\x1b[31md\u202ee") == "a\\nb\\rc\\x1b[31md\\u202ee"


def test_a_name_with_a_newline_stays_on_its_row_and_its_note(tmp_path):
    """ncu's CSV quotes a field with a line break in it: the name was printed raw in the note (and the table),
    splitting the row; an ANSI escape in it would clear the terminal."""
    rows = list(csv.reader(io.StringIO((HAND.parent / "ncu" / "raw_base_units.csv").read_text())))
    head = rows[0]
    rows[2][head.index("Kernel Name")] = "evil\nkernel\x1b[2J"
    rows[2][head.index("launch__registers_per_thread")] = "300"  # impossible: a note names the kernel
    buf = io.StringIO()
    csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path = tmp_path / "evil.csv"
    path.write_text(buf.getvalue())
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.import_command", str(path), "--no-cache"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout + proc.stderr
    assert any(row.endswith("evil\\nkernel\\x1b[2J") for row in proc.stdout.splitlines()), proc.stdout
    (note,) = [line for line in proc.stderr.splitlines() if "evil" in line]
    assert note.startswith("occupancy import: note: evil\\nkernel\\x1b[2J (") and "impossible registers 300" in note
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.import_command", str(path), "--json", "--no-cache"],
        capture_output=True,
        text=True,
    )
    assert "evil\nkernel\x1b[2J" in {r["name"] for r in json.loads(proc.stdout)}  # JSON escapes it its own way


def test_a_failure_names_a_file_with_controls_in_one_line(tmp_path):
    path = tmp_path / "bad\nname\x1b[2J.cubin"
    path.write_bytes(b"\x7fELF" + bytes(60))
    with pytest.raises(ImportFailure) as info:
        import_file_detailed(path)
    assert "\n" not in str(info.value) and "\x1b" not in str(info.value) and "bad\\nname\\x1b[2J" in str(info.value)
