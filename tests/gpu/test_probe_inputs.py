"""What check_runtime.py feeds the GPU probe, checked here without a GPU.

The probe itself only runs on a machine with an NVIDIA GPU; its source must still build for sm_90 (the
cluster kernels included) and for an older GPU without them, the importer must read every probe
kernel from the built executable as cuobjdump does, and the Triton kernels must reach the probe with
the launch their metadata gives.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from occupancy_gui.importers.text.cuobjdump_text import parse_text
from tests.gpu.check_runtime import build_probe, importer_readings
from tests.helpers import toolchains

PROBE_KERNELS = {
    "k_plain",
    "k_bounded",
    "k_heavy",
    "k_static_smem",
    "k_dynamic_smem",
    "k_barriers",
    "k_cluster2",
    "k_cluster_at_launch",
}
CHECK_RUNTIME = Path(__file__).with_name("check_runtime.py")


@pytest.fixture(scope="module")
def probe_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("probe") / "occupancy_probe"
    build_probe(str(toolchains.nvcc13_bin() / "nvcc"), exe, "sm_90")
    return exe


def test_importer_reads_every_probe_kernel_as_cuobjdump(probe_exe: Path) -> None:
    readings = importer_readings(probe_exe, "sm_90")
    assert set(readings) == PROBE_KERNELS
    dump = toolchains.run([toolchains.cuobjdump(), "--dump-resource-usage", probe_exe]).stdout
    reference = {r.demangled.split("(")[0].split()[-1]: r for r in parse_text(dump, "cuobjdump") if r.is_kernel}
    for name, reading in readings.items():
        assert (reading["registers"], reading["static_smem"]) == (
            reference[name].registers,
            reference[name].static_smem,
        ), name
    assert readings["k_cluster2"]["cluster_dims"] == (2, 1, 1)
    assert readings["k_cluster_at_launch"]["cluster_dims"] is None
    assert readings["k_barriers"]["barriers"] == 4


def test_probe_builds_without_clusters_for_older_gpus(tmp_path: Path) -> None:
    nvcc = toolchains.nvcc13_bin() / "nvcc"
    src = CHECK_RUNTIME.with_name("occupancy_probe.cu")
    toolchains.run([nvcc, "-arch=sm_80", "-DNO_CLUSTERS", "-O2", "-o", tmp_path / "p80", src])
    assert set(importer_readings(tmp_path / "p80", "sm_80")) == PROBE_KERNELS - {"k_cluster2", "k_cluster_at_launch"}
    refused = subprocess.run([nvcc, "-arch=sm_80", "-O2", "-o", tmp_path / "x", src], capture_output=True, text=True)
    assert refused.returncode != 0 and "__cluster_dims__" in refused.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("triton") is None, reason="triton not installed (pip install -e '.[test]')"
)
def test_triton_kernels_reach_the_probe_with_their_launch(tmp_path: Path) -> None:
    """In a child process (Triton stays out of this one): a fresh sm_90 cache and the committed one."""
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from check_runtime import triton_kernels; "
        "from pathlib import Path; print(json.dumps(triton_kernels('sm_90', Path(sys.argv[2]))))"
    )
    out = toolchains.run([sys.executable, "-c", script, CHECK_RUNTIME.parent, tmp_path]).stdout
    args, readings = json.loads(out.strip().splitlines()[-1])
    assert len(args) == len(readings) == 8  # 5 compiled now, the committed cache's 3 sm_90 kernels
    for arg in args:
        label, rest = arg.split("=", 1)
        cubin, kernel = rest.rsplit(":", 1)
        name, launch = kernel.split("@")
        assert Path(cubin).is_file() and label.endswith(f":{name}")
        assert [int(x) for x in launch.split(",")] == readings[label]["launch"]
    clustered = [label for label, r in readings.items() if r["cluster_dims"] == [2, 1, 1]]
    assert len(clustered) == 1 and clustered[0].startswith("triton-now:")
    assert all(r["launch"][0] in (128, 256) for r in readings.values())


def test_run_check_carries_the_pinned_versions() -> None:
    """The wheels ``run_check.sh fetch`` takes to the GPU machine are pyproject.toml's pins."""
    script = CHECK_RUNTIME.with_name("run_check.sh").read_text()
    found = re.search(r"WHEELS=\(([^)]*)\)", script)
    assert found is not None, "run_check.sh names no WHEELS=(...)"
    carried = found.group(1).split()
    pyproject = (CHECK_RUNTIME.parents[2] / "pyproject.toml").read_text()
    assert carried and all(f'"{pin}"' in pyproject for pin in carried)
