"""The Qt-free session with an AMD device: its inputs, both answers, vendor switching, undo, the curves.

The worked cases are issue #40's table (from ``hip_platform.cpp``); the session must give what ``occupancy calc``
gives for the same fields (one mapping, ``amd_question``), and keep each vendor's own inputs while the other's
device is shown.
"""

from __future__ import annotations

import pytest

from occupancy_gui.session import InputRefused, NotForVendor, Session

KIB = 1024
MI300X = dict(device="MI300X", threads=256, vgprs=128, sgprs=96, lds=16 * KIB)


@pytest.fixture
def amd(catalog):
    return Session(catalog, **MI300X)


def _hip(session: Session) -> dict:
    assert session.amd is not None and session.amd.answer is not None
    return session.amd.answer.hip.as_dict()


def test_the_mi300x_worked_case(amd):
    assert amd.vendor == "amd" and amd.inputs.device == "AMD Instinct MI300X"
    hip = _hip(amd)
    assert (hip["active_blocks"], hip["active_waves"], hip["occupancy"]) == (4, 16, 0.5)
    assert hip["limits"] == {"workgroup_size": None, "waves": 8, "vgprs": 4, "sgprs": 8, "lds": 4}
    assert hip["binding"] == ["vgprs", "lds"] and hip["grid_blocks"] == 1216 and hip["best_block_size"] == 1024
    assert amd.amd.answer.compiler.waves_per_simd == 4
    assert amd.result is None and amd.curves == {}  # no NVIDIA figure while an AMD device is selected


@pytest.mark.parametrize(
    "inputs, blocks, waves, limits, grid",
    [
        (dict(threads=256, vgprs=96, sgprs=40, wave_size=32), 8, 64, (8, 8, None, None), 384),
        (dict(threads=256, vgprs=96, sgprs=40, wave_size=64), 8, 32, (16, 8, None, None), 384),
        (dict(threads=256, vgprs=96, sgprs=40, wave_size=32, wgp_mode=False), 4, 32, (4, 4, None, None), 384),
        (dict(threads=128, vgprs=64, lds=48 * KIB, wave_size=32), 1, 4, (16, 21, None, 1), 48),
    ],
    ids=["wave32", "wave64", "cu-mode", "lds"],
)
def test_the_rx_7900_xtx_worked_cases(catalog, inputs, blocks, waves, limits, grid):
    session = Session(catalog, device="RX 7900 XTX", **inputs)
    hip = _hip(session)
    assert (hip["active_blocks"], hip["active_waves"], hip["grid_blocks"]) == (blocks, waves, grid)
    assert tuple(hip["limits"][k] for k in ("waves", "vgprs", "sgprs", "lds")) == limits


def test_the_mi250x_zero_and_the_errors(catalog):
    session = Session(catalog, device="MI250X", threads=1024, vgprs=512, sgprs=96)
    hip = _hip(session)
    assert (hip["active_blocks"], hip["limits"]["waves"], hip["limits"]["vgprs"], hip["grid_blocks"]) == (0, 2, 0, 110)
    session.replace(device="MI300X", threads=256, vgprs=600)
    assert _hip(session)["error"].startswith("hipErrorUnknown: 600 VGPRs exceed the 512 per SIMD")
    session.replace(vgprs=128, threads=1025)
    hip = _hip(session)
    assert hip["active_blocks"] == 0 and hip["grid_blocks"] == 0 and hip["limits"]["workgroup_size"] == 0


def test_the_session_answers_as_the_command_line(catalog):
    """One mapping from fields to the engine: the session's answer is ``occupancy calc``'s JSON, field for field."""
    from occupancy_gui.cli.amd_answers import answer

    query = dict(
        threads=192,
        vgprs=72,
        agprs=40,
        sgprs=30,
        lds=5000,
        dynamic_smem=3000,
        max_flat_workgroup_size=256,
        waves_per_eu=[2, 6],
        allocated_vgprs=96,
    )
    for device in ("MI100", "MI300X", "gfx1100", "RX 7900 XTX", "RX 9070 XT", "MI50"):
        session = Session(catalog, device=device)
        target = session.amd_profile.target
        q = {k: v for k, v in query.items() if k != "agprs" or target.agpr_file == "separate"}
        session.replace(**q)
        assert session.amd.answer.as_json() == answer(session.amd_profile, q).as_json(), device


def test_nvidia_figures_are_refused_while_an_amd_device_is_selected(amd):
    for name in ("device", "profile", "device_state"):
        with pytest.raises(NotForVendor, match="is an AMD device"):
            getattr(amd, name)
    amd.replace(device="H100")
    assert amd.vendor == "nvidia" and amd.amd is None and amd.result is not None
    with pytest.raises(NotForVendor, match="is an NVIDIA device"):
        getattr(amd, "amd_profile")  # noqa: B009 - the property raises


def test_switching_vendor_keeps_each_vendors_inputs(amd):
    amd.replace(vgprs=96, wave_size=None, dynamic_smem=2048)
    amd.replace(device="H100 SXM5")
    amd.replace(registers=40)
    assert amd.result.active_blocks > 0 and amd.inputs.vgprs == 96
    amd.replace(device="MI300X")
    assert (amd.inputs.vgprs, amd.inputs.sgprs, amd.inputs.lds) == (96, 96, 16 * KIB)
    assert amd.inputs.registers == 40 and amd.inputs.dynamic_smem == 2048  # shared: one value for both vendors


