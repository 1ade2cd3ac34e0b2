"""``occupancy`` for AMD devices (issue #40's fixed contract): calc, suggest, devices and batch.

The worked cases are the issue's, worked from ROCm's ``hip_platform.cpp`` (no AMD GPU runs here); the engine's
own exactness (the runtime rule by hand on every target, the compiler model against LLVM) is tested in
``tests/engine/amd``.  What is tested here is the contract: the flags and keys, the JSON shape, the text, the
one-line errors, and batch lines of both vendors answered as ``calc`` answers them.
"""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from occupancy_gui import fields
from occupancy_gui.cli.devices import amd_catalog, load_catalog
from occupancy_gui.cli.main import build_parser, main
from occupancy_gui.cli.serialize import AMD_CSV_FIELDS, CSV_FIELDS, result_to_json
from occupancy_gui.engine import compute_occupancy
from occupancy_gui.engine.amd import (
    COMPILER_LIMITS,
    HIP_LIMITS,
    AmdKernel,
    AmdLaunch,
    compiler_occupancy,
    explain_difference,
    hip_occupancy,
)
from occupancy_gui.session import Session

TOP_KEYS = ["vendor", "device", "hip_runtime", "compiler", "explanation"]
HIP_KEYS = [
    "active_blocks",
    "active_waves",
    "occupancy",
    "limits",
    "binding",
    "best_block_size",
    "grid_blocks",
    "error",
]
HIP_LIMIT_KEYS = ["workgroup_size", "waves", "vgprs", "sgprs", "lds"]
COMPILER_KEYS = ["waves_per_simd", "occupancy", "limits", "binding"]


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def calc_json(*argv: str) -> dict[str, Any]:
    code, out = run("calc", *argv, "--json")
    assert code == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


def one_line_error(*argv: str) -> str:
    """The command's stderr, which must be one line (and exit status 2, no traceback)."""
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", *argv], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr.strip()


# ------------------------------------------------------------------------------------ the worked cases
WORKED = [
    # argv, blocks, waves, max waves, limits (waves / vgprs / sgprs / lds), binding, grid
    (
        ["--device", "MI300X", "--threads", "256", "--vgprs", "128", "--sgprs", "96", "--lds", "16KiB"],
        4,
        16,
        32,
        (8, 4, 8, 4),
        ["vgprs", "lds"],
        1216,
    ),
    (
        [
            "--device",
            "RX 7900 XTX",
            "--threads",
            "256",
            "--vgprs",
            "96",
            "--sgprs",
            "40",
            "--wave-size",
            "32",
            "--wgp-mode",
        ],
        8,
        64,
        64,
        (8, 8, None, None),
        ["waves", "vgprs"],
        384,
    ),
    (
        ["--device", "RX 7900 XTX", "--threads", "256", "--vgprs", "96", "--sgprs", "40", "--wave-size", "64"],
        8,
        32,
        64,
        (16, 8, None, None),
        ["vgprs"],
        384,
    ),
    (
        ["--device", "RX 7900 XTX", "--threads", "256", "--vgprs", "96", "--sgprs", "40", "--cu-mode"],
        4,
        32,
        32,
        (4, 4, None, None),
        ["waves", "vgprs"],
        384,
    ),
    (
        ["--device", "RX 7900 XTX", "--threads", "128", "--vgprs", "64", "--lds", "48KiB", "--wave-size", "32"],
        1,
        4,
        64,
        (16, 21, None, 1),
        ["lds"],
        48,
    ),
    (
        ["--device", "MI250X", "--threads", "1024", "--vgprs", "512", "--sgprs", "96", "--wave-size", "64"],
        0,
        0,
        32,
        (2, 0, 2, None),
        ["vgprs"],
        110,
    ),
]


