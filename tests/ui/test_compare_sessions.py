"""Compare A/B, the every-GPU table, session files in the window, exports, drops, autosave, bad settings."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication

from occupancy_gui.session import Inputs, Session
from occupancy_gui.session import file as sf
from occupancy_gui.ui.compare.compare_view import DIFF_MARK, SORT_ROLE
from occupancy_gui.ui.main_window import MainWindow
from occupancy_gui.ui.session_files.autosave import PENDING_KEY, new_autosave_path
from occupancy_gui.ui.session_files.session_io import MAX_RECENT, RECENT_KEY, read_recent
from tests.conftest import SEED_EXAMPLE
from tests.ui.flush import settle


@pytest.fixture
def io_(window):
    window.session_io.show_error_dialogs = False
    return window.session_io


# ----------------------------------------------------------------------------- compare
def test_pin_then_change_highlights_differences(qtbot, window):
    compare = window.compare
    assert compare.pin_action in window.toolbar.actions()
    compare.pin_action.trigger()
    assert compare.dock.isVisible() and compare.pinned_inputs == window.session.inputs
    assert compare.model.differing_labels() == []
    window.session.replace(registers=32)
    settle(qtbot, window)
    model = compare.model
    differing = model.differing_labels()
    assert "Registers per thread" in differing and "Theoretical occupancy" in differing
    assert "Device" not in differing
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "Theoretical occupancy")
    assert model.index(row, 1).data() == "50 %" and model.index(row, 2).data() == "100 %"
    assert model.index(row, 3).data() == DIFF_MARK  # a marker beside the colour
    assert model.index(row, 0).data(Qt.ItemDataRole.BackgroundRole) is not None
    same = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "Device")
    assert model.index(same, 3).data() == "" and model.index(same, 0).data(Qt.ItemDataRole.BackgroundRole) is None


def test_hidden_compare_table_is_filled_when_shown(qtbot, window, monkeypatch):
    """Edits with the A/B dock closed do not describe B for nobody; opening it shows the current B."""
    import occupancy_gui.report as report

    calls = []
    original = report.describe
    monkeypatch.setattr(report, "describe", lambda *a: calls.append(a) or original(*a))
    compare = window.compare
    assert not compare.dock.isVisible()
    for registers in (40, 48, 56):
        window.session.replace(registers=registers)
        settle(qtbot, window)
    assert calls == []
    compare.dock.show()
    settle(qtbot, window)
    model = compare.model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "Registers per thread")
    assert model.index(row, 2).data() == "56" and len(calls) == 1


def test_a_is_drawn_dashed_in_the_plots(qtbot, window):
    compare = window.compare
    assert compare.overlay_steps("threads") is None
    compare.pin()
    pinned_curve = window.session.curves["threads"]
    window.session.replace(registers=32)
    settle(qtbot, window)
    edges, values = compare.overlay_steps("threads")
    assert len(edges) == len(values) + 1
    assert compare.overlays["threads"].opts["pen"].style() == Qt.PenStyle.DashLine
    x = pinned_curve.x.astype(float)
    drawn = values[np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(values) - 1)]
    assert np.allclose(drawn, pinned_curve.occupancy * 100)
    window.set_plot_mode("warps")
    _e, warps = compare.overlay_steps("threads")
    assert warps.max() <= window.session.device.max_warps_per_multiprocessor
    compare.clear()
    assert compare.overlay_steps("threads") is None and compare.model.differing_labels() == []


def test_compare_model_passes_modeltester(qtmodeltester, window):
    window.compare.pin(Inputs(device="sm_86", threads=128))
    qtmodeltester.check(window.compare.model)


def test_every_gpu_table_sorts_and_passes_modeltester(qtbot, qtmodeltester, window):
    compare = window.compare
    compare.gpus_action.trigger()
    assert compare.gpu_dock.isVisible()
    qtmodeltester.check(compare.gpu_model)
    qtmodeltester.check(compare.gpu_proxy)
    proxy = compare.gpu_proxy
    names = [proxy.index(r, 0).data() for r in range(proxy.rowCount())]
    assert sorted(names) == ["H100 SXM5", "My Card"]
    assert proxy.index(0, 0).data() == "H100 SXM5"  # default sort: blocks per GPU, descending
    assert proxy.index(0, 6).data() == str(4 * 132) and proxy.index(0, 5).data() == "Registers"
    compare.gpu_table.sortByColumn(6, Qt.SortOrder.AscendingOrder)
    assert proxy.index(0, 0).data() == "My Card" and proxy.index(0, 6).data() == str(4 * 10)
    compare.gpu_table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    assert [proxy.index(r, 2).data(SORT_ROLE) for r in range(2)] == [10, 132]
    window.session.replace(threads=1024)  # the table follows the inputs while it is shown
    settle(qtbot, window)
    assert {proxy.index(r, 3).data() for r in range(2)} == {"1"}


# ----------------------------------------------------------------------------- sessions
def test_save_open_round_trip_with_pinned_a_and_recent(qtbot, tmp_path, catalog, window, io_):
    window.session.replace(device="H100", threads=384, registers=40, dynamic_smem=2048)
    window.compare.pin(Inputs(device="sm_86", threads=128, registers=64))
    settle(qtbot, window)
    assert window.windowTitle() == "H100 SXM5 — untitled* — Occupancy calculator"
    path = tmp_path / "one.occsession"
    assert io_.save_to(path)
    assert window.windowTitle() == "H100 SXM5 — one.occsession — Occupancy calculator"
    window.session.replace(threads=512)
    settle(qtbot, window)
    assert window.windowTitle().endswith("one.occsession* — Occupancy calculator")

    other = MainWindow(Session(catalog, **SEED_EXAMPLE), QSettings())
    qtbot.addWidget(other)
    other.session_io.show_error_dialogs = False
    other.session_io.autosave_enabled = False
    assert other.session_io.open_path(path)
    assert other.session.inputs == Inputs(
        device="H100 SXM5", threads=384, registers=40, static_smem=24 * 1024, dynamic_smem=2048
    )
    assert other.compare.pinned_inputs == Inputs(device="sm_86", threads=128, registers=64)
    assert not other.session_io.modified and "one.occsession —" in other.windowTitle()
    assert other.session_io.recent == [str(path.resolve())]
    assert read_recent(QSettings()) == [str(path.resolve())]
    assert [a.data() for a in other.session_io.recent_menu.actions()] == [str(path.resolve())]
    other.close()


def test_new_session_resets(qtbot, window, io_):
    window.session.replace(threads=999)
    window.compare.pin()
    io_.new_session()
    assert window.session.inputs.threads == 256 and window.compare.pinned_inputs is None
    assert not io_.modified and io_.path is None


def test_corrupt_session_changes_nothing(qtbot, tmp_path, window, io_):
    before = window.session.inputs
    bad = tmp_path / "bad.occsession"
    bad.write_text("occupancy_session: 1\ndevice: sm_90\ninputs:\n  threads: many\n")
    assert not io_.open_path(bad)
    assert window.session.inputs == before and io_.path is None
    assert io_.last_error == f"{bad}:4: inputs.threads: expected a whole number, got 'many'"
    assert window.statusBar().currentMessage() == io_.last_error


def test_corrupt_session_shows_a_message_box(qtbot, tmp_path, window):
    bad = tmp_path / "bad.yaml"
    bad.write_text("occupancy_session: 1\ndevice: Voodoo\n")
    assert not window.session_io.open_path(bad)
    box = window.session_io.error_box
    assert box.isVisible() and "bad.yaml:2: device:" in box.text()
    box.close()


def test_import_panel_source_is_saved(qtbot, tmp_path, window, io_):
    class FakeImportPanel:
        def __init__(self):
            self.opened = None

        def current_source(self):
            return ("/logs/build.log", "_Z6kernelPf")

        def open_source(self, path, kernel):
            self.opened = (path, kernel)

    io_.sources = FakeImportPanel()  # the panel the window hands its session file handling
    path = tmp_path / "s.occsession"
    io_.save_to(path)
    assert sf.load(path, window.session.catalog).source == ("/logs/build.log", "_Z6kernelPf")
    io_.sources = reopened = FakeImportPanel()
    io_.open_path(path)
    assert reopened.opened == ("/logs/build.log", "_Z6kernelPf")


def _drag_event(path, kind):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    actions, buttons, mods = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    if kind == "enter":
        event = QDragEnterEvent(QPoint(10, 10), actions, mime, buttons, mods)
    else:
        event = QDropEvent(QPointF(10, 10), actions, mime, buttons, mods)
    event.setAccepted(False)
    return event, mime  # the event does not own its mime data: keep it alive


def _drag(window, path, kind):
    event, _mime = _drag_event(path, kind)
    QApplication.sendEvent(window, event)
    return event.isAccepted()


def test_drop_opens_session_files_only(qtbot, tmp_path, window, io_):
    session_path = tmp_path / "dropped.occsession"
    sf.save(session_path, sf.SessionState(Inputs(device="sm_90", threads=640)))
    log = tmp_path / "k.log"
    log.write_text("ptxas info    : Used 32 registers\n")
    for kind in ("enter", "drop"):  # not ours: the filter lets it through to whoever handles compiler output
        event, _mime = _drag_event(log, kind)
        assert not io_.eventFilter(window, event) and not event.isAccepted()
    assert _drag(window, session_path, "enter")
    assert _drag(window, session_path, "drop")
    assert window.session.inputs.threads == 640 and io_.path == session_path


# ----------------------------------------------------------------------------- exports
@pytest.mark.parametrize("suffix", ["html", "md", "csv"])
def test_export_reports_hold_the_shown_numbers(qtbot, tmp_path, window, io_, suffix):
    path = io_.export_to(tmp_path / f"r.{suffix}")
    text = path.read_text(encoding="utf-8")
    shown = window.summary.occupancy.text()  # "50 %"
    if suffix == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        assert [r["limit"] for r in rows if r["binding"] == "yes"] == ["registers"]
        assert min(int(r["blocks"]) for r in rows if r["blocks"]) == window.session.result.active_blocks
    elif suffix == "html":
        assert f'data-key="occupancy">{shown}<' in text and 'data-key="active_blocks">4<' in text
        assert "<tr class=binding><td>★ Registers</td>" in text
    else:
        assert f"| Theoretical occupancy | {shown} |" in text and "| Active blocks per SM | 4 |" in text


def test_export_plots_png_and_svg_at_pixel_ratio(qtbot, tmp_path, window, io_):
    png = io_.export_to(tmp_path / "plots.png")
    image = QImage(str(png))
    dpr = window.plots.devicePixelRatioF()
    assert (image.width(), image.height()) == (round(window.plots.width() * dpr), round(window.plots.height() * dpr))
    assert len({image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)}) > 3
    svg = io_.export_to(tmp_path / "plots.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "<path" in svg


# ----------------------------------------------------------------------------- autosave and settings
def test_autosave_writes_after_a_pause_and_restores(qtbot, tmp_path, catalog):
    folder = tmp_path / "auto"  # missing: the first write creates the application's data folder
    first = MainWindow(Session(catalog, **SEED_EXAMPLE), QSettings())
    qtbot.addWidget(first)
    io1 = first.session_io
    io1.autosave_file = new_autosave_path(folder)
    io1._timer.setInterval(20)
    first.session.replace(threads=320)
    first.compare.pin()
    settle(qtbot, first)
    qtbot.waitUntil(io1.autosave_file.exists, timeout=2000)
    assert Path(f"{io1.autosave_file}.lock").exists()
    assert sf.load(io1.autosave_file, catalog).pinned.threads == 320
    first.session_io.autosave.abandon()  # as if the process died here: no clean-exit clean-up
    first.close()

    second = MainWindow(Session(catalog, **SEED_EXAMPLE), QSettings())
    qtbot.addWidget(second)
    second.session_io.autosave_file = new_autosave_path(folder)
    assert second.session_io.restore_autosave()
    assert second.session.inputs.threads == 320 and second.compare.pinned_inputs.threads == 320
    assert second.session_io.modified and "Restored" in second.statusBar().currentMessage()
    assert second.session_io.autosave_file == io1.autosave_file  # taken over: its lock is the second's now
    second.close()  # a clean exit: nothing left to restore
    assert list(folder.iterdir()) == []
    third = MainWindow(Session(catalog, **SEED_EXAMPLE), QSettings())
    qtbot.addWidget(third)
    third.session_io.autosave_file = new_autosave_path(folder)
    assert not third.session_io.restore_autosave()
    third.close()


def test_corrupt_settings_fall_back_to_defaults(qtbot, isolated_settings, catalog):
    from occupancy_gui.ui.support.settings import load_inputs

    settings = QSettings()
    for key, value in (
        ("inputs/device", "no such gpu"),
        ("inputs/threads", "lots"),
        ("inputs/registers", [1, 2]),
        ("inputs/max_dynamic_smem", "x"),
        ("inputs/cache_config", "99"),
        ("inputs/barriers", "3"),
        ("window/geometry", "not bytes"),
        ("window/window_state", 17),
        ("view/plot_mode", [1]),
        (RECENT_KEY, {"a": 1}),
        (PENDING_KEY, "maybe"),
    ):
        settings.setValue(key, value)
    settings.sync()
    assert load_inputs(QSettings(), catalog) == {"barriers": 3}
    assert read_recent(QSettings()) == []
    settings.setValue(RECENT_KEY, [f"/s/{i}.occsession" for i in range(12)] + [3])
    assert len(read_recent(settings)) == MAX_RECENT
    window = MainWindow(Session(catalog, **SEED_EXAMPLE), QSettings())
    qtbot.addWidget(window)
    assert window.plots.mode == "percent" and not window.session_io.restore_autosave()
    window.close()


# ----------------------------------------------------------------------------- command line
def test_command_line_file_opens_a_session(qapp, tmp_path, capsys):
    import json

    from occupancy_gui.__main__ import main

    path = tmp_path / "s.yaml"  # YAML with the top-level key counts as a session too
    sf.save(path, sf.SessionState(Inputs(device="sm_90", threads=640, registers=48), pinned=Inputs(device="sm_86")))
    assert main([str(path), "--print-state"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["inputs"]["threads"] == 640 and state["compare"]["device"] == "sm_86"
    assert state["window"]["file"] == str(path) and not state["window"]["modified"]
    assert main([str(path), "--threads", "128", "--print-state"]) == 0  # explicit options win
    state = json.loads(capsys.readouterr().out)
    assert state["inputs"]["threads"] == 128 and state["inputs"]["registers"] == 48 and state["window"]["modified"]


def test_command_line_corrupt_session_is_one_line(qapp, tmp_path, capsys):
    from occupancy_gui.__main__ import main

    path = tmp_path / "bad.occsession"
    path.write_text("occupancy_session: 1\ndevice: sm_90\ninputs: 7\n")
    assert main([str(path), "--print-state"]) == 2
    err = capsys.readouterr().err
    assert err == f"occupancy-gui: error: {path}:3: inputs: expected a mapping of input names to values, got 7\n"
