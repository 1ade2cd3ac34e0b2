"""The user caches' size cap (``_process.cache_trim``): least recently used first, and never upset by another
process that shares the folder removing entries while it is listed."""

from __future__ import annotations

import gc
import os
from pathlib import Path

from occupancy_gui._process.cache_trim import trim


def _entries(folder: Path, sizes: dict[str, int]) -> None:
    for age, (name, size) in enumerate(sizes.items()):
        path = folder / name
        path.write_bytes(b"x" * size)
        os.utime(path, ns=(age * 10**9, age * 10**9))  # the first named is the least recently used


def test_the_least_recently_used_go_first(tmp_path: Path) -> None:
    _entries(tmp_path, {"a.rec": 100, "b.rec": 100, "c.rec": 100, "keep.txt": 1000})
    trim(tmp_path, 200, lambda name: name.endswith(".rec"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.rec", "c.rec", "keep.txt"]


def test_an_entry_removed_while_listed_is_skipped_and_the_rest_trimmed(tmp_path: Path) -> None:
    _entries(tmp_path, {"a.rec": 100, "b.rec": 100, "c.rec": 100, "d.rec": 100})

    def is_entry(name: str) -> bool:
        if name == "b.rec":  # another process evicts it between the listing and its stat
            (tmp_path / name).unlink()
        return name.endswith(".rec")

    trim(tmp_path, 200, is_entry)
    gc.collect()  # an unclosed listing would warn here (ResourceWarning is an error in this suite)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.rec", "d.rec"]