@pytest.mark.parametrize(("argv", "blocks", "waves", "max_waves", "limits", "binding", "grid"), WORKED)
def test_the_issues_worked_cases(
    argv: list[str],
    blocks: int,
    waves: int,
    max_waves: int,
    limits: tuple[int | None, ...],
    binding: list[str],
    grid: int,
) -> None:
    hip = calc_json(*argv)["hip_runtime"]
    assert (hip["active_blocks"], hip["active_waves"], hip["occupancy"]) == (blocks, waves, waves / max_waves)
    assert tuple(hip["limits"][k] for k in ("waves", "vgprs", "sgprs", "lds")) == limits
    assert hip["limits"]["workgroup_size"] is None and hip["error"] is None
    assert (hip["binding"], hip["grid_blocks"]) == (binding, grid)


def test_600_vgprs_are_hip_error_unknown() -> None:
    data = calc_json("--device", "MI300X", "--threads", "256", "--vgprs", "600")
    assert data["hip_runtime"]["error"] == "hipErrorUnknown: 600 VGPRs exceed the 512 per SIMD"
    assert data["hip_runtime"]["active_blocks"] == 0
    assert "refuses" in data["explanation"]


def test_a_block_above_1024_fits_nowhere() -> None:
    hip = calc_json("--device", "MI300X", "--threads", "1025", "--vgprs", "32")["hip_runtime"]
    assert (hip["active_blocks"], hip["grid_blocks"], hip["limits"]["workgroup_size"]) == (0, 0, 0)
    assert hip["binding"] == ["workgroup_size"]


def test_suggest_gives_the_runtimes_block_and_grid_and_the_headers_search_labelled() -> None:
    code, out = run("suggest", "--device", "MI300X", "--vgprs", "128", "--sgprs", "96", "--lds", "16KiB", "--json")
    data = json.loads(out)
    assert code == 0 and (data["vendor"], data["block_size"], data["min_grid_size"]) == ("amd", 1024, 304)
    assert data["header_template_search"]["block_size"] == 1024
    code, text = run("suggest", "--device", "MI300X", "--vgprs", "128", "--sgprs", "96", "--lds", "16KiB")
    assert code == 0 and "hipOccupancyMaxPotentialBlockSize: block size: 1024" in text
    assert "header template hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags (searches)" in text


def test_suggest_takes_threads_as_the_block_size_limit() -> None:
    code, out = run("suggest", "--device", "MI300X", "--vgprs", "32", "--threads", "200", "--json")
    data = json.loads(out)
    assert code == 0 and data["block_size_limit"] == 200
    assert data["block_size"] == 256  # the runtime aligns the limit up to whole waves (sic): no search
    # The header's loop keeps the block that reaches the most resident threads: 200 x 8 = 1600, 192 x 10 = 1920,
    # 128 x 16 = 2048 = maxThreadsPerMultiProcessor, where it stops.
    assert data["header_template_search"]["block_size"] == 128


# ------------------------------------------------------------------------------------ the JSON and text shape
def test_the_json_keys_are_exactly_the_contracts() -> None:
    data = calc_json("--device", "MI300X", "--threads", "256", "--vgprs", "128", "--sgprs", "96", "--lds", "16KiB")
    assert list(data) == TOP_KEYS and data["vendor"] == "amd" and data["device"] == "AMD Instinct MI300X"
    assert list(data["hip_runtime"]) == HIP_KEYS and list(data["hip_runtime"]["limits"]) == HIP_LIMIT_KEYS
    assert list(data["compiler"]) == COMPILER_KEYS and list(data["compiler"]["limits"]) == list(COMPILER_LIMITS)
    assert list(HIP_LIMITS) == HIP_LIMIT_KEYS
    assert isinstance(data["explanation"], str) and "\n" not in data["explanation"]


