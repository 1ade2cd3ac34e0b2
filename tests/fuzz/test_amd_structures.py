"""Structure-aware hostile AMD inputs (see ``amd_structures``): a few hundred of each per run, every one
ending in records or a one-line error within the time and memory budgets."""

from __future__ import annotations

import random

import pytest

from tests.fuzz.amd_structures import GENERATORS
from tests.fuzz.binary_structures import check

COUNT = 60


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generated_amd_inputs(name: str, tmp_path) -> None:
    target, generate = GENERATORS[name]
    rng = random.Random(f"pytest:{name}")
    outcomes = [check(target, generate(rng), str(tmp_path / f"input.{name}")) for _ in range(COUNT)]
    assert "records" in outcomes and "error" in outcomes  # the generator reaches both ends
