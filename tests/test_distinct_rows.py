"""``distinct_rows`` (packed words and a lexsort) is ``np.unique(keys, axis=0, return_inverse=True)``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from occupancy_gui.kernel_table import COMBO, KernelTable, distinct_rows
from tests.helpers.random_records import random_records


def _check(keys: np.ndarray) -> None:
    combos, inverse = distinct_rows(keys)
    want, want_inverse = np.unique(keys, axis=0, return_inverse=True)
    assert combos.dtype == keys.dtype and inverse.dtype == np.int64
    assert np.array_equal(combos, want)
    assert np.array_equal(inverse, want_inverse.reshape(-1))
    assert np.array_equal(combos[inverse], keys)  # each row's combination is the row


def _random(rng: np.random.Generator, rows: int, highs: list[int], lows: list[int] | None = None) -> np.ndarray:
    lows = lows or [0] * len(highs)
    return np.stack([rng.integers(lo, hi, rows, dtype=np.int64) for lo, hi in zip(lows, highs)], axis=1)


@pytest.mark.parametrize("seed", range(4))
def test_random_keys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    _check(_random(rng, 2000, [4, 3, 256, 65536, 17, 1025, 2]))  # one packed word
    _check(_random(rng, 2000, [4, 1 << 20, 1 << 30, 1 << 20, 3, 2, 1 << 12, 1 << 16, 9, 1025, 1 << 24, 5]))  # several
    _check(_random(rng, 500, [3, 1 << 40, 2], [-1, 0, -2]))  # negative values (-1: not stated)


def test_edge_cases() -> None:
    _check(np.array([[5, -1, 0]], np.int64))  # one row
    _check(np.zeros((300, 7), np.int64))  # all equal, every column zero bits wide
    _check(np.full((50, 12), 7, np.int64))
    _check(np.array([[1, 2], [1, 2], [0, 2], [1, 2]], np.int64))
    big = np.iinfo(np.int64)
    _check(np.array([[big.max, 0], [0, 1], [big.max, 0], [big.min, 1]], np.int64))  # beyond 62 bits: np.unique
    # A column whose span (not its values) passes 62 bits: shifted to start at 0 it wraps in int64, and a width
    # taken from the shifted column merged distinct rows (the helper as first written did).
    _check(np.array([[-(1 << 62), 3], [1 << 62, 3], [-(1 << 62) + 5, 1], [1 << 62, 0]], np.int64))
    _check(np.array([[-(1 << 61), 1], [(1 << 61) - 1, 0], [-(1 << 61), 1]], np.int64))  # 62 bits: still packed
    combos, inverse = distinct_rows(np.zeros((0, 7), np.int64))
    assert combos.shape == (0, 7) and inverse.shape == (0,)


def test_the_tables_combinations() -> None:
    """The NVIDIA rows' and the AMD rows' keys of tables as the importers make them."""
    import dataclasses
    from pathlib import Path

    from occupancy_gui.importers.amd import reader
    from occupancy_gui.kernel_table import combo_keys

    nvidia = KernelTable.from_records("x", random_records(random.Random(3), 3000))
    assert nvidia.combos.shape[1] == len(COMBO) and 1 < len(nvidia.combos) < len(nvidia)
    keys = np.stack(
        [nvidia.max_threads, nvidia.required, nvidia.registers, nvidia.static_smem, nvidia.barriers],
        axis=1,
    )
    _check(keys)
    base = reader.read_amd(Path(__file__).parent / "data" / "importers" / "amd" / "gfx942.co", reader.CODE_OBJECT)
    rng = random.Random(5)
    amd = [
        dataclasses.replace(
            rec, target=rng.choice(["gfx942", "gfx90a", "gfx1100"]), wgp_mode=rng.choice([None, False, True])
        )
        for rec in base.records * 40
    ]
    table = KernelTable.from_records("x", [], None, amd)
    own = table.amd
    assert own is not None
    tail = slice(table.nvidia_rows, None)
    keys = combo_keys(
        own,
        table.registers[tail],
        table.static_smem[tail],
        table.max_threads[tail],
        table.required[tail],
        table.launch_block[tail],
        table.launch_dynamic[tail],
    )
    _check(keys)
    assert np.array_equal(own.combos, np.unique(keys, axis=0)) and (own.wgp.min() == -1)
