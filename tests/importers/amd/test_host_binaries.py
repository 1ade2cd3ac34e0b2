"""AMD device code in host files: objects with plain and compressed (CCOB v2, zstd) bundles, a static and a
shared library of them, hand-made CCOB v1/v3 and zlib bundles (which clang-offload-bundler-19 cannot read),
and a host object holding NVIDIA and AMD kernels both."""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import zstandard

from occupancy_gui.importers import ImportFailure, import_file, import_file_detailed
from occupancy_gui.importers.amd.json_rows import JSON_KEYS, amd_record_json

from ..conftest import GEN
from .build import unbundled
from .reference import expected_records, mismatches, run, section


def _bundles_in(data: bytes) -> list[bytes]:
    """The bundles of a ``.hip_fatbin`` section: each starts at a 4096-aligned magic (the linker aligns
    every object's section so), and runs to the next one."""
    starts = [at for at in range(0, len(data), 4096) if data[at : at + 4] in (b"__CL", b"CCOB")]
    return [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]


def _reference(host: Path, tmp: Path) -> dict[str, dict]:
    """Expected records of every code object in ``host``'s ``.hip_fatbin``, keyed (entry, kernel)."""
    expected = {}
    for i, body in enumerate(_bundles_in(section(host, ".hip_fatbin"))):
        bundle = tmp / f"{host.stem}.{i}.hipfb"
        bundle.write_bytes(body.rstrip(b"\0") if body[:4] == b"CCOB" else body)
        for entry, code_object in unbundled(bundle).entries.items():
            for name, rec in expected_records(code_object, tmp).items():
                expected[(entry, name)] = rec
    return expected


def _got(records) -> dict[tuple[str, str], dict]:
    return {(r.source.rsplit(": ", 1)[-1].split(" @")[0], r.name): amd_record_json(r) for r in records}


def _compare(got: dict, expected: dict, where: str) -> None:
    assert set(got) == set(expected)
    problems = [p for key in expected for p in mismatches([got[key]], {key[1]: expected[key]}, f"{where} {key[0]}")]
    assert not problems, "\n".join(problems[:40])


@pytest.mark.parametrize("kind", ["plain", "packed"])
def test_host_object(hosts, kind, tmp_path):
    obj = hosts.objects[kind]
    head = section(obj, ".hip_fatbin")[:4]
    assert head == (b"CCOB" if kind == "packed" else b"__CL")
    result = import_file_detailed(obj)
    assert not result.records and not result.notes
    _compare(_got(result.amd_records), _reference(obj, tmp_path), kind)
    if kind == "packed":
        assert all("CCOB v2 zstd" in r.source for r in result.amd_records)


def test_static_library_lists_every_member(hosts, tmp_path):
    records = import_file_detailed(hosts.archive).amd_records
    expected = {}
    for obj in hosts.objects.values():
        expected.update(_reference(obj, tmp_path))
    _compare(_got(records), expected, "libboth.a")
    assert {r.source.split(":")[0] for r in records} == {"libboth.a(plain.o)", "libboth.a(packed.o)"}


def test_shared_library_two_bundles_in_one_section(hosts, tmp_path):
    data = section(hosts.shared, ".hip_fatbin")
    assert len(_bundles_in(data)) == 2  # one plain, one compressed, from the two objects
    records = import_file_detailed(hosts.shared).amd_records
    _compare(_got(records), _reference(hosts.shared, tmp_path), "libboth.so")
    assert {r.source.split(" @")[0] for r in records} == {
        "libboth.so:.hip_fatbin bundle 1",
        "libboth.so:.hip_fatbin bundle 2",
    }


def _ccob(plain: bytes, version: int, method: int) -> bytes:
    """A compressed bundle as clang's OffloadBundler.cpp lays it out (see importers.amd.bundle)."""
    packed = zstandard.ZstdCompressor(level=9).compress(plain) if method == 1 else zlib.compress(plain, 9)
    digest = struct.unpack("<Q", hashlib.md5(plain).digest()[:8])[0]
    if version == 1:
        return struct.pack("<4sHHIQ", b"CCOB", 1, method, len(plain), digest) + packed
    if version == 2:
        return struct.pack("<4sHHIIQ", b"CCOB", 2, method, 24 + len(packed), len(plain), digest) + packed
    return struct.pack("<4sHHQQQ", b"CCOB", 3, method, 32 + len(packed), len(plain), digest) + packed


