"""AMD code objects that ROCm builds of real packages ship, fetched at test time (pinned, ``--no-deps``) and
held to the reference readers.

* ``amd-aiter==0.1.7.post2.dev18``: 2,501 hand-written ``.co`` code objects (v4, v5, v6; gfx942 and gfx950;
  AGPRs up to 256; LDS up to 160 KiB) and 112 Triton-compiled ``.hsaco`` with their cache JSON (MIT licence);
* ``bitsandbytes==0.50.2``: six ``libbitsandbytes_rocm*.so``, CCOB v2 (ROCm 6.4, 7.0) and v3 (7.1+) bundles;
* ``jax-rocm7-pjrt==0.12.0``: ``xla_rocm_plugin.so``, 45 CCOB v3 bundles over 27 targets, 409,773 kernel
  entries in 1,215 code objects (2.4 GB inflated).  clang-offload-bundler-19 cannot inflate CCOB v3, so the
  code objects are unpacked by the test's own reading of the format (reference.extract_bundle) and read by
  llvm-readelf-19 and llvm-objdump-19.
"""

from __future__ import annotations

import functools
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from occupancy_gui.importers import import_file_detailed
from occupancy_gui.importers.amd.bundles import Walk
from occupancy_gui.importers.amd.json_rows import amd_record_json
from occupancy_gui.importers.amd.reader import iter_batches
from occupancy_gui.importers.amd.record import padded_vgprs
from tests.helpers import toolchains

from .reference import expected_records, extract_bundle, mismatches, needs_llvm, notes, section

pytestmark = [pytest.mark.slow, needs_llvm]

AITER = "amd-aiter==0.1.7.post2.dev18"
BITSANDBYTES = "bitsandbytes==0.50.2"
JAX_ROCM = "jax-rocm7-pjrt==0.12.0"
WORKERS = 2


last_unchecked: list[int] = []
"""Records of the last :func:`_compare_files` whose allocation no reference reader decoded."""


def _compare_files(files: list[Path], records_of, fast: bool = False) -> tuple[int, list[str]]:
    """Each file's records (``records_of(path)``, JSON rows) against the reference readers' figures, on
    worker threads (the readers are processes); (records compared, problems).  :data:`last_unchecked` counts
    those whose allocation had no reference."""

    def one(path: Path) -> tuple[int, int, list[str]]:
        with tempfile.TemporaryDirectory() as tmp:
            expected = expected_records(path, Path(tmp), fast=fast)
        got = records_of(path)
        unchecked = sum(ref["allocated_vgprs"] is None for ref in expected.values())
        return len(got), unchecked, mismatches(got, expected, path.name)

    with ThreadPoolExecutor(WORKERS) as pool:
        done = list(pool.map(one, files))
    last_unchecked[:] = [sum(n for _, n, _ in done)]
    return sum(n for n, _, _ in done), [p for _, _, problems in done for p in problems]


def test_aiter_code_objects():
    tree = toolchains.wheel_tree(AITER)
    files = sorted(tree.glob("**/*.co"))
    assert len(files) == 2501
    rows = {}

    def records_of(path: Path) -> list[dict]:
        rows[path] = [amd_record_json(r) for r in import_file_detailed(path).amd_records]
        return rows[path]

    compared, problems = _compare_files(files, records_of)
    assert not problems, "\n".join(problems[:40])
    assert last_unchecked == [0]
    every = [r for found in rows.values() for r in found]
    assert compared == len(every) >= 2501
    assert {r["code_object_version"] for r in every} == {4, 5, 6}
    assert {r["arch"] for r in every} == {"gfx942", "gfx950"}
    assert max(r["agprs"] or 0 for r in every) == 256 and max(r["static_lds"] for r in every) == 160 << 10


def test_aiter_triton_caches():
    tree = toolchains.wheel_tree(AITER)
    result = import_file_detailed(tree / "aiter" / "ops" / "triton")
    assert not result.records and len(result.amd_records) == 112
    by_file = {}
    for rec in result.amd_records:
        by_file.setdefault(tree / "aiter" / "ops" / rec.source, []).append(amd_record_json(rec))
    compared, problems = _compare_files(sorted(by_file), by_file.__getitem__)
    assert not problems and compared == 112, "\n".join(problems[:40])
    assert all(r.block_size and r.dynamic_lds is not None for r in result.amd_records)
    # Issue #41: LLVM pads the allocation past the metadata's count (amdgpu_waves_per_eu) in 68 of 112
    assert sum(padded_vgprs(r) for r in result.amd_records) == 68


