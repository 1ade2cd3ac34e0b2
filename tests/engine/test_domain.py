"""One table of input checks: many queries at once give the scalar check's first failure, word for word."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from occupancy_gui.engine import OccupancyError
from occupancy_gui.engine.domain import DomainInputs, check_domain, first_violation, violation_message


def test_vectorised_checks_match_the_scalar_ones() -> None:
    rng = np.random.default_rng(15)
    n = 20000
    edges = np.array([-(2**62), -5, -1, 0, 1, 100, 101, 2**16, 2**16 + 1, 2**24, 2**24 + 1, 2**31 - 1, 2**31, 2**62])
    columns = {
        f.name: np.where(rng.random(n) < 0.7, rng.integers(0, 300, n), rng.choice(edges, n))
        for f in fields(DomainInputs)
    }
    columns["carveout"] = np.where(rng.random(n) < 0.8, rng.integers(-1, 101, n), rng.choice(edges, n))
    columns["block_size"] = np.where(rng.random(n) < 0.9, rng.integers(1, 1025, n), rng.choice(edges, n))
    columns["max_threads_per_block"] = np.where(rng.random(n) < 0.9, 2**31 - 1, rng.choice(edges, n))
    columns["reqntid"] = np.where(rng.random(n) < 0.9, 0, rng.choice(edges, n))
    first = first_violation(DomainInputs(**columns))
    refused = 0
    for i in range(n):
        one = DomainInputs(**{name: int(a[i]) for name, a in columns.items()})
        try:
            check_domain(one)
            assert first[i] == -1, one
        except OccupancyError as exc:
            assert first[i] >= 0 and violation_message(int(first[i]), one) == str(exc), one
            refused += 1
    assert n * 0.2 < refused < n * 0.9


@pytest.mark.parametrize(
    "field",
    [
        "num_block_barriers",
        "max_dynamic_smem",
        "virtual_resource_count",
        "max_threads_per_block",
        "reqntid",
        "block_size",
        "num_regs",
    ],
)
def test_every_field_has_an_upper_bound_inside_int64(field: str) -> None:
    ok = {
        "block_size": 256,
        "num_regs": 32,
        "shared_size_bytes": 0,
        "dynamic_smem": 0,
        "num_block_barriers": 1,
        "virtual_resource_count": 0,
        "max_threads_per_block": 1024,
        "reqntid": 0,
        "carveout": -1,
        "max_dynamic_smem": 0,
    }
    check_domain(DomainInputs(**ok))
    with pytest.raises(OccupancyError, match="is beyond"):
        check_domain(DomainInputs(**{**ok, field: 10**23}), bounds_only=True)
