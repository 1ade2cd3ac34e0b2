"""Triton caches compiled for HIP (Triton 3.9, no GPU): each kernel against the reference readers, its
launch against the cache's JSON, its allocation against the ``.amdhsa_next_free_vgpr`` Triton's LLVM wrote;
and a folder holding NVIDIA and AMD kernels both."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from occupancy_gui.importers import detect_format, import_file_detailed
from occupancy_gui.importers.amd.json_rows import amd_record_json
from occupancy_gui.importers.amd.target import vgpr_encoding_granule

from ..conftest import DATA
from .reference import expected_records, mismatches, needs_llvm

pytestmark = [
    needs_llvm,
    pytest.mark.skipif(
        importlib.util.find_spec("triton") is None, reason="triton not installed (pip install -e '.[test]')"
    ),
]

BUILDS = [
    ["add_kernel", "gfx942", 64, {"num_warps": 4}],
    ["matmul_kernel", "gfx942", 64, {"num_warps": 8, "num_stages": 2}],
    ["matmul_kernel", "gfx950", 64, {"num_warps": 4, "num_stages": 2, "waves_per_eu": 2}],
    ["softmax_kernel", "gfx90a", 64, {"num_warps": 8}],
    ["transpose_kernel", "gfx908", 64, {"num_warps": 4}],
    ["softmax_kernel", "gfx1100", 32, {"num_warps": 4}],
    ["matmul_kernel", "gfx1201", 32, {"num_warps": 4}],
    ["add_kernel", "gfx1151", 32, {"num_warps": 2}],
    ["matmul_kernel", "gfx1250", 32, {"num_warps": 4}],
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("triton-hip") / "cache"
    subprocess.run(
        [sys.executable, "-m", "tests.importers.amd.triton_build", str(out), json.dumps(BUILDS)],
        check=True,
        capture_output=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    return out


def _folders(cache: Path) -> list[Path]:
    return sorted(p for p in cache.iterdir() if p.is_dir())


def test_every_kernel_equals_the_reference_readers(cache, tmp_path):
    records = import_file_detailed(cache).amd_records
    assert len(records) == len(BUILDS) == len(_folders(cache))
    problems = []
    for folder in _folders(cache):
        (hsaco,) = folder.glob("*.hsaco")
        got = [amd_record_json(r) for r in records if r.source.endswith(f"{folder.name}/{hsaco.name}")]
        problems += mismatches(got, expected_records(hsaco, tmp_path), folder.name)
    assert not problems, "\n".join(problems)


def test_launch_and_allocation_from_triton_itself(cache):
    records = {Path(r.source).parent.name: r for r in import_file_detailed(cache).amd_records}
    for folder in _folders(cache):
        meta = json.loads(next(p for p in folder.glob("*.json") if not p.name.startswith("__grp__")).read_text())
        rec = records[folder.name]
        assert (rec.arch, rec.wave_size) == (meta["target"]["arch"], meta["warp_size"])
        assert rec.block_size == meta["num_warps"] * meta["warp_size"] == rec.max_threads
        assert rec.dynamic_lds == meta["shared"] and rec.static_lds == 0  # Triton keeps its LDS dynamic
        assert rec.launch_source == f"cache/{folder.name}/{meta['name']}.json"
        asm = (folder / f"{meta['name']}.amdgcn").read_text()
        free = int(asm.split(".amdhsa_next_free_vgpr", 1)[1].split()[0])
        granule = vgpr_encoding_granule(rec.arch, rec.wave_size == 32)
        assert rec.allocated_vgprs == -(-max(free, 1) // granule) * granule, folder.name
    assert records and any(r.arch == "gfx1250" for r in records.values())


def test_one_kernel_by_its_json_or_its_hsaco(cache):
    folder = _folders(cache)[0]
    meta_path = next(p for p in folder.glob("*.json") if not p.name.startswith("__grp__"))
    hsaco = meta_path.with_suffix(".hsaco")
    assert detect_format(meta_path, meta_path.read_bytes()[:4096]) == "amd_triton_json"
    by_json = import_file_detailed(meta_path).amd_records
    by_hsaco = import_file_detailed(hsaco).amd_records
    assert len(by_json) == len(by_hsaco) == 1
    assert by_json[0].block_size == by_hsaco[0].block_size is not None


def test_a_folder_with_nvidia_and_amd_kernels(cache, tmp_path):
    mixed = tmp_path / "mixed"
    shutil.copytree(DATA / "triton" / "cache", mixed)
    for folder in _folders(cache):
        shutil.copytree(folder, mixed / folder.name)
    result = import_file_detailed(mixed)
    assert len(result.records) == len(_folders(DATA / "triton" / "cache"))
    assert len(result.amd_records) == len(BUILDS)
    assert all(r.block_size is not None for r in result.amd_records)
    amd_only = import_file_detailed(cache)
    assert not amd_only.records and not amd_only.notes