def _unpacked(host: Path, out: Path) -> list[Path]:
    """The code objects of ``host``'s ``.hip_fatbin``, unpacked by the test's own bundle reading."""
    data = section(host, ".hip_fatbin")
    starts = [at for at in range(0, len(data), 4096) if data[at : at + 4] in (b"CCOB", b"__CL")]
    files = []
    for i, (a, b) in enumerate(zip(starts, starts[1:] + [len(data)])):
        for entry, body in extract_bundle(data[a:b]):
            if entry.startswith("hip"):
                files.append(out / f"{i + 1}.{entry.rsplit('--', 1)[1]}.co")
                files[-1].write_bytes(body)
    return files


def _entry_key(rec) -> tuple[str, str]:
    """(bundle number, target) of a record's source: ``x.so:.hip_fatbin bundle 3 @0x..: hipv4-...--gfx942 @...``."""
    bundle = rec.source.split(".hip_fatbin bundle ", 1)[1].split(" ", 1)[0]
    return bundle, rec.source.rsplit("--", 1)[1].split(" @")[0]


def _rows_by_entry(path: Path) -> dict[tuple[str, str], list[dict]]:
    """Every record of a library as read, code object by code object (before identical copies merge)."""
    by_entry: dict[tuple[str, str], list[dict]] = {}
    for batch in iter_batches(str(path), "host", Walk(str(path), 0)):
        for rec in batch:
            by_entry.setdefault(_entry_key(rec), []).append(amd_record_json(rec))
    return by_entry


def _rows_of(by_entry: dict[tuple[str, str], list[dict]], path: Path) -> list[dict]:
    """The rows of the code object ``_unpacked`` wrote as ``path`` (``BUNDLE.TARGET.co``)."""
    return by_entry.get(tuple(path.stem.split(".", 1)), [])


def test_bitsandbytes_rocm_libraries(tmp_path):
    libraries = sorted((toolchains.wheel_tree(BITSANDBYTES) / "bitsandbytes").glob("libbitsandbytes_rocm*.so"))
    assert len(libraries) == 6
    versions = Counter()
    for lib in libraries:
        records = import_file_detailed(lib).amd_records
        versions.update(r.source.split("(CCOB ")[1][:2] for r in records)
        by_entry = _rows_by_entry(lib)
        assert sum(len(rows) for rows in by_entry.values()) == sum(r.copies for r in records)
        out = tmp_path / lib.stem
        out.mkdir()
        files = _unpacked(lib, out)
        assert {tuple(f.stem.split(".", 1)) for f in files} == set(by_entry), lib.name
        compared, problems = _compare_files(files, functools.partial(_rows_of, by_entry))
        assert not problems, "\n".join(problems[:40])
        assert compared == sum(r.copies for r in records)
    assert set(versions) == {"v2", "v3"}


def test_xla_rocm_plugin(tmp_path):
    plugin = toolchains.wheel_tree(JAX_ROCM) / "jax_plugins" / "xla_rocm7" / "xla_rocm_plugin.so"
    result = import_file_detailed(plugin)
    assert not result.records and not result.notes
    assert sum(r.copies for r in result.amd_records) == 409_773
    assert {r.source.split(" (", 1)[1].split(")")[0] for r in result.amd_records} == {"CCOB v3 zstd"}
    by_entry = _rows_by_entry(plugin)
    files = _unpacked(plugin, tmp_path)
    assert len(files) == 1215 and len({f.stem.split(".", 1)[1] for f in files}) == 27
    assert {tuple(f.stem.split(".", 1)) for f in files} >= set(by_entry)  # some code objects hold no kernel

    # Every code object's kernels, field by field; the fast note scan is held to PyYAML on a few first.
    def strip(doc: dict) -> list[dict]:
        return [
            {k: v for k, v in kernel.items() if k not in (".args", ".language_version")}
            for kernel in doc["amdhsa.kernels"]
        ]

    for path in files[:3]:
        assert strip(notes(path)) == strip(notes(path, fast=True))
    compared, problems = _compare_files(files, functools.partial(_rows_of, by_entry), fast=True)
    assert not problems, "\n".join(problems[:40])
    assert compared == 409_773
    # Allocations no reference decodes: gfx1250's (no LLVM 19 processor has its 16-VGPR granule) and 26
    # descriptors llvm-objdump-19 refuses as misaligned (reference.descriptors); every other one is checked.
    gfx1250 = sum(len(rows) for (_bundle, target), rows in by_entry.items() if target == "gfx1250")
    assert last_unchecked == [gfx1250 + 26], (last_unchecked, gfx1250)
