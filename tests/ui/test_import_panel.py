"""The kernel table dock: background import of every format, filter/sort, selection → inputs, notes,
errors and cancellation that keep the previous state, a rewritten file reloaded by name, drops."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from occupancy_gui.engine import DeviceState, FunctionAttributes, Launch, OccupancyError, compute_occupancy
from occupancy_gui.importers import import_file
from occupancy_gui.kernel_table import KernelTable, occupancy_column
from occupancy_gui.ui.kernels.kernel_table_model import (
    BARRIERS,
    LAUNCH_BOUND,
    LOCAL,
    NAME,
    NAME_ROLE,
    OCCUPANCY,
    REGISTERS,
    SPILLS,
    STATIC_SMEM,
    THREADS,
)
from tests.ui.flush import flush_all

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"
TIMEOUT = 15000
SPILL_LOG = (
    "ptxas info    : Compiling entry function '_Z6spillyPf' for 'sm_86'\n"
    "ptxas info    : Function properties for _Z6spillyPf\n"
    "    48 bytes stack frame, 24 bytes spill stores, 20 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 352 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function '_Z5cleanPf' for 'sm_86'\n"
    "ptxas info    : Function properties for _Z5cleanPf\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 2 barriers, 1024 bytes smem, 352 bytes cmem[0]\n"
)


@pytest.fixture
def panel(window):
    return window.import_panel


def load(qtbot, panel, path, **kwargs):
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(path, **kwargs)


def rows(panel):
    """Displayed table as (mangled name, arch, registers, smem, spills, barriers) per row."""
    proxy = panel.proxy
    out = []
    for r in range(proxy.rowCount()):
        cells = [proxy.index(r, c).data() for c in range(proxy.columnCount())]
        out.append(
            (
                proxy.index(r, NAME).data(NAME_ROLE),
                cells[1],
                cells[REGISTERS],
                cells[STATIC_SMEM],
                cells[SPILLS],
                cells[BARRIERS],
            )
        )
    return out


def select(panel, name, arch):
    row = next(
        r
        for r in range(panel.proxy.rowCount())
        if panel.proxy.index(r, NAME).data(NAME_ROLE) == name and panel.proxy.index(r, 1).data() == arch
    )
    panel.view.selectRow(row)  # as a click does: through the view's selection model


@pytest.mark.parametrize(
    ("file", "count", "expect"),
    [
        ("a_ptxas_v.log", 20, ("_Z14named_barriersPf", "sm_80", "16", "512 B", "0 / 0", "3")),
        ("a_sm80.cubin", 4, ("_Z14named_barriersPf", "sm_80", "16", "512 B", "—", "3")),
        ("a.fatbin", 8, ("_Z14named_barriersPf", "sm_90", "16", "512 B", "—", "3")),
        ("a_sm80.cubin.cuobjdump.txt", 4, ("_Z14named_barriersPf", "unknown", "16", "512 B", "—", "—")),
        ("b_resource_usage.log", 9, ("_Z11local_arrayP4Pairi", "sm_90", "37", "0 B", "0 / 0", "0")),
    ],
)
def test_each_format_fills_the_table(qtbot, window, panel, file, count, expect):
    load(qtbot, panel, GEN / file)
    table = rows(panel)
    assert len(table) == count
    assert expect in table
    assert window.kernel_dock.isVisible()
    assert panel.count_label.text().startswith(f"{count} kernels")
    assert not panel.banner.isVisible() and not panel.progress_row.isVisible()


def test_device_functions_are_listed_on_request(qtbot, window, panel):
    load(qtbot, panel, GEN / "b_resource_usage.log")  # 9 kernels and 3 copies of the device function heavy()
    assert len(rows(panel)) == 9
    assert panel.count_label.text() == "9 kernels + 3 device functions (hidden)"
    panel.all_functions.setChecked(True)
    names = [r[0] for r in rows(panel)]
    assert len(names) == 12 and names.count("_Z5heavyPKfi") == 3
    assert panel.count_label.text() == "9 kernels + 3 device functions"
    panel.set_filter("heavy")
    assert panel.count_label.text() == "9 kernels + 3 device functions, 3 shown"
    panel.all_functions.setChecked(False)
    assert rows(panel) == []


def test_rows_match_the_importer_and_the_engine(qtbot, window, panel):
    path = GEN / "a.fatbin"
    load(qtbot, panel, path)
    records = import_file(path)
    table = panel.model.table
    assert table.names == [r.name for r in records]
    device, threads = window.session.device, window.session.inputs.threads
    for i, rec in enumerate(records):
        block = rec.max_threads or threads
        func = FunctionAttributes(
            num_regs=rec.registers,
            shared_size_bytes=rec.static_smem,
            num_block_barriers=rec.barriers if rec.barriers is not None else 1,
            max_threads_per_block=rec.max_threads or FunctionAttributes(0).max_threads_per_block,
        )
        try:
            expected = compute_occupancy(device, func, Launch(block), window.session.device_state).occupancy
        except OccupancyError:
            expected = float("nan")
        np.testing.assert_allclose(panel.model.occupancy[i], expected)
    row_text = panel.proxy.index(0, OCCUPANCY).data()
    assert row_text.endswith("%")


def test_occupancy_column_is_vectorised_per_distinct_kernel(catalog):
    device = catalog.get("sm_90").device_properties()
    table = KernelTable.from_records("x", import_file(GEN / "a_ptxas_v.log"))
    assert len(table.combos) < len(table)  # repeated (regs, smem, barriers) computed once
    for block in (32, 256, 1024, 2048):
        occ = occupancy_column(table, device, DeviceState(), block).occupancy
        for i in range(len(table)):
            func = FunctionAttributes(
                num_regs=int(table.registers[i]),
                shared_size_bytes=int(table.static_smem[i]),
                num_block_barriers=max(int(table.barriers[i]), 0) if table.barriers[i] >= 0 else 1,
            )
            try:
                expected = compute_occupancy(device, func, Launch(block)).occupancy
            except OccupancyError:
                expected = float("nan")
            np.testing.assert_allclose(occ[i], expected)


def test_one_block_size_the_calculators(qtbot, window, panel):
    """The table has no block size of its own: its rows follow the calculator's threads per block, and a row's
    Threads cell says which block size its figure is for."""
    load(qtbot, panel, GEN / "a_sm80.cubin")
    assert not hasattr(panel, "block_size")
    select(panel, "_Z14named_barriersPf", "sm_80")  # no launch bound: any block size can be typed
    window.session.replace(threads=1024)
    flush_all(window)
    threads = [panel.proxy.index(r, THREADS).data() for r in range(panel.proxy.rowCount())]
    bounded = [panel.model.table.max_threads[panel.model.record_index(r)] for r in range(panel.proxy.rowCount())]
    assert threads == [str(b) if b else "1024" for b in bounded]  # above a bound: the bound, as choosing it does
    window.session.replace(threads=32)
    flush_all(window)
    assert {panel.proxy.index(r, THREADS).data() for r in range(panel.proxy.rowCount())} == {"32"}


def test_filter_and_sort(qtbot, panel):
    load(qtbot, panel, GEN / "a_ptxas_v.log")
    panel.set_filter("NAMED")  # case-insensitive, on the demangled name
    assert {r[0] for r in rows(panel)} == {"_Z14named_barriersPf"} and len(rows(panel)) == 5
    panel.set_filter("ILi128")  # the mangled name matches too
    assert len(rows(panel)) == 5 and panel.count_label.text() == "20 kernels, 5 shown"
    panel.filter_edit.setText("")
    qtbot.waitUntil(lambda: panel.proxy.rowCount() == 20)
    panel.view.sortByColumn(REGISTERS, Qt.SortOrder.DescendingOrder)
    regs = [int(r[2]) for r in rows(panel)]
    assert regs == sorted(regs, reverse=True)
    panel.view.sortByColumn(NAME, Qt.SortOrder.AscendingOrder)
    names = [panel.proxy.index(r, NAME).data() for r in range(20)]
    assert names == sorted(names, key=str.casefold)
    panel.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # back to the file's order
    assert [r[0] for r in rows(panel)] == panel.model.table.names


def test_selection_survives_sort_and_filter(qtbot, window, panel):
    load(qtbot, panel, GEN / "a_ptxas_v.log")
    select(panel, "_Z14named_barriersPf", "sm_90")
    panel.view.sortByColumn(REGISTERS, Qt.SortOrder.AscendingOrder)
    panel.set_filter("barriers")
    current = panel.view.selectionModel().selectedRows()
    assert len(current) == 1 and current[0].data(NAME_ROLE) == "_Z14named_barriersPf"
    assert current[0].siblingAtColumn(1).data() == "sm_90"
    assert panel.current_source() == (str(GEN / "a_ptxas_v.log"), "_Z14named_barriersPf")


def test_selecting_a_row_loads_the_kernel(qtbot, window, panel, results):
    session = window.session
    load(qtbot, panel, GEN / "a_sm80.cubin")
    assert session.inputs.registers == 10 and session.inputs.threads == 256  # the first kernel, loaded
    session.replace(threads=128)
    select(panel, "_Z14named_barriersPf", "sm_80")
    i = session.inputs
    assert (i.registers, i.static_smem, i.barriers, i.threads) == (16, 512, 3, 128)  # no launch bound: kept
    results.clear()
    select(panel, "_ZN3occ9tiled_sumILi512EEEvPKfPfi", "sm_80")
    i = session.inputs
    assert (i.registers, i.static_smem, i.barriers, i.threads) == (10, 2048, 1, 128)  # 128 <= its bound: kept
    assert i.max_threads_per_block == 256
    flush_all(window)
    assert len(results) == 1  # one batch, one recompute
    assert window.kernel_panel.spins["registers"].value() == 10
    select(panel, "_Z14named_barriersPf", "sm_80")
    session.replace(threads=512)
    select(panel, "_ZN3occ9tiled_sumILi512EEEvPKfPfi", "sm_80")
    assert session.inputs.threads == 256  # above __launch_bounds__(256): the bound, said in the status bar
    assert "launch bound of 256" in window.statusBar().currentMessage()


def test_arch_mismatch_note_and_spill_warning(qtbot, tmp_path, window, panel):
    log = tmp_path / "spill.log"
    log.write_text(SPILL_LOG)
    kernel_panel = window.kernel_panel
    window.session.replace(device="sm_90")
    load(qtbot, panel, log)
    select(panel, "_Z6spillyPf", "sm_86")
    flush_all(window)
    assert kernel_panel.spill_note.isVisible() and "24 B stores, 20 B loads" in kernel_panel.spill_note.text()
    assert kernel_panel.arch_note.isVisible() and "sm_86" in kernel_panel.arch_note.text()
    spill_cell = panel.proxy.index(panel.view.currentIndex().row(), SPILLS)
    assert spill_cell.data() == "⚠ 24 / 20" and spill_cell.data(Qt.ItemDataRole.BackgroundRole) is not None
    window.session.replace(device="sm_86")  # the kernel's own architecture: no note
    flush_all(window)
    assert not kernel_panel.arch_note.isVisible() and kernel_panel.spill_note.isVisible()
    select(panel, "_Z5cleanPf", "sm_86")
    flush_all(window)
    assert not kernel_panel.spill_note.isVisible()
    assert panel.proxy.index(panel.view.currentIndex().row(), SPILLS).data(Qt.ItemDataRole.BackgroundRole) is None
    select(panel, "_Z6spillyPf", "sm_86")
    window.session.replace(registers=128)  # edited by hand: the notes no longer describe the inputs
    flush_all(window)
    assert not kernel_panel.spill_note.isVisible()


def test_the_imports_own_notes_are_counted_and_shown(qtbot, tmp_path, window, panel):
    """Notes the importer gives (skipped entries, assumptions) reach the window: counted beside the
    kernels, read in the count's tooltip and named in the status bar; a file without any shows none."""
    dump = tmp_path / "usage.txt"
    dump.write_text(
        "\nFatbin elf code:\n================\narch = sm_90a\n\nResource usage:\n Common:\n  GLOBAL:0\n"
        " Function _Z8own_smemPf:\n  REG:10 STACK:0 SHARED:2048 LOCAL:0 CONSTANT[0]:536\n"
    )
    load(qtbot, panel, dump)
    assert panel.count_label.text() == "1 kernel · 1 note"
    assert "relocatable (-rdc)" in panel.count_label.toolTip()
    assert "1 note" in window.statusBar().currentMessage()
    load(qtbot, panel, GEN / "a_sm80.cubin")
    assert "note" not in panel.count_label.text() and panel.count_label.toolTip() == ""