@pytest.mark.parametrize(
    ("device", "flag", "value", "change"),
    [
        ("gfx908", "--agprs", "130", {"agprs": 130}),
        ("gfx908", "--sgprs", "90", {"sgprs": 90}),
        ("gfx908", "--lds", "40000", {"static_lds": 40000}),
        ("gfx908", "--dynamic-smem", "40KiB", {"dynamic_lds": 40960}),
        ("gfx908", "--max-flat-workgroup-size", "64", {"max_threads": 64}),
        ("RX 7900 XTX", "--waves-per-eu", "8,8", {"waves_per_eu": (8, 8)}),
        ("gfx908", "--allocated-vgprs", "200", {"allocated_vgprs": 200}),
        ("RX 7900 XTX", "--wave-size", "64", {"wave_size": 64}),
        ("RX 7900 XTX", "--cu-mode", None, {"wgp_mode": False}),
        ("RX 7900 XTX", "--threads", "64", {"threads": 64}),
    ],
)
def test_each_amd_flag_reaches_the_engine_as_its_field(
    device: str, flag: str, value: str | None, change: dict[str, Any]
) -> None:
    """The JSON is the engine's answer for the flags given, and each flag changes it."""
    base = ["--device", device, "--threads", "192", "--vgprs", "70"]
    data = calc_json(*base, flag, *([] if value is None else [value]))
    profile = amd_catalog().get(device)
    dev = profile.device()

    def engine(kernel: AmdKernel, launch: AmdLaunch) -> dict[str, Any]:
        hip, compiler = hip_occupancy(dev, kernel, launch), compiler_occupancy(dev.target, kernel)
        return {
            "vendor": "amd",
            "device": profile.name,
            "hip_runtime": hip.as_dict(),
            "compiler": compiler.as_dict(),
            "explanation": explain_difference(dev, kernel, launch, hip, compiler),
        }

    kernel_change = {k: v for k, v in change.items() if k not in ("dynamic_lds", "threads")}
    launch = AmdLaunch(change.get("threads", 192), change.get("dynamic_lds", 0))
    assert data == engine(AmdKernel(vgprs=70, **kernel_change), launch)
    assert data != engine(AmdKernel(vgprs=70), AmdLaunch(192)), "the flag changed nothing"


def test_the_text_shows_both_answers_each_limit_the_binding_marked_and_why() -> None:
    code, out = run("calc", "--device", "RX 7900 XTX", "--threads", "128", "--vgprs", "64", "--lds", "48KiB")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].startswith("HIP runtime (hipOccupancyMaxActiveBlocksPerMultiprocessor): 1 block, 4 waves per WGP")
    assert lines[2].startswith(
        "compiler model (LLVM's '; Occupancy', static LDS only: it leaves out dynamic LDS): 16 waves per SIMD"
    )
    assert lines[4].startswith("why: The runtime gives 1 wave per SIMD and the compiler 16")
    rows = {line.split()[0]: line for line in lines[lines.index("") + 3 :]}
    assert set(rows) == {"workgroup_size", "waves", "vgprs", "sgprs", "lds", "waves_per_eu"}
    assert "* 1 " in rows["lds"] and "* 16" in rows["lds"]  # binding for both rules
    assert "* " not in rows["vgprs"].split("⌋")[0]  # 21 blocks: not the runtime's binding limit


