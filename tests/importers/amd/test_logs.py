"""clang's ``-Rpass-analysis=kernel-resource-usage`` remarks and ``--save-temps`` assembly, read and held to
the code objects the same compile wrote (themselves held to the reference readers elsewhere)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from occupancy_gui.importers import ImportFailure, detect_format, import_file_detailed
from occupancy_gui.importers.amd.json_rows import amd_record_json

from .build import source
from .reference import CLANG, needs_clang

pytestmark = needs_clang

ARCHS = ["gfx90a", "gfx908", "gfx1100", "gfx942"]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """One compile per target with remarks on (the log, stderr), --save-temps (.s) and code objects."""
    out = tmp_path_factory.mktemp("amd-logs")
    src = source(out, "r")
    log = []
    for arch in ARCHS:
        cmd = [
            CLANG,
            "-x",
            "hip",
            f"--offload-arch={arch}",
            "--cuda-device-only",
            "--no-gpu-bundle-output",
            "-nogpulib",
            "-nogpuinc",
            "-O3",
            "-c",
            str(src),
            "-o",
            str(out / f"{arch}.co"),
            "--save-temps",
            "-Rpass-analysis=kernel-resource-usage",
            "-v",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=out, check=True)
        log.append(proc.stderr)
    (out / "build.log").write_text("".join(log))
    (out / "bare.log").write_text(
        "".join(line + "\n" for text in log for line in text.splitlines() if "remark:" in line)
    )
    return out


def _code_object_records(compiled: Path) -> dict[tuple[str, str], dict]:
    return {
        (r.arch, r.name): amd_record_json(r)
        for arch in ARCHS
        for r in import_file_detailed(compiled / f"{arch}.co").amd_records
    }


def test_remarks_with_the_verbose_command_lines_name_their_target(compiled):
    log = compiled / "build.log"
    assert detect_format(log, log.read_bytes()[:65536]) == "amd_log"
    records = import_file_detailed(log).amd_records
    want = _code_object_records(compiled)
    assert {(r.arch, r.name) for r in records} == set(want)
    for rec in records:
        ref = want[(rec.arch, rec.name)]
        got = amd_record_json(rec)
        for key in ("vgprs", "agprs", "sgprs", "static_lds", "scratch_bytes", "dynamic_stack", "spills"):
            assert got[key] == ref[key], (rec.arch, rec.name, key, got[key], ref[key])
        assert got["source"].startswith(str(log) + ":")


def test_remarks_alone_name_no_target(compiled):
    records = import_file_detailed(compiled / "bare.log").amd_records
    assert sum(r.copies for r in records) == len(_code_object_records(compiled))  # equal blocks merge
    assert {r.arch for r in records} == {""} and {r.target for r in records} == {""}
    # architectural VGPRs only: with AGPRs and no target, the metadata's count cannot be known
    assert all(r.vgprs is None for r in records if r.agprs)
    assert any(r.agprs for r in records)
    assert amd_record_json(records[0])["arch"] is None


@pytest.mark.parametrize("arch", ARCHS)
def test_assembly_reads_as_its_code_object(compiled, arch):
    asm = compiled / f"r-hip-amdgcn-amd-amdhsa-{arch}.s"
    assert detect_format(asm, asm.read_bytes()[:65536]) == "amd_log"
    result = import_file_detailed(asm)
    kernels = {r.name: amd_record_json(r) for r in result.amd_records if r.is_kernel}
    want = {name: rec for (a, name), rec in _code_object_records(compiled).items() if a == arch}
    assert set(kernels) == set(want)
    for name, got in kernels.items():
        ref = dict(want[name])
        assert {k: v for k, v in got.items() if k != "source"} == {k: v for k, v in ref.items() if k != "source"}
    functions = [r for r in result.amd_records if not r.is_kernel]
    assert functions and all(r.vgprs is not None and r.sgprs is not None for r in functions)


def test_a_log_without_remarks_fails_saying_so(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("remark: nothing [-Rpass-analysis=kernel-resource-usage]\n")
    with pytest.raises(ImportFailure, match="no kernel-resource-usage remarks"):
        import_file_detailed(log)