@pytest.mark.parametrize(
    ("version", "method"), [(1, 1), (2, 0), (3, 1), (3, 0)], ids=["v1-zstd", "v2-zlib", "v3-zstd", "v3-zlib"]
)
def test_hand_made_compressed_bundles(matrix, version, method, tmp_path):
    plain = matrix["v5"].path.read_bytes()
    ccob = tmp_path / f"v{version}.hipfb"
    ccob.write_bytes(_ccob(plain, version, method))
    got = import_file_detailed(ccob).amd_records
    want = import_file_detailed(matrix["v5"].path).amd_records
    strip = lambda recs: sorted(json.dumps({**amd_record_json(r), "source": ""}, sort_keys=True) for r in recs)  # noqa: E731
    assert strip(got) == strip(want)
    assert all(f"CCOB v{version} {'zstd' if method else 'zlib'}" in r.source for r in got)
    # and the code objects inside, unpacked by the test's own reading, against the reference readers
    bundle = unbundled(ccob) if version == 2 and method == 1 else None
    expected = {}
    for entry, code_object in bundle.entries.items() if bundle else matrix["v5"].entries.items():
        for name, rec in expected_records(code_object, tmp_path).items():
            expected[(entry, name)] = rec
    _compare(_got(got), expected, ccob.name)


def test_ccob_v3_in_a_host_object(hosts, matrix, tmp_path):
    """A host object whose .hip_fatbin is a CCOB v3 (clang 20's format), made with llvm-objcopy."""
    bundle = tmp_path / "v3.hipfb"
    bundle.write_bytes(_ccob(matrix["v6"].path.read_bytes(), 3, 1))
    obj = tmp_path / "v3.o"
    run("llvm-objcopy-19", f"--update-section=.hip_fatbin={bundle}", hosts.objects["plain"], obj)
    records = import_file_detailed(obj).amd_records
    assert {r.arch for r in records} >= {"gfx9-generic", "gfx11-generic", "gfx1151"}
    assert all("CCOB v3 zstd" in r.source for r in records)


def test_nvidia_and_amd_in_one_host_object(matrix, tmp_path):
    """A host object with an NVIDIA fatbin and an AMD bundle: both vendors listed, each its own way."""
    mixed = tmp_path / "mixed.o"
    run("llvm-objcopy-19", f"--add-section=.hip_fatbin={matrix['v5'].path}", GEN / "b_host.o", mixed)
    result = import_file_detailed(mixed)
    nvidia = import_file(GEN / "b_host.o")
    assert [r.name for r in result.records] == [r.name for r in nvidia]
    assert len(result.amd_records) == len(import_file_detailed(matrix["v5"].path).amd_records)
    assert import_file(mixed) == result.records  # import_file: NVIDIA records, as the window takes them
    out = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", "import", "--no-cache", "--json", str(mixed)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = json.loads(out)
    amd = [row for row in rows if row.get("vendor") == "amd"]
    assert len(amd) == len(result.amd_records) and len(rows) - len(amd) == sum(r.is_kernel for r in result.records)
    assert all(list(row) == list(JSON_KEYS) for row in amd)
    table = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", "import", "--no-cache", str(mixed)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "regs" in table and "alloc" in table and "gfx942" in table


@pytest.mark.parametrize("driver", [[], ["--offload-new-driver"]], ids=["bundler-sections", "new-driver"])
def test_relocatable_device_code_says_why_it_lists_nothing(driver, tmp_path):
    """clang -fgpu-rdc keeps LLVM bitcode until the device link (in __CLANG_OFFLOAD_BUNDLE__ sections, or in
    .llvm.offloading with the new driver): no figures yet, and the failure says so."""
    from .build import compile_host, source

    obj = tmp_path / "rdc.o"
    compile_host(source(tmp_path, "rdc"), obj, ["gfx942"], ["-fgpu-rdc", *driver])
    with pytest.raises(ImportFailure, match="LLVM bitcode .* skipped: built with -fgpu-rdc"):
        import_file_detailed(obj)
