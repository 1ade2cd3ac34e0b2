"""Crafted containers: static libraries (ar archives), damaged fatbin/ELF headers and zstd entries
that are corrupt or inflate far beyond what their header declares."""

from __future__ import annotations

import struct
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
import zstandard

from occupancy_gui.importers import ImportFailure, detect_format, import_file, import_file_detailed
from occupancy_gui.importers.binary.cubin import read_cubin
from occupancy_gui.importers.binary.fatbin import (
    FATBIN_MAGIC,
    FLAG_COMPRESSED_ZSTD,
    KIND_ELF,
    MAX_IMAGE,
    read_fatbin_bytes,
)

from .conftest import GEN


def ar_member(name: bytes, body: bytes) -> bytes:
    header = name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8)
    header += str(len(body)).encode().ljust(10) + b"`\n"
    return header + body + (b"\n" if len(body) % 2 else b"")


def gnu_archive(*members: tuple[bytes, bytes]) -> bytes:
    table = b"".join(name + b"/\n" for name, _ in members)
    out = b"!<arch>\n" + ar_member(b"/", struct.pack(">I", 0)) + ar_member(b"//", table)
    at = 0
    for name, body in members:
        out += ar_member(b"/%d" % at, body)
        at += len(name) + 2
    return out


def test_static_library_members(tmp_path):
    host_o = (GEN / "b_host.o").read_bytes()
    lib = tmp_path / "libkernels.a"
    lib.write_bytes(
        gnu_archive(
            (b"a_very_long_member_name_host_only.o", b"\x7fELF" + bytes(60)),
            (b"kernels_b_with_device_code.o", host_o),
            (b"odd.o", b"xyz"),
        )
    )
    assert detect_format(lib, lib.read_bytes()[:65536]) == "host_binary"
    recs = import_file(lib)
    assert {r.arch for r in recs} == {"sm_75", "sm_120"}
    assert recs[0].source.startswith("libkernels.a(kernels_b_with_device_code.o):.nv_fatbin container 1 @0x")
    assert len(recs) == len(import_file(GEN / "b_host.o"))


def test_bsd_names_and_fatbin_member(tmp_path):
    fat = (GEN / "a.fatbin").read_bytes()
    name = b"device_code.fatbin"
    lib = tmp_path / "bsd.a"
    lib.write_bytes(b"!<arch>\n" + ar_member(b"#1/%d" % len(name), name + fat))
    recs = import_file(lib)
    assert {r.arch for r in recs} == {"sm_80", "sm_90"}
    assert recs[0].source.startswith("bsd.a(device_code.fatbin) container 1 @0x56: fatbin entry 1")


def test_archive_without_device_code(tmp_path):
    lib = tmp_path / "host.a"
    lib.write_bytes(gnu_archive((b"main.o", b"\x7fELF" + bytes(60))))
    with pytest.raises(ImportFailure, match="no CUDA device code in any of the archive's 3 members"):
        import_file(lib)


@pytest.mark.parametrize(
    "damage,match",
    [
        (lambda a: a[: len(a) - 100], "runs past the end of the archive"),
        (lambda a: a[: 8 + 58] + b"XX" + a[8 + 60 :], "no end marker"),
        (lambda a: a[: 8 + 48] + b"12ab      " + a[8 + 58 :], "is not a number"),
        (lambda a: a[: 8 + 30], "ar member header"),
    ],
)
def test_damaged_archives(tmp_path, damage, match):
    lib = tmp_path / "bad.a"
    lib.write_bytes(damage(gnu_archive((b"k.o", (GEN / "b_host.o").read_bytes()))))
    with pytest.raises(ImportFailure, match=match) as info:
        import_file_detailed(lib)
    assert info.value.offset is not None


