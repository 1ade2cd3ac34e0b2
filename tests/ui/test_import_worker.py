"""The pool that runs imports: outcomes by signal, and the GIL handed to the GUI thread quickly."""

from __future__ import annotations

import sys

import pytest

from occupancy_gui.ui.support import tasks as import_worker
from occupancy_gui.ui.support.tasks import (
    SHORT_SWITCH_INTERVAL_S,
    TaskCancelled,
    TaskFailed,
    TaskRunner,
    quick_gil_handoff,
)


def test_quick_handoff_shortens_the_switch_interval_and_restores_it():
    before = sys.getswitchinterval()
    assert before > SHORT_SWITCH_INTERVAL_S  # CPython's default, 5 ms
    with quick_gil_handoff():
        assert sys.getswitchinterval() == pytest.approx(SHORT_SWITCH_INTERVAL_S)
        with quick_gil_handoff():  # a second pool thread at the same time
            assert sys.getswitchinterval() == pytest.approx(SHORT_SWITCH_INTERVAL_S)
        assert sys.getswitchinterval() == pytest.approx(SHORT_SWITCH_INTERVAL_S)  # one still runs
    assert sys.getswitchinterval() == pytest.approx(before)


def _run(qtbot, fn):
    runner = TaskRunner(expected=(OSError,))
    with qtbot.waitSignal(runner.finished, timeout=10000) as blocker:
        runner.start(fn)
    runner.shutdown()
    return blocker.args[0]


def test_a_task_runs_with_the_short_interval(qtbot):
    outcome = _run(qtbot, lambda cancelled, progress: sys.getswitchinterval())
    assert outcome.value == pytest.approx(SHORT_SWITCH_INTERVAL_S)
    assert sys.getswitchinterval() > SHORT_SWITCH_INTERVAL_S  # back to the default once it is done


def test_outcomes_of_failed_cancelled_and_broken_tasks(qtbot):
    def failed(cancelled, progress):
        raise TaskFailed("build.log:12: no ptxas lines")

    def stopped(cancelled, progress):
        raise TaskCancelled("build.log")

    def broken(cancelled, progress):
        raise KeyError("oops")

    outcome = _run(qtbot, failed)
    assert (outcome.error, outcome.cancelled, outcome.value) == ("build.log:12: no ptxas lines", False, None)
    outcome = _run(qtbot, stopped)
    assert (outcome.error, outcome.cancelled) == (None, True)
    outcome = _run(qtbot, broken)
    assert outcome.error == "unexpected error: KeyError: 'oops'"
    assert import_worker.QUICK_HANDOFF.users == 0  # every task gave the interval back


def test_only_the_import_that_opens_the_dock_waits_for_the_repaint(qtbot, tmp_path, window, monkeypatch):
    import occupancy_gui.ui.kernels.import_tasks as module

    log = tmp_path / "a.log"
    log.write_text(
        "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
        "ptxas info    : Function properties for k\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 10 registers, 380 bytes cmem[0]\n"
    )
    settles = []
    original = module.import_task

    def spying_task(path, settle_s=0.0, **options):
        settles.append(settle_s)
        return original(path, settle_s=settle_s, **options)

    monkeypatch.setattr(module, "import_task", spying_task)
    panel = window.import_panel
    assert not window.kernel_dock.isVisible()
    for _ in range(2):
        with qtbot.waitSignal(panel.importFinished, timeout=10000):
            panel.load(log)
    assert window.kernel_dock.isVisible()
    assert settles[0] > 0 and settles[1] == 0


def test_cancel_reports_at_once_and_drops_the_late_outcome(qtbot):
    """The user's Cancel is heard before the task polls its flag; what the task returns later is dropped."""
    import threading

    release = threading.Event()
    entered = threading.Event()

    def stubborn(cancelled, progress):
        entered.set()
        release.wait(10)  # a long C call that cannot look at the flag
        return "late"

    runner = TaskRunner()
    outcomes = []
    runner.finished.connect(outcomes.append)
    task_id = runner.start(stubborn)
    assert entered.wait(10)
    runner.cancel()
    assert [(o.task_id, o.cancelled, o.value) for o in outcomes] == [(task_id, True, None)]
    assert not runner.busy
    release.set()
    assert runner.wait(10000)
    qtbot.wait(50)  # the thread's own outcome, queued to the GUI thread
    assert len(outcomes) == 1
    second = runner.start(lambda cancelled, progress: "next")
    qtbot.waitUntil(lambda: len(outcomes) == 2, timeout=10000)
    assert (outcomes[1].task_id, outcomes[1].value, outcomes[1].cancelled) == (second, "next", False)
    runner.shutdown()


def test_a_replaced_table_is_freed_then_its_memory_handed_back(monkeypatch):
    """The release empties every column first and then trims the allocator (glibc's ``malloc_trim``, which
    this Linux has): trimmed before the strings were freed, nothing would come back."""
    from occupancy_gui.importers import import_file
    from occupancy_gui.kernel_table import KernelTable
    from occupancy_gui.ui.kernels import import_tasks
    from tests.test_kernel_table import GEN

    table = KernelTable.from_records("b_host.o", list(import_file(GEN / "b_host.o")) * 3)
    seen: list[list[int]] = []
    columns = (table.records, table.names, table.demangled, table.haystack, table.arch)
    monkeypatch.setattr(import_tasks, "return_free_memory", lambda: seen.append([len(c) for c in columns]))
    release = import_tasks.release_task(table)
    del table
    release()
    assert seen == [[0] * 5]
    if sys.platform.startswith("linux"):
        assert import_tasks._malloc_trim() is not None
        monkeypatch.undo()
        import_tasks.return_free_memory()  # the real call: returns, whatever it freed
