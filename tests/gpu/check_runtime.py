"""Check the engine against the CUDA runtime on this machine's GPU (not part of the normal suite).

    python tests/gpu/check_runtime.py [--nvcc PATH] [--save]

Compiles ``occupancy_probe.cu`` for the local GPU, runs it (it asks
``cudaOccupancyMaxActiveBlocksPerMultiprocessor``, ``cudaOccupancyMaxPotentialBlockSize``,
``cudaOccupancyAvailableDynamicSMemPerBlock`` and ``cudaFuncGetAttributes`` over a grid of block sizes,
dynamic shared memory sizes and carveouts), reads the same executable with our importer, and compares
every answer with the engine fed by the device's own properties.  Prints a table and the number of
mismatches; ``--save`` writes the probe and the importer's readings to ``tests/data/gpu/`` so that
``test_replay.py`` checks them on every run from then on.  Exit code 1 if anything disagrees.
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from occupancy_gui.importers import import_file  # noqa: E402
from tests.gpu.runtime_compare import compare_probe  # noqa: E402

FIXTURES = ROOT / "tests" / "data" / "gpu"


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


def build_probe(nvcc: str, out: Path) -> None:
    src = Path(__file__).with_name("occupancy_probe.cu")
    for arch in ("-arch=native", "-arch=sm_90"):
        proc = subprocess.run([nvcc, arch, "-O2", "-o", str(out), str(src)], capture_output=True, text=True)
        if proc.returncode == 0:
            return
    sys.exit(f"check_runtime: nvcc failed:\n{proc.stderr}")


def importer_readings(exe: Path, arch: str) -> dict[str, dict[str, int]]:
    readings = {}
    for record in import_file(exe):
        if record.arch.rstrip("af") == arch and record.is_kernel:
            short = record.demangled.split("(")[0].split()[-1]
            readings[short] = {"registers": record.registers, "static_smem": record.static_smem,
                               "barriers": record.barriers or 1}  # fmt: skip
    return readings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nvcc")
    parser.add_argument("--save", action="store_true", help="write the results as a replay fixture")
    parser.add_argument("--all", action="store_true", help="print every comparison, not only mismatches")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "occupancy_probe"
        build_probe(find_nvcc(args.nvcc), exe)
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            sys.exit(f"check_runtime: the probe failed: {run.stderr.strip()}")
        probe = json.loads(run.stdout)
        dev = probe["device"]
        readings = importer_readings(exe, f"sm_{dev['major']}{dev['minor']}")
    comparison = compare_probe(probe, readings)
    print(f"{dev['name']}: CC {dev['major']}.{dev['minor']}, {dev['multiProcessorCount']} SMs, "
          f"driver {dev['driver']}, runtime {dev['runtime']}")  # fmt: skip
    print(comparison.table(only_mismatches=not args.all))
    if args.save:
        FIXTURES.mkdir(parents=True, exist_ok=True)
        slug = re.sub(r"[^a-z0-9]+", "_", dev["name"].lower()).strip("_")
        path = FIXTURES / f"{slug}_driver{dev['driver']}.json"
        path.write_text(json.dumps({"probe": probe, "importer": readings}, indent=1) + "\n")
        print(f"saved {path.relative_to(ROOT)}")
    return 1 if comparison.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