# ------------------------------------------------------------------------------------ one-line errors
@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--registers", "32"],
            "--registers: for NVIDIA devices only; AMD Instinct MI300X is an AMD device",
        ),
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--carveout", "50"],
            "--carveout: for NVIDIA",
        ),
        (
            ["calc", "--device", "sm_90", "--threads", "256", "--registers", "32", "--vgprs", "64"],
            "--vgprs: for AMD devices only; sm_90 is an NVIDIA device",
        ),
        (["calc", "--device", "sm_90", "--threads", "256", "--registers", "32", "--cu-mode"], "--cu-mode: for AMD"),
        (["calc", "--device", "sm_90", "--threads", "256", "--registers", "32", "--wgp-mode"], "--wgp-mode: for AMD"),
        (["calc", "--device", "sm_90", "--threads", "256"], "--registers is required for an NVIDIA device (sm_90)"),
        (["calc", "--device", "MI300X", "--threads", "256"], "--vgprs is required for an AMD device"),
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--wave-size", "32"],
            "wave_size: gfx942 runs wave64 only",
        ),
        (
            ["calc", "--device", "RX 7600", "--threads", "256", "--vgprs", "64", "--wave-size", "48"],
            "wave_size: expected 32 or 64, got 48",
        ),
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--wgp-mode"],
            "wgp_mode: gfx942 has no WGP",
        ),
        (["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--agprs", "8"], "agprs: gfx942 counts"),
        (
            ["calc", "--device", "MI50", "--threads", "256", "--vgprs", "64", "--agprs", "8"],
            "agprs: gfx906 has no AGPRs",
        ),
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--max-flat-workgroup-size", "2048"],
            "max_flat_workgroup_size: expected 1..1024 on gfx942, got 2048",
        ),
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--waves-per-eu", "4,2"],
            "waves_per_eu: the minimum 4 is above the maximum 2",
        ),
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--waves-per-eu", "two"],
            "expected N or N,M",
        ),
        (["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "9999"], "vgprs: expected 0..2048, got 9999"),
        (
            ["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--sgprs", "801"],
            "sgprs: expected 0..800",
        ),
        (["calc", "--device", "MI300X", "--threads", "256", "--vgprs", "64", "--wgp-mode", "--cu-mode"], "not allowed"),
        (["calc", "--device", "MI300", "--threads", "256", "--vgprs", "64"], "did you mean: MI300X"),
        (["suggest", "--device", "MI300X", "--vgprs", "64", "--blocks", "2"], "--blocks: for NVIDIA devices only"),
        (["suggest", "--device", "MI300X", "--vgprs", "64", "--smem-per-thread", "4"], "--smem-per-thread: for NVIDIA"),
        (
            ["report", "--device", "MI300X", "--threads", "256", "--registers", "32", "-o", "/tmp/never-written.html"],
            "--registers: for NVIDIA devices only; AMD Instinct MI300X is an AMD device",
        ),
        (["report", "--device", "MI300X", "--threads", "256", "-o", "/tmp/never-written.html"], "--vgprs is required"),
        (
            [
                "report",
                "--device",
                "MI300X",
                "--threads",
                "256",
                "--vgprs",
                "64",
                "--carveout",
                "50",
                "-o",
                "/tmp/never-written.html",
            ],
            "--carveout: for NVIDIA devices only",
        ),
        (
            [
                "report",
                "--device",
                "MI300X",
                "--threads",
                "256",
                "--vgprs",
                "64",
                "--wave-size",
                "32",
                "-o",
                "/tmp/never-written.html",
            ],
            "wave_size: gfx942 runs wave64 only",
        ),
    ],
)
def test_bad_amd_arguments_give_one_line_naming_the_flag(argv: list[str], words: str) -> None:
    assert words in one_line_error(*argv)


# ------------------------------------------------------------------------------------ the field table
def test_every_input_of_the_table_is_a_flag_of_calc_and_suggest() -> None:
    """The flags come from the field table, both vendors' (a mode as its pair of flags)."""
    parser = build_parser()
    actions = parser._subparsers._group_actions[0].choices  # the subcommands' parsers
    for command in ("calc", "suggest"):
        options = {o for a in actions[command]._actions for o in a.option_strings}
        for f in fields.FIELDS:
            assert f.flag in options, (command, f.name)
            if f.off_flag:
                assert f.off_flag in options
    amd = {f.name for f in fields.for_vendor("amd")}
    assert {
        "threads",
        "dynamic_smem",
        "vgprs",
        "agprs",
        "sgprs",
        "lds",
        "wave_size",
        "wgp_mode",
        "max_flat_workgroup_size",
        "waves_per_eu",
    } <= amd
    assert "registers" not in amd and {"threads", "dynamic_smem"} <= {f.name for f in fields.for_vendor("nvidia")}


def test_the_session_keeps_the_nvidia_inputs() -> None:
    """AMD rows in the table leave the NVIDIA session as it was (it becomes vendor-aware later)."""
    session = Session(load_catalog(), device="sm_90", threads=256, registers=32)
    assert session.result is not None and session.result.active_blocks == 8