def test_damaged_member_reports_its_offset_in_the_archive(tmp_path):
    host_o = bytearray((GEN / "b_host.o").read_bytes())
    at = host_o.find(struct.pack("<I", 0xBA55ED50))
    struct.pack_into("<Q", host_o, at + 8, 1 << 50)
    archive = gnu_archive((b"k.o", bytes(host_o)))
    lib = tmp_path / "bad_member.a"
    lib.write_bytes(archive)
    with pytest.raises(ImportFailure) as info:
        import_file_detailed(lib)
    member_at = archive.find(b"\x7fELF")
    assert info.value.offset == member_at + at + 8


def test_overlapping_sections_are_read_as_declared():
    # Point .nv.info's range at the section header table: the bytes are read, whatever they are,
    # and any damage is an ImportFailure.
    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    struct.pack_into("<Q", data, shoff + 7 * 64 + 24, shoff)
    try:
        read_cubin(bytes(data), "x.cubin")
    except ImportFailure as exc:
        assert exc.offset is not None


def test_zero_section_count_and_truncated_headers():
    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    struct.pack_into("<H", data, 0x3C, 0)  # e_shnum 0: the count would be in section 0's sh_size
    struct.pack_into("<Q", data, struct.unpack_from("<Q", data, 0x28)[0] + 32, 1 << 40)
    with pytest.raises(ImportFailure, match="section header table"):
        read_cubin(bytes(data), "x.cubin")
    fat = (GEN / "a.fatbin").read_bytes()
    for cut in (3, 12, 16 + 10):
        with pytest.raises(ImportFailure, match="beyond the end|claims|runs past"):
            read_fatbin_bytes(fat[:cut], "x.fatbin")


@pytest.mark.parametrize(
    "offset,fmt,value,match",
    [
        (6, "<H", 8, "header size 8 is smaller than 16"),
        (16 + 4, "<I", 4, "entry 1 header size 4"),
        (16 + 4, "<I", 0xFFFFFFF0, "runs past the end of its container"),
    ],
)
def test_bad_fatbin_header_fields(offset, fmt, value, match):
    data = bytearray((GEN / "a.fatbin").read_bytes())
    struct.pack_into(fmt, data, offset, value)
    with pytest.raises(ImportFailure, match=match):
        read_fatbin_bytes(bytes(data), "x.fatbin")


@pytest.mark.parametrize("csize", [1 << 31, 7, 0])
def test_bad_compressed_sizes(csize):
    # Beyond the entry (clamped to it: the padding then breaks the LZ4 stream), too short, absent.
    data = bytearray((GEN / "a_lz4.fatbin").read_bytes())
    struct.pack_into("<I", data, 16 + 16, csize)
    with pytest.raises(ImportFailure, match="fatbin entry 1 \\(ELF sm_80\\): LZ4") as info:
        read_fatbin_bytes(bytes(data), "x.fatbin")
    assert info.value.offset is not None


# -- zstd-compressed fatbin entries (flag 0x8000, CUDA 12.8+ -compress-all) -------------------------

_ENTRY_HEADER_SIZE = 64
_BOMB_CHUNK = 1 << 20
_BOMB_CHUNKS = 2048  # 2 GiB of zeros
_MEMORY_BOUND = 64 << 20


def zstd_fatbin(packed: bytes, declared: int, arch: int = 80) -> bytes:
    """One fatbin container with one zstd-flagged ELF entry whose header declares ``declared``
    uncompressed bytes; the other header fields are those nvcc 12.8 writes (see a_zstd.fatbin)."""
    flags = FLAG_COMPRESSED_ZSTD | 0x11
    entry = struct.pack("<HHIQ", KIND_ELF, 0x101, _ENTRY_HEADER_SIZE, len(packed))
    entry += struct.pack("<IIHHIIIQQQ", len(packed), 0, 8, 1, arch, 0, 0, flags, 0, declared)
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(entry) + len(packed)) + entry + packed


@pytest.fixture(scope="module")
def zeros_bomb() -> bytes:
    """2 GiB of zeros as one zstd frame of some 64 KiB, fed to the compressor 1 MiB at a time so
    that the test itself never holds what a careless reader would inflate."""
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    chunk = bytes(_BOMB_CHUNK)
    parts = [compressor.compress(chunk) for _ in range(_BOMB_CHUNKS)]
    parts.append(compressor.flush())
    return b"".join(parts)


