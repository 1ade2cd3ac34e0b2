"""Binary compatibility of compiled targets with devices (Qt-free)."""

from __future__ import annotations

import pytest

from occupancy_gui.compatibility import devices_that_run, mismatch_message, parse_target


@pytest.mark.parametrize(
    ("arch", "cc", "runs"),
    [
        ("sm_90", (9, 0), True),
        ("sm_80", (8, 6), True),
        ("sm_86", (8, 0), False),
        ("sm_90", (10, 0), False),
        ("sm_90", (11, 0), False),
        ("sm_90a", (9, 0), True),
        ("sm_100a", (10, 3), False),
        ("sm_100f", (10, 3), True),
        ("sm_100f", (12, 0), False),
        ("sm_120", (12, 1), True),
        ("compute_80", (12, 0), True),
        ("compute_90a", (10, 0), False),
        ("compute_90", (8, 6), False),
    ],
)
def test_rules(arch, cc, runs):
    assert parse_target(arch).runs_on(cc) is runs


def test_message_offers_the_devices_it_runs_on(catalog):
    text = mismatch_message("sm_90", (11, 0), catalog)
    assert text.startswith("⚠ This kernel cannot run on the selected device (CC 11.0)")
    assert "It runs on: H100 SXM5, sm_90" in text
    assert mismatch_message("sm_90", (9, 0), catalog) is None
    assert mismatch_message("unknown", (9, 0), catalog) is None
    assert devices_that_run(parse_target("sm_80"), catalog) == ["My Card", "sm_86"]  # named GPUs first
