"""The defaults and input ranges the window and both command lines share live with the Qt-free session."""

from __future__ import annotations

from occupancy_gui.session import DEFAULT_INPUTS, INPUT_FIELDS, INPUT_RANGES, Inputs


def test_defaults_lie_inside_the_ranges() -> None:
    assert set(INPUT_RANGES) <= set(INPUT_FIELDS)
    for name, value in DEFAULT_INPUTS.items():
        low, high = INPUT_RANGES[name]
        assert low <= value <= high, name
    assert Inputs(device="sm_100", **DEFAULT_INPUTS).threads == 256


def test_the_window_fields_use_the_session_ranges() -> None:
    from occupancy_gui.ui.panels.kernel_panel import FIELDS

    assert {name: (low, high) for name, _label, _kind, low, high, _step, _tip in FIELDS} == INPUT_RANGES
