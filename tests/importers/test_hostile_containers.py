"""Fatbins from strangers: honest-looking containers with hostile sizes, counts, padding and
compression.  Each import ends (records or a one-line ImportFailure naming a byte of the file) in
bounded memory; a cancel is heard; progress follows the bytes reached."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from occupancy_gui.importers import ImportCancelled, ImportFailure, import_file_detailed
from occupancy_gui.importers.binary import budget, fatbin, inflate
from occupancy_gui.importers.binary.fatbin import FATBIN_MAGIC, FLAG_COMPRESSED_ZSTD, KIND_ELF
from occupancy_gui.importers.json_rows import record_json

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"
ROOT = Path(__file__).resolve().parents[2]


def container(*images: tuple[bytes, int], arch: int = 80) -> bytes:
    """One fatbin container of zstd-flagged ELF entries, each (frame, declared uncompressed size)."""
    body = b""
    for packed, declared in images:
        entry = struct.pack("<HHIQ", KIND_ELF, 0x101, 64, len(packed))
        entry += struct.pack("<IIHHIIIQQQ", len(packed), 0, 8, 1, arch, 0, 0, FLAG_COMPRESSED_ZSTD | 0x11, 0, declared)
        body += entry + packed
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


@pytest.fixture(scope="module")
def cubin() -> bytes:
    return (GEN / "a_sm80.cubin").read_bytes()


@pytest.fixture(scope="module")
def frame(cubin: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=19).compress(cubin)


def zeros_frame(size: int) -> bytes:
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    chunk = bytes(1 << 20)
    return b"".join([compressor.compress(chunk) for _ in range(size >> 20)] + [compressor.flush()])


def peak_rss_of_import(path: Path) -> tuple[int, str]:
    """Peak RSS (MiB) of a child process that imports ``path`` (its ``VmHWM``: ``ru_maxrss`` would
    count the pytest process the child was forked from), and what it printed."""
    code = (
        "import sys\nfrom occupancy_gui.importers import import_file_detailed, ImportFailure\n"
        "try:\n    print(len(import_file_detailed(sys.argv[1]).records))\n"
        "except ImportFailure as exc:\n    print(exc)\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
        "print(int(hwm) >> 10)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True
    )
    out, peak = proc.stdout.strip().rsplit("\n", 1)
    return int(peak), out


def test_eight_honest_gigabyte_entries_are_refused_in_bounded_memory(tmp_path: Path) -> None:
    """The issue's 280 KB file of 8 x 1 GiB zero images reached 8.4 GB RSS: now a one-line refusal at
    the second entry, whose gigabyte would pass the import's budget of what it holds at once (claimed
    before anything inflates), and the child stays small."""
    one = zeros_frame(1 << 30)
    path = tmp_path / "eight.fatbin"
    path.write_bytes(container(*[(one, 1 << 30)] * 8))
    assert path.stat().st_size < 400_000
    peak, out = peak_rss_of_import(path)
    second = 16 + 64 + len(one)
    assert f"{path}: at byte {second + 56}" in out and "budget of 1073741824 bytes held at once" in out, out
    assert peak < 400, f"peak RSS {peak} MiB"


def padded_cubin(cubin: bytes, size: int) -> bytes:
    """``cubin`` followed by zeros up to ``size`` bytes: a valid image (nothing in an ELF points past its
    tables) that inflates as a kernel's large initialised ``__device__`` array does."""
    return cubin + bytes(size - len(cubin))


@pytest.mark.parametrize("codec", ["zstd", "lz4"])
def test_an_honest_64_mib_image_imports_whatever_its_ratio(tmp_path: Path, cubin: bytes, codec: str) -> None:
    """The ratio rule refused an image of 64 MiB from a few KB of zstd (more than 2,048x): a real build's
    large initialised array does that.  The budget bounds what is held, not the ratio: it imports, as the
    cubin does, in memory of about the image's size."""
    import lz4.block

    image = padded_cubin(cubin, 64 << 20)
    if codec == "zstd":
        packed, flag = zstandard.ZstdCompressor(level=3).compress(image), FLAG_COMPRESSED_ZSTD
    else:
        packed, flag = lz4.block.compress(image, store_size=False), fatbin.FLAG_COMPRESSED_LZ4
    assert len(image) > 2048 * len(packed) or codec == "lz4"
    body = struct.pack("<HHIQ", KIND_ELF, 0x101, 64, len(packed))
    body += struct.pack("<IIHHIIIQQQ", len(packed), 0, 8, 1, 80, 0, 0, flag | 0x11, 0, len(image)) + packed
    path = tmp_path / f"big_{codec}.fatbin"
    path.write_bytes(struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body)
    peak, out = peak_rss_of_import(path)
    assert out == str(len(import_file_detailed(GEN / "a_sm80.cubin").records)), out
    assert peak < 64 + 200, f"peak RSS {peak} MiB"


