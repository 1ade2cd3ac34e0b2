"""Undo/redo of input edits and the refused combinations, on the Qt-free session."""

from __future__ import annotations

import pytest

from occupancy_gui.session import HISTORY_LIMIT, MAX_BLOCK_BARRIERS, InputRefused

SEED = dict(threads=256, registers=64, static_smem=24 * 1024)


def test_each_edit_is_one_step_and_undo_redo_walk_them(session):
    assert not session.can_undo and not session.undo()
    start = session.inputs
    session.replace(registers=32)
    session.replace(threads=128)
    with session.batch():  # a batch is one edit: one step
        session.replace(static_smem=0)
        session.replace(dynamic_smem=4096)
    after = session.inputs
    assert session.undo() and (session.inputs.static_smem, session.inputs.dynamic_smem) == (24 * 1024, 0)
    assert session.undo() and session.inputs.threads == 256
    assert session.undo() and session.inputs == start and not session.can_undo
    assert session.result.active_blocks == 4  # the result follows the restored inputs
    assert session.redo() and session.redo() and session.redo() and session.inputs == after
    assert not session.can_redo and not session.redo()


def test_an_unchanged_replace_is_no_step(session):
    session.replace(registers=64)
    assert not session.can_undo


def test_a_new_edit_after_undo_drops_the_redo_steps(session):
    session.replace(registers=32)
    session.undo()
    session.replace(threads=512)
    assert not session.can_redo and session.undo() and session.inputs.threads == 256


def test_a_gesture_is_one_step_but_recomputes_every_move(session):
    seen: list[int] = []
    session.subscribe(lambda changed: seen.append(session.inputs.threads))
    with session.gesture():  # a slider drag
        for threads in (288, 320, 352, 384):
            session.replace(threads=threads)
    assert seen == [288, 320, 352, 384]
    session.begin_gesture()  # a wheel burst, ended by an idle timer in the window
    session.replace(registers=40)
    session.replace(registers=48)
    session.end_gesture()
    assert session.undo() and session.inputs.registers == 64 and session.inputs.threads == 384
    assert session.undo() and session.inputs.threads == 256 and not session.can_undo


def test_undo_restores_the_device(session):
    session.replace(device="sm_90")
    assert session.undo() and session.inputs.device == "sm_100" and session.device.compute_major == 10


def test_history_is_bounded(session):
    for i in range(HISTORY_LIMIT + 50):
        session.replace(registers=i % 200 + 1 if i % 200 + 1 != session.inputs.registers else 255)
    steps = 0
    while session.undo():
        steps += 1
    assert steps == HISTORY_LIMIT


def test_threads_above_the_launch_bound_are_refused(session):
    session.replace(max_threads_per_block=256)
    assert session.function_attributes.max_threads_per_block == 256
    with pytest.raises(InputRefused, match="288 threads per block is above the kernel's launch bound of 256"):
        session.replace(threads=288)
    assert session.inputs.threads == 256
    with pytest.raises(InputRefused, match="launch bound"):
        session.replace(max_threads_per_block=128)
    with session.batch():  # an imported kernel sets both at once
        session.replace(threads=128, max_threads_per_block=128)
    assert session.inputs.threads == 128
    curve = session.curves["threads"]
    assert (curve.active_blocks[curve.x > 128] == 0).all() and curve.active_blocks[127] > 0
    session.replace(max_threads_per_block=None)
    assert session.curves["threads"].active_blocks[300] > 0


def test_barriers_are_at_most_sixteen(session):
    session.replace(barriers=MAX_BLOCK_BARRIERS)
    with pytest.raises(InputRefused, match="0..16"):
        session.replace(barriers=17)
    assert session.curves["barriers"].x[-1] == 16  # the curve ends where the input does: no cliff at 17


def test_session_files_carry_the_bound_and_refuse_threads_above_it(session, catalog, tmp_path):
    from occupancy_gui.session import file as sf

    session.replace(threads=128, max_threads_per_block=128)
    path = tmp_path / "a.occsession"
    sf.save(path, sf.state_of(session))
    assert "max_threads_per_block: 128" in path.read_text()
    assert sf.load(path, catalog).inputs == session.inputs
    bad = path.read_text().replace("threads: 128\n", "threads: 256\n", 1)
    with pytest.raises(sf.SessionFileError, match=r"inputs: 256 threads per block is above the kernel's launch bound"):
        sf.loads(bad, catalog, str(path))


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_files_are_written_with_the_users_umask(tmp_path, umask):
    import os

    from occupancy_gui.session.file import atomic_write_text

    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "report.html", "<p>x</p>")
    finally:
        os.umask(old)
    assert (tmp_path / "report.html").stat().st_mode & 0o777 == 0o666 & ~umask


def test_undo_across_a_removed_profile_keeps_the_current_device(session, catalog):
    from occupancy_gui.profiles import Catalog

    session.replace(device="My Card")
    session.replace(registers=40)
    session.set_catalog(Catalog([p for p in catalog.profiles if p.name != "sm_100"]))
    assert session.undo() and session.inputs.registers == 64
    assert session.undo() and session.inputs.device == "My Card"  # sm_100 is gone: the device stays
