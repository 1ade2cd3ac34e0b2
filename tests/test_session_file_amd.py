"""Session files with AMD devices (format version 2): round trip, versions, each vendor's keys, hostile values."""

from __future__ import annotations

import pytest

from occupancy_gui.session import Inputs, Session
from occupancy_gui.session import file as sf

KIB = 1024
HEAD = "occupancy_session: 2\ndevice: MI300X\n"


def _refused(catalog, text: str) -> sf.SessionFileError:
    with pytest.raises(sf.SessionFileError) as info:
        sf.loads(text, catalog, "s.occsession")
    message = str(info.value)
    assert message.startswith("s.occsession") and "\n" not in message and len(message) < 400, message[:500]
    return info.value


def test_an_amd_session_round_trips_as_version_2(tmp_path, catalog):
    session = Session(
        catalog,
        device="RX 7900 XTX",
        threads=128,
        vgprs=64,
        lds=48 * KIB,
        wave_size=64,
        wgp_mode=False,
        waves_per_eu=(2, 6),
        max_flat_workgroup_size=256,
        dynamic_smem=512,
    )
    pinned = Inputs(device="sm_90", threads=320, registers=48)
    state = sf.state_of(session, None, pinned, "nvidia")
    path = tmp_path / "a.occsession"
    sf.save(path, state)
    text = path.read_text()
    assert text.startswith("occupancy_session: 2\n") and "device: AMD Radeon RX 7900 XTX" in text
    assert "registers" not in text.split("compare:")[0] and "vgprs: 64" in text  # each vendor's own keys
    loaded = sf.load(path, catalog)
    assert loaded.vendor == "amd" and loaded.pinned_vendor == "nvidia"
    for name in ("device", *sf.VENDOR_INPUTS["amd"]):
        assert getattr(loaded.inputs, name) == getattr(session.inputs, name), name
    assert loaded.pinned == pinned
    other = Session(catalog, device="sm_90", registers=40)
    assert sf.apply_inputs(other, loaded.inputs, loaded.vendor) and other.inputs.registers == 40  # NVIDIA's kept
    assert other.amd.answer.as_json() == session.amd.answer.as_json()


def test_an_nvidia_session_is_still_written_as_version_1(catalog):
    text = sf.dumps(sf.state_of(Session(catalog, device="sm_90")))
    assert text.startswith("occupancy_session: 1\n") and "vgprs" not in text


def test_version_1_holds_no_amd_device(catalog):
    error = _refused(catalog, "occupancy_session: 1\ndevice: MI300X\n")
    assert error.field == "device" and "format version 2" in error.message and error.line == 2


@pytest.mark.parametrize(
    "text, field, words",
    [
        (
            HEAD + "inputs:\n  registers: 64\n",
            "inputs.registers",
            "for NVIDIA devices only; AMD Instinct MI300X is an AMD",
        ),
        ("occupancy_session: 2\ndevice: sm_90\ninputs:\n  vgprs: 64\n", "inputs.vgprs", "for AMD devices only"),
        (HEAD + "inputs:\n  vgpr: 64\n", "inputs.vgpr", "unknown key; expected one of: threads, dynamic_smem, vgprs"),
        (HEAD + "inputs:\n  wave_size: 48\n", "inputs.wave_size", "expected 32 or 64, got 48"),
        (HEAD + "inputs:\n  wgp_mode: yes please\n", "inputs.wgp_mode", "expected true, false or null"),
        (HEAD + "inputs:\n  wgp_mode: 1\n", "inputs.wgp_mode", "expected true, false or null"),
        (HEAD + "inputs:\n  waves_per_eu: [1, 2, 3]\n", "inputs.waves_per_eu", "expected N or [N, M]"),
        (HEAD + "inputs:\n  waves_per_eu: [6, 2]\n", "inputs.waves_per_eu", "the minimum 6 is above the maximum 2"),
        (HEAD + "inputs:\n  waves_per_eu: [1, true]\n", "inputs.waves_per_eu", "expected N or [N, M]"),
        (HEAD + "inputs:\n  vgprs: null\n", "inputs.vgprs", "expected a whole number"),
        (HEAD + "inputs:\n  max_flat_workgroup_size: 2048\n", "inputs", "expected 1..1024 on gfx942, got 2048"),
        (HEAD + "compare:\n  device: MI300X\n  inputs: {sgprs: -1}\n", "compare.inputs.sgprs", "expected 0..800"),
    ],
)
def test_wrong_values_and_keys_name_their_field(catalog, text, field, words):
    error = _refused(catalog, text)
    assert error.field == field and words in error.message, str(error)


def test_a_minimum_alone_and_a_pair_are_read(catalog):
    assert sf.loads(HEAD + "inputs:\n  waves_per_eu: 3\n", catalog).inputs.waves_per_eu == (3, None)
    assert sf.loads(HEAD + "inputs:\n  waves_per_eu: [2, 4]\n", catalog).inputs.waves_per_eu == (2, 4)
    state = sf.loads(HEAD + "inputs:\n  wave_size: null\n  wgp_mode: false\n", catalog)
    assert (state.inputs.wave_size, state.inputs.wgp_mode) == (None, False)  # gfx942 takes neither: kept, unused


@pytest.mark.parametrize("name", sorted(sf.AMD_VALUE_RANGES))
def test_out_of_range_amd_values_are_refused_not_replaced(catalog, name):
    low, high = sf.AMD_VALUE_RANGES[name]
    for bad in (low - 1, high + 1, 10**30):
        error = _refused(catalog, HEAD + f"inputs:\n  {name}: {bad}\n")
        assert error.field == f"inputs.{name}" and f"expected {low}..{high}" in error.message
    for good in (low, high):
        if name == "max_flat_workgroup_size" and good > 1024:
            continue  # beyond every target's workgroup limit: refused by the target (above)
        assert getattr(sf.loads(HEAD + f"inputs:\n  {name}: {good}\n", catalog).inputs, name) == good


def test_hostile_amd_values_are_cut_and_bounded(catalog):
    error = _refused(catalog, HEAD + "inputs:\n  vgprs: " + "9" * 5000 + "\n")
    assert error.line == 4 and error.field == "inputs.vgprs" and "5000 characters" in error.message
    error = _refused(catalog, HEAD + "inputs:\n  waves_per_eu: [" + "1, " * 4000 + "1]\n")
    assert "a list of 4001 entries" in error.message
    error = _refused(catalog, HEAD + "inputs:\n  wgp_mode: " + "x" * 100_000 + "\n")
    assert error.field == "inputs.wgp_mode" and "…" in error.message
    error = _refused(catalog, "occupancy_session: 2\ndevice: MI3" + "0" * 400 + "X\n")
    assert error.field == "device"