def test_an_image_past_the_held_budget_is_refused_before_it_inflates(tmp_path: Path, cubin: bytes, monkeypatch) -> None:
    """The budget is the one limit: an image larger than what an import may hold is refused, naming it."""
    image = padded_cubin(cubin, 4 << 20)
    path = tmp_path / "big.fatbin"
    path.write_bytes(container((zstandard.ZstdCompressor(level=3).compress(image), len(image))))
    assert import_file_detailed(path).records
    monkeypatch.setattr(budget, "HELD_LIMIT", 1 << 20)
    monkeypatch.setattr(budget.InflateBudget.__init__, "__defaults__", (1 << 20,))
    with pytest.raises(
        ImportFailure,
        match=r"declares 4194304 uncompressed bytes, more than the import's budget "
        r"of 1048576 bytes held at once",
    ) as info:
        import_file_detailed(path)
    assert info.value.offset == 16 + 56


def test_the_total_inflated_bytes_are_capped(tmp_path: Path, frame: bytes, cubin: bytes, monkeypatch) -> None:
    monkeypatch.setattr(budget, "MIN_TOTAL", 3 * len(cubin))
    monkeypatch.setattr(budget, "TOTAL_PER_INPUT_BYTE", 0)
    path = tmp_path / "many.fatbin"
    path.write_bytes(container(*[(frame, len(cubin))] * 4))
    with pytest.raises(ImportFailure, match=r"inflates to more than \d+ bytes in all") as info:
        import_file_detailed(path)
    assert "\n" not in str(info.value) and 0 < info.value.offset < path.stat().st_size
    path.write_bytes(container(*[(frame, len(cubin))] * 3))
    assert import_file_detailed(path).records


def test_a_small_inflight_budget_reads_the_same(tmp_path: Path, frame: bytes, cubin: bytes, monkeypatch) -> None:
    """Images held back by the budget inflate in their turn: the records are the same, and no more
    than one image beyond the budget is ever pending."""
    path = tmp_path / "three.fatbin"
    path.write_bytes(container(*[(frame, len(cubin))] * 3) * 3)
    expected = import_file_detailed(path).records
    monkeypatch.setattr(inflate, "INFLIGHT_BUDGET", len(cubin) + 1)
    seen: list[int] = []
    real = inflate.Decoding._pump

    def spy(self: inflate.Decoding) -> None:
        real(self)
        seen.append(self.pending)

    monkeypatch.setattr(inflate.Decoding, "_pump", spy)
    assert import_file_detailed(path).records == expected
    assert seen and max(seen) <= len(cubin) + 1


def test_long_zero_padding_between_containers(tmp_path: Path, frame: bytes, cubin: bytes) -> None:
    """Padding is skipped at C speed (it was 9.7 s a MB, byte by byte)."""
    one = container((frame, len(cubin)))
    path = tmp_path / "padded.fatbin"
    with open(path, "wb") as out:
        out.write(one)
        out.truncate(len(one) + (48 << 20))  # 48 MiB of zeros, sparse
        out.seek(0, os.SEEK_END)
        out.write(one)
    (tmp_path / "one.fatbin").write_bytes(one)
    single = import_file_detailed(tmp_path / "one.fatbin").records
    records = import_file_detailed(path).records
    assert [r.name for r in records] == [r.name for r in single]
    assert all(r.copies == 2 for r in records)


def test_padding_to_the_end_of_the_file(tmp_path: Path, frame: bytes, cubin: bytes) -> None:
    one = container((frame, len(cubin)))
    path = tmp_path / "tail.fatbin"
    path.write_bytes(one + bytes(3 << 20))
    (tmp_path / "one.fatbin").write_bytes(one)
    assert len(import_file_detailed(path).records) == len(import_file_detailed(tmp_path / "one.fatbin").records)