# ------------------------------------------------------------------------------------ devices
def test_devices_lists_the_amd_profiles_and_filters_by_vendor() -> None:
    code, out = run("devices", "--json", "--vendor", "amd")
    listed = json.loads(out)
    assert code == 0 and len(listed) == len(amd_catalog()) >= 44 and {d["vendor"] for d in listed} == {"amd"}
    mi300x = next(d for d in listed if d["name"] == "AMD Instinct MI300X")
    assert (mi300x["target"], mi300x["compute_units"], mi300x["hip_multiprocessor_count"]) == ("gfx942", 304, 304)
    assert (mi300x["wave_size"], mi300x["lds_per_workgroup"], mi300x["wgp_mode"]) == (64, 65536, None)
    xtx = next(d for d in listed if d["name"] == "AMD Radeon RX 7900 XTX")
    assert (xtx["compute_units"], xtx["hip_multiprocessor_count"], xtx["wave_sizes"], xtx["wgp_mode"]) == (
        96,
        48,
        [32, 64],
        True,
    )
    assert set(xtx["limits"]) <= set(xtx["sources"]) and xtx["limits"]["simds_per_cu"] == 2
    code, out = run("devices", "--json", "--vendor", "nvidia")
    assert code == 0 and {d["vendor"] for d in json.loads(out)} == {"nvidia"}
    code, out = run("devices")
    assert code == 0 and "AMD Radeon RX 7900 XTX" in out and "gfx1100" in out and "H100" in out
    line = next(x for x in out.splitlines() if x.startswith("AMD Radeon RX 7900 XTX"))
    assert line.split()[5:9] == ["gfx1100", "96", "48", "32/64"]


# ------------------------------------------------------------------------------------ batch
def _nvidia_answer(data: dict[str, Any]) -> dict[str, Any]:
    from occupancy_gui.cli.inputs import kernel_query

    q = kernel_query(data)
    device = load_catalog().get(data["device"]).device_properties()
    return result_to_json(compute_occupancy(device, q.func, q.launch, q.state))


def _amd_lines(seed: int, count: int) -> list[dict[str, Any]]:
    """Random AMD queries over every profile, every field (within what each target takes)."""
    rng = random.Random(seed)
    profiles = list(amd_catalog())
    lines = []
    for _ in range(count):
        p = rng.choice(profiles)
        t = p.target
        q: dict[str, Any] = {
            "device": rng.choice(p.lookup_names()),
            "threads": rng.choice([64, 96, 256, 1000, 1024, 1025]),
            "vgprs": rng.randrange(0, 520),
        }
        for key, value in (
            ("sgprs", rng.randrange(0, 110)),
            ("lds", rng.randrange(0, 70000)),
            ("dynamic_smem", rng.randrange(0, 40000)),
            ("wave_size", rng.choice(t.wave_sizes())),
            ("wgp_mode", t.has_wgp and rng.random() < 0.5),
            ("max_flat_workgroup_size", rng.choice([64, 256, 1024])),
            ("waves_per_eu", rng.choice([2, [1, 4], [3, 3]])),
            ("agprs", rng.randrange(0, 256) if t.agpr_file == "separate" else 0),
            ("allocated_vgprs", rng.randrange(0, 256)),
        ):
            if rng.random() < 0.5:
                q[key] = value
        lines.append(q)
    return lines


def _engine_answer(q: dict[str, Any]) -> dict[str, Any]:
    """What ``calc --json`` must say for an AMD query, from the engine directly."""
    profile = amd_catalog().get(q["device"])
    device = profile.device()
    wpe = q.get("waves_per_eu")
    kernel = AmdKernel(
        vgprs=q["vgprs"],
        sgprs=q.get("sgprs", 0),
        agprs=q.get("agprs", 0),
        allocated_vgprs=q.get("allocated_vgprs", 0),
        static_lds=q.get("lds", 0),
        wave_size=q.get("wave_size"),
        wgp_mode=q.get("wgp_mode"),
        max_threads=q.get("max_flat_workgroup_size"),
        waves_per_eu=None if wpe is None else (wpe, None) if isinstance(wpe, int) else tuple(wpe),
    )
    launch = AmdLaunch(q["threads"], q.get("dynamic_smem", 0))
    hip, compiler = hip_occupancy(device, kernel, launch), compiler_occupancy(device.target, kernel)
    return {
        "vendor": "amd",
        "device": profile.name,
        "hip_runtime": hip.as_dict(),
        "compiler": compiler.as_dict(),
        "explanation": explain_difference(device, kernel, launch, hip, compiler),
    }


