"""Session files (pure): round trip, strict reading with file:line: field errors, atomic writes."""

from __future__ import annotations

import os

import pytest

from occupancy_gui.engine import CacheConfig
from occupancy_gui.session import Inputs, Session
from occupancy_gui.session import file as sf


@pytest.fixture
def state(catalog):
    session = Session(
        catalog,
        device="H100",
        threads=384,
        registers=40,
        static_smem=4096,
        dynamic_smem=1000,
        max_dynamic_smem=100_000,
        barriers=3,
        carveout=50,
        max_threads_per_block=512,
        required_block_size=384,
        min_blocks_per_sm=2,
    )
    pinned = Inputs(device="sm_86", threads=128, registers=64, cache_config=CacheConfig.PREFER_L1)
    return sf.state_of(session, ("/logs/k.log", "_Z6kernelPf"), pinned)


def test_round_trip(tmp_path, catalog, state):
    path = tmp_path / "a.occsession"
    sf.save(path, state)
    assert sf.load(path, catalog) == state
    assert sf.is_session_file(path)
    text = path.read_text()
    assert text.startswith("occupancy_session: 1\n") and "device: H100 SXM5" in text
    assert "required_block_size: 384" in text and "min_blocks_per_sm: 2" in text
    assert "threads: 128" in text  # the pinned configuration keeps its own (no required size: null)


def test_minimal_file_takes_defaults_and_any_device_spelling(catalog):
    state = sf.loads("occupancy_session: 1\ndevice: sm90\n", catalog)
    assert state.inputs == Inputs(device="sm_90") and state.source is None and state.pinned is None


def test_apply_inputs_is_one_recompute(catalog, state):
    session = Session(catalog, device="sm_100")
    seen = []
    session.subscribe(seen.append)
    assert sf.apply_inputs(session, state.inputs)
    assert session.inputs == state.inputs and len(seen) == 1
    assert not sf.apply_inputs(session, state.inputs)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("occupancy_session: 1\ndevice: sm_90\ninputs:\n\tthreads: 1\n", "f.occsession:4: YAML syntax error"),
        (
            "occupancy_session: 1\ndevice: sm_90\ninputs:\n  threads: 256\n  registers: lots\n",
            "f.occsession:5: inputs.registers: expected a whole number, got 'lots'",
        ),
        (
            "occupancy_session: 1\ndevice: sm_90\ninputs:\n  threads: 0\n",
            "f.occsession:4: inputs.threads: expected 1..16384, got 0",
        ),
        (
            "occupancy_session: 1\ndevice: sm_90\ninputs:\n  barriers: true\n",
            "inputs.barriers: expected a whole number",
        ),
        ("occupancy_session: 1\ndevice: sm_90\ncolour: blue\n", "f.occsession:3: colour: unknown key"),
        ("occupancy_session: 1\ndevice: sm_90\ninputs:\n  thread: 256\n", "f.occsession:4: inputs.thread: unknown key"),
        ("occupancy_session: 1\ndevice: Voodoo 5\n", "f.occsession:2: device: no device profile named 'Voodoo 5'"),
        (
            "occupancy_session: 1\ndevice: sm_90\ncompare:\n  device: sm_90\n  inputs:\n    carveout: 150\n",
            "f.occsession:6: compare.inputs.carveout: expected -1..100, got 150",
        ),
        (
            "occupancy_session: 1\ndevice: sm_90\ninputs:\n  cache_config: huge\n",
            "inputs.cache_config: expected one of",
        ),
        ("occupancy_session: 3\ndevice: sm_90\n", "f.occsession:1: occupancy_session: format version 3 is newer"),
        ("occupancy_session: 1\ndevice: sm_90\nimport: here\n", "f.occsession:3: import: expected a mapping"),
        ("device: sm_90\n", "f.occsession:1: not a session file"),
        ("- 1\n- 2\n", "not a session file: the top level is list"),
        ("", "not a session file: the top level is an empty document"),
    ],
)
def test_corrupt_files_name_file_line_and_field(catalog, text, expected):
    with pytest.raises(sf.SessionFileError) as info:
        sf.loads(text, catalog, "f.occsession")
    message = str(info.value)
    assert expected in message and "\n" not in message


def test_unreadable_and_binary_files(tmp_path, catalog):
    with pytest.raises(sf.SessionFileError, match="missing.occsession"):
        sf.load(tmp_path / "missing.occsession", catalog)
    binary = tmp_path / "b.occsession"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(sf.SessionFileError, match="not UTF-8"):
        sf.load(binary, catalog)


def test_is_session_file(tmp_path):
    (tmp_path / "s.yaml").write_text("# a session\noccupancy_session: 1\ndevice: sm_90\n")
    (tmp_path / "p.yaml").write_text("name: sm_90\nkind: gpu\n")
    (tmp_path / "k.log").write_text("occupancy_session: 1\n")
    assert sf.is_session_file(tmp_path / "s.yaml")
    assert sf.is_session_file(tmp_path / "x.occsession")  # by extension alone
    assert not sf.is_session_file(tmp_path / "p.yaml")
    assert not sf.is_session_file(tmp_path / "k.log")
    assert not sf.is_session_file(tmp_path / "missing.yaml")


def test_atomic_write_keeps_the_old_file_when_replace_fails(tmp_path, catalog, state, monkeypatch):
    path = tmp_path / "a.occsession"
    sf.save(path, state)
    before = path.read_bytes()

    def failing_replace(src, dst):
        assert os.path.getsize(src) > 0  # the new content was fully written and synced first
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sf.os, "replace", failing_replace)
    other = sf.SessionState(Inputs(device="sm_86", threads=64))
    with pytest.raises(OSError, match="No space"):
        sf.save(path, other)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.occsession"]  # no temporary file left behind


def test_atomic_write_survives_a_failure_while_writing(tmp_path, monkeypatch):
    path = tmp_path / "r.html"
    sf.atomic_write_text(path, "old")

    def failing_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(sf.os, "fsync", failing_fsync)
    with pytest.raises(OSError):
        sf.atomic_write_text(path, "new")
    assert path.read_text() == "old" and len(list(tmp_path.iterdir())) == 1
