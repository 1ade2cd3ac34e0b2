"""Fatbins outside the registered sections: listed where they parse whole, never invented.

The host object gets a data section (binutils ``objcopy --add-section``) holding a fatbin, a damaged
copy of it, or bytes that merely start like one.
"""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from occupancy_gui.importers import ImportFailure, import_file

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"
HOST, FATBIN = GEN / "b_host.o", GEN / "a.fatbin"
MAGIC = struct.pack("<I", 0xBA55ED50)

pytestmark = pytest.mark.skipif(shutil.which("objcopy") is None, reason="binutils objcopy is not installed")


def with_section(tmp_path: Path, payload: bytes, name: str = ".mydata") -> Path:
    blob, out = tmp_path / "payload.bin", tmp_path / "host.o"
    blob.write_bytes(payload)
    subprocess.run(
        [
            "objcopy",
            "--add-section",
            f"{name}={blob}",
            "--set-section-flags",
            f"{name}=alloc,load,readonly,data",
            str(HOST),
            str(out),
        ],
        check=True,
    )
    return out


def figures(records):
    return sorted((r.name, r.arch, r.registers, r.static_smem, r.local_bytes, r.barriers, r.is_kernel) for r in records)


def test_a_fatbin_in_a_data_section_is_listed_as_embedded(tmp_path):
    padding = b"\0" * 40  # not at the section's start
    path = with_section(tmp_path, padding + FATBIN.read_bytes() + b"tail")
    records = import_file(path)
    registered = [r for r in records if not r.embedded]
    embedded = [r for r in records if r.embedded]
    assert figures(registered) == figures(import_file(HOST))
    assert figures(embedded) == figures(import_file(FATBIN))
    assert all(":.mydata container 1 @0x" in r.source for r in embedded)


@pytest.mark.parametrize(
    "payload",
    [
        MAGIC + struct.pack("<HHQ", 1, 16, 64) + bytes(64),  # a header, then nothing a fatbin holds
        MAGIC + struct.pack("<HHQ", 1, 16, 1 << 40),  # claims more than the section
        (MAGIC + struct.pack("<HHQ", 1, 16, 0)) * 1000,  # empty containers
        MAGIC * 10_000,
    ],
)
def test_byte_patterns_alone_make_no_kernel(tmp_path, payload):
    records = import_file(with_section(tmp_path, payload))
    assert not [r for r in records if r.embedded]
    assert figures(records) == figures(import_file(HOST))


@pytest.mark.parametrize("seed", range(40))
def test_a_damaged_embedded_fatbin_is_all_or_nothing(tmp_path, seed):
    """Flip bytes in the headers and .nv.info-bearing first part of an embedded fatbin: the import
    never fails for it, and lists either none of its records or records that parsed whole."""
    rng = random.Random(seed)
    data = bytearray(FATBIN.read_bytes())
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(data)) if rng.random() < 0.5 else rng.randrange(min(len(data), 256))
        data[at] = rng.randrange(256)
    try:
        records = import_file(with_section(tmp_path, bytes(data)))
    except ImportFailure as exc:  # only the registered part may fail, and it is intact
        pytest.fail(f"an embedded candidate failed the import: {exc}")
    registered = [r for r in records if not r.embedded]
    assert figures(registered) == figures(import_file(HOST))
    for rec in records:
        if rec.embedded:
            assert rec.name and rec.arch.startswith("sm_") and rec.registers >= 0


def _container(rng: random.Random) -> bytes:
    """A container of 1-3 entries: PTX, LTO IR (kind 8), kind 3, now and then a real ELF image, a damaged
    header size or an entry that runs past the end."""
    entries = b""
    for _ in range(rng.randrange(1, 4)):
        kind = rng.choice([1, 8, 8, 3])
        payload = rng.randbytes(rng.randrange(0, 200))
        header = rng.choice([16, 64, 64])
        entry = struct.pack("<HHIQ", kind, 0x101, header, len(payload)) + bytes(header - 16) + payload
        damage = rng.randrange(12)
        if damage == 0:
            entry = struct.pack("<HHIQ", kind, 0x101, 8, len(payload)) + entry[16:]  # header size < 16
        elif damage == 1:
            entry = struct.pack("<HHIQ", kind, 0x101, header, len(payload) + 999) + entry[16:]  # runs past
        entries += entry
    if rng.random() < 0.2:
        image = FATBIN.read_bytes()
        entries += image[16:]  # a real container's entries: ELF images
    return MAGIC + struct.pack("<HHQ", 1, 16, len(entries)) + entries


