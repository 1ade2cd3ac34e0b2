"""Where else AMD code sits: a Windows PE image's ``.hip_fat`` section, bundles and code objects a library
embeds in its data, an archive member that is a bundle file; and the ELF header's target encoding for every
processor and both feature encodings, generic targets included."""

from __future__ import annotations

import struct

import pytest

from occupancy_gui.importers import import_file_detailed
from occupancy_gui.importers.amd.json_rows import amd_record_json
from occupancy_gui.importers.amd.target import MACHS, generic_version, target_id, vgpr_encoding_granule

from ..conftest import DATA
from ..test_pe import pe_file
from .test_host_binaries import _ccob

AMD = DATA / "amd"


def _rows(path) -> list[dict]:
    return sorted(
        (dict(amd_record_json(r), source="") for r in import_file_detailed(path).amd_records),
        key=lambda r: (r["target"], r["name"]),
    )


@pytest.fixture(scope="module")
def bundle() -> bytes:
    """The committed host object's .hip_fatbin: a plain bundle of gfx942 and gfx1100."""
    from tests.fuzz.harness import seeds

    return seeds("amd_bundle")[0]


def test_a_pe_image_by_its_section_table(bundle, tmp_path):
    path = tmp_path / "kernels.dll"
    path.write_bytes(pe_file([(b".text", bytes(600)), (b".hip_fat", bundle)]))
    plain = tmp_path / "k.hipfb"
    plain.write_bytes(bundle)
    assert _rows(path) == _rows(plain) and len(_rows(path)) == 6
    assert all(":.hip_fat bundle 1" in r.source for r in import_file_detailed(path).amd_records)


@pytest.mark.parametrize("what", ["bundle", "ccob", "code_object"])
def test_code_a_library_embeds_in_its_data(bundle, what, tmp_path):
    """A bundle, a compressed bundle or a bare code object in a data section (hipModuleLoadData's input),
    between bytes that only look like magic: found, read whole, named embedded."""
    payload = {"bundle": bundle, "ccob": _ccob(bundle, 3, 1), "code_object": (AMD / "gfx942.co").read_bytes()}[what]
    decoys = b"CCOB\x03\x00\x01\x00" + bytes(40) + b"__CLANG_OFFLOAD_BUNDLE__" + bytes(16) + b"\x7fELF\x02\x01\x01\x40"
    data = decoys + bytes(13) + payload + decoys
    path = tmp_path / "lib.dll"
    path.write_bytes(pe_file([(b".text", bytes(600)), (b".rdata", data)]))
    records = import_file_detailed(path).amd_records
    assert len(records) == (3 if what == "code_object" else 6)
    assert all(":.rdata (embedded @0x" in r.source for r in records)


def test_a_bundle_file_in_an_archive(bundle, tmp_path):
    from tests.fuzz.harness import _ar

    path = tmp_path / "libk.a"
    path.write_bytes(_ar((b"/", struct.pack(">I", 0)), (b"k.hipfb/", bundle), (b"notes.txt/", b"hello")))
    records = import_file_detailed(path).amd_records
    assert len(records) == 6 and all(r.source.startswith("libk.a(k.hipfb) bundle 1") for r in records)


def test_target_ids_from_e_flags():
    # v4+: two bits a feature (0 unsupported, 1 any, 2 off, 3 on); any and unsupported are left out
    assert target_id(0x54C, 5) == "gfx942"
    assert target_id(0x4C | 0xC00 | 0x200, 5) == "gfx942:sramecc+:xnack-"
    assert target_id(0x3F | 0x300, 4) == "gfx90a:xnack+"
    assert target_id(0x41, 6) == "gfx1100"
    # v2/v3: one bit a feature, on or any; a processor with the feature and the bit clear has it off
    assert target_id(0x2F | 0x300, 3) == "gfx906:sramecc+:xnack+"
    assert target_id(0x2F, 3) == "gfx906:sramecc-:xnack-"
    assert target_id(0x36, 3) == "gfx1030"
    # generic targets, with their version in bits 24-31 (v6)
    assert target_id(0x5F | 0x100 | 0x400 | (1 << 24), 6) == "gfx9-4-generic" and generic_version(1 << 24) == 1
    assert target_id(0x59, 6) == "gfx12-generic" and target_id(0x7F, 5) == "mach 0x7f"
    assert len(MACHS) == 60 and MACHS[0x4F] == "gfx950" and MACHS[0x5B] == "gfx12-5-generic"


def test_vgpr_encoding_granules():
    # LLVM's AMDGPU::IsaInfo::getVGPREncodingGranule: 8 on gfx90a+ CDNA, 16/8 on gfx125x, else 8/4
    assert [
        vgpr_encoding_granule(a, w)
        for a, w in (
            ("gfx942", False),
            ("gfx950", True),
            ("gfx9-4-generic", False),
            ("gfx908", False),
            ("gfx1100", True),
            ("gfx1100", False),
            ("gfx1250", True),
            ("gfx1250", False),
        )
    ] == [8, 8, 8, 4, 8, 4, 16, 8]
