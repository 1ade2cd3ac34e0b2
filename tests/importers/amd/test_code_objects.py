"""Code objects of the fixture matrix (build.py), every record equal to the reference readers' figures.

Each device-only bundle is read whole by the reader under test; the reference bundler unpacks the same
bundle into code objects, which ``llvm-readelf-19`` and ``llvm-objdump-19`` read (reference.py).
"""

from __future__ import annotations

import pytest

from occupancy_gui.importers import detect_format, import_file_detailed
from occupancy_gui.importers.amd.json_rows import amd_record_json
from occupancy_gui.importers.amd.record import padded_vgprs

from .build import DEVICE_CONFIGS
from .reference import expected_records, mismatches


def _by_entry(records):
    out = {}
    for rec in records:
        entry = rec.source.rsplit(": ", 1)[-1].split(" @")[0]
        out.setdefault(entry, []).append(amd_record_json(rec))
    return out


@pytest.mark.parametrize("config", DEVICE_CONFIGS)
def test_bundle_records_equal_reference_readers(matrix, config, tmp_path):
    bundle = matrix[config]
    assert detect_format(bundle.path, bundle.path.read_bytes()[:65536]) == "amd_bundle"
    result = import_file_detailed(bundle.path)
    assert not result.records and not result.notes
    got = _by_entry(result.amd_records)
    assert set(got) == set(bundle.entries)
    problems = []
    for entry, code_object in bundle.entries.items():
        problems += mismatches(got[entry], expected_records(code_object, tmp_path), f"{config} {entry}")
    assert not problems, "\n".join(problems[:40])


@pytest.mark.parametrize("config", ["v4", "v6", "features"])
def test_code_object_files_read_alike(matrix, config, tmp_path):
    """A code object file on its own gives what its bundle entry gave."""
    for entry, code_object in matrix[config].entries.items():
        assert detect_format(code_object, code_object.read_bytes()[:65536]) == "amd_code_object"
        records = [amd_record_json(r) for r in import_file_detailed(code_object).amd_records]
        problems = mismatches(records, expected_records(code_object, tmp_path), entry)
        assert not problems, "\n".join(problems)
        assert {r["source"] for r in records} == {code_object.name}


def test_matrix_covers_what_the_issue_asks(matrix):
    records = [r for b in matrix.values() for r in import_file_detailed(b.path).amd_records]
    assert {r.code_object_version for r in records} == {4, 5, 6}
    assert {r.wave_size for r in records} == {32, 64} and {r.wgp_mode for r in records} == {True, False}
    assert {r.wave_size for r in records if r.arch == "gfx1100"} == {32, 64}
    assert {r.wgp_mode for r in records if r.arch == "gfx1030"} == {True, False}
    assert any(r.agprs for r in records if r.arch == "gfx908")  # a separate AccVGPR file
    assert any(r.static_lds >= 48 << 10 for r in records) and any(r.scratch_bytes > 0 for r in records)
    assert any(r.spills.vgpr for r in records) and any(r.dynamic_stack for r in records)
    assert any(padded_vgprs(r) for r in records) and any(r.max_threads == 128 for r in records)
    assert {r.arch for r in records} >= {"gfx9-generic", "gfx10-3-generic", "gfx11-generic", "gfx1201"}
    assert {r.target for r in records} >= {"gfx90a:xnack+", "gfx942:sramecc+:xnack-", "gfx906:sramecc-:xnack+"}
