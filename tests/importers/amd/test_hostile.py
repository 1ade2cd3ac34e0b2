"""AMD inputs from strangers: metadata notes declaring huge maps or nesting deep, bundles whose sizes lie,
compressed bundles that inflate past their budget, damaged ELF headers and descriptors.  Each import ends
in a one-line ImportFailure naming the file and a byte (``occupancy import``: exit code 2, no traceback),
in bounded time and memory."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import msgspec
import pytest
import zstandard

from occupancy_gui.importers import ImportCancelled, ImportFailure, import_file_detailed
from occupancy_gui.importers.amd import bundles
from occupancy_gui.importers.amd.bundles import Walk
from occupancy_gui.importers.amd.reader import read_amd

from .test_host_binaries import _ccob

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def code_object(matrix) -> bytes:
    return next(p for e, p in matrix["v5"].entries.items() if e.endswith("gfx942")).read_bytes()


def _note_at(data: bytes) -> tuple[int, int]:
    """(offset, size) of the metadata note's description in a code object (the first note section)."""
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    for i in range(shnum):
        _name, kind, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        if kind == 7:
            namesz, descsz, _type = struct.unpack_from("<III", data, offset)
            return offset + 12 + ((namesz + 3) & ~3), descsz
    raise AssertionError("no note")


def _with_note(data: bytes, desc: bytes) -> bytes:
    """``data`` with its metadata note's description replaced by ``desc`` (padded or cut to its size)."""
    at, size = _note_at(data)
    desc = desc[:size].ljust(size, b"\xc0")  # msgpack nil fills what is left
    return data[:at] + desc + data[at + size :]


