"""Replay saved runs of check_runtime.py: the engine must still give the runtime's answers.

Each ``tests/data/gpu/*.json`` is one real GPU's answers (see check_runtime.py).  The comparison
machinery itself is tested here against answers produced by cuda_occupancy.h through the harness.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog
from tests.gpu.runtime_compare import compare_probe
from tests.harness.reference import KERNEL_FIELDS, Reference

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "data" / "gpu").glob("*.json"))


if FIXTURES:  # one test per saved GPU run; none exist until check_runtime.py --save has run on hardware

    @pytest.mark.parametrize("fixture", FIXTURES, ids=[f.stem for f in FIXTURES])
    def test_saved_runtime_answers_replay(fixture: Path) -> None:
        data = json.loads(fixture.read_text())
        comparison = compare_probe(data["probe"], data.get("importer"))
        assert comparison.mismatches == 0, comparison.table(only_mismatches=True)


def _probe_from_header(reference: Reference) -> dict:
    """A probe document whose 'runtime' answers come from cuda_occupancy.h, for the sm_90 profile."""
    profile = Catalog.load([data_dir("device_profiles")]).get("H100")
    device = profile.device_properties()
    dev = {
        "name": profile.name,
        "major": 9,
        "minor": 0,
        "multiProcessorCount": device.num_sms,
        "warpSize": 32,
        "maxThreadsPerBlock": 1024,
        "maxThreadsPerMultiProcessor": 2048,
        "regsPerBlock": 65536,
        "regsPerMultiprocessor": 65536,
        "sharedMemPerBlock": 49152,
        "sharedMemPerMultiprocessor": device.shared_mem_per_multiprocessor,
        "sharedMemPerBlockOptin": device.shared_mem_per_block_optin,
        "reservedSharedMemPerBlock": 1024,
        "maxBlocksPerMultiProcessor": 32,
        "driver": 0,
        "runtime": 0,
    }
    kernels = []
    for name, regs, static, max_dyn, carveout in (
        ("k_a", 32, 0, 49152, -1),
        ("k_b", 72, 24576, 24576, 50),
        ("k_c", 40, 0, 232448, 100),
    ):
        row = dict(zip(KERNEL_FIELDS, [regs, static, 1024, 0, 1, max_dyn, 1, 0, 0, carveout]))
        blocks = np.array([32, 64, 128, 256, 512, 1000, 1024])
        dyns = np.array([0, 4096, 40000])
        b, d = (a.ravel() for a in np.meshgrid(blocks, dyns))
        kernel = np.tile([row[f] for f in KERNEL_FIELDS], (b.size, 1))
        occ = reference.occupancy(device, kernel, b, d)
        pot = reference.potential_block_size(device, kernel[:2], np.array([[0, 0, 0], [8192, 0, 0]]))
        avail = reference.available_dynamic_smem(device, kernel[:2], np.array([1, 2]), np.array([256, 256]))
        kernels.append(
            {
                "kernel": name,
                "carveout": carveout,
                "attributes": {
                    "numRegs": regs,
                    "sharedSizeBytes": static,
                    "maxThreadsPerBlock": 1024,
                    "maxDynamicSharedSizeBytes": max_dyn,
                },
                "occupancy": [
                    [int(x), int(y), int(s), int(n)] for x, y, s, n in zip(b, d, occ["status"], occ["active_blocks"])
                ],
                "potential": [[0, *map(int, pot[0])], [8192, *map(int, pot[1])]],
                "available": [[256, 1, *map(int, avail[0])], [256, 2, *map(int, avail[1])]],
            }
        )
    return {"device": dev, "kernels": kernels}


def test_comparison_agrees_with_header_answers_and_catches_a_planted_error(reference: Reference) -> None:
    probe = _probe_from_header(reference)
    assert compare_probe(probe).mismatches == 0
    probe["kernels"][1]["occupancy"][3][3] += 1
    probe["kernels"][2]["potential"][0][3] = 96
    assert compare_probe(probe).mismatches == 2


def test_cluster_and_importer_rows_catch_planted_errors(reference: Reference) -> None:
    """The rows a cluster or Triton kernel adds: the runtime's cluster count within the engine's bound,
    the importer's cluster dims and the launch read from Triton's metadata asked of the runtime."""
    probe = _probe_from_header(reference)
    entry = probe["kernels"][0]  # k_a: 32 registers, no shared memory
    entry["attributes"].update(requiredClusterWidth=2, requiredClusterHeight=1, requiredClusterDepth=1)
    blocks_per_sm = next(n for b, d, s, n in entry["occupancy"] if (b, d) == (256, 0))
    bound = blocks_per_sm * probe["device"]["multiProcessorCount"] // 2
    entry["clusters"] = [[256, 0, 2, 0, bound], [256, 0, 2, 0, bound - 7]]
    reading = {"registers": 32, "static_smem": 0, "barriers": 1, "cluster_dims": [2, 1, 1], "launch": [256, 4096]}
    comparison = compare_probe(probe, {"k_a": reading})
    assert comparison.mismatches == 0, comparison.table(only_mismatches=True)
    entry["clusters"][1][4] = bound + 1
    reading.update(cluster_dims=None, launch=[96, 4096])
    assert compare_probe(probe, {"k_a": reading}).mismatches == 3
