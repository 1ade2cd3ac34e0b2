"""Figures beyond what a GPU or the header's C ints can hold: one line naming the field, exit 2 (issue 15, item 10)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HUGE = "99999999999999999999"

CASES = {
    ("calc", "--barriers", HUGE): f"occupancy calc: error: block barriers {HUGE} is beyond 2147483647",
    (
        "calc",
        "--max-dynamic-smem",
        HUGE,
    ): f"occupancy calc: error: max dynamic shared memory {HUGE} B is beyond 2147483647 B",
    (
        "suggest",
        "--smem-per-thread",
        HUGE + "999",
    ): "occupancy suggest: error: shared memory per block 102399999999999999999998976 B is beyond 2146435072 B",
    ("suggest", "--barriers", HUGE): f"occupancy suggest: error: block barriers {HUGE} is beyond 2147483647",
    (
        "suggest",
        "--max-dynamic-smem",
        HUGE,
    ): f"occupancy suggest: error: max dynamic shared memory {HUGE} B is beyond 2147483647 B",
    (
        "suggest",
        "--threads",
        HUGE,
        "--blocks",
        "2",
    ): f"occupancy suggest: error: threads per block {HUGE} is beyond 16777216",
    # report builds the window's session: its input ranges come first
    (
        "report",
        "--barriers",
        HUGE,
        "-o",
        "unused.html",
    ): f"occupancy report: error: barriers: expected 0..16, got {HUGE}",
}


@pytest.mark.parametrize("argv", CASES)
def test_an_absurd_figure_is_one_line_and_exit_2(argv: tuple[str, ...], tmp_path) -> None:
    command, *rest = argv
    threads = [] if "--threads" in rest else ["--threads", "256"]
    if command == "suggest" and "--blocks" not in rest:
        threads = []
    cmd = [
        sys.executable,
        "-m",
        "occupancy_gui.cli.main",
        command,
        "--device",
        "sm_90",
        "--registers",
        "32",
        *threads,
        *rest,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert (proc.returncode, proc.stderr.strip(), proc.stdout) == (2, CASES[argv], "")


def test_a_figure_of_thousands_of_digits_is_worded_not_printed() -> None:
    """CPython refuses str() of a 4,300+ digit int: the refusal named the figure and raised itself."""
    from occupancy_gui.engine.domain import DomainInputs, check_domain
    from occupancy_gui.engine.errors import OccupancyError

    with pytest.raises(OccupancyError, match=r"shared memory per block \(a number of thousands of digits\) B"):
        check_domain(DomainInputs(256, 32, 10**5000, 0, 1, 0, 1024, 0, -1, 0))


def test_every_error_line_is_cut(tmp_path) -> None:
    """A carveout typed with 5,000 digits was quoted whole: 5 KB on one line."""
    cmd = [
        sys.executable,
        "-m",
        "occupancy_gui.cli.main",
        "calc",
        "--device",
        "sm_90",
        "--threads",
        "256",
        "--registers",
        "32",
        "--carveout",
        "7" * 5000,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert (
        proc.returncode == 2
        and proc.stderr.count("\n") == 1
        and len(proc.stderr) <= 301 + len("occupancy calc: error: ")
    )
    assert proc.stderr.startswith("occupancy calc: error: carveout")