def test_containers_without_images_are_counted_as_read_container_counts_them(monkeypatch):
    """The short walk over containers that hold no ELF image leaves what the full read leaves: the
    records, the containers found, and the entries by kind (the message of a file with no image)."""
    from occupancy_gui.importers.base import ImportResult
    from occupancy_gui.importers.binary import embedded
    from occupancy_gui.importers.binary.blob import Blob
    from occupancy_gui.importers.binary.inflate import Decoding

    rng = random.Random(20261202)
    data = b"".join(rng.randbytes(rng.randrange(0, 40)) + _container(rng) for _ in range(300))

    def read() -> tuple:
        work = Decoding(None, len(data))
        result = ImportResult()
        found = embedded.read_embedded(Blob(data, "x.bin"), 0, len(data), result, "x.bin", work)
        return found, [r.source for r in result.records], work.skipped

    short = read()
    monkeypatch.setattr(embedded, "entry_kinds_without_images", lambda *args: None)
    assert read() == short
    assert short[0] > 10 and short[2]["PTX"] > 50 and short[2]["LTO IR"] > 50


def _ptx_container(text: bytes) -> bytes:
    entry = struct.pack("<HHIQ", 1, 0x101, 64, len(text)) + bytes(48) + text
    return MAGIC + struct.pack("<HHQ", 1, 16, len(entry)) + entry


def test_a_container_inside_a_container_without_images_is_none(tmp_path):
    """The scan resumes past every container it reads, with images or without: a fatbin inside a PTX
    entry's text is that text, and the one after the PTX container is listed."""
    fat = FATBIN.read_bytes()
    path = with_section(tmp_path, bytes(24) + _ptx_container(b"x" * 40 + fat + b"y" * 8) + bytes(8) + fat)
    embedded = [r for r in import_file(path) if r.embedded]
    assert figures(embedded) == figures(import_file(FATBIN))
    assert {r.source.split(" @0x")[0] for r in embedded} == {"host.o:.mydata container 1"}


@pytest.mark.parametrize("chunk", [64, 100, 4096, 8 << 20])
def test_the_scan_resumes_where_it_is_told_in_bytes_and_in_chunks_read_from_a_file(tmp_path, monkeypatch, chunk):
    """Every header is found, in order, but none before an offset the caller skipped to; in a file the
    chunks read are cut at every kind of place (a header across two chunks, a skip past the chunk)."""
    from occupancy_gui.importers.binary import embedded
    from occupancy_gui.importers.binary.blob import Blob, FileImage
    from occupancy_gui.importers.binary.inflate import Decoding

    monkeypatch.setattr(embedded, "_SCAN_CHUNK", chunk)
    rng = random.Random(chunk)
    header = MAGIC + struct.pack("<HH", 1, 16)
    data = b"".join(rng.randbytes(rng.randrange(0, 90)) + header for _ in range(400))
    hits = [i for i in range(len(data)) if data.startswith(header, i)]
    skips = {at: at + rng.randrange(0, 400) for at in rng.sample(hits, 60)}
    expected, resume = [], 0
    for at in hits:
        if at >= resume:
            expected.append(at)
            resume = max(resume, skips.get(at, 0))
    (tmp_path / "f").write_bytes(data)
    with open(tmp_path / "f", "rb") as stream:
        for blob in (
            Blob(data, "f"),
            Blob(FileImage(stream, len(data), "f").view, "f", image=FileImage(stream, len(data), "f")),
        ):
            scan = embedded.MagicScan(blob, 0, len(data), Decoding(None, len(data)))
            got = []
            for at in scan:
                got.append(at)
                scan.skip_to(skips.get(at, 0))
            assert got == expected