def _cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "occupancy_gui.cli.main", "import", "--no-cache", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def _fails_in_one_line(path: Path, *words: str) -> str:
    proc = _cli(path)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(f"occupancy import: error: {path}: byte "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


HOSTILE_NOTES = {
    "huge-map": b"\x81\xaeamdhsa.kernels\xdd\xff\xff\xff\xff" + b"\x80" * 32,
    "huge-string": b"\x81\xaeamdhsa.kernels\x91\x81\xa5.name\xdb\xff\xff\xff\xf0abc",
    "deep": b"\x81\xaeamdhsa.kernels\x91\x81\xa6.other" + b"\x91" * 100_000 + b"\x01",
    "wrong-type": msgspec.msgpack.encode({"amdhsa.kernels": [{".name": "k", ".symbol": "k.kd", ".vgpr_count": "x"}]}),
    "negative": msgspec.msgpack.encode(
        {
            "amdhsa.kernels": [
                {
                    ".name": "k",
                    ".symbol": "k.kd",
                    ".group_segment_fixed_size": 0,
                    ".private_segment_fixed_size": 0,
                    ".wavefront_size": 64,
                    ".sgpr_count": 1,
                    ".vgpr_count": -5,
                    ".max_flat_workgroup_size": 64,
                }
            ]
        }
    ),
    "missing-key": msgspec.msgpack.encode({"amdhsa.kernels": [{".name": "k"}]}),
    "not-msgpack": b"\xc1" * 64,
    "not-utf8": b"\x81\xadamdhsa.target\xa2\xb8\xff",
}


@pytest.mark.parametrize("kind", HOSTILE_NOTES)
def test_hostile_metadata_notes(code_object, kind, tmp_path):
    desc = HOSTILE_NOTES[kind]
    data = code_object
    at, size = _note_at(data)
    if len(desc) > size:  # a note bigger than the real one: grow the file's note in place is not possible,
        desc = desc[:size]  # so the deep one is cut (still thousands of levels)
    path = tmp_path / f"{kind}.co"
    path.write_bytes(_with_note(data, desc))
    line = _fails_in_one_line(path, "metadata")
    assert f"byte {at}: " in line


def test_a_note_over_its_budget_is_refused_before_decoding(code_object, tmp_path, monkeypatch):
    from occupancy_gui.importers.amd import metadata

    monkeypatch.setattr(metadata, "MAX_NOTE", 1000)
    path = tmp_path / "big.co"
    path.write_bytes(code_object)
    with pytest.raises(ImportFailure, match="over the reader's budget of 1000"):
        import_file_detailed(path)


def _bundle(entries: list[tuple[str, bytes]]) -> bytes:
    header = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(entries))
    table_size = sum(24 + len(e.encode()) for e, _ in entries)
    offset = -(-(len(header) + table_size) // 4096) * 4096
    table, body = b"", b""
    for entry, data in entries:
        table += struct.pack("<QQQ", offset + len(body), len(data), len(entry.encode())) + entry.encode()
        body += data.ljust(-(-len(data) // 4096) * 4096, b"\0")
    return (header + table).ljust(offset, b"\0") + body


LYING_BUNDLES = {
    "entry-past-end": lambda co: _bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", co)])[: -4096 * 2],
    "huge-count": lambda co: b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", 1 << 40),
    "huge-id": lambda co: b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<QQQQ", 1, 4096, 10, 1 << 40),
    "entry-not-an-elf": lambda co: _bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", b"\x7fELF" + b"\0" * 60)]),
    "truncated-elf": lambda co: _bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", co[:2000])]),
    "garbage-after": lambda co: _bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", co)]) + b"junk" * 16,
}


@pytest.mark.parametrize("kind", LYING_BUNDLES)
def test_bundles_whose_sizes_lie(code_object, kind, tmp_path):
    path = tmp_path / f"{kind}.hipfb"
    path.write_bytes(LYING_BUNDLES[kind](code_object))
    _fails_in_one_line(path)


def _zeros_zstd(size: int) -> bytes:
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    chunk = bytes(1 << 20)
    return b"".join([compressor.compress(chunk) for _ in range(size >> 20)] + [compressor.flush()])


def _peak_rss(path: Path) -> tuple[int, str]:
    code = (
        "import sys\nfrom occupancy_gui.importers import import_file_detailed, ImportFailure\n"
        "try:\n    print(len(import_file_detailed(sys.argv[1]).amd_records))\n"
        "except ImportFailure as exc:\n    print(exc)\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
        "print(int(hwm) >> 10)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True
    )
    out, peak = proc.stdout.strip().rsplit("\n", 1)
    return int(peak), out


def test_a_ccob_bomb_is_refused_before_inflating(tmp_path):
    """A stream of zeros in a few hundred KB that declares 2 GiB: refused by the import's one inflation budget
    (importers.binary.budget: 1 GiB held at once) before anything is inflated."""
    packed = _zeros_zstd(1 << 30)
    path = tmp_path / "bomb.hipfb"
    path.write_bytes(struct.pack("<4sHHQQQ", b"CCOB", 3, 1, 32 + len(packed), 2 << 30, 0) + packed)
    peak, out = _peak_rss(path)
    assert "budget" in out and "at byte 8" in out, out
    assert peak < 300, f"peak RSS {peak} MiB"


def test_a_ccob_that_inflates_past_what_it_declares(tmp_path):
    """A stream that inflates to more than its header says stops at the declared size + 1 byte."""
    packed = zlib.compress(bytes(8 << 20))
    path = tmp_path / "liar.hipfb"
    path.write_bytes(struct.pack("<4sHHQQQ", b"CCOB", 3, 0, 32 + len(packed), 4096, 0) + packed)
    _fails_in_one_line(path, "more than the declared 4096 bytes")
    packed = zlib.compress(bytes(range(256)) * 256)
    short = tmp_path / "short.hipfb"
    short.write_bytes(struct.pack("<4sHHQQQ", b"CCOB", 3, 0, 32 + len(packed), 1 << 20, 0) + packed)
    _fails_in_one_line(short, "inflated to 65536 bytes, its header says 1048576")


def test_ccob_budgets(matrix, tmp_path, monkeypatch):
    path = tmp_path / "ok.hipfb"
    path.write_bytes(_ccob(matrix["v5"].path.read_bytes(), 3, 1))
    monkeypatch.setattr(bundles, "MAX_BUNDLE", 1000)
    with pytest.raises(ImportFailure, match="over the reader's 1000 per bundle"):
        import_file_detailed(path)
    monkeypatch.setattr(bundles, "MAX_BUNDLE", 1 << 30)
    from occupancy_gui.importers.binary import budget

    monkeypatch.setattr(budget, "MIN_TOTAL", 1000)
    monkeypatch.setattr(budget, "TOTAL_PER_INPUT_BYTE", 0)
    with pytest.raises(ImportFailure, match="inflates to more than 1000 bytes in all"):
        import_file_detailed(path)


@pytest.mark.parametrize(("version", "method", "body"), [(4, 1, b""), (3, 7, b""), (3, 1, b"\x28\xb5\x2f\xfdjunk")])
def test_damaged_ccob_headers(version, method, body, tmp_path):
    path = tmp_path / "bad.hipfb"
    path.write_bytes(struct.pack("<4sHHQQQ", b"CCOB", version, method, 32 + len(body) + 8, 64, 0) + body + bytes(8))
    _fails_in_one_line(path)


def test_a_ccob_that_claims_more_bytes_than_the_file_holds(tmp_path):
    path = tmp_path / "long.hipfb"
    path.write_bytes(struct.pack("<4sHHQQQ", b"CCOB", 3, 1, 1 << 40, 64, 0) + bytes(64))
    _fails_in_one_line(path, "declares 1099511627776 bytes")


def test_descriptors_outside_their_section(code_object, tmp_path):
    """A kernel descriptor symbol that points past its section: an error naming the section."""
    data = bytearray(code_object)
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    for i in range(shnum):
        _name, kind, _f, _a, offset, size, _link, _info, _al, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize
        )
        if kind == 2:  # .symtab: every symbol's value moved far away
            for at in range(offset, offset + size, 24):
                struct.pack_into("<Q", data, at + 8, 1 << 40)
    path = tmp_path / "kd.co"
    path.write_bytes(bytes(data))
    _fails_in_one_line(path, "kernel descriptor", "outside its section")


@pytest.mark.parametrize("cut", [16, 64, 1000, 5000])
def test_truncated_code_objects(code_object, cut, tmp_path):
    path = tmp_path / "cut.co"
    path.write_bytes(code_object[:cut])
    _fails_in_one_line(path)


def test_cancel_is_heard(matrix):
    with pytest.raises(ImportCancelled):
        read_amd(matrix["v5"].path, "amd_bundle", cancel=lambda: True)
    seen = []
    read_amd(matrix["v5"].path, "amd_bundle", progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][1] == matrix["v5"].path.stat().st_size


def test_a_v2_yaml_note_with_aliases_is_refused(tmp_path):
    from occupancy_gui.importers.amd.metadata import MetadataError
    from occupancy_gui.importers.amd.metadata_v2 import decode_v2_metadata

    bomb = b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nKernels: [*b]\n"
    with pytest.raises(MetadataError, match="alias"):
        decode_v2_metadata(bomb)
    assert Walk("x", 0).budget.total_limit == 4 << 30  # the one budget of every decompressor


def test_hostile_logs(tmp_path):
    """Remarks with a count no compiler prints, an assembly file whose metadata uses aliases or does not parse,
    a line of megabytes: one line naming the file (and the line, where one is to blame)."""
    tag = "[-Rpass-analysis=kernel-resource-usage]"
    cases = {
        "huge.log": (
            f"k.hip:1:1: remark: Function Name: k {tag}\nk.hip:1:1: remark:     VGPRs: 99999999999999999999 {tag}\n",
            "not a count",
        ),
        "alias.s": (
            '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n; -- Begin function k\n; Kernel info:\n'
            "; NumVgprs: 4\n\t.amdgpu_metadata\na: &a [1]\nb: *a\n\t.end_amdgpu_metadata\n",
            "alias",
        ),
        "broken.s": (
            '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n; -- Begin function k\n; Kernel info:\n'
            "; NumVgprs: 4\n\t.amdgpu_metadata\n  - [\n\t.end_amdgpu_metadata\n",
            "does not parse",
        ),
        "long.log": (f"x: remark: Function Name: k {tag}\n" + "x" * (2 << 20) + "\n", "line 2"),
    }
    for name, (text, words) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        proc = _cli(path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"occupancy import: error: {path}: ") and words in lines[0], (
            lines
        )