MIXED_ERRORS = [
    ({"device": "MI300X", "threads": 256}, "vgprs: required"),
    (
        {"device": "MI300X", "threads": 256, "vgprs": 64, "registers": 32},
        "registers: for NVIDIA devices only; AMD Instinct MI300X is an AMD device",
    ),
    (
        {"device": "sm_80", "threads": 256, "registers": 32, "lds": 1024},
        "lds: for AMD devices only; sm_80 is an NVIDIA",
    ),
    ({"device": "sm_80", "threads": 256, "registers": 32, "wgp_mode": False}, "wgp_mode: for AMD devices only"),
    ({"device": "gfx942", "threads": 256, "vgprs": 64, "wave_size": 32}, "wave_size: gfx942 runs wave64 only"),
    ({"device": "gfx1100", "threads": 256, "vgprs": "64"}, "vgprs: expected an integer, got '64'"),
    ({"device": "gfx1100", "threads": 256, "vgprs": 64, "wgp_mode": 1}, "wgp_mode: expected true, false or null"),
    (
        {"device": "gfx1100", "threads": 256, "vgprs": 64, "waves_per_eu": [1, 2, 3]},
        "waves_per_eu: expected N or [N, M]",
    ),
    ({"device": "gfx1100", "threads": 256, "vgprs": 64, "lds": -1}, "lds: expected 0..4194304, got -1"),
    ({"device": "gfx1100", "vgprs": 64}, "threads: required"),
]


