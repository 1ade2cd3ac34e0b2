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
    from occupancy_gui.ui.calculator.kernel_panel import FIELDS

    fields = {name: (low, high) for name, _label, _kind, low, high, _step, _tip in FIELDS}
    # The bound's field shows 0 as "none" (no bound): the session holds None for it.
    optional = ("max_threads_per_block", "required_block_size", "min_blocks_per_sm")
    for name in optional:
        assert fields.pop(name) == (0, INPUT_RANGES[name][1]), name
    from occupancy_gui import fields as table

    nvidia = set(table.NAMES)
    ranges = {
        name: span
        for name, span in INPUT_RANGES.items()
        if name in nvidia and name not in ("carveout", "cache_config", *optional)
    }
    assert fields == ranges  # carveout and cache config are device-panel choices, not kernel fields


def test_inputs_are_the_field_table() -> None:
    """``Inputs`` holds exactly the table's inputs, both vendors' (and the device), with the table's defaults; a
    field added to one and not the other fails here."""
    import dataclasses
    import typing

    from occupancy_gui import fields as table
    from occupancy_gui.session import Inputs

    declared = [f for f in dataclasses.fields(Inputs) if f.name != "device"]
    assert [f.name for f in declared] == [f.name for f in table.FIELDS]
    hints = typing.get_type_hints(Inputs)
    for f in declared:
        spec = table.FIELD[f.name]
        assert f.default == spec.default, f.name
        assert (type(None) in typing.get_args(hints[f.name])) == spec.optional, f.name
