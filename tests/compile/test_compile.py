"""PTX and CUDA sources compiled for real, and the register-cap sweep, checked against ptxas run by hand.

The compilers are the pinned pip CUDA 13.5 wheels (tests/helpers/toolchains.py), handed over as ``--cuda-bin``.
The figures the tests expect are read from ptxas's own ``-v`` lines with a regex written here, not
with the project's parser.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from occupancy_gui.cli.main import main as cli_main
from occupancy_gui.compile import (
    CompileCancelled,
    CompileError,
    CompilerNotFound,
    build,
    compile_resources,
    find_tool,
    regcap,
    toolchain,
)
from occupancy_gui.compile.build import make_source
from occupancy_gui.compile.regcap import ResultCache, candidate_caps, sweep
from occupancy_gui.importers.binary.cubin import import_cubin
from tests.helpers import toolchains

DATA = Path(__file__).resolve().parents[1] / "data"
PRESSURE = DATA / "compile" / "pressure.cu"
LAUNCH_ATTRS = DATA / "compile" / "launch_attrs.cu"
TRITON_PTX = sorted((DATA / "importers" / "triton" / "cache").glob("*/*.ptx"))

_BLOCK = re.compile(
    r"Compiling entry function '(?P<name>[^']+)' for '(?P<arch>[^']+)'\n.*?"
    r"(?P<stack>\d+) bytes stack frame, (?P<st>\d+) bytes spill stores, (?P<ld>\d+) bytes spill loads\n"
    r"[^\n]*Used (?P<regs>\d+) registers(?P<rest>[^\n]*)",
    re.DOTALL,
)


def by_hand(cmd: list) -> dict[str, dict[str, int]]:
    """Entry function -> figures, from the compiler's -v lines."""
    proc = toolchains.run(cmd)
    out = {}
    for m in _BLOCK.finditer(proc.stdout + proc.stderr):
        smem = re.search(r"(\d+) bytes smem", m["rest"])
        out[m["name"]] = {
            "registers": int(m["regs"]),
            "spill_stores": int(m["st"]),
            "spill_loads": int(m["ld"]),
            "stack": int(m["stack"]),
            "smem": int(smem.group(1)) if smem else 0,
        }
    assert out, proc.stderr
    return out


def _ptx_arch(ptx: Path) -> str:
    target = re.search(r"^\.target\s+(sm_\w+)", ptx.read_text(), re.MULTILINE)
    assert target
    return target.group(1)


def _figures(rec) -> dict[str, int]:
    return {
        "registers": rec.registers,
        "spill_stores": rec.spill_stores,
        "spill_loads": rec.spill_loads,
        "stack": rec.local_bytes,
        "smem": rec.static_smem,
    }


@pytest.mark.parametrize("ptx", TRITON_PTX, ids=lambda p: f"{p.stem}-{p.parent.name[:6]}")
def test_ptx_import_equals_ptxas_v(ptx, cuda_bin, tmp_path):
    arch = _ptx_arch(ptx)
    records = {r.name: r for r in compile_resources(make_source(ptx, arch, cuda_bin))}
    expected = by_hand([cuda_bin / "ptxas", "-v", f"-arch={arch}", ptx, "-o", tmp_path / "x.cubin"])
    assert {name: _figures(records[name]) for name in expected} == expected


@pytest.mark.parametrize("ptx", TRITON_PTX, ids=lambda p: f"{p.stem}-{p.parent.name[:6]}")
def test_ptx_launch_bounds_equal_the_compiled_cubins(ptx, cuda_bin, tmp_path):
    """A PTX kernel's .maxntid/.reqntid, read from the PTX, equal what ptxas writes into the cubin."""
    arch = _ptx_arch(ptx)
    records = {r.name: r for r in compile_resources(make_source(ptx, arch, cuda_bin)) if r.is_kernel}
    toolchains.run([cuda_bin / "ptxas", f"-arch={arch}", ptx, "-o", tmp_path / "x.cubin"])
    cubin = {r.name: r for r in import_cubin(tmp_path / "x.cubin") if r.is_kernel}
    assert records.keys() == cubin.keys()
    assert {name: _launch(r) for name, r in records.items()} == {name: _launch(cubin[name]) for name in records}
    assert any(r.max_threads for r in records.values())