@pytest.fixture(scope="module")
def cubin_frame() -> tuple[bytes, bytes]:
    """A real cubin and its zstd frame (with a checksum, as nvcc writes)."""
    cubin = (GEN / "a_sm80.cubin").read_bytes()
    return cubin, zstandard.ZstdCompressor(level=19, write_checksum=True).compress(cubin)


def failure_and_peak(path: Path) -> tuple[ImportFailure, int]:
    """The ImportFailure of importing ``path`` and the most Python memory held meanwhile."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        with pytest.raises(ImportFailure) as info:
            import_file_detailed(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return info.value, peak - base


def assert_one_line_at_a_byte(failure: ImportFailure, path: Path, size: int) -> None:
    """The message is one line naming the file, and its offset is a byte of that file."""
    message = str(failure)
    assert "\n" not in message and message.startswith(f"{path}: at byte ")
    assert failure.offset is not None and 0 <= failure.offset < size


def test_zstd_bomb_stops_at_the_declared_size(tmp_path, zeros_bomb):
    assert len(zeros_bomb) < _BOMB_CHUNK  # a bomb: 2 GiB out of this
    data = zstd_fatbin(zeros_bomb, 4096)
    path = tmp_path / "bomb.fatbin"
    path.write_bytes(data)
    failure, peak = failure_and_peak(path)
    assert peak < _MEMORY_BOUND
    assert_one_line_at_a_byte(failure, path, len(data))
    assert "zstd" in failure.reason and "4096" in failure.reason


@pytest.mark.parametrize("declared", [MAX_IMAGE + 1, (1 << 64) - 1])
def test_zstd_entry_declaring_an_implausible_size(tmp_path, zeros_bomb, declared):
    # Refused before inflating anything: declared sizes are the only bound a reader has.
    data = zstd_fatbin(zeros_bomb, declared)
    path = tmp_path / "huge.fatbin"
    path.write_bytes(data)
    failure, peak = failure_and_peak(path)
    assert peak < _MEMORY_BOUND
    assert_one_line_at_a_byte(failure, path, len(data))
    assert str(declared) in failure.reason


def test_crafted_zstd_entry_reads_like_its_cubin(tmp_path, cubin_frame):
    # The control for the damaged cases below: undamaged, the crafted container imports.
    cubin, frame = cubin_frame
    path = tmp_path / "ok.fatbin"
    path.write_bytes(zstd_fatbin(frame, len(cubin)))
    unsourced = lambda recs: [replace(r, source="") for r in recs]  # noqa: E731
    assert unsourced(import_file(path)) == unsourced(import_file(GEN / "a_sm80.cubin"))


@pytest.mark.parametrize(
    "damage",
    [
        lambda frame, size: (bytes(4) + frame[4:], size),  # not a zstd frame (magic number gone)
        lambda frame, size: (frame[: len(frame) // 2], size),  # truncated
        lambda frame, size: (
            frame[: len(frame) // 2] + bytes([frame[len(frame) // 2] ^ 0xFF]) + frame[len(frame) // 2 + 1 :],
            size,
        ),  # a flipped byte in a block
        lambda frame, size: (frame[:-1] + bytes([frame[-1] ^ 0xFF]), size),  # bad checksum
        lambda frame, size: (frame, size - 1),  # inflates beyond the declared size
        lambda frame, size: (frame, size + 1),  # inflates short of it
    ],
    ids=["magic", "truncated", "flipped", "checksum", "declared-short", "declared-long"],
)
def test_corrupt_zstd_entries(tmp_path, cubin_frame, damage):
    cubin, frame = cubin_frame
    packed, declared = damage(frame, len(cubin))
    data = zstd_fatbin(packed, declared)
    path = tmp_path / "corrupt.fatbin"
    path.write_bytes(data)
    failure, _ = failure_and_peak(path)
    assert_one_line_at_a_byte(failure, path, len(data))
    assert "fatbin entry 1 (ELF sm_80)" in failure.reason
