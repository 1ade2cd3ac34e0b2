"""Windows PE files (a CUDA ``.dll`` or ``.exe``): read by their section table as an ELF is, built here
byte by byte around the committed fatbin (the real DLL is ``test_vendor_libraries``'s)."""

from __future__ import annotations

import struct

from occupancy_gui.importers import import_file, import_file_detailed

from .conftest import GEN

FATBIN = (GEN / "a.fatbin").read_bytes()


def pe_file(sections: list[tuple[bytes, bytes]], table_at: int | None = None) -> bytes:
    """A PE image: DOS header, ``PE\\0\\0``, a COFF header with no optional header, the section table,
    then each section's raw data 512-aligned (``table_at``: where e_lfanew says the signature is)."""
    pe_at = 0x80
    header = bytearray(0x200)
    header[:2] = b"MZ"
    struct.pack_into("<I", header, 0x3C, pe_at if table_at is None else table_at)
    header[pe_at : pe_at + 4] = b"PE\0\0"
    struct.pack_into("<HH", header, pe_at + 4, 0x8664, len(sections))  # machine, section count
    struct.pack_into("<H", header, pe_at + 20, 0)  # no optional header
    body = bytearray()
    for i, (name, data) in enumerate(sections):
        offset = len(header) + len(body)
        struct.pack_into("<8sIIII", header, pe_at + 24 + 40 * i, name, len(data), 0x1000 * (i + 1), len(data), offset)
        body += data + bytes(-len(data) % 512)
    return bytes(header + body)


def test_registered_and_embedded_fatbins_as_in_an_elf(tmp_path):
    path = tmp_path / "kernels.dll"
    path.write_bytes(pe_file([(b".text", bytes(600)), (b".nv_fatb", FATBIN), (b".data", bytes(64) + FATBIN)]))
    records = import_file(path)
    registered = [r for r in records if not r.embedded]
    embedded = [r for r in records if r.embedded]
    fatbin = import_file(GEN / "a.fatbin")
    key = lambda r: (r.name, r.arch, r.registers, r.static_smem, r.local_bytes)  # noqa: E731
    assert sorted(map(key, registered)) == sorted(map(key, embedded)) == sorted(map(key, fatbin))
    assert all(":.nv_fatbin container" in r.source for r in registered)
    assert all(":.data" in r.source for r in embedded)


def test_damaged_headers_fall_back_to_the_scan(tmp_path):
    """A section table that does not check out is no failure: the whole file is scanned, as before."""
    many = bytearray(pe_file([(b".nv_fatb", FATBIN)]))
    struct.pack_into("<H", many, 0x80 + 6, 500)  # more sections than PE allows
    past = bytearray(pe_file([(b".nv_fatb", FATBIN)]))
    struct.pack_into("<I", past, 0x80 + 24 + 16, len(past))  # raw data runs past the end of the file
    for data in (pe_file([(b".nv_fatb", FATBIN)], table_at=1 << 30), bytes(many), bytes(past)):
        path = tmp_path / "odd.exe"
        path.write_bytes(data)
        assert {r.arch for r in import_file_detailed(path).records} == {r.arch for r in import_file(GEN / "a.fatbin")}
