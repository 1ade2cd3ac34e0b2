"""Records with every kind of figure a bulk column builder must take, for the tests that hold such a builder
to the records read one by one (``import --json``'s rows, the window's kernel table)."""

from __future__ import annotations

import random
from pathlib import Path

from occupancy_gui.importers import import_file
from occupancy_gui.importers.record_list import Records
from occupancy_gui.importers.records import FIELDS, IMPOSSIBLE_ABOVE

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"


def random_records(rng: random.Random, count: int) -> Records:
    """Figures in and out of range (negative, past their limit, beyond int64, None), launches or none,
    ``.reqntid``, clusters, register caps, arch names a GPU has or not, empty and mangled names."""
    base = import_file(GEN / "a_sm80.cubin")[0]
    out: list[dict[str, object]] = []  # the records' states, as a bulk reader gives them
    for i in range(count):
        values = {name: getattr(base, name) for name in FIELDS}
        for name, limit in IMPOSSIBLE_ABOVE.items():
            values[name] = rng.choice([None, 0, limit, limit + 1, -1, rng.randrange(limit + 1), 10**30])
        values["registers"] = values["registers"] or 0  # every importer reads a register count
        if rng.random() < 0.3:
            values |= {
                "block_size": rng.randrange(1, 1025),
                "grid_size": rng.choice([None, 4]),
                "dynamic_smem": rng.choice([None, 0, 512]),
                "device_name": rng.choice([None, "H100"]),
                "launch_source": "x.json",
                "waves_per_sm": rng.choice([None, 1.5]),
            }
        values["req_threads"] = rng.choice([None, None, (128, 1, 1), (16, 16, 2)])
        values["cluster_dims"] = rng.choice([None, (2, 1, 1), (2, 2, 1)])
        values["max_registers"] = rng.choice([None, 32, 255])
        values["arch"] = rng.choice(["sm_80", "sm_90a", "compute_75", "unknown", "sm_1" + "0" * 30])
        values["name"] = rng.choice(["_Z3fooi", "plain", "", f"_Z{i % 9 + 1}{'k' * (i % 9 + 1)}v"])
        values["is_kernel"] = rng.random() < 0.8
        out.append(values)
    return Records(out)