def test_cancel_is_heard_and_progress_follows_the_file(tmp_path: Path, frame: bytes, cubin: bytes) -> None:
    path = tmp_path / "ten.fatbin"
    path.write_bytes(container((frame, len(cubin))) * 10)
    reached: list[tuple[int, int]] = []
    records = import_file_detailed(path, progress=lambda done, total: reached.append((done, total))).records
    assert records and reached
    assert [d for d, _ in reached] == sorted(d for d, _ in reached)
    assert all(total == path.stat().st_size for _, total in reached)
    assert reached[-1][0] > path.stat().st_size * 0.8
    calls = 0

    def cancel() -> bool:
        nonlocal calls
        calls += 1
        return calls > 3

    with pytest.raises(ImportCancelled):
        import_file_detailed(path, cancel=cancel)


def test_a_fatbin_of_only_unknown_kinds_says_so(tmp_path: Path) -> None:
    entry = struct.pack("<HHIQ", 7, 0x101, 64, 16) + bytes(48) + b"x" * 16
    path = tmp_path / "unknown.fatbin"
    path.write_bytes(struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(entry)) + entry)
    with pytest.raises(ImportFailure, match="kind 7"):
        import_file_detailed(path)


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_only_regular_files_are_read(tmp_path: Path, kind: str) -> None:
    """A FIFO used to block the import (and the window) forever waiting for a writer."""
    if kind == "fifo":
        path = tmp_path / "pipe.cubin"
        os.mkfifo(path)
        expected = "FIFO"
    elif kind == "directory":
        path = tmp_path / "folder.fatbin"
        path.mkdir()
        expected = "directory"
    else:
        path = Path("/dev/zero")
        expected = "character device"
    with pytest.raises(ImportFailure, match=expected) as info:
        import_file_detailed(path)
    assert "\n" not in str(info.value) and str(info.value).startswith(str(path))


def test_the_command_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "build.log"
    os.mkfifo(path)
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", "import", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == f"occupancy import: error: {path}: a FIFO (named pipe), not a file: only "
        "regular files are imported"
    )


@pytest.mark.parametrize("importer", ["ptxas_log", "ncu_csv", "cuobjdump_text", "cubin", "fatbin"])
def test_each_importer_refuses_a_fifo(tmp_path: Path, importer: str) -> None:
    """Called directly (a file replaced by a FIFO after the format was sniffed)."""
    from occupancy_gui.importers import IMPORTERS

    path = tmp_path / "swapped"
    os.mkfifo(path)
    with pytest.raises(ImportFailure, match="FIFO"):
        IMPORTERS[importer](path)


def patched_cubin(what: str) -> bytes:
    """a_sm80.cubin with one figure no GPU can have: a module REGCOUNT of 0xFFFFFFFF, or a kernel's
    ``.nv.shared`` of 2^63 bytes."""
    from occupancy_gui.importers.binary.blob import Blob
    from occupancy_gui.importers.binary.elf import Elf

    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    elf = Elf(Blob(bytes(data), "a_sm80.cubin"))
    if what == "registers":
        info = elf.find(".nv.info")
        assert info is not None
        for at in range(info.offset, info.offset + info.size, 12):
            if data[at : at + 4] == b"\x04\x2f\x08\x00":
                struct.pack_into("<I", data, at + 8, 0xFFFFFFFF)
                break
        else:
            raise AssertionError("no REGCOUNT entry")
    else:
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        (entsize,) = struct.unpack_from("<H", data, 0x3A)
        index = next(i for i, sec in enumerate(elf.sections) if sec.name == ".nv.shared._Z14named_barriersPf")
        struct.pack_into("<Q", data, shoff + index * entsize + 32, 1 << 63)
    return bytes(data)


