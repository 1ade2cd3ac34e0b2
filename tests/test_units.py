"""One byte-size parser for the window's fields, the GUI's options and the CLI's: the forms it accepts."""

from __future__ import annotations

import argparse

import pytest

from occupancy_gui.cli.common import byte_size
from occupancy_gui.units import format_bytes, format_bytes_long, parse_bytes

ACCEPTED = [
    ("24576", 24576),
    ("0", 0),
    ("24576 B", 24576),
    ("1 byte", 1),
    ("2 bytes", 2),
    ("24k", 24576),
    ("24K", 24576),
    ("24 KB", 24576),
    ("24KiB", 24576),
    (" 24 kib ", 24576),
    ("1.5k", 1536),
    ("1.5 KiB", 1536),
    ("0.5k", 512),
    ("2 MiB", 2 << 20),
    ("2M", 2 << 20),
    ("1.25 MB", 1310720),
    ("48.", 48),
    ("123456789012345678901234567890", 123456789012345678901234567890),  # exact, no float rounding
]
REFUSED = ["", "k", "-1", "-1k", "1.0001k", "0.1k", "1.5", "1e3", "24 GiB", "24 kilobytes", "0x10", "1,024", "twelve"]


@pytest.mark.parametrize(("text", "value"), ACCEPTED)
def test_accepted_forms(text: str, value: int) -> None:
    assert parse_bytes(text) == value
    assert byte_size(text) == value  # the CLI's argument type reads the same forms


@pytest.mark.parametrize("text", REFUSED)
def test_refused_forms(text: str) -> None:
    """Not a whole, non-negative byte count: refused, never truncated (1.0001k is not 1024)."""
    assert parse_bytes(text) is None
    with pytest.raises(argparse.ArgumentTypeError, match="whole number of bytes"):
        byte_size(text)


@pytest.mark.parametrize("value", [0, 1, 1000, 1024, 1536, 24576, 2 << 20])
def test_formatted_sizes_parse_back(value: int) -> None:
    assert parse_bytes(format_bytes(value)) == value
    assert parse_bytes(format_bytes_long(value).split(" (")[0]) in (value, None)  # "1.50 KiB" is 1536 again
    assert format_bytes_long(1536) == "1.50 KiB (1536 B)"


def test_cli_and_gui_options_accept_mib_and_refuse_a_fraction_of_a_byte(capsys: pytest.CaptureFixture[str]) -> None:
    from occupancy_gui.cli.main import main

    calc = ["calc", "--device", "sm_90", "--threads", "64", "--registers", "32", "--static-smem"]
    assert main([*calc, "0.015625 MiB"]) == 0  # 16 KiB
    assert "limited by" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main([*calc, "1.0001k"])
    assert exit_info.value.code == 2
    assert "--static-smem: expected a whole number of bytes" in capsys.readouterr().err
