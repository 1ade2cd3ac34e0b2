"""Hostile and broken binaries: always ImportFailure with a byte offset, never another exception."""

from __future__ import annotations

import random
import struct

import pytest

from occupancy_gui.importers import ImportFailure, import_file_detailed
from occupancy_gui.importers.binary.cubin import read_cubin
from occupancy_gui.importers.binary.fatbin import read_fatbin_bytes
from occupancy_gui.importers.binary.host import read_host_binary

from .conftest import GEN


def load(tmp_path, data: bytes, name: str = "evil.bin"):
    path = tmp_path / name
    path.write_bytes(data)
    return import_file_detailed(path)


@pytest.mark.parametrize("cut", [17, 40, 64, 100, 0x800, -1500])
def test_truncated_cubin(tmp_path, cut):
    data = (GEN / "a_sm80.cubin").read_bytes()
    with pytest.raises(ImportFailure) as info:
        load(tmp_path, data[:cut], "t.cubin")
    assert info.value.offset is not None and "at byte" in str(info.value)


def test_section_beyond_eof(tmp_path):
    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    # Section 7 (.nv.info): point its offset far past the end.
    struct.pack_into("<Q", data, shoff + 7 * 64 + 24, len(data) + 4096)
    with pytest.raises(ImportFailure, match="runs past the end") as info:
        load(tmp_path, bytes(data), "x.cubin")
    assert info.value.offset == shoff + 7 * 64


def test_huge_section_count(tmp_path):
    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    struct.pack_into("<H", data, 0x3C, 0xFFFF)
    with pytest.raises(ImportFailure, match="section header table"):
        load(tmp_path, bytes(data), "x.cubin")


def test_nv_info_attribute_longer_than_section():
    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    info_off = struct.unpack_from("<Q", data, shoff + 7 * 64 + 24)[0]
    struct.pack_into("<H", data, info_off + 2, 0xFFF0)  # first SVAL claims 65520 bytes
    with pytest.raises(ImportFailure, match="claims 65520 bytes") as info:
        read_cubin(bytes(data), "x.cubin")
    assert info.value.offset == info_off


def test_fatbin_size_beyond_eof(tmp_path):
    data = bytearray((GEN / "a.fatbin").read_bytes())
    struct.pack_into("<Q", data, 8, 1 << 60)
    with pytest.raises(ImportFailure, match="claims") as info:
        load(tmp_path, bytes(data), "x.fatbin")
    assert info.value.offset == 8


def test_fatbin_entry_beyond_container():
    data = bytearray((GEN / "a.fatbin").read_bytes())
    struct.pack_into("<Q", data, 16 + 8, 1 << 40)
    with pytest.raises(ImportFailure, match="entry 1") as info:
        read_fatbin_bytes(bytes(data), "x.fatbin")
    assert info.value.offset == 16


def test_lz4_hostile_sizes():
    data = bytearray((GEN / "a_lz4.fatbin").read_bytes())
    struct.pack_into("<Q", data, 16 + 56, 1 << 40)  # uncompressed size of entry 1
    with pytest.raises(ImportFailure, match="more than the import's budget of 1073741824 bytes held at once"):
        read_fatbin_bytes(bytes(data), "x.fatbin")
    data = bytearray((GEN / "a_lz4.fatbin").read_bytes())
    struct.pack_into("<Q", data, 16 + 56, 100)  # too small: the stream overflows it
    with pytest.raises(ImportFailure, match="beyond the declared 100 bytes"):
        read_fatbin_bytes(bytes(data), "x.fatbin")


def test_host_object_with_broken_embedded_fatbin():
    data = bytearray((GEN / "b_host.o").read_bytes())
    at = data.find(struct.pack("<I", 0xBA55ED50))
    struct.pack_into("<Q", data, at + 8, 1 << 50)
    with pytest.raises(ImportFailure) as info:
        read_host_binary(bytes(data), "b.o")
    assert info.value.offset == at + 8


def test_elf_without_fatbin(tmp_path):
    with pytest.raises(ImportFailure, match="no CUDA fatbinary"):
        read_host_binary(b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(56), "h.o")


@pytest.mark.parametrize("fname", ["a_sm80.cubin", "a.fatbin", "a_lz4.fatbin", "b_host.o"])
def test_random_corruption_only_raises_import_failure(tmp_path, fname):
    original = (GEN / fname).read_bytes()
    rng = random.Random(fname)
    for trial in range(150):
        data = bytearray(original)
        for _ in range(rng.choice([1, 4, 32])):
            pos = rng.randrange(len(data))
            data[pos] = rng.randrange(256)
        if trial % 5 == 0:
            data = data[: rng.randrange(1, len(data))]
        path = tmp_path / f"fuzz_{trial}{'.o' if fname.endswith('.o') else ''}"
        path.write_bytes(bytes(data))
        try:
            import_file_detailed(path)
        except ImportFailure as exc:
            assert str(exc).startswith(str(path))
