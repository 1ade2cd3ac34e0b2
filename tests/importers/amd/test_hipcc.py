"""Host objects from Debian 12's ``hipcc`` 5.2 (clang-15), code object v2 to v5, against the reference readers.

``HIP_PLATFORM=amd`` is set: this machine may have an ``nvcc`` on PATH, which hipcc would otherwise use.
Code object v2 (gfx900/gfx906 only: LLVM refuses v2 for later processors) keeps its metadata as YAML in an
``AMD`` note, which ``llvm-readelf-19`` prints, and its descriptor as an ``amd_kernel_code_t``, which no LLVM
19 tool decodes: the allocation is checked against the ``granulated_workitem_vgpr_count`` the compiler wrote
into the ``--save-temps`` assembly.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from occupancy_gui.importers import import_file_detailed
from occupancy_gui.importers.amd.json_rows import amd_record_json

from .build import unbundled
from .reference import expected_records, mismatches, section

pytestmark = [
    pytest.mark.slow,  # hipcc compiles every case: ~10 s
    pytest.mark.skipif(
        shutil.which("hipcc") is None or shutil.which("clang-15") is None,
        reason="hipcc (Debian 12's, with clang-15) is not installed (the README's test command installs it)",
    ),
]

SOURCE = """\
#include <hip/hip_runtime.h>
__global__ void saxpy(float a, float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void __launch_bounds__(256) tile(float *a) {
  __shared__ float buf[4096];
  buf[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = buf[(threadIdx.x * 7) % 4096];
}
__global__ void local(float *a, int k) {
  volatile float arr[96];
  for (int i = 0; i < 96; ++i) arr[i] = a[i];
  a[0] = arr[k];
}
"""
BUILDS = {
    2: ["gfx900", "gfx906"],
    3: ["gfx906", "gfx908", "gfx90a", "gfx1030"],
    4: ["gfx906", "gfx90a", "gfx1030"],
    5: ["gfx90a", "gfx1030"],
}


def _hipcc(tmp: Path, version: int) -> Path:
    src = tmp / "h.hip"
    src.write_text(SOURCE)
    out = tmp / f"h{version}.o"
    cmd = [
        "hipcc",
        *(f"--offload-arch={a}" for a in BUILDS[version]),
        f"-mcode-object-version={version}",
        "-O3",
        "-c",
        str(src),
        "-o",
        str(out),
        "--save-temps",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=dict(os.environ, HIP_PLATFORM="amd"))
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return out


def _code_t_allocations(tmp: Path, arch: str) -> dict[str, int]:
    """kernel -> VGPRs its amd_kernel_code_t allocates, from the compiler's own assembly."""
    text = (tmp / f"h-hip-amdgcn-amd-amdhsa-{arch}.s").read_text()
    out = {}
    for m in re.finditer(r"^(\w+):[^\n]*\n\t\.amd_kernel_code_t\n(.*?)\.end_amd_kernel_code_t", text, re.M | re.S):
        fields = dict(re.findall(r"(\w+) = (\d+)", m.group(2)))
        granule = 8 if fields["enable_wavefront_size32"] == "1" else 4
        out[m.group(1)] = (int(fields["granulated_workitem_vgpr_count"]) + 1) * granule
    return out


@pytest.mark.parametrize("version", sorted(BUILDS))
def test_hipcc_objects(version, tmp_path):
    obj = _hipcc(tmp_path, version)
    records = import_file_detailed(obj).amd_records
    bundle = tmp_path / "fatbin.hipfb"
    bundle.write_bytes(section(obj, ".hip_fatbin"))
    entries = unbundled(bundle).entries
    assert {e.rsplit("--", 1)[1] for e in entries} == set(BUILDS[version])
    prefix = "hip-" if version <= 3 else "hipv4-"  # clang-15 names a v2/v3 entry hip-, v4+ hipv4-
    assert all(entry.startswith(prefix) for entry in entries)
    problems = []
    for entry, code_object in entries.items():
        got = [amd_record_json(r) for r in records if r.source.endswith(entry + r.source[r.source.rfind(" @") :])]
        assert {r["code_object_version"] for r in got} == {version}
        expected = expected_records(code_object, tmp_path)
        problems += mismatches(got, expected, f"v{version} {entry}")
        if version == 2:
            arch = entry.rsplit("--", 1)[1]
            allocations = _code_t_allocations(tmp_path, arch)
            problems += [
                f"{entry}: {r['name']}: allocated {r['allocated_vgprs']} != {allocations[r['name']]}"
                for r in got
                if r["allocated_vgprs"] != allocations[r["name"]]
            ]
    assert not problems, "\n".join(problems[:40])