def _launch(rec) -> tuple:
    return rec.max_threads, rec.req_threads, rec.cluster_dims, rec.max_registers, rec.reserved_smem


@pytest.mark.parametrize("arch", ["sm_90", "sm_120"])
def test_cu_launch_attributes_equal_the_cubin(arch, cuda_bin, tmp_path):
    """``ptxas -v`` prints no launch bound, cluster shape or register cap: a compile reads them from the
    cubin it wrote, so they equal what a binary import (and cuobjdump) of the same cubin says, and
    ``__launch_bounds__``' minimum blocks per SM comes from the PTX nvcc kept."""
    records = {r.name: r for r in compile_resources(make_source(LAUNCH_ATTRS, arch, cuda_bin)) if r.is_kernel}
    toolchains.run([cuda_bin / "nvcc", "-cubin", f"-arch={arch}", LAUNCH_ATTRS, "-o", tmp_path / "x.cubin"])
    cubin = {r.name: r for r in import_cubin(tmp_path / "x.cubin") if r.is_kernel}
    assert records.keys() == cubin.keys() == {"_Z6pairedPf", "_Z7boundedPf", "_Z6cappedPf", "_Z5plainPf"}
    assert {name: _launch(r) for name, r in records.items()} == {name: _launch(cubin[name]) for name in records}
    assert records["_Z6pairedPf"].cluster_dims == (2, 1, 1)
    assert (records["_Z7boundedPf"].max_threads, records["_Z7boundedPf"].min_blocks) == (128, 4)
    assert records["_Z6cappedPf"].max_registers == 32 and records["_Z5plainPf"].min_blocks is None
    assert all(r.const_bytes == cubin[name].const_bytes for name, r in records.items())
    assert records["_Z5plainPf"].reserved_smem == 1024 and records["_Z5plainPf"].static_smem == 256


def test_regcap_sweeps_at_the_launch_bound(cuda_bin):
    """Without --threads the sweep scores each cap at the kernel's ``__launch_bounds__``, never above it."""
    from occupancy_gui.cli.devices import load_catalog

    device = load_catalog().get("sm_90").device_properties()
    result = sweep(make_source(LAUNCH_ATTRS, "sm_90", cuda_bin), device, kernel="bounded", cache=ResultCache(None))
    assert result.threads == 128


def test_cache_ignores_files_it_did_not_write(cuda_bin, tmp_path):
    """A torn or older-format cache file is a miss: the compile runs again and rewrites it."""
    cache = ResultCache(tmp_path)
    src = make_source(LAUNCH_ATTRS, "sm_90", cuda_bin)
    first = regcap.compiled_output(src, None, cache, None)
    (path,) = tmp_path.glob(f"*{ResultCache.SUFFIX}")
    assert ResultCache(tmp_path).get(path.stem) == first
    for damaged in (path.read_bytes()[:-1], b"ptxas info    : Used 8 registers\n", b""):
        path.write_bytes(damaged)
        assert ResultCache(tmp_path).get(path.stem) is None
        again = regcap.compiled_output(src, None, ResultCache(tmp_path), None)  # compiled anew ("Compile time" differs)
        assert (again.image, again.min_blocks) == (first.image, first.min_blocks) and b"Used 10 registers" in again.log
        assert build.Compiled.from_bytes(path.read_bytes()) == again


