"""AMD kernels in the window's kernel table: listed beside NVIDIA's with their own figures, each row's occupancy
the HIP runtime's answer on its target, and choosing a row loads its inputs and its target's device (undo
restores both in one step).

The references: ``occupancy import --json`` for the records (run as a command), ``occupancy calc --json`` for the
AMD engine's answer on the same fields (run as a command), the committed code objects of
``tests/data/importers/amd`` (``regenerate_amd.sh``) and a Triton cache compiled for HIP at test time.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from occupancy_gui import units
from occupancy_gui.ui.kernels.kernel_table_model import NAME, NAME_ROLE
from occupancy_gui.ui.kernels.table_columns import (
    AGPRS,
    ARCH,
    BARRIERS,
    LAUNCH_BOUND,
    LOCAL,
    OCCUPANCY,
    REGISTERS,
    SGPRS,
    STATIC_SMEM,
    THREADS,
    WAVE,
)
from tests.ui.flush import settle

ROOT = Path(__file__).resolve().parents[2]
AMD = ROOT / "tests" / "data" / "importers" / "amd"
TIMEOUT = 30000


def cli(*args: str) -> object:
    out = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", *args], check=True, capture_output=True, text=True, cwd=ROOT
    ).stdout
    return json.loads(out)


def imported(path: Path) -> list[dict]:
    data = cli("import", "--json", "--no-cache", str(path))
    rows = data if isinstance(data, list) else data["records"]
    return [r for r in rows if r.get("vendor") == "amd"]


def load(qtbot, window, path: Path) -> None:
    panel = window.import_panel
    with qtbot.waitSignal(panel.importFinished, timeout=TIMEOUT):
        panel.load(path)
    settle(qtbot, window)


def row_of(panel, name: str, arch: str | None = None) -> int:
    proxy = panel.proxy
    return next(
        r
        for r in range(proxy.rowCount())
        if proxy.index(r, NAME).data(NAME_ROLE) == name and (arch is None or proxy.index(r, ARCH).data() == arch)
    )


def cell(panel, row: int, column: int, role=Qt.ItemDataRole.DisplayRole):
    return panel.proxy.index(row, column).data(role)


def choose(qtbot, window, row: int) -> None:
    panel = window.import_panel
    panel.view.clearSelection()
    panel.view.selectRow(row)
    settle(qtbot, window)


def calc(device: str, threads: int, rec: dict) -> float:
    args = [
        "calc",
        "--device",
        device,
        "--threads",
        str(threads),
        "--vgprs",
        str(rec["vgprs"]),
        "--sgprs",
        str(rec["sgprs"]),
        "--lds",
        str(rec["static_lds"]),
        "--max-flat-workgroup-size",
        str(rec["max_threads"]),
    ]
    if rec["wave_size"] == 32:
        args += ["--wave-size", "32", "--wgp-mode" if rec["wgp_mode"] else "--cu-mode"]
    answer = cli(*args, "--json")
    return answer["hip_runtime"]["occupancy"]  # type: ignore[index]  # calc --json writes an object


@pytest.mark.parametrize("file", ["gfx942.co", "gfx1100.co"])
def test_a_code_object_lists_with_the_command_s_figures_and_the_engine_s_occupancy(qtbot, window, file):
    records = imported(AMD / file)
    load(qtbot, window, AMD / file)
    panel = window.import_panel
    assert panel.proxy.rowCount() == len(records) == 3
    for rec in records:
        r = row_of(panel, rec["name"], rec["target"])
        assert cell(panel, r, REGISTERS) == str(rec["vgprs"])
        assert cell(panel, r, SGPRS) == str(rec["sgprs"])
        assert cell(panel, r, AGPRS) == ("—" if rec["agprs"] is None else str(rec["agprs"]))
        assert cell(panel, r, STATIC_SMEM) == units.kib(rec["static_lds"])
        assert cell(panel, r, LOCAL) == units.kib(rec["scratch_bytes"])
        assert cell(panel, r, LAUNCH_BOUND) == f"≤ {rec['max_threads']}"
        assert cell(panel, r, WAVE).startswith(str(rec["wave_size"]))
        assert cell(panel, r, BARRIERS) == ""
        threads = min(window.session.inputs.threads, rec["max_threads"])
        assert cell(panel, r, THREADS) == str(threads)
        processor = rec["target"].split(":")[0]
        want = calc(processor, threads, rec)
        assert cell(panel, r, OCCUPANCY) == f"{want * 100:.1f}".rstrip("0").rstrip(".") + " %"
        assert "HIP runtime" in cell(panel, r, OCCUPANCY, Qt.ItemDataRole.ToolTipRole)
    assert not panel.view.isColumnHidden(SGPRS) and panel.view.isColumnHidden(BARRIERS)
    assert panel.proxy.headerData(REGISTERS, Qt.Orientation.Horizontal) == "VGPRs"  # AMD's words, AMD rows alone


def test_choosing_an_amd_kernel_loads_its_inputs_and_target_and_undo_restores_both(qtbot, window):
    session = window.session
    before = session.inputs
    assert session.vendor == "nvidia"
    load(qtbot, window, AMD / "gfx942.co")  # the first kernel is chosen: its target's profile is selected
    assert session.vendor == "amd" and session.inputs.device == "gfx942"
    first = session.inputs
    panel = window.import_panel
    scratch = next(r for r in imported(AMD / "gfx942.co") if r["name"].startswith("_Z7scratch"))
    choose(qtbot, window, row_of(panel, scratch["name"]))
    i = session.inputs
    assert (i.vgprs, i.sgprs, i.lds, i.max_flat_workgroup_size) == (
        scratch["vgprs"],
        scratch["sgprs"],
        scratch["static_lds"],
        scratch["max_threads"],
    )
    assert i.threads == min(first.threads, scratch["max_threads"]) == 128  # capped at its launch bound
    assert session.amd is not None and session.amd.answer is not None
    shown = cell(panel, row_of(panel, scratch["name"]), OCCUPANCY)
    assert shown == f"{session.amd.answer.hip.occupancy * 100:.1f}".rstrip("0").rstrip(".") + " %"
    session.undo()
    settle(qtbot, window)
    assert session.inputs == first
    session.undo()
    settle(qtbot, window)
    assert session.inputs == before and session.vendor == "nvidia"  # device and inputs in one step


def test_a_device_of_the_kernel_s_target_stays_selected(qtbot, window):
    session = window.session
    session.replace(device="MI300X")
    settle(qtbot, window)
    load(qtbot, window, AMD / "gfx942.co")
    assert session.inputs.device == "AMD Instinct MI300X"
    assert "MI300X" in cell(window.import_panel, 0, OCCUPANCY, Qt.ItemDataRole.ToolTipRole)
    load(qtbot, window, AMD / "gfx1100.co")  # another target: its profile
    assert session.inputs.device == "gfx1100" and session.inputs.wave_size == 32 and session.inputs.wgp_mode


def test_an_nvidia_kernel_chosen_on_an_amd_device_selects_an_nvidia_device(qtbot, window):
    session = window.session
    load(qtbot, window, AMD / "host.o")  # two targets in one bundle
    panel = window.import_panel
    targets = {cell(panel, r, ARCH).split(":")[0] for r in range(panel.proxy.rowCount())}
    assert targets == {"gfx942", "gfx1100"}
    choose(
        qtbot,
        window,
        row_of(
            panel,
            "add",
            next(
                cell(panel, r, ARCH) for r in range(panel.proxy.rowCount()) if cell(panel, r, ARCH).startswith("gfx942")
            ),
        ),
    )
    assert session.inputs.device == "gfx942"
    cubin = ROOT / "tests" / "data" / "importers" / "gen" / "a_sm80.cubin"
    load(qtbot, window, cubin)
    assert session.vendor == "nvidia"


def test_the_session_file_names_the_chosen_amd_kernel(qtbot, window, tmp_path):
    load(qtbot, window, AMD / "host.o")
    panel = window.import_panel
    lds = next(r for r in imported(AMD / "host.o") if r["name"].startswith("_Z3lds") and r["arch"] == "gfx1100")
    choose(qtbot, window, row_of(panel, lds["name"], lds["target"]))
    assert panel.current_source() == (str(AMD / "host.o"), lds["name"])
    assert panel.current_record() is None  # the report is NVIDIA's
    from occupancy_gui.session import file as sf

    state = sf.state_of(window.session, panel.current_source())
    text = sf.dumps(state)
    back = sf.loads(text, window.session.catalog)
    assert back.source == (str(AMD / "host.o"), lds["name"]) and back.inputs.device == "gfx1100"


def test_sorting_and_filtering_work_on_amd_rows(qtbot, window):
    load(qtbot, window, AMD / "host.o")
    panel = window.import_panel
    panel.view.sortByColumn(SGPRS, Qt.SortOrder.DescendingOrder)
    sgprs = [int(cell(panel, r, SGPRS)) for r in range(panel.proxy.rowCount())]
    assert sgprs == sorted(sgprs, reverse=True) and len(sgprs) == 6
    panel.set_filter("scratch")
    assert {cell(panel, r, NAME) for r in range(panel.proxy.rowCount())} == {"scratch(float*, int)"}
    assert panel.proxy.rowCount() == 2


@pytest.mark.skipif(
    importlib.util.find_spec("triton") is None, reason="triton not installed (pip install -e '.[test]')"
)
def test_a_triton_cache_with_nvidia_and_amd_kernels_lists_both(qtbot, window, tmp_path):
    built = tmp_path / "built"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.importers.amd.triton_build",
            str(built),
            json.dumps([["add_kernel", "gfx942", 64, {"num_warps": 4}]]),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    mixed = tmp_path / "mixed"
    shutil.copytree(ROOT / "tests" / "data" / "importers" / "triton" / "cache", mixed)
    for folder in built.iterdir():
        shutil.copytree(folder, mixed / folder.name)
    records = imported(mixed)
    assert len(records) == 1 and records[0]["block_size"] == 256
    load(qtbot, window, mixed)
    panel = window.import_panel
    archs = [cell(panel, r, ARCH) for r in range(panel.proxy.rowCount())]
    assert any(a.startswith("sm_") for a in archs) and any(a.startswith("gfx942") for a in archs)
    assert not panel.view.isColumnHidden(SGPRS) and not panel.view.isColumnHidden(BARRIERS)
    assert panel.proxy.headerData(REGISTERS, Qt.Orientation.Horizontal) == "Registers"  # both vendors' rows
    r = row_of(panel, records[0]["name"], records[0]["target"])
    assert cell(panel, r, THREADS) == "256"  # the launch the cache records
    assert cell(panel, r, OCCUPANCY).endswith("%")
    choose(qtbot, window, r)
    s = window.session
    assert s.inputs.device == "gfx942" and s.inputs.threads == 256
    assert s.inputs.dynamic_smem == records[0]["dynamic_lds"] and s.inputs.vgprs == records[0]["vgprs"]
    nvidia = next(r for r in range(panel.proxy.rowCount()) if cell(panel, r, ARCH).startswith("sm_"))
    choose(qtbot, window, nvidia)
    assert s.vendor == "nvidia"
    assert cell(panel, r, OCCUPANCY).endswith("%")  # AMD rows keep their figure on an NVIDIA device
