"""The persistent import cache: a hit equals a fresh read field for field; anything stale, damaged or
foreign is a miss (and removed); the directory stays under its cap; ``--no-cache`` bypasses it."""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from occupancy_gui.importers import RecordCache, import_file_detailed
from occupancy_gui.importers import record_cache as cache_module
from occupancy_gui.importers.json_rows import record_json
from occupancy_gui.importers.records import FIELDS

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"
BINARIES = ["a.fatbin", "a_lz4.fatbin", "a_zstd.fatbin", "a_sm80.cubin", "a_sm120.cubin", "b_host.o", "b_sm90.cubin"]


def state(records) -> list[tuple]:
    return [tuple(getattr(rec, name) for name in (*FIELDS, "demangled")) for rec in records]


@pytest.fixture
def binary(tmp_path: Path, request) -> Path:
    target = tmp_path / getattr(request, "param", "a_zstd.fatbin")
    shutil.copy2(GEN / target.name, target)
    return target


def entries(cache: RecordCache) -> list[Path]:
    return sorted(cache.directory.glob("*.records"))


@pytest.mark.parametrize("name", BINARIES)
def test_a_hit_equals_a_fresh_read(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    shutil.copy2(GEN / name, path)
    cache = RecordCache(tmp_path / "cache")
    fresh = import_file_detailed(path)
    first = import_file_detailed(path, cache=cache)
    assert len(entries(cache)) == 1
    hit = cache.get(str(path), cache.key(str(path), "x"))  # another format's key: a miss
    assert hit is None
    again = import_file_detailed(path, cache=cache)
    assert state(again.records) == state(first.records) == state(fresh.records)
    assert again.notes == fresh.notes
    assert [record_json(r) for r in again.records] == [record_json(r) for r in fresh.records]


def test_many_records_span_blocks(tmp_path: Path, binary: Path) -> None:
    """More records than one block holds, read back in any order."""
    records = list(import_file_detailed(binary).records) * 1500  # 3000+ rows: four blocks
    cache = RecordCache(tmp_path / "cache")
    key = cache.key(str(binary), "fatbin")
    cache.put(str(binary), key, records, ["a note"])
    hit = cache.get(str(binary), key)
    assert hit is not None and hit.notes == ["a note"]
    assert len(hit.records) == len(records)
    for i in (len(records) - 1, 0, 2047, 1024, 1023, 5):
        assert state([hit.records[i]]) == state([records[i]])
    assert state(hit.records) == state(records)


def test_an_entry_read_in_part_leaves_no_cycle(tmp_path: Path, binary: Path) -> None:
    """The window reads an entry's records a block at a time and may stop halfway (a cancelled import): what
    it drops must be freed by reference counting.  The cyclic collector may never come for it: the window
    freezes what a big import leaves."""
    records = list(import_file_detailed(binary).records) * 1500  # four blocks
    cache = RecordCache(tmp_path / "cache")
    key = cache.key(str(binary), "fatbin")
    cache.put(str(binary), key, records, [])
    gc.collect()
    for read in (0, 1, len(records) // 2, len(records)):
        hit = cache.get(str(binary), key)
        assert hit is not None
        assert state(hit.records[:read]) == state(records[:read])
        part = hit.records[read // 2 : read]  # a slice outlives its list: its records still read, one by one
        del hit
        assert gc.collect() == 0, f"{read} records read"
        assert state(part) == state(records[read // 2 : read])


def test_a_changed_file_is_a_miss(tmp_path: Path, binary: Path) -> None:
    cache = RecordCache(tmp_path / "cache")
    import_file_detailed(binary, cache=cache)
    old_key = cache.key(str(binary), "fatbin")
    st = binary.stat()
    os.utime(binary, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert cache.key(str(binary), "fatbin") != old_key
    assert cache.get(str(binary), cache.key(str(binary), "fatbin")) is None
    assert entries(cache) == []  # the stale entry is removed


def test_a_changed_importer_is_a_miss(tmp_path: Path, binary: Path, monkeypatch) -> None:
    cache = RecordCache(tmp_path / "cache")
    import_file_detailed(binary, cache=cache)
    monkeypatch.setattr(cache_module, "importer_version", lambda: "a fixed importer")
    other = RecordCache(tmp_path / "cache")
    assert other.get(str(binary), other.key(str(binary), "fatbin")) is None


def test_a_rebuilt_bundle_is_another_importer(tmp_path: Path, monkeypatch) -> None:
    """A frozen bundle has no importer sources to digest: a rebuild (same version number, new
    executable) must not read the old bundle's entries, and an unchanged one must."""
    exe = tmp_path / "occupancy-gui"
    exe.write_bytes(b"bundle one")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    first = cache_module.importer_version()
    assert cache_module.importer_version() == first and "frozen" in first
    exe.write_bytes(b"bundle two, rebuilt")
    assert cache_module.importer_version() != first


@pytest.mark.parametrize("damage", ["flip", "truncate", "magic", "empty", "extend"])
def test_a_damaged_entry_is_a_miss_and_removed(tmp_path: Path, binary: Path, damage: str) -> None:
    cache = RecordCache(tmp_path / "cache")
    fresh = import_file_detailed(binary, cache=cache)
    (entry,) = entries(cache)
    blob = bytearray(entry.read_bytes())
    if damage == "flip":
        blob[-10] ^= 0x40
    elif damage == "truncate":
        del blob[len(blob) // 2 :]
    elif damage == "magic":
        blob[0] ^= 1
    elif damage == "empty":
        blob.clear()
    else:
        blob += b"\0"
    entry.write_bytes(bytes(blob))
    assert cache.get(str(binary), cache.key(str(binary), "fatbin")) is None
    assert not entry.exists()
    again = import_file_detailed(binary, cache=cache)  # read afresh, stored again
    assert state(again.records) == state(fresh.records)
    assert len(entries(cache)) == 1


def test_the_cap_removes_least_recently_used(tmp_path: Path) -> None:
    files = []
    for i in range(4):
        files.append(tmp_path / f"copy{i}.fatbin")
        shutil.copy2(GEN / "a_zstd.fatbin", files[-1])
    probe = RecordCache(tmp_path / "probe")
    import_file_detailed(files[0], cache=probe)
    size = entries(probe)[0].stat().st_size
    cache = RecordCache(tmp_path / "cache", cap=3 * size)
    for i, path in enumerate(files[:3]):
        import_file_detailed(path, cache=cache)
        entry = cache._entry(str(path))
        os.utime(entry, ns=(i * 10**9, i * 10**9))  # copy0 is the least recently used
    import_file_detailed(files[0], cache=cache)  # a hit: copy0 becomes the most recent
    import_file_detailed(files[3], cache=cache)
    kept = {p.name for p in entries(cache)}
    assert len(kept) == 3
    assert cache._entry(str(files[1])).name not in kept


def test_an_unwritable_directory_is_no_cache(tmp_path: Path, binary: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = RecordCache(blocker / "cache")
    assert import_file_detailed(binary, cache=cache).records


def test_the_command_uses_the_cache_and_no_cache_bypasses_it(tmp_path: Path, binary: Path) -> None:
    env = {**os.environ, "OCCUPANCY_GUI_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "occupancy_gui.cli.main", "import", str(binary), "--json"]
    bypass = subprocess.run([*command, "--no-cache"], capture_output=True, text=True, env=env, check=True)
    assert not (tmp_path / "cache").exists()
    first = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert len(list((tmp_path / "cache").glob("*.records"))) == 1
    second = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert json.loads(first.stdout) == json.loads(second.stdout) == json.loads(bypass.stdout)


def test_rows_of_bulk_and_lazy_records_read_back_whole(tmp_path: Path, binary: Path) -> None:
    """A bulk importer's state may leave ``launch_source`` out and nothing has read ``demangled`` yet; a build
    is done on the way in: each row still holds every field, and the demangled name stays in its state (the
    window's table reads it next)."""
    from occupancy_gui.importers.record_list import Records

    base = import_file_detailed(binary).records[0]
    values = {name: getattr(base, name) for name in FIELDS if name != "launch_source"}
    bulk = [{**values, "name": f"_Z{len(stem)}{stem}v"} for stem in ("kernel", "other")]
    build = (lambda v: dict(v, launch_source="x.json"), {**values, "name": "_Z4lazyv"})
    records = Records([*bulk, build], builds=True)
    assert all("demangled" not in state for state in bulk)
    cache = RecordCache(tmp_path / "cache")
    key = cache.key(str(binary), "fatbin")
    cache.put(str(binary), key, records, [])
    assert [state["demangled"] for state in records.states()] == ["kernel()", "other()", "lazy()"]
    hit = cache.get(str(binary), key)
    assert hit is not None and state(hit.records) == state(records)
    assert [rec.launch_source for rec in hit.records] == [None, None, "x.json"]