def test_bad_file_keeps_the_previous_state(qtbot, tmp_path, window, panel):
    load(qtbot, panel, GEN / "a_sm80.cubin")
    select(panel, "_Z14named_barriersPf", "sm_80")
    before_rows, before_inputs = rows(panel), window.session.inputs
    bad = tmp_path / "garbage.bin"
    bad.write_bytes(b"\x00\x01\x02garbage" * 100)
    with qtbot.waitSignal(panel.importFailed, timeout=TIMEOUT) as blocker:
        panel.load(bad)
    message = blocker.args[0]
    assert "garbage.bin" in message and "\n" not in message and "Traceback" not in message
    assert panel.banner.isVisible() and panel.banner.text() == message
    assert window.statusBar().currentMessage() == message
    assert rows(panel) == before_rows and window.session.inputs == before_inputs
    assert panel.current_source() == (str(GEN / "a_sm80.cubin"), "_Z14named_barriersPf")
    load(qtbot, panel, GEN / "a.fatbin")  # the next good import clears the banner
    assert not panel.banner.isVisible()


def test_cancel_keeps_the_previous_state(qtbot, window, panel):
    load(qtbot, panel, GEN / "a_sm80.cubin")
    before_rows, before_inputs = rows(panel), window.session.inputs
    with qtbot.waitSignal(panel.importCancelled, timeout=TIMEOUT):
        panel.load(GEN / "a_ptxas_v.log")
        assert panel.progress_row.isVisible() and panel.loading
        panel.cancel_button.click()
    assert rows(panel) == before_rows and window.session.inputs == before_inputs
    assert not panel.progress_row.isVisible() and not panel.banner.isVisible()
    assert panel.current_source()[0] == str(GEN / "a_sm80.cubin")


