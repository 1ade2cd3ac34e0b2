"""``occupancy-gui``: the screenshot path, bad arguments and FILE handling, run in-process."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from occupancy_gui.__main__ import main


def test_screenshot_writes_a_non_blank_png(qapp, tmp_path, capsys):
    out = tmp_path / "shot.png"
    status = main(
        [
            "--device",
            "sm_100",
            "--threads",
            "256",
            "--registers",
            "64",
            "--static-smem",
            "24KiB",
            "--screenshot",
            str(out),
        ]
    )
    assert status == 0, capsys.readouterr().err
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    colours = {image.pixel(x, y) for x in range(0, 1400, 23) for y in range(0, 900, 17)}
    assert len(colours) > 20  # text, curves and panels, not one flat colour


@pytest.mark.parametrize(
    "argv",
    [
        ["--threads", "abc"],
        ["--threads", "0"],
        ["--registers", "-1"],
        ["--static-smem", "12 parsecs"],
        ["--device", "no such gpu"],
        ["--bogus"],
        ["a", "b"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(qapp, argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("occupancy-gui: error:") and err.count("\n") == 1


def test_missing_file_is_a_usage_error(qapp, tmp_path, capsys):
    assert main([str(tmp_path / "missing.log"), "--screenshot", str(tmp_path / "s.png")]) == 2
    assert "missing.log" in capsys.readouterr().err


def test_initial_inputs_layering(catalog):
    from occupancy_gui.ui.app import build_parser, initial_inputs

    saved = {"device": "sm_86", "threads": 99999, "registers": 40, "max_dynamic_smem": None}
    inputs = initial_inputs(build_parser().parse_args(["--registers", "48"]), catalog, saved)
    assert inputs["device"] == "sm_86"  # saved
    assert inputs["threads"] == 256  # saved value out of range: default kept
    assert inputs["registers"] == 48  # the option wins over the saved value
    assert inputs["max_dynamic_smem"] is None


def test_file_import_sets_kernel_inputs(qapp, tmp_path):
    """``occupancy-gui FILE``: the window's import panel applies the file's first kernel (the one rule), and the
    device follows its architecture."""
    from occupancy_gui.ui.app import close_without_asking, create_window

    log = tmp_path / "k.log"
    log.write_text(
        "ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_86'\n"
        "ptxas info    : Function properties for _Z6kernelPf\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 40 registers, 4096 bytes smem, 352 bytes cmem[0]\n"
    )
    _app, window, _args = create_window([str(log), "--screenshot", str(tmp_path / "s.png")])
    try:
        assert window.import_panel.wait_for_import(15000)
        inputs = window.session.inputs
        assert (inputs.registers, inputs.static_smem, inputs.device) == (40, 4096, "sm_86")
    finally:
        close_without_asking(window)
        window.deleteLater()
