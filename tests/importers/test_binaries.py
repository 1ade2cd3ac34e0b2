"""cubin / fatbin / host object readers: expected values, agreement with the logs and cuobjdump."""

from __future__ import annotations

import subprocess

import pytest

from occupancy_gui.importers import detect_format, import_file, import_file_detailed
from occupancy_gui.importers.binary.decompress import lz4_block_decompress
from occupancy_gui.importers.text.cuobjdump_text import parse_text

from .conftest import GEN, find_cuobjdump
from .test_ncu_csv import WINDOWS_SAVES, save_both_ways

BINARIES = ["a_sm80.cubin", "a_sm120.cubin", "b_sm90.cubin", "a.fatbin", "a_lz4.fatbin", "b_host.o"]


def kernels(records):
    return {(r.name, r.arch): r for r in records if r.is_kernel}


@pytest.mark.parametrize(
    "fname,fmt",
    [
        ("a_sm80.cubin", "cubin"),
        ("a.fatbin", "fatbin"),
        ("b_host.o", "host_binary"),
        ("a_ptxas_v.log", "ptxas_log"),
        ("b_host.o.cuobjdump.txt", "cuobjdump_text"),
    ],
)
def test_detect_format_by_content(fname, fmt, tmp_path):
    data = (GEN / fname).read_bytes()
    renamed = tmp_path / "no_extension"
    renamed.write_bytes(data)
    assert detect_format(renamed, data[:65536]) == fmt


def test_cubin_expected_values():
    recs = kernels(import_file(GEN / "b_sm90.cubin"))
    cl = recs[("_Z14cluster_kernelPj", "sm_90")]
    assert (cl.registers, cl.static_smem, cl.reserved_smem, cl.barriers) == (12, 128, 1024, 1)
    assert cl.cluster_dims == (2, 1, 1) and cl.max_registers == 32
    la = recs[("_Z11local_arrayP4Pairi", "sm_90")]
    assert (la.max_threads, la.local_bytes, la.min_blocks, la.spill_stores) == (128, 400, None, None)
    a = kernels(import_file(GEN / "a_sm80.cubin"))
    ts = a[("_ZN3occ9tiled_sumILi512EEEvPKfPfi", "sm_80")]
    assert (ts.registers, ts.static_smem, ts.max_threads, ts.max_registers, ts.const_bytes) == (10, 2048, 256, 128, 372)
    assert ts.const_banks[3] == 256  # the module's __constant__ array
    assert ts.source == "a_sm80.cubin: ELF section .nv.info._ZN3occ9tiled_sumILi512EEEvPKfPfi"
    assert a[("_Z14named_barriersPf", "sm_80")].barriers == 3


def test_fatbin_and_host_object_cover_every_arch():
    assert {r.arch for r in import_file(GEN / "a.fatbin")} == {"sm_80", "sm_90"}
    assert {r.arch for r in import_file(GEN / "a_lz4.fatbin")} == {"sm_80", "sm_90"}
    assert {r.arch for r in import_file(GEN / "b_host.o")} == {"sm_75", "sm_120"}
    src = import_file(GEN / "b_host.o")[1].source
    assert src.startswith(
        "b_host.o:.nv_fatbin container 1 @0x7e0: fatbin entry 1 (ELF sm_75) @0x7f0: ELF section .nv.info"
    )


def test_lz4_entry_equals_uncompressed_cubin():
    lz4 = kernels(import_file(GEN / "a_lz4.fatbin"))
    plain = kernels(import_file(GEN / "a.fatbin"))

    def strip(recs):
        return {k: (r.registers, r.static_smem, r.barriers, r.const_bytes, r.local_bytes) for k, r in recs.items()}

    assert strip(lz4) == strip(plain)


def test_zstd_entries_equal_the_uncompressed_cubins():
    zstd = kernels(import_file(GEN / "a_zstd.fatbin"))
    plain = {**kernels(import_file(GEN / "a_sm80.cubin")), **kernels(import_file(GEN / "a_sm120.cubin"))}

    def strip(recs):
        return {k: (r.registers, r.static_smem, r.barriers, r.local_bytes) for k, r in recs.items()}

    assert {k[1] for k in zstd} == {"sm_80", "sm_120"}
    assert strip(zstd) == strip(plain)


def test_without_a_zstd_decoder_entries_are_reported_per_entry(monkeypatch):
    import builtins

    from occupancy_gui.importers import ImportFailure

    real_import = builtins.__import__

    def no_zstd(name, *args, **kwargs):
        if name in ("zstandard", "compression"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_zstd)
    with pytest.raises(ImportFailure, match="fatbin entry 1 \\(ELF sm_80\\).*zstd"):
        import_file_detailed(GEN / "a_zstd.fatbin")