def test_a_newer_import_replaces_a_running_one(qtbot, panel):
    finished = []
    panel.importFinished.connect(finished.append)
    panel.load(GEN / "a_ptxas_v.log")
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(GEN / "a.fatbin")
    panel.runner.wait()
    qtbot.wait(20)
    assert finished == [str(GEN / "a.fatbin")] and len(rows(panel)) == 8


@pytest.mark.parametrize("how", ["in_place", "replace"])
def test_rewritten_file_is_reloaded_keeping_the_kernel(qtbot, tmp_path, window, panel, how):
    log = tmp_path / "build.log"
    shutil.copy(GEN / "a_ptxas_v.log", log)
    load(qtbot, panel, log)
    select(panel, "_Z14named_barriersPf", "sm_90")
    assert window.session.inputs.registers == 16
    text = log.read_text().replace("Used 16 registers, used 3 barriers", "Used 40 registers, used 3 barriers")
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        if how == "in_place":
            log.write_text(text)
        else:  # editors and compilers write a new file and rename it over the old one
            tmp = tmp_path / "build.log.tmp"
            tmp.write_text(text)
            os.replace(tmp, log)
    current = panel.view.selectionModel().selectedRows()
    assert current[0].data(NAME_ROLE) == "_Z14named_barriersPf" and current[0].siblingAtColumn(1).data() == "sm_90"
    assert window.session.inputs.registers == 40
    assert str(log) in panel.watcher.files()  # still watched after a replace
    assert "Reloaded" in window.statusBar().currentMessage()