def _mixed(tmp_path: Path) -> tuple[Path, list[Any]]:
    """NVIDIA and AMD lines interleaved, with errors of both; and what each line must answer."""
    nvidia = [
        {"device": d, "threads": t, "registers": r}
        for d, t, r in (("sm_80", 256, 64), ("H100", 128, 32), ("sm_90", 1025, 32), ("RTX 4090", 96, 200))
    ]
    nvidia.append({"device": "sm_80", "threads": 256, "registers": 64, "vgprs": None})  # null: as absent
    amd = _amd_lines(20261240, 300)
    lines: list[Any] = []
    expected: list[Any] = []
    for i, q in enumerate(amd):
        lines.append(q)
        expected.append(_engine_answer(q))
        if i % 60 == 0:
            n = nvidia[(i // 60) % len(nvidia)]
            lines.append(n)
            expected.append(_nvidia_answer({k: v for k, v in n.items() if v is not None}))
        if i % 30 == 0:
            bad, words = MIXED_ERRORS[(i // 30) % len(MIXED_ERRORS)]
            lines.append(bad)
            expected.append(words)
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path, expected


def test_batch_answers_mixed_vendors_as_calc_and_the_engine_do(tmp_path: Path) -> None:
    path, expected = _mixed(tmp_path)
    code, out = run("batch", str(path))
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == len(expected)
    for number, (got, want) in enumerate(zip(answers, expected), 1):
        if isinstance(want, str):
            assert got == {"error": f"{path}:{number}: {got['error'].split(': ', 1)[1]}"} and want in got["error"]
        else:
            assert got == want, number
    first_amd = json.loads(path.read_text().splitlines()[0])
    argv = ["--device", first_amd["device"]]
    for f in fields.for_vendor("amd"):
        value = first_amd.get(f.name)
        if value is None:
            continue
        if f.kind == fields.MODE:
            argv.append(f.flag if value else str(f.off_flag))
        else:
            argv += [str(f.flag), ",".join(map(str, value)) if isinstance(value, list) else str(value)]
    assert calc_json(*argv) == answers[0]  # a batch line's answer is the calc JSON


def test_batch_csv_has_the_amd_columns(tmp_path: Path) -> None:
    path, expected = _mixed(tmp_path)
    code, out = run("batch", str(path), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and tuple(rows[0]) == CSV_FIELDS and len(rows) == len(expected)
    for row, want in zip(rows, expected):
        if isinstance(want, str):
            assert want in row["error"] and row["vendor"] == "" and row["active_blocks"] == ""
        elif "vendor" in want:
            assert row["vendor"] == "amd" and row["active_blocks"] == ""
            assert row["hip_runtime.active_blocks"] == str(want["hip_runtime"]["active_blocks"])
            assert row["compiler.waves_per_simd"] == str(want["compiler"]["waves_per_simd"])
            assert row["hip_runtime.binding"] == "; ".join(want["hip_runtime"]["binding"])
            assert row["explanation"] == want["explanation"]
        else:
            assert row["vendor"] == "" and row["active_blocks"] == str(want["active_blocks"])


def test_the_amd_csv_columns_are_an_amd_answers_keys() -> None:
    answer = calc_json("--device", "MI300X", "--threads", "256", "--vgprs", "128")

    def flat(obj: dict[str, Any], prefix: str = "") -> list[str]:
        return [
            k for key, v in obj.items() for k in (flat(v, f"{prefix}{key}.") if isinstance(v, dict) else [prefix + key])
        ]

    assert tuple(flat(answer)) == AMD_CSV_FIELDS


def test_batch_jobs_answer_mixed_vendors_as_one_process_does(tmp_path: Path) -> None:
    path, _ = _mixed(tmp_path)
    lines = path.read_text().splitlines() * 40  # ~ 0.6 MB: more than the parent's first block
    path.write_text("\n".join(lines) + "\n")

    def batch(*extra: str) -> bytes:
        return subprocess.run(
            [sys.executable, "-m", "occupancy_gui.cli.main", "batch", str(path), *extra],
            capture_output=True,
            check=True,
            timeout=600,
        ).stdout

    one = batch()
    assert one.count(b"\n") == len(lines) and batch("--jobs", "2") == one


def test_plain_nvidia_lines_stay_on_the_fast_path_beside_amd_keys() -> None:
    """A line with an AMD-only key is left to the exact path (to be answered by AMD's rules, or refused); an
    NVIDIA line with the key ``null`` is still plain."""
    from occupancy_gui.cli.batch_plain import decode_plain

    lines = [
        '{"device": "sm_80", "threads": 256, "registers": 64}',
        '{"device": "sm_80", "threads": 256, "registers": 64, "vgprs": null, "wgp_mode": null}',
        '{"device": "MI300X", "threads": 256, "vgprs": 64}',
        '{"device": "sm_80", "threads": 256, "registers": 64, "wgp_mode": true}',
        '{"device": "sm_80", "threads": 256, "registers": 64, "waves_per_eu": [1, 2]}',
    ]
    positions, _ = decode_plain(lines)
    assert positions == [0, 1]


def test_any_value_the_table_allows_gets_an_answer_or_one_line_naming_the_field() -> None:
    """Random queries over every AMD field's whole range (and its edges), on every profile: each is answered, or
    refused with a ``QueryError`` that names a field; nothing else is raised (no traceback reaches a user)."""
    from occupancy_gui.cli.amd_answers import answer
    from occupancy_gui.cli.common import QueryError

    rng = random.Random(20261241)
    profiles = list(amd_catalog())
    amd = fields.for_vendor("amd")
    answered = refused = 0
    for _ in range(3000):
        q: dict[str, Any] = {}
        for f in amd:
            if f.kind == fields.MODE:
                q[f.name] = rng.choice([None, True, False])
                continue
            common = rng.choice(f.choices) if f.choices else rng.randint(f.low, min(f.high, 1024))
            value = rng.choice([f.low, f.high, common, common, common] + ([] if f.required else [None]))
            if f.kind == fields.MIN_MAX and value is not None and rng.random() < 0.5:
                value = [value, rng.choice([f.low, f.high, rng.randint(f.low, f.high)])]
            q[f.name] = value
        if rng.random() < 0.3:  # one field out of its range, or of the wrong type
            f = rng.choice([f for f in amd if f.kind != fields.MODE])
            q[f.name] = rng.choice([f.low - 1, f.high + 1, str(f.low), 1.5, [f.low], True])
        try:
            result = answer(rng.choice(profiles), q).as_json()
        except QueryError as exc:
            refused += 1
            assert str(exc).split(":")[0] in {f.name for f in amd}, exc
            assert "\n" not in str(exc)
        else:
            answered += 1
            assert 0 <= result["hip_runtime"]["occupancy"] <= 1 and 0 < result["compiler"]["occupancy"] <= 1
            assert "\n" not in result["explanation"]
    assert answered > 300 and refused > 300, (answered, refused)