@pytest.mark.parametrize(
    "log,binary",
    [
        ("a_ptxas_v.log", "a_sm80.cubin"),
        ("a_ptxas_v.log", "a_sm120.cubin"),
        ("a_ptxas_v.log", "a.fatbin"),
        ("b_resource_usage.log", "b_sm90.cubin"),
        ("b_resource_usage.log", "b_host.o"),
    ],
)
def test_log_and_binary_agree(log, binary):
    from_log = kernels(import_file(GEN / log))
    from_bin = kernels(import_file(GEN / binary))
    assert from_bin
    for key, b in from_bin.items():
        lg = from_log[key]
        assert (b.registers, b.static_smem, b.barriers, b.local_bytes) == (
            lg.registers,
            lg.static_smem,
            lg.barriers,
            lg.local_bytes,
        ), key
        if lg.const_bytes is not None:  # ptxas stops printing cmem[0] for sm_90+
            assert b.const_bytes == lg.const_bytes


def _compare_with_cuobjdump_text(text: str, binary: str):
    got = kernels(import_file_detailed(GEN / binary).records)
    # A bare cubin dump has no "arch =" header: give it the cubin's one architecture.
    archs = {a for _, a in got}
    default = archs.pop() if len(archs) == 1 else "unknown"
    expected = {(r.name, r.arch): r for r in parse_text(text, "cuobjdump", default_arch=default)}
    assert set(expected) == set(got)
    for key, e in expected.items():
        g = got[key]
        assert g.registers == e.registers, key
        assert g.static_smem + g.reserved_smem == e.static_smem + e.reserved_smem, key
        assert g.static_smem == e.static_smem, key
        assert g.local_bytes == e.local_bytes, key
        assert g.const_bytes == e.const_bytes, key


@pytest.mark.parametrize("binary", BINARIES)
def test_binary_reader_matches_committed_cuobjdump_output(binary):
    _compare_with_cuobjdump_text((GEN / f"{binary}.cuobjdump.txt").read_text(), binary)


@pytest.mark.parametrize("binary", BINARIES)
def test_binary_reader_matches_installed_cuobjdump(binary):
    tool = find_cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump not installed")
    out = subprocess.run(
        [tool, "--dump-resource-usage", str(GEN / binary)], capture_output=True, text=True, check=True
    ).stdout
    _compare_with_cuobjdump_text(out, binary)


def test_cuobjdump_text_import():
    recs = kernels(import_file(GEN / "b_host.o.cuobjdump.txt"))
    cl = recs[("_Z14cluster_kernelPj", "sm_120")]
    assert (cl.registers, cl.static_smem, cl.reserved_smem, cl.const_bytes) == (12, 128, 1024, 904)
    assert recs[("_Z12spill_kernelPKfPfi", "sm_75")].local_bytes == 144


_OWN_SMEM_DUMP = """
Fatbin elf code:
================
arch = {arch}
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function _Z8own_smemPf:
  REG:10 STACK:0 SHARED:{shared} LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


@pytest.mark.parametrize(
    ("arch", "shared", "noted"),
    [
        ("sm_90a", 2048, "relocatable (-rdc)"),
        ("sm_100", 1024, "relocatable (-rdc)"),
        ("sm_90a", 512, None),
        ("sm_80", 2048, None),
        (None, 2048, "no named architecture"),
        (None, 512, None),
    ],
)
def test_cuobjdump_text_says_where_it_assumed_a_linked_image(tmp_path, arch, shared, noted):
    """cuobjdump prints a 2,048-byte kernel of a -rdc object as SHARED:2048, and linked as SHARED:3072
    (measured with CUDA 13.5): the text alone cannot tell them apart, so the split is said; and where
    it names no architecture (a bare cubin), that SHARED was kept whole."""
    dump = tmp_path / "usage.txt"
    text = _OWN_SMEM_DUMP.format(arch=arch, shared=shared)
    dump.write_text(text if arch else text.replace("arch = None\n", ""))
    result = import_file_detailed(dump)
    (rec,) = result.records
    assert rec.static_smem + rec.reserved_smem == shared and (arch is not None or rec.arch == "unknown")
    assert len(result.notes) == (noted is not None)
    if noted:
        assert noted in result.notes[0] and str(dump) in result.notes[0]


@pytest.mark.parametrize("encoding", sorted(WINDOWS_SAVES))
@pytest.mark.parametrize("fname", ["b_host.o.cuobjdump.txt", "a.fatbin.cuobjdump.txt"])
def test_cuobjdump_text_windows_encodings_read_like_utf8(tmp_path, fname, encoding):
    # PowerShell 5 redirects `cuobjdump --dump-resource-usage x > usage.txt` as UTF-16LE with a BOM.
    text = (GEN / fname).read_bytes().decode()
    plain, encoded = save_both_ways(tmp_path, fname, text, WINDOWS_SAVES[encoding])
    expected = import_file(plain)
    assert expected and {r.arch for r in expected} != {"unknown"}
    assert import_file(encoded) == expected  # archs from the "Fatbin"/"arch =" lines, source lines


def test_lz4_overlapping_match_and_bound():
    # "ab", then a long match at offset 2 (it overlaps its own output), then the closing literals.
    packed = bytes([0x2F]) + b"ab" + bytes([2, 0, 59]) + bytes([0x50]) + b"xyzzy"
    plain = b"ab" * 40 + b"xyzzy"
    assert lz4_block_decompress(packed, len(plain)) == plain
    with pytest.raises(ValueError, match=f"beyond the declared {len(plain) - 1} bytes"):
        lz4_block_decompress(packed, len(plain) - 1)