HAND_PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry bounded(.param .u64 p)
.maxntid 128, 2, 1
.minnctapersm 3
{
	ret;
}
.visible .entry free()
{
	ret;
}
"""


def test_ptx_min_blocks_per_sm_is_read_from_the_ptx(cuda_bin, tmp_path):
    """``.minnctapersm`` (``__launch_bounds__``' second argument) is in no binary: the PTX says it."""
    ptx = tmp_path / "bounds.ptx"
    ptx.write_text(HAND_PTX)
    records = {r.name: r for r in compile_resources(make_source(ptx, "sm_80", cuda_bin))}
    assert (records["bounded"].max_threads, records["bounded"].min_blocks) == (256, 3)
    assert (records["free"].max_threads, records["free"].min_blocks, records["free"].req_threads) == (None, None, None)
    toolchains.run([cuda_bin / "ptxas", "-arch=sm_80", ptx, "-o", tmp_path / "x.cubin"])
    assert {r.name: r.max_threads for r in import_cubin(tmp_path / "x.cubin")}["bounded"] == 256


def test_cu_import_equals_nvcc_resource_usage(cuda_bin, tmp_path, capsys):
    expected = by_hand(
        [cuda_bin / "nvcc", "--resource-usage", "-cubin", "-arch=sm_86", PRESSURE, "-o", tmp_path / "x.cubin"]
    )
    assert cli_main(["import", str(PRESSURE), "--arch", "sm_86", "--cuda-bin", str(cuda_bin), "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    got = {
        n: {
            "registers": r["registers"],
            "spill_stores": r["spill_stores"],
            "spill_loads": r["spill_loads"],
            "stack": r["local_bytes"],
            "smem": r["static_smem"],
        }
        for n, r in rows.items()
    }
    assert got == expected and set(got) == {"pressure", "light"}
    assert all(r["arch"] == "sm_86" and r["threads_per_block"] is None for r in rows.values())


def test_nvcc_arguments_after_double_dash(cuda_bin, tmp_path, capsys):
    args = ["import", str(PRESSURE), "--arch", "sm_80", "--cuda-bin", str(cuda_bin), "--json", "--"]
    assert cli_main(args + ["-maxrregcount=32"]) == 0
    (pressure,) = [r for r in json.loads(capsys.readouterr().out) if r["name"] == "pressure"]
    assert pressure["registers"] <= 32 and pressure["spill_stores"] > 0


def test_compiler_errors_shown_as_written(cuda_bin, tmp_path, capsys):
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus; }\n")
    assert cli_main(["import", str(bad), "--arch", "sm_80", "--cuda-bin", str(cuda_bin)]) == 2
    err = capsys.readouterr().err.splitlines()
    proc = toolchains.subprocess.run(
        [str(cuda_bin / "ptxas"), "-arch=sm_80", str(bad), "-o", str(tmp_path / "o")], capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert err[:-1] == (proc.stdout + proc.stderr).splitlines()  # the compiler's lines, unchanged
    assert err[-1] == f"occupancy import: error: {bad}: ptxas failed (exit status {proc.returncode})"


def test_user_errors_are_one_line(cuda_bin, tmp_path, capsys):
    ptx = TRITON_PTX[0]
    cases = [
        (["import", str(ptx)], "--arch sm_XY is required"),
        (["import", str(ptx), "--arch", "ampere", "--cuda-bin", str(cuda_bin)], "--arch: expected sm_XY"),
        (["import", str(ptx), "--arch", "sm_80", "--cuda-bin", str(tmp_path)], "ptxas not found in --cuda-bin"),
        (["import", str(ptx), "--arch", "sm_80", "--cuda-bin", str(cuda_bin), "--", "-O3"], "are for nvcc"),
        (["regcap", str(PRESSURE), "--arch", "sm_80", "--cuda-bin", str(cuda_bin)], "choose one with --kernel"),
    ]
    for argv, message in cases:
        assert cli_main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (argv, err)
    with pytest.raises(SystemExit) as exited:  # argparse's own exit, one line too
        cli_main(["calc", "--device", "sm_80", "--threads", "1", "--registers", "1", "--", "x"])
    assert exited.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "after -- are for the compiler" in line


def test_missing_compiler_says_how_to_get_one(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not (Path(p or ".") / "nvidia").is_dir()])
    with pytest.raises(CompilerNotFound):
        find_tool("ptxas")
    assert cli_main(["import", str(TRITON_PTX[0]), "--arch", "sm_80"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "ptxas not found" in line and "pip install 'occupancy_gui[compile]'" in line and "CUDA_HOME" in line


def test_compiler_lookup_order(monkeypatch, tmp_path, cuda_bin):
    """--cuda-bin, then CUDA_HOME, then PATH, then the pip wheel (its real nvidia/cu13 tree)."""
    wheel_site = toolchains.wheel_tree(toolchains.NVCC13[0])
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    shutil.copy(cuda_bin / "ptxas", home / "bin" / "ptxas")
    on_path = tmp_path / "path"
    on_path.mkdir()
    shutil.copy(cuda_bin / "ptxas", on_path / "ptxas")
    monkeypatch.setattr(
        sys, "path", [str(wheel_site)] + [p for p in sys.path if not (Path(p or ".") / "nvidia").is_dir()]
    )
    monkeypatch.setenv("PATH", str(on_path))
    monkeypatch.setenv("CUDA_HOME", str(home))
    assert find_tool("ptxas", cuda_bin) == cuda_bin / "ptxas"
    assert find_tool("ptxas") == home / "bin" / "ptxas"
    monkeypatch.delenv("CUDA_HOME")
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert find_tool("ptxas") == on_path / "ptxas"
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    found = find_tool("ptxas")
    assert found == wheel_site / "nvidia" / "cu13" / "bin" / "ptxas" and "release 13.5" in toolchain.tool_version(found)


def test_candidate_caps_are_allocation_steps():
    assert candidate_caps(64, 24, 8) == [56, 48, 40, 32, 24]
    assert candidate_caps(47, 24, 8) == [40, 32, 24]
    assert candidate_caps(255, 1, 8)[:2] == [248, 240] and candidate_caps(255, 1, 8)[-2:] == [8, 1]
    assert candidate_caps(20, 24, 8) == []
    assert candidate_caps(40, 20, 8) == [32, 24, 20]


@pytest.fixture(scope="module")
def pressure_sweep(cuda_bin):
    from occupancy_gui.cli.devices import load_catalog

    device = load_catalog().get("sm_80").device_properties()
    src = make_source(PRESSURE, "sm_80", cuda_bin)
    return src, device, sweep(src, device, kernel="pressure", threads=256, cache=ResultCache(None))


def test_sweep_equals_ptxas_by_hand_at_sampled_caps(pressure_sweep, cuda_bin, tmp_path, capsys):
    _src, _device, result = pressure_sweep
    caps = [p.cap for p in result.points]
    assert caps[0] is None and caps[1:] == candidate_caps(result.points[0].registers, result.lower_bound, 8)
    assert result.lower_bound == 24  # ptxas: "adjusting per thread register count ... to lower bound of 24"
    for point in (result.points[1], result.points[len(result.points) // 2], result.points[-1]):
        expected = by_hand(
            [
                cuda_bin / "nvcc",
                "--resource-usage",
                "-cubin",
                "-arch=sm_80",
                f"-maxrregcount={point.cap}",
                PRESSURE,
                "-o",
                tmp_path / "x.cubin",
            ]
        )["pressure"]
        assert (point.registers, point.spill_stores, point.spill_loads, point.stack_bytes) == (
            expected["registers"],
            expected["spill_stores"],
            expected["spill_loads"],
            expected["stack"],
        )
        assert (
            cli_main(
                [
                    "calc",
                    "--device",
                    "sm_80",
                    "--threads",
                    "256",
                    "--registers",
                    str(point.registers),
                    "--barriers",
                    "0",
                    "--json",
                ]
            )
            == 0
        )
        calc = json.loads(capsys.readouterr().out)
        assert (point.active_blocks, point.occupancy) == (calc["active_blocks"], calc["occupancy"])
    assert any(p.spill_bytes for p in result.points)


def test_rescored_for_another_block_size(pressure_sweep, capsys):
    _src, device, result = pressure_sweep
    other = result.rescored(device, 128)
    assert [p.registers for p in other.points] == [p.registers for p in result.points] and other.threads == 128
    for point in other.points:
        assert (
            cli_main(
                [
                    "calc",
                    "--device",
                    "sm_80",
                    "--threads",
                    "128",
                    "--registers",
                    str(point.registers),
                    "--barriers",
                    "0",
                    "--json",
                ]
            )
            == 0
        )
        assert json.loads(capsys.readouterr().out)["occupancy"] == point.occupancy


def test_sweet_spot_and_further_steps(pressure_sweep):
    _src, _device, result = pressure_sweep
    best = result.sweet_spot
    assert best.spill_bytes == 0
    assert best.occupancy == max(p.occupancy for p in result.points if p.spill_bytes == 0)
    steps = result.further_steps()
    assert [s.occupancy for s in steps] == sorted({p.occupancy for p in result.points if p.occupancy > best.occupancy})
    for s in steps:
        assert s.spill_bytes == min(p.spill_bytes for p in result.points if p.occupancy == s.occupancy)


def test_regcap_cli_json_and_cache(pressure_sweep, cuda_bin, tmp_path, monkeypatch, capsys):
    _src, _device, result = pressure_sweep
    monkeypatch.setenv("OCCUPANCY_COMPILE_CACHE", str(tmp_path / "cache"))
    argv = [
        "regcap",
        str(PRESSURE),
        "--arch",
        "sm_80",
        "--cuda-bin",
        str(cuda_bin),
        "--kernel",
        "pressure",
        "--threads",
        "256",
        "--json",
    ]
    assert cli_main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == [p.to_json() for p in result.points]
    assert set(rows[0]) == {
        "cap",
        "registers",
        "spill_stores",
        "spill_loads",
        "stack_bytes",
        "active_blocks",
        "occupancy",
    }
    assert len(list((tmp_path / "cache").glob(f"*{ResultCache.SUFFIX}"))) == len(rows) + 1  # + the lower-bound probe

    def no_compiler(*_args, **_kwargs):
        raise AssertionError("compiled although every result is cached")

    monkeypatch.setattr(regcap, "run_compiler", no_compiler)
    assert cli_main(argv) == 0
    assert json.loads(capsys.readouterr().out) == rows
    assert cli_main(argv[:-1]) == 0  # the text form
    text = capsys.readouterr().out
    assert "sweet spot:" in text and "needs -maxrregcount=" in text


def test_cache_key_follows_content_arch_version_and_cap(cuda_bin, tmp_path):
    src_path = tmp_path / "k.cu"
    shutil.copy(PRESSURE, src_path)
    src = make_source(src_path, "sm_80", cuda_bin)
    keys = {
        build.cache_key(src, None),
        build.cache_key(src, 32),
        build.cache_key(make_source(src_path, "sm_86", cuda_bin), 32),
    }
    assert len(keys) == 3
    before = build.cache_key(src, 32)
    src_path.write_text(PRESSURE.read_text() + "\n// changed\n")
    assert build.cache_key(src, 32) != before


def test_cancel_kills_the_compiler_and_cleans_up(cuda_bin, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    src = make_source(PRESSURE, "sm_80", cuda_bin)
    started = threading.Event()

    def cancel() -> bool:
        started.set()
        return True

    with pytest.raises(CompileCancelled):
        build.run_compiler(src, 32, cancel)
    assert started.is_set() and not list(tmp_path.glob("occupancy-compile-*"))
    with pytest.raises(CompileCancelled):
        from occupancy_gui.cli.devices import load_catalog

        sweep(
            src,
            load_catalog().get("sm_80").device_properties(),
            kernel="pressure",
            cache=ResultCache(None),
            cancel=cancel,
        )
    assert not list(tmp_path.glob("occupancy-compile-*"))
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k() { undeclared(); }\n")
    with pytest.raises(CompileError) as info:
        build.run_compiler(make_source(bad, "sm_80", cuda_bin))
    assert any("undeclared" in line for line in info.value.lines)
    assert not list(tmp_path.glob("occupancy-compile-*")) and os.listdir(tmp_path) == ["bad.cu"]


def test_ptx_sweep_equals_ptxas_by_hand(cuda_bin, tmp_path):
    from occupancy_gui.cli.devices import load_catalog

    ptx = DATA / "compile" / "pressure.ptx"
    device = load_catalog().get("sm_90").device_properties()
    result = sweep(
        make_source(ptx, "sm_90", cuda_bin), device, kernel="pressure", threads=512, cache=ResultCache(None), jobs=2
    )
    assert result.threads == 512 and len(result.points) >= 5
    for point in result.points[1::2]:
        expected = by_hand(
            [cuda_bin / "ptxas", "-v", "-arch=sm_90", f"-maxrregcount={point.cap}", ptx, "-o", tmp_path / "x.cubin"]
        )["pressure"]
        assert (point.registers, point.spill_stores, point.spill_loads, point.stack_bytes) == (
            expected["registers"],
            expected["spill_stores"],
            expected["spill_loads"],
            expected["stack"],
        )


def test_a_cached_compile_round_trips_and_an_older_or_damaged_one_is_a_miss():
    """The blob holds the log, the cubin and the PTX's min blocks; the first format's blob (the whole PTX
    in every cap's entry), a torn one and one whose min blocks are not name -> count are misses."""
    compiled = build.Compiled(b"ptxas info : Used 10 registers\n", b"\x7fELF" + bytes(60), {"_Z1kPf": 4})
    blob = compiled.to_bytes()
    assert build.Compiled.from_bytes(blob) == compiled
    assert build.Compiled.from_bytes(build.Compiled(b"log", b"").to_bytes()) == build.Compiled(b"log", b"", {})
    older = b"occupancy-compiled-1\n" + struct.pack("<3Q", 3, 0, 4) + b"log" + b".ptx"
    head = len(b"occupancy-compiled-2\n")
    for bad in (
        older,
        blob[:-1],
        blob[: head + 8],
        blob[:head] + struct.pack("<3Q", 0, 0, 6) + b"[1, 2]",
        blob[:head] + struct.pack("<3Q", 0, 0, 10) + b'{"k": "4"}',
        blob[:head] + struct.pack("<3Q", 0, 0, 11) + b'{"k": true}',
    ):
        assert build.Compiled.from_bytes(bad) is None, bad


def test_the_compile_cache_keeps_at_most_its_cap_least_recently_used_first(tmp_path):
    """Each put trims the folder to the cap; a get marks its entry used, so it outlives older puts."""
    entry = build.Compiled(b"log", bytes(1000), {})
    size = len(entry.to_bytes())
    cache = ResultCache(tmp_path, cap=3 * size)
    for i, key in enumerate("abc"):
        cache.put(key, entry)
        os.utime(tmp_path / f"{key}{ResultCache.SUFFIX}", ns=(i * 10**9, i * 10**9))  # a then b then c
    assert ResultCache(tmp_path).get("a") == entry  # used now: the newest
    (tmp_path / "leftover.99.1.tmp").write_bytes(bytes(size))  # a crashed writer's: counted, oldest
    os.utime(tmp_path / "leftover.99.1.tmp", ns=(0, 0))
    (tmp_path / "notes.txt").write_bytes(bytes(10 * size))  # not the cache's: neither counted nor removed
    cache.put("d", entry)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["a.compiled", "c.compiled", "d.compiled", "notes.txt"], left
    ResultCache(tmp_path, cap=0).put("e", entry)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
