"""Binaries read on demand (``FileImage``): the same records as a whole-file read, fewer bytes read."""

from __future__ import annotations

import io
import mmap
from pathlib import Path

import pytest

from occupancy_gui.importers.base import ImportFailure
from occupancy_gui.importers.binary.blob import FileImage
from occupancy_gui.importers.binary.fatbin import read_fatbin_bytes
from occupancy_gui.importers.binary.host import read_host_binary
from occupancy_gui.importers.binary.reader import import_fatbin_detailed

from .conftest import GEN

BINARIES = sorted(p for p in GEN.iterdir() if p.suffix in (".fatbin", ".o", ".cubin"))


class CountingStream(io.BytesIO):
    """A file that counts the bytes read out of it."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.read_bytes = 0
        self.reads = 0

    def readinto(self, buffer) -> int:
        got = super().readinto(buffer)
        self.read_bytes += got
        self.reads += 1
        return got


def _whole_file(path: Path):
    data = path.read_bytes()
    if data[:4] == b"\x50\xed\x55\xba":
        return read_fatbin_bytes(data, str(path))
    return read_host_binary(data, str(path))


@pytest.mark.parametrize("path", BINARIES, ids=lambda p: p.name)
def test_on_demand_reading_gives_the_whole_file_records(path):
    assert BINARIES, "no binary fixtures found"
    assert import_fatbin_detailed(path).records == _whole_file(path).records


def test_a_host_object_reads_less_than_the_whole_file():
    data = (GEN / "b_host.o").read_bytes()
    stream = CountingStream(data)
    image = FileImage(stream, len(data), "b_host.o")
    records = read_host_binary(image.view, "b_host.o", image=image).records
    assert records == read_host_binary(data, "b_host.o").records
    assert 0 < stream.read_bytes < len(data)


def test_ranges_are_read_once_and_merged():
    """Reads are of whole pages (the pages a read touches are committed anyway), each page once."""
    page = mmap.PAGESIZE
    data = bytes(range(256)) * (4 * page // 256 + 1)  # four pages and a bit
    stream = CountingStream(data)
    image = FileImage(stream, len(data), "f")
    image.load(100, 50)
    assert (stream.reads, stream.read_bytes) == (1, page)
    image.load(120, 10)  # inside the first page: no read
    image.load(page - 10, 10)
    assert stream.reads == 1
    image.load(page - 10, 20)  # runs into the second page: read, then one merged range
    image.load(0, 2 * page)
    image.load(10, page)
    assert stream.reads == 2
    assert bytes(image.buffer[: 2 * page]) == data[: 2 * page]
    assert not image.covers(2 * page, 1)
    image.load(len(data) - 10, 100)  # clipped to the file
    assert bytes(image.buffer[-10:]) == data[-10:]
    assert image.covers(4 * page, len(data) - 4 * page) and not image.covers(3 * page, 1)


def test_a_file_that_shrinks_while_read_is_a_one_line_error():
    data = (GEN / "a.fatbin").read_bytes()
    stream = CountingStream(data[:200])  # the file was cut after it was opened
    image = FileImage(stream, len(data), "a.fatbin")
    with pytest.raises(ImportFailure) as info:
        read_fatbin_bytes(image.view, "a.fatbin", image=image)
    message = str(info.value)
    assert message.startswith("a.fatbin: at byte ") and "shorter" in message and "\n" not in message
