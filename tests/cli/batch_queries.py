"""Seeded ``occupancy batch`` query lines: random devices, every field, and about 5 % invalid lines.

Shared by the batch tests (new path against the per-line oracle) and ``tests/benchmarks/bench_batch.py``
(against the C harness).  Valid lines cover every key in every spelling the batch accepts (absent,
``null``, ints, cache config names, ``"default"`` and ``"50%"`` carveouts, inline device mappings);
invalid ones cover broken JSON, wrong types, out-of-range and absurd figures, unknown devices.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

INVALID_FRACTION = 0.05
_MAPPING = {
    "schema": 1,
    "name": "mine",
    "kind": "gpu",
    "inherits": "sm_86",
    "architecture": "Ampere",
    "segment": "consumer",
    "sm_count": {"value": 10, "source": "test"},
    "limits": {},
}

_INVALID = (
    lambda r: "not json",
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32',
    lambda r: "[1, 2, 3]",
    lambda r: '{"device": "sm_90", "threads": 256}',
    lambda r: '{"device": "no such gpu", "threads": 256, "registers": 32}',
    lambda r: '{"threads": 256, "registers": 32}',
    lambda r: '{"device": 7, "threads": 256, "registers": 32}',
    lambda r: '{"device": "sm_90", "threads": "256", "registers": 32}',
    lambda r: '{"device": "sm_90", "threads": 256.0, "registers": 32}',
    lambda r: '{"device": "sm_90", "threads": true, "registers": 32}',
    lambda r: '{"device": "sm_90", "threads": 0, "registers": 32}',
    lambda r: f'{{"device": "sm_80", "threads": {int(r.integers(-5, 0))}, "registers": 32}}',
    lambda r: '{"device": "sm_80", "threads": 256, "registers": -1}',
    lambda r: '{"device": "sm_80", "threads": 256, "registers": 70000}',
    lambda r: '{"device": "sm_80", "threads": 99999999, "registers": 32}',
    lambda r: '{"device": "sm_80", "threads": 256, "registers": 32, "static_smem": -4}',
    lambda r: '{"device": "sm_80", "threads": 256, "registers": 32, "dynamic_smem": 3000000000}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "barriers": 100000000000000000000000}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "barriers": 1e23}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "max_dynamic_smem": 100000000000000000000000}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "max_dynamic_smem": -1}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "barriers": -2}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "carveout": 101}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "carveout": "lots"}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "cache_config": "big"}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "cache_config": 7}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": ' + "9" * 5000 + "}",
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "static_smem": NaN}',
    lambda r: '{"device": {"schema": 1, "name": "broken"}, "threads": 256, "registers": 32}',
    lambda r: "[" * 3000 + "]" * 3000,
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32} trailing',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "required_block_size": 0}',
    lambda r: '{"device": "sm_90", "threads": 256, "registers": 32, "required_block_size": "256"}',
    lambda r: '\ufeff{"device": "sm_90", "threads": 256, "registers": 32}',
)


def device_spellings(names: list[str]) -> list[str]:
    """Every profile name, and each compute capability also as ``X.Y``."""
    spelled = list(names)
    spelled += [f"{n[3:-1]}.{n[-1]}" for n in names if n.startswith("sm_")]
    return spelled


def _valid(rng: np.random.Generator, devices: list[str]) -> dict[str, Any]:
    q: dict[str, Any] = {"device": devices[int(rng.integers(len(devices)))] if rng.random() > 0.01 else _MAPPING}
    q["threads"] = int(rng.choice([32, 64, 128, 256, 512, 1024])) if rng.random() < 0.7 else int(rng.integers(1, 1100))
    roll = rng.random()
    q["registers"] = (
        int(rng.integers(16, 65))
        if roll < 0.7
        else int(rng.integers(0, 256))
        if roll < 0.98
        else int(rng.integers(256, 300))
    )
    optional = {
        "static_smem": lambda: int(rng.integers(0, 49153)),
        "dynamic_smem": lambda: int(rng.integers(0, 16384)) if rng.random() < 0.8 else int(rng.integers(0, 120000)),
        "barriers": lambda: int(rng.integers(0, 33)) if rng.random() < 0.2 else int(rng.integers(0, 3)),
        "max_dynamic_smem": lambda: int(rng.integers(0, 240000)) if rng.random() < 0.3 else 232448,
        "carveout": lambda: [-1, 0, 25, 50, 100, "default", "50%", int(rng.integers(0, 101))][int(rng.integers(8))],
        "cache_config": lambda: ["none", "shared", "l1", "equal", "L1", 0, 1, 2, 3][int(rng.integers(9))],
        # the kernel's .reqntid: the launch's own size about half the time, so both answers occur
        "required_block_size": lambda: q["threads"] if rng.random() < 0.5 else int(rng.choice([64, 128, 256, 2048])),
    }
    for key, make in optional.items():
        roll = rng.random()
        if roll < 0.45:
            q[key] = make()
        elif roll < 0.48:
            q[key] = None
    if rng.random() < 0.02:
        q["name"] = "an ignored key"
    return q


def random_lines(seed: int, n: int, device_names: list[str], invalid_fraction: float = INVALID_FRACTION) -> list[str]:
    """``n`` query lines (no newline), the same for the same seed."""
    rng = np.random.default_rng(seed)
    devices = device_spellings(device_names)
    lines = []
    for _ in range(n):
        if rng.random() < invalid_fraction:
            lines.append(_INVALID[int(rng.integers(len(_INVALID)))](rng))
        else:
            lines.append(json.dumps(_valid(rng, devices)))
    return lines
