"""The pure view-model: change detection, batching, results and error state (no Qt)."""

from __future__ import annotations

import pytest

from occupancy_gui.engine import CacheConfig, Limit
from occupancy_gui.session import Session

SEED = dict(threads=256, registers=64, static_smem=24 * 1024)


@pytest.fixture
def events(session):
    received: list[frozenset[str]] = []
    session.subscribe(received.append)
    return received


def test_seed_example(session):
    result = session.result
    assert session.error is None
    assert (result.active_blocks, result.active_warps, result.occupancy) == (4, 32, 0.5)
    assert result.binding == (Limit.REGISTERS,)


def test_fewer_registers_moves_binding_and_curves(session, events):
    before = session.curves["threads"].active_blocks.copy()
    assert session.replace(registers=32)
    assert session.result.active_blocks == 8 and session.result.occupancy == 1.0
    assert set(session.result.binding) == {Limit.WARPS, Limit.REGISTERS}
    assert session.curves["registers"].current_x == 32
    assert (session.curves["threads"].active_blocks != before).any()
    assert events == [frozenset({"registers"})]


def test_same_value_does_not_notify_or_recompute(session, events):
    count = session.recompute_count
    assert not session.replace(threads=256, registers=64)
    assert events == [] and session.recompute_count == count


def test_one_change_one_recompute(session, events):
    count = session.recompute_count
    session.replace(threads=128, registers=64)
    assert session.recompute_count == count + 1
    assert events == [frozenset({"threads"})]


def test_batch_emits_once(session, events):
    count = session.recompute_count
    with session.batch():
        session.replace(threads=512)
        session.replace(registers=40)
        with session.batch():
            session.replace(static_smem=0)
        assert events == [] and session.recompute_count == count
    assert events == [frozenset({"threads", "registers", "static_smem"})]
    assert session.recompute_count == count + 1


def test_batch_without_change_is_silent(session, events):
    with session.batch():
        session.replace(threads=512)
        session.replace(threads=256)
    assert events == []
    assert session.result.active_blocks == 4


def test_binding_after_each_edit(session):
    session.replace(threads=32, registers=16, static_smem=0)
    assert session.result.binding == (Limit.BLOCKS,) and session.result.occupancy == 0.5
    session.replace(threads=768)
    assert session.result.active_blocks == 2 and session.result.binding == (Limit.WARPS,)
    session.replace(threads=256, static_smem=96 * 1024)
    assert session.result.binding == (Limit.SHARED_MEMORY,)
    session.replace(static_smem=0, barriers=16)
    assert session.result.binding == (Limit.BARRIERS,) and session.result.active_blocks == 4


def test_zero_blocks_has_reasons(session):
    session.replace(threads=1025)
    assert session.result.active_blocks == 0
    assert any("1025 threads per block" in reason for reason in session.result.reasons)


def test_engine_error_state_and_recovery(session, events):
    session.replace(carveout=150)
    assert session.result is None and "carveout" in session.error
    session.replace(carveout=-1)
    assert session.error is None and session.result.active_blocks == 4
    assert len(events) == 2


def test_device_change_resolves_names_and_barrier_curve(session, events):
    assert "barriers" in session.curves
    session.replace(device="8.6")
    assert session.inputs.device == "sm_86"
    assert "barriers" not in session.curves and not session.barriers_apply
    session.replace(device="h100")
    assert session.inputs.device == "H100 SXM5" and session.device.num_sms == 132
    assert events == [frozenset({"device"}), frozenset({"device"})]


def test_invalid_changes_leave_session_untouched(session, events):
    with pytest.raises(KeyError):
        session.replace(device="no such gpu")
    with pytest.raises(TypeError):
        session.replace(colour="red")
    with pytest.raises(TypeError):
        session.replace(threads="256")
    assert session.inputs.device == "sm_100" and events == []


def test_cache_config_applies_only_on_kepler(session):
    session.replace(cache_config=CacheConfig.PREFER_SHARED, carveout=50)
    assert session.device_state.cache_config == CacheConfig.PREFER_NONE
    assert session.device_state.carveout_config == 50
    session.replace(device="sm_35")
    assert session.device_state.cache_config == CacheConfig.PREFER_SHARED
    assert session.device_state.carveout_config == -1


def test_max_dynamic_smem_default_and_optin(session):
    assert session.resolved_max_dynamic_smem == 48 * 1024 - 24 * 1024
    session.replace(dynamic_smem=40 * 1024)
    assert session.result.active_blocks == 0 and session.result.reasons
    session.replace(max_dynamic_smem=100 * 1024)
    assert session.result.active_blocks > 0


def test_unsubscribe(session, events):
    received = []
    unsubscribe = session.subscribe(received.append)
    unsubscribe()
    session.replace(threads=64)
    assert received == [] and len(events) == 1


def test_empty_catalog_refused():
    from occupancy_gui.profiles import Catalog

    with pytest.raises(ValueError):
        Session(Catalog([]))


def test_reused_curves_equal_fresh_sweeps(catalog):
    """Curves kept across an edit of their own input (only the marker moves) match a full recompute."""
    import random

    import numpy as np

    session = Session(catalog, "sm_100", **SEED)
    rng = random.Random(7)
    edits = [
        ("threads", 1, 1024),
        ("registers", 0, 255),
        ("dynamic_smem", 0, 64 * 1024),
        ("static_smem", 0, 48 * 1024),
        ("barriers", 0, 16),
    ]
    for _ in range(60):
        name, low, high = rng.choice(edits)
        session.replace(**{name: rng.randint(low, high)})
        fresh = Session(
            catalog,
            **{
                f: getattr(session.inputs, f)
                for f in ("device", "threads", "registers", "static_smem", "dynamic_smem", "barriers")
            },
        )
        assert session.curves.keys() == fresh.curves.keys()
        for key, curve in session.curves.items():
            other = fresh.curves[key]
            assert curve.current_x == other.current_x, key
            assert np.array_equal(curve.x, other.x) and np.array_equal(curve.active_blocks, other.active_blocks), key
            assert np.array_equal(curve.edges, other.edges), key


def test_seed_example_on_the_bundled_sm_100_profile():
    """The worked example of the Programming Guide on the shipped profile, not the test catalog."""
    from occupancy_gui.paths import data_dir
    from occupancy_gui.profiles import Catalog

    session = Session(Catalog.load([data_dir("device_profiles")]), "sm_100", **SEED)
    assert (session.result.active_blocks, session.result.occupancy) == (4, 0.5)
    assert session.result.binding == (Limit.REGISTERS,)
    session.replace(registers=32)
    assert (session.result.active_blocks, session.result.occupancy) == (8, 1.0)
    assert set(session.result.binding) == {Limit.WARPS, Limit.REGISTERS}