def test_undo_walks_back_across_a_vendor_switch(amd):
    amd.replace(vgprs=64)
    amd.replace(device="sm_90", registers=32)
    amd.replace(threads=512)
    assert amd.undo() and amd.inputs.threads == 256 and amd.vendor == "nvidia"
    assert amd.undo() and amd.vendor == "amd" and amd.inputs.device == "AMD Instinct MI300X"
    assert _hip(amd)["limits"]["vgprs"] == 8 and amd.undo() and amd.inputs.vgprs == 128
    assert amd.redo() and amd.redo() and amd.vendor == "nvidia" and amd.result.occupancy > 0


def test_one_notice_per_real_change(amd):
    heard: list[frozenset[str]] = []
    amd.subscribe(heard.append)
    assert not amd.replace(vgprs=128) and not amd.replace(device="AMD Instinct MI300X") and heard == []
    assert amd.replace(vgprs=64) and heard == [frozenset({"vgprs"})]
    amd.replace(device="gfx942")
    assert heard[-1] == frozenset({"device"}) and len(heard) == 2
    with amd.batch():
        amd.replace(waves_per_eu=2)
        amd.replace(waves_per_eu=None)
    assert len(heard) == 2  # a batch that ends where it began is silent


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(wave_size=48), "wave_size: expected 32 or 64, got 48"),
        (dict(vgprs=2049), "vgprs: expected 0..2048, got 2049"),
        (dict(waves_per_eu=(6, 2)), "waves_per_eu: the minimum 6 is above the maximum 2"),
        (dict(waves_per_eu=0), "waves_per_eu: expected 1..64, got 0"),
        (dict(wgp_mode=1), "wgp_mode: expected true, false or null"),
        (dict(max_flat_workgroup_size=2048), "max_flat_workgroup_size: expected 1..1024 on gfx942, got 2048"),
    ],
)
def test_values_the_table_refuses_change_nothing(amd, change, words):
    before = amd.inputs
    with pytest.raises(InputRefused, match="^" + words.replace("(", r"\(").replace(")", r"\)")):
        amd.replace(**change)
    assert amd.inputs == before and not amd.can_undo


def test_a_field_the_target_does_not_take_is_kept_but_not_applied(catalog):
    session = Session(catalog, device="RX 7900 XTX", threads=256, vgprs=96, wave_size=64, wgp_mode=False)
    session.replace(device="MI300X")  # gfx942: wave64 only, no WGPs, AGPRs counted in the VGPRs
    session.replace(agprs=200)
    plain = Session(catalog, device="MI300X", threads=256, vgprs=96)
    assert session.amd.answer.as_json() == plain.amd.answer.as_json()
    session.replace(device="MI100")  # gfx908: a separate AGPR file, and LLVM counts max(VGPRs, AGPRs)
    as_200 = Session(catalog, device="MI100", threads=256, vgprs=200).amd.answer.compiler.limits["vgprs"]
    without = Session(catalog, device="MI100", threads=256, vgprs=96).amd.answer.compiler.limits["vgprs"]
    assert session.amd.answer.compiler.limits["vgprs"] == as_200 != without
    session.replace(device="RX 7900 XTX")
    assert (session.inputs.wave_size, session.inputs.wgp_mode) == (64, False)


def test_back_on_nvidia_threads_meet_the_kernels_own_limits(catalog):
    session = Session(catalog, device="sm_90", threads=128, required_block_size=128)
    session.replace(device="MI300X")
    session.replace(threads=256)  # not refused: .reqntid is NVIDIA's kernel's
    session.replace(device="sm_90")
    assert session.inputs.threads == 128 and session.result is not None
    session = Session(catalog, device="sm_90", threads=128, max_threads_per_block=256)
    session.replace(device="MI300X")
    session.replace(threads=1024)
    session.replace(device="sm_90")
    assert session.inputs.threads == 256


def test_curves_follow_the_inputs_and_are_reused_where_only_their_input_moved(amd):
    curves = amd.amd.curves
    assert set(curves) == {"threads", "vgprs", "lds"}
    threads = curves["threads"]
    assert int(threads.runtime.active_blocks[threads.runtime.index_of(256)]) == 4
    assert int(curves["vgprs"].compiler.active_blocks[128]) == 4  # waves per SIMD at 128 VGPRs
    amd.replace(threads=512)
    again = amd.amd.curves["threads"]
    assert again.runtime.current_x == 512 and again.runtime.active_blocks is threads.runtime.active_blocks
    assert amd.amd.curves["vgprs"] is not curves["vgprs"]  # it depends on the block: recomputed
    amd.replace(dynamic_smem=1000)
    lds = amd.amd.curves["lds"]
    assert lds.runtime.current_x == 16 * KIB + 1000
    assert int(lds.runtime.active_blocks[lds.runtime.index_of(16 * KIB + 1000)]) == amd.amd.answer.hip.active_blocks


def test_an_unknown_device_names_both_vendors_closest(catalog):
    session = Session(catalog, device="sm_90")
    with pytest.raises(KeyError, match="no device profile named 'MI300Y'; did you mean: .*MI300X"):
        session.replace(device="MI300Y")
    assert session.vendor == "nvidia" and not session.can_undo
