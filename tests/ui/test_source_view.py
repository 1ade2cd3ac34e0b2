"""The source view: a .ptx/.cu compiled off the GUI thread for a chosen arch, its register-cap sweep
plotted, Cancel, compiler errors as written, a saved file recompiled; and ``occupancy-gui FILE.cu``."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from occupancy_gui.compile.regcap import ResultCache
from tests.ui.flush import flush_all

DATA = Path(__file__).resolve().parents[1] / "data" / "compile"
TIMEOUT = 120_000


@pytest.fixture
def view(window, cuda_bin, tmp_path):
    v = window.source.view()
    v.cuda_bin = str(cuda_bin)
    v.cache = ResultCache(tmp_path / "regcap-cache")
    return v


def _open(qtbot, view, path, arch="sm_80"):
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        view.open(str(path), arch)


def test_compile_fills_inputs_and_sweep_plots(qtbot, window, view, tmp_path):
    ptx = tmp_path / "pressure.ptx"
    shutil.copy(DATA / "pressure.ptx", ptx)
    window.session.replace(device="sm_86", threads=256)
    _open(qtbot, view, ptx)
    assert [view.kernel_combo.itemText(i) for i in range(view.kernel_combo.count())] == ["light", "pressure"]
    assert view.kernel_combo.currentText() == "pressure"  # the heaviest kernel is chosen
    assert window.session.inputs.registers == view.records[1].registers > 32  # the inputs follow the compile
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        view.start_sweep()
    result = view.result
    assert result is not None and result.points[0].cap is None and len(result.points) >= 4
    xs, ys = view.occ_curve.getData()  # steps: each cap's occupancy over the 8 caps of its allocation step
    ascending = sorted(result.points, key=lambda p: p.registers if p.cap is None else p.cap)
    assert list(ys[1::2]) == [100 * p.occupancy for p in ascending]
    assert list(xs[1::2]) == [p.registers if p.cap is None else p.cap for p in ascending]
    assert all(b - a == 8 for a, b in zip(xs[0::2], xs[1::2]))
    assert list(view.spill_curve.getData()[1]) == [p.spill_bytes for p in result.points]
    assert view.sweet_line.isVisible() and "Sweet spot:" in view.sweet_label.text()
    window.session.replace(threads=128)  # rescored, not recompiled
    flush_all(window)
    assert view.result.threads == 128 and not view.runner.busy
    time.sleep(1.1)  # a new mtime second
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):  # saved: compiled, then swept again
        ptx.write_text(ptx.read_text().replace("pressure", "renamed"))
        qtbot.waitUntil(lambda: view._task == "sweep", timeout=TIMEOUT)
    assert view.result.kernel == "renamed" and view.kernel_combo.currentText() == "renamed"
    index = view.arch_combo.findText("sm_90")
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):  # another arch: recompiled, the old sweep dropped
        view.arch_combo.setCurrentIndex(index)  # as a user's choice in the list: the index, then activated
        view.arch_combo.activated.emit(index)
    assert view.result is None and view.records[0].arch == "sm_90"


def test_saving_the_file_recompiles(qtbot, window, view, tmp_path):
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __global__ void k(float *o) { o[threadIdx.x] = 1.0f; }\n')
    _open(qtbot, view, src)
    assert view.kernel_combo.itemText(0) == "k"
    time.sleep(1.1)  # a new mtime second
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        src.write_text('extern "C" __global__ void renamed(float *o) { o[threadIdx.x] = 2.0f; }\n')
    assert view.kernel_combo.itemText(0) == "renamed"


def test_compiler_errors_shown_and_cancel(qtbot, window, view, tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k() { undeclared_thing(); }\n")
    _open(qtbot, view, bad)
    assert "nvcc failed" in view.status.text()
    assert "undeclared_thing" in view.output.toPlainText() and not view.output.isHidden()
    src = tmp_path / "slow.cu"
    shutil.copy(DATA / "pressure.cu", src)
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        view.open(str(src), "sm_80")
        view.cancel()
    assert view.status.text() == "Cancelled." and not view.runner.busy


def test_gui_command_line_opens_a_source(qtbot, monkeypatch, cuda_bin, tmp_path):
    from occupancy_gui.ui.app import create_window

    monkeypatch.setenv("PATH", str(cuda_bin) + ":" + __import__("os").environ["PATH"])
    _app, window, _args = create_window([str(DATA / "pressure.ptx"), "--arch", "sm_86", "--device", "sm_86"])
    qtbot.addWidget(window)
    view = window.source.view()
    assert view.path == str(DATA / "pressure.ptx") and view.arch_combo.currentText() == "sm_86"
    qtbot.waitUntil(lambda: not view.runner.busy and bool(view.records), timeout=TIMEOUT)
    assert view.records[0].arch == "sm_86"


SETMAXNREG = """extern "C" __global__ void k(float *x) {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
  x[threadIdx.x] += 1.0f;
}
"""


def test_the_arch_follows_the_selected_device(qtbot, window, view, tmp_path):
    """With H100 selected the source is compiled for sm_90, not for the dock's first device (sm_100 gave 32
    registers where sm_90 gives 34); a new device recompiles; a chosen arch is named beside the inputs."""
    src = tmp_path / "pressure.cu"
    shutil.copy(DATA / "pressure.cu", src)
    window.session.replace(device="H100 SXM5")
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        view.open(str(src))
    assert view.follows_device and view.arch_combo.currentText() == "Device's (sm_90)"
    assert {r.arch for r in view.records} == {"sm_90"}
    assert (
        window.session.inputs.registers
        == next(r for r in view.records if r.name == view.kernel_combo.currentText()).registers
    )
    assert window.kernel_panel.origin_note.isHidden()  # the device's own arch: nothing to say
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        window.session.replace(device="sm_86")
        flush_all(window)
    assert {r.arch for r in view.records} == {"sm_86"} and view.arch_combo.itemText(0) == "Device's (sm_86)"
    view.choose_arch("sm_80")
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        view.compile()
    note = window.kernel_panel.origin_note
    assert not note.isHidden() and "compiled for sm_80" in note.text() and "sm_86" in note.text()
    assert "compiled for sm_80" in view.status.text()
    window.session.replace(registers=window.session.inputs.registers + 1)  # edited: no longer the compile's
    flush_all(window)
    assert note.isHidden()


def test_arch_specific_source_is_compiled_for_the_a_target_and_says_so(qtbot, window, view, tmp_path):
    src = tmp_path / "wg.cu"
    src.write_text(SETMAXNREG)
    window.session.replace(device="sm_90")
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        view.open(str(src))
    assert view.compiled_arch == "sm_90a" and view.records[0].arch == "sm_90a"
    assert "Compiled for sm_90a" in view.status.text() and "setmaxnreg" in view.status.text()
    assert "Compiled for sm_90a" in window.kernel_panel.origin_note.text()


def test_an_arch_below_the_compilers_is_refused_in_one_line(qtbot, window, view, tmp_path):
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __global__ void k(float *o) { o[threadIdx.x] = 1.0f; }\n')
    with qtbot.waitSignal(view.compiled, timeout=TIMEOUT):
        view.open(str(src), "sm_70")
    text = view.status.text()
    assert "sm_70 is below" in text and "the lowest is sm_75" in text and "\n" not in text
    assert view.output.isHidden()


def test_screenshot_of_a_source_waits_for_the_compile_and_cleans_up(tmp_path, cuda_bin, monkeypatch, qapp):
    """``occupancy-gui k.cu --arch sm_90 --screenshot`` captured "Compiling… 0 %", ended in a traceback and left
    its temporary build folder: now it shows the compiled kernel, exits 0 and leaves nothing."""
    import tempfile

    from occupancy_gui.ui.app import main

    monkeypatch.setenv("PATH", str(cuda_bin) + ":" + __import__("os").environ["PATH"])
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __global__ void __launch_bounds__(128) k(float *o) { o[threadIdx.x] = 1.0f; }\n')
    out = tmp_path / "shot.png"
    import occupancy_gui.ui.app as app_module

    shown = []
    real = app_module.take_screenshot

    def take(window, *args, **kwargs):
        shown.append((window.source.view().status.text(), window.session.inputs.device))
        real(window, *args, **kwargs)

    monkeypatch.setattr(app_module, "take_screenshot", take)
    assert main([str(src), "--arch", "sm_90", "--screenshot", str(out), "--docks", "source"]) == 0
    assert shown == [("1 kernel compiled for sm_90.", "sm_90")]  # --arch sm_90 without --device: the sm_90 device
    assert out.is_file() and list((tmp_path / "tmp").iterdir()) == []