def test_model_passes_qtmodeltester(qtbot, qtmodeltester, panel):
    load(qtbot, panel, GEN / "b_resource_usage.log")
    qtmodeltester.check(panel.model)
    qtmodeltester.check(panel.proxy)
    panel.set_filter("pair")
    panel.view.sortByColumn(OCCUPANCY, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(panel.proxy)


def _drag(window, path: Path, kind):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    if kind is QDropEvent:
        event = QDropEvent(
            QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier
        )
    else:
        event = QDragEnterEvent(
            QPoint(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier
        )
    event.setAccepted(False)
    QApplication.sendEvent(window, event)
    return event


def test_dropped_file_is_imported_but_sessions_fall_through(qtbot, tmp_path, window, panel):
    log = tmp_path / "drop.log"
    shutil.copy(GEN / "a_ptxas_v.log", log)
    assert _drag(window, log, QDragEnterEvent).isAccepted()
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        assert _drag(window, log, QDropEvent).isAccepted()
    assert panel.current_source()[0] == str(log)
    session_file = tmp_path / "mine.yaml"
    session_file.write_text("occupancy_session:\n  version: 1\n")
    occsession = tmp_path / "x.occsession"
    occsession.write_text("{}")
    for path in (session_file, occsession):
        for kind in (QDragEnterEvent, QDropEvent):
            mime = QMimeData()
            mime.setUrls([QUrl.fromLocalFile(str(path))])
            args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
            event = kind(QPointF(5, 5), *args) if kind is QDropEvent else kind(QPoint(5, 5), *args)
            # Not consumed: the event goes on to whoever opens sessions (not sent here: a synthetic
            # drag reaching QMainWindow's own handler has no drag manager behind it).
            assert panel.eventFilter(window, event) is False
    assert not panel.loading and panel.current_source()[0] == str(log)


def test_open_source_restores_without_touching_inputs(qtbot, window, panel):
    before = window.session.inputs
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.open_source(GEN / "a_ptxas_v.log", "_Z14named_barriersPf")
    assert window.session.inputs == before
    assert panel.current_source() == (str(GEN / "a_ptxas_v.log"), "_Z14named_barriersPf")
    assert panel.view.selectionModel().selectedRows()[0].data(NAME_ROLE) == "_Z14named_barriersPf"


def test_import_action_is_in_the_file_menu(window):
    actions = window.file_menu.actions()
    assert window.import_action in actions
    assert actions.index(window.import_action) < actions.index(window.file_quit_separator)
    assert window.import_action.shortcut().toString() == "Ctrl+I"
    assert window.kernel_dock.objectName() == "kernel_table_dock"


def test_command_line_file_goes_through_the_panel(qtbot, tmp_path):
    from occupancy_gui.ui.app import create_window

    log = tmp_path / "k.log"
    log.write_text(SPILL_LOG)
    _app, win, _args = create_window([str(log), "--screenshot", str(tmp_path / "unused.png"), "--threads", "96"])
    try:
        panel = win.import_panel
        assert panel.loading
        assert panel.wait_for_import(TIMEOUT)
        i = win.session.inputs
        assert (i.registers, i.static_smem, i.barriers, i.threads) == (255, 4096, 1, 96)  # --threads wins
        assert i.device == "sm_86"  # follows the kernel's architecture without --device
    finally:
        win.close()
        win.deleteLater()


def test_a_cluster_kernel_says_its_cluster_in_the_table_and_the_panel(qtbot, window, panel):
    """``__cluster_dims__(2,1,1)`` (EIATTR_CTA_PER_CLUSTER): tagged before the name, explained in the row's
    tooltip and under the inputs; the other kernels of the file say nothing of clusters."""
    window.session.replace(device="sm_90")
    load(qtbot, panel, GEN / "b_sm90.cubin")
    select(panel, "_Z14cluster_kernelPj", "sm_90")
    flush_all(window)
    row = panel.view.currentIndex().row()
    name = panel.proxy.index(row, NAME)
    assert name.data().startswith("[cluster 2×1×1] cluster_kernel(")
    assert "Thread-block cluster 2×1×1 (2 blocks): occupancy here is per SM" in name.data(Qt.ItemDataRole.ToolTipRole)
    note = window.kernel_panel.arch_note
    assert note.isVisible() and "cudaOccupancyMaxActiveClusters" in note.text()
    select(panel, "_Z12spill_kernelPKfPfi", "sm_90")
    flush_all(window)
    row = panel.view.currentIndex().row()
    assert "cluster" not in panel.proxy.index(row, NAME).data(Qt.ItemDataRole.ToolTipRole)
    assert not window.kernel_panel.arch_note.isVisible()


CUT_LOG = SPILL_LOG + (
    "ptxas info    : Compiling entry function '_Z4lostPf' for 'sm_86'\n"
    "ptxas info    : Function properties for _Z4lostPf\n"
)


def test_what_an_import_could_not_tell_is_said_in_the_table(qtbot, tmp_path, panel):
    """A log cut off mid-kernel names the kernel it lost, and a log (which records no launch bound) says so beside
    the '?' it shows for the bound: both in sight, not only in a tooltip ("Imported 1 kernel" said nothing)."""
    log = tmp_path / "cut.log"
    log.write_text(CUT_LOG)
    load(qtbot, panel, log)
    assert panel.info.isVisible()
    text = panel.info.text()
    assert "_Z4lostPf" in text and "launch bound" in text
    bounds = {panel.proxy.index(r, LAUNCH_BOUND).data() for r in range(panel.proxy.rowCount())}
    assert bounds == {"?"}
    load(qtbot, panel, GEN / "a_sm80.cubin")  # a binary records its bounds: nothing to say
    assert not panel.info.isVisible()
    assert "?" not in {panel.proxy.index(r, LAUNCH_BOUND).data() for r in range(panel.proxy.rowCount())}


def test_a_stack_that_cannot_be_bounded_reads_unknown(qtbot, window, panel):
    from occupancy_gui.importers import KernelRecord

    records = [
        KernelRecord(name="_Z7recursei", arch="sm_90", registers=32, stack_bytes=None),
        KernelRecord(name="_Z5plainv", arch="sm_90", registers=16, stack_bytes=64),
    ]
    table = KernelTable.from_records("x", records)
    panel.model.set_table(table, None, 256)
    cells = [panel.model.index(r, LOCAL).data() for r in range(2)]
    assert cells == ["unknown", "64 B"]
    assert "recursion or indirect calls" in panel.model.index(0, LOCAL).data(Qt.ItemDataRole.ToolTipRole)
