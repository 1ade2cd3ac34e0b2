"""Check the engine against the CUDA runtime on this machine's GPU (not part of the normal suite).

    python tests/gpu/check_runtime.py [--nvcc PATH] [--triton] [--save] [--all]

Compiles ``occupancy_probe.cu`` for the local GPU, runs it (it asks
``cudaOccupancyMaxActiveBlocksPerMultiprocessor``, ``cudaOccupancyMaxPotentialBlockSize``,
``cudaOccupancyAvailableDynamicSMemPerBlock``, ``cudaOccupancyMaxActiveClusters`` and
``cudaFuncGetAttributes`` over a grid of block sizes, dynamic shared memory sizes and carveouts), reads
the same executable with our importer, and compares every answer with the engine fed by the device's
own properties.  On sm_90 and later the probe holds two cluster kernels (one compile-time cluster, one
chosen at launch).  ``--triton`` adds Triton kernels: a cache compiled now by the installed Triton for
this GPU (with a two-CTA cluster) and the committed cache's kernels for this GPU's architecture; the
runtime loads their cubins and is asked the same questions, also at the launch Triton's metadata
gives, which our Triton-cache importer reads.  Prints a table and the number of mismatches; ``--save``
writes the probe and the importer's readings to ``tests/data/gpu/`` so that ``test_replay.py`` checks
them on every run from then on.  Exit code 1 if anything disagrees.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from occupancy_gui.importers import import_file  # noqa: E402
from occupancy_gui.importers.records import KernelRecord  # noqa: E402
from tests.gpu.runtime_compare import compare_probe  # noqa: E402

FIXTURES = ROOT / "tests" / "data" / "gpu"
TRITON_FIXTURES = ROOT / "tests" / "data" / "importers" / "triton"
PROBE_LOAD_FAILED = 4
"""The probe's exit status when a cubin kernel could not be loaded (the others are still answered)."""


def find_nvcc(explicit: str | None) -> str:
    if explicit:
        return explicit
    found = shutil.which("nvcc")
    if found:
        return found
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for candidate in Path(root).glob("cu*/bin/nvcc"):
            return str(candidate)
    sys.exit("check_runtime: nvcc not found (pip install nvidia-cuda-nvcc, or pass --nvcc)")


def build_probe(nvcc: str, out: Path, arch: str = "native") -> None:
    """Builds the probe for ``arch`` (``native``: this machine's GPU, or sm_90 where nvcc finds none)."""
    src = Path(__file__).with_name("occupancy_probe.cu")
    # A GPU older than sm_90 has no clusters: its compiler refuses __cluster_dims__.
    for flags in ([f"-arch={arch}"], [f"-arch={arch}", "-DNO_CLUSTERS"], ["-arch=sm_90"]):
        proc = subprocess.run([nvcc, *flags, "-O2", "-o", str(out), str(src)], capture_output=True, text=True)
        if proc.returncode == 0:
            return
    sys.exit(f"check_runtime: nvcc failed:\n{proc.stderr}")


def _reading(record: KernelRecord) -> dict[str, Any]:
    reading: dict[str, Any] = {
        "registers": record.registers,
        "static_smem": record.static_smem,
        "barriers": record.barriers or 1,
        "cluster_dims": record.cluster_dims,
    }
    if record.block_size is not None:
        reading["launch"] = [record.block_size, record.dynamic_smem or 0]
    return reading


def importer_readings(exe: Path, arch: str) -> dict[str, dict[str, Any]]:
    readings = {}
    for record in import_file(exe):
        if record.arch.rstrip("af") == arch and record.is_kernel:
            short = record.demangled.split("(")[0].split()[-1]
            readings[short] = _reading(record)
    return readings


def triton_kernels(arch: str, work: Path) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Probe arguments (``LABEL=CUBIN:KERNEL@BLOCK,DYN``) and importer readings of Triton kernels for ``arch``."""
    sys.path.insert(0, str(TRITON_FIXTURES))
    from make_fixtures import build_cache

    cc = int(arch[3:])
    builds = [
        ("add_kernel", cc, {"num_warps": 4, "num_stages": 1}),
        ("softmax_kernel", cc, {"num_warps": 8, "num_stages": 1}),
        ("matmul_kernel", cc, {"num_warps": 4, "num_stages": 3}),
        ("transpose_kernel", cc, {"num_warps": 8, "num_stages": 1}),
    ]
    if cc >= 90:
        builds.append(("matmul_kernel", cc, {"num_warps": 4, "num_stages": 3, "num_ctas": 2}))
    try:
        fresh = build_cache(work / "triton", builds)
    except Exception as exc:  # noqa: BLE001 - an older Triton refuses an option: the committed cache still counts
        print(f"check_runtime: Triton could not compile {builds}: {type(exc).__name__}: {exc}")
        fresh = sorted(p for p in (work / "triton").glob("*") if p.is_dir())
    committed = sorted(p for p in (TRITON_FIXTURES / "cache").iterdir() if p.is_dir())
    args, readings = [], {}
    for origin, folders in (("triton-now", fresh), ("triton-committed", committed)):
        for folder in folders:
            for record in import_file(folder):
                if not record.is_kernel or record.arch.rstrip("af") != arch:
                    continue
                label = f"{origin}:{folder.name[:8]}:{record.name}"
                reading = readings[label] = _reading(record)
                launch = reading.get("launch")
                suffix = f"@{launch[0]},{launch[1]}" if launch else ""
                args.append(f"{label}={folder / (record.name + '.cubin')}:{record.name}{suffix}")
    return args, readings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nvcc")
    parser.add_argument("--save", action="store_true", help="write the results as a replay fixture")
    parser.add_argument("--all", action="store_true", help="print every comparison, not only mismatches")
    parser.add_argument("--triton", action="store_true", help="add Triton kernels (needs triton)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "occupancy_probe"
        build_probe(find_nvcc(args.nvcc), exe)
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            sys.exit(f"check_runtime: the probe failed: {run.stderr.strip()}")
        dev = json.loads(run.stdout)["device"]
        arch = f"sm_{dev['major']}{dev['minor']}"
        readings = importer_readings(exe, arch)
        tools: dict[str, str] = {}
        if args.triton:
            import triton

            tools["triton"] = triton.__version__
            cubins, triton_readings = triton_kernels(arch, Path(tmp))
            readings.update(triton_readings)
            run = subprocess.run([str(exe), *cubins], capture_output=True, text=True, timeout=300)
            if run.returncode not in (0, PROBE_LOAD_FAILED):
                sys.exit(f"check_runtime: the probe failed: {run.stderr.strip()}")
            if run.stderr.strip():
                print(f"check_runtime: kernels the runtime would not load:\n{run.stderr.strip()}")
        probe = json.loads(run.stdout)
    if args.save:  # before comparing: a machine's answers are kept even if the comparison breaks
        FIXTURES.mkdir(parents=True, exist_ok=True)
        slug = re.sub(r"[^a-z0-9]+", "_", dev["name"].lower()).strip("_")
        path = FIXTURES / f"{slug}_driver{dev['driver']}.json"
        path.write_text(json.dumps({"probe": probe, "importer": readings, "tools": tools}, indent=1) + "\n")
        print(f"saved {path.relative_to(ROOT)}")
    comparison = compare_probe(probe, readings)
    print(
        f"{dev['name']}: CC {dev['major']}.{dev['minor']}, {dev['multiProcessorCount']} SMs, "
        f"driver {dev['driver']}, runtime {dev['runtime']}"
    )
    print(comparison.table(only_mismatches=not args.all))
    return 1 if comparison.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