@pytest.mark.parametrize(
    "what, reason",
    [("registers", "impossible registers 4294967295"), ("smem", "impossible static smem 9223372036854775808")],
)
def test_an_impossible_figure_is_flagged_and_the_rest_imports(tmp_path: Path, what: str, reason: str) -> None:
    from occupancy_gui.importers.records import impossible_figure

    path = tmp_path / "absurd.cubin"
    path.write_bytes(patched_cubin(what))
    records = import_file_detailed(path).records
    sane = import_file_detailed(GEN / "a_sm80.cubin").records
    assert len(records) == len(sane)
    flagged = [r for r in records if impossible_figure(r)]
    assert len(flagged) == 1 and impossible_figure(flagged[0]).startswith(reason)
    assert record_json(flagged[0])["impossible"] == impossible_figure(flagged[0])
    proc = subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", "import", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "IMPOSSIBLE" in proc.stdout and reason in proc.stderr


def test_impossible_figure_limits() -> None:
    from occupancy_gui.importers.records import KernelRecord, impossible_figure

    assert impossible_figure(KernelRecord("k", "sm_90", 255, static_smem=48 << 10, barriers=16)) is None
    assert "registers 256" in impossible_figure(KernelRecord("k", "sm_90", 256))
    assert "barriers 17" in impossible_figure(KernelRecord("k", "sm_90", 32, barriers=17))
    assert "registers -12" in impossible_figure(KernelRecord("k", "sm_90", -12))
    assert "a 31-digit number" in impossible_figure(KernelRecord("k", "sm_90", 10**30))


def test_a_sparse_six_gigabyte_cubin_costs_what_its_tables_do(tmp_path: Path) -> None:
    """It used to be read whole (6.3 GB RSS): now only the parsed sections are loaded."""
    cubin = (GEN / "a_sm80.cubin").read_bytes()
    path = tmp_path / "sparse.cubin"
    with open(path, "wb") as out:
        out.write(cubin)
        out.truncate(6 << 30)  # 6 GiB, a hole after the real image
    peak, out = peak_rss_of_import(path)
    assert out == str(len(import_file_detailed(GEN / "a_sm80.cubin").records)), out
    assert peak < 200, f"peak RSS {peak} MiB"


def test_a_section_claiming_gigabytes_is_refused_without_reading_it(tmp_path: Path) -> None:
    """A symbol table that claims 5 GiB (inside a sparse file) is refused before it is read."""
    from occupancy_gui.importers.binary.blob import Blob
    from occupancy_gui.importers.binary.elf import SHT_SYMTAB, Elf

    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    elf = Elf(Blob(bytes(data), "a.cubin"))
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    (entsize,) = struct.unpack_from("<H", data, 0x3A)
    index = next(sec.index for sec in elf.sections if sec.type == SHT_SYMTAB)
    struct.pack_into("<QQ", data, shoff + index * entsize + 24, len(data), 5 << 30)  # offset, size
    path = tmp_path / "claims.cubin"
    with open(path, "wb") as out:
        out.write(data)
        out.truncate(len(data) + (5 << 30) + 4096)
    peak, out = peak_rss_of_import(path)
    assert "claims 5368709120 bytes" in out and out.startswith(f"{path}: at byte "), out
    assert peak < 200, f"peak RSS {peak} MiB"


@pytest.mark.slow  # writes and reads a 2 GiB sparse member
def test_a_static_library_costs_its_headers_and_fatbins_not_its_size(tmp_path: Path) -> None:
    """An archive was loaded whole and then copied (twice its size in memory): a 2 GiB member of
    zeros (a sparse hole) beside a real host object now costs what is parsed."""
    host = (GEN / "b_host.o").read_bytes()

    def member(name: bytes, size: int) -> bytes:
        return (
            name.ljust(16)
            + b"0".ljust(12)
            + b"0".ljust(6)
            + b"0".ljust(6)
            + b"644".ljust(8)
            + str(size).encode().ljust(10)
            + b"`\n"
        )

    path = tmp_path / "libbig_static.a"
    hole = 2 << 30
    with open(path, "wb") as out:
        out.write(b"!<arch>\n" + member(b"k.o/", len(host)) + host + (b"\n" if len(host) % 2 else b""))
        out.write(member(b"zeros.o/", hole))
        out.truncate(out.tell() + hole)
    peak, out_text = peak_rss_of_import(path)
    assert out_text == str(len(import_file_detailed(GEN / "b_host.o").records)), out_text
    assert peak < 200, f"peak RSS {peak} MiB"
