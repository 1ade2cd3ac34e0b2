"""The shortcuts the binary reader takes for speed give what the plain way gives.

Each fast path (runs of ``.nv.info`` entries stepped over by one regex match, the module-wide
``.nv.info`` unpacked in one go, section and symbol names sliced out of one decoded table, records
built only for the (function, arch) pairs that survive) is compared with the plain code on the real
fixtures and on generated or damaged input.
"""

from __future__ import annotations

import random
import struct

import pytest

from occupancy_gui.importers import ImportFailure, import_file_detailed, merge_records
from occupancy_gui.importers.binary.blob import Blob
from occupancy_gui.importers.binary.cubin import (
    _KERNEL_ATTRS,
    _MODULE_WANTED,
    EIATTR_NUM_BARRIERS,
    _module_info,
    _walk_kernel_info,
    kernel_figures,
    nv_info_entries,
    read_cubin,
)
from occupancy_gui.importers.binary.elf import Elf, StringTable
from occupancy_gui.importers.binary.fatbin import read_fatbin_bytes
from occupancy_gui.importers.binary.host import read_host_binary
from occupancy_gui.importers.records import FIELDS

from .conftest import GEN

CUBINS = sorted(GEN.glob("*.cubin"))


def _entries(data: bytes, wanted, skip_runs: bool):
    try:
        return nv_info_entries(data, True, wanted, Blob(data, "x.cubin"), ".nv.info.k", 0, skip_runs=skip_runs)
    except ImportFailure as exc:
        return str(exc)


def _info_sections(path):
    elf = Elf(Blob(path.read_bytes(), path.name))
    return [elf.section_bytes(i) for i, name in enumerate(elf.names) if name.startswith(".nv.info")]


@pytest.mark.parametrize("path", CUBINS, ids=lambda p: p.name)
def test_skipping_runs_finds_the_wanted_entries_of_real_sections(path):
    sections = _info_sections(path)
    assert sections
    for data in sections:
        everything = _entries(data, None, False)
        wanted = [e for e in everything if e[0] in _KERNEL_ATTRS]
        assert _entries(data, _KERNEL_ATTRS, True) == wanted == _entries(data, _KERNEL_ATTRS, False)


def _random_section(rng: random.Random) -> bytes:
    """Entries of every format, sizes the skipper knows and sizes it does not, wanted attributes
    among unwanted ones; sometimes a damaged tail."""
    out = bytearray()
    for _ in range(rng.randrange(0, 30)):
        attr = rng.choice([*_KERNEL_ATTRS, 0x17, 0x0A, 0x19, 0x36, 0x37, rng.randrange(256)])
        fmt = rng.choice([1, 2, 3, 4, 4, 4])
        if fmt == 4:
            size = rng.choice([0, 4, 8, 12, 16, 20, 2, 40, 300])
            out += struct.pack("<BBH", fmt, attr, size) + rng.randbytes(size)
        else:
            out += struct.pack("<BBH", fmt, attr, rng.randrange(65536))
    damage = rng.randrange(6)
    if damage == 0 and out:
        del out[rng.randrange(len(out)) :]  # truncated
    elif damage == 1:
        out += bytes([rng.choice([0, 5, 0xFF]), rng.randrange(256), 0, 0])  # unknown format
    elif damage == 2:
        out += struct.pack("<BBH", 4, 0x17, 500)  # payload runs past the end
    return bytes(out)


def test_skipping_runs_agrees_with_the_plain_walk_on_generated_sections():
    rng = random.Random(20261130)
    for _ in range(3000):
        data = _random_section(rng)
        assert _entries(data, _KERNEL_ATTRS, True) == _entries(data, _KERNEL_ATTRS, False), data.hex()


def test_a_wanted_entry_inside_a_run_is_not_stepped_over():
    unwanted = struct.pack("<BBH", 4, 0x17, 12) + bytes(12)
    barriers = struct.pack("<BBH", 3, EIATTR_NUM_BARRIERS, 3)
    data = unwanted * 3 + barriers + unwanted * 2
    assert _entries(data, _KERNEL_ATTRS, True) == [(EIATTR_NUM_BARRIERS, 3, 3)]


def _walked_module_info(elf: Elf) -> dict[int, dict[int, int]]:
    at = elf.index[".nv.info"]
    walked: dict[int, dict[int, int]] = {attr: {} for attr in _MODULE_WANTED}
    for attr, _fmt, payload in nv_info_entries(
        elf.section_bytes(at), True, _MODULE_WANTED, elf.blob, ".nv.info", elf.rows[at][4]
    ):
        if isinstance(payload, bytes) and len(payload) >= 8:
            symbol, value = struct.unpack_from("<II", payload)
            walked[attr][symbol] = value
    return walked


@pytest.mark.parametrize("path", CUBINS, ids=lambda p: p.name)
def test_module_info_in_one_unpack_equals_the_walk(path):
    elf = Elf(Blob(path.read_bytes(), path.name))
    assert _module_info(elf) == _walked_module_info(elf)
    assert any(_module_info(elf).values())


def test_module_info_with_a_short_value_entry_takes_the_walk():
    """A 4-byte entry among the (symbol, value) pairs: the 12-byte unpack must not be used."""
    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    before = _module_info(Elf(Blob(bytes(data), "a.cubin")))
    row = Elf(Blob(bytes(data), "a.cubin")).rows[Elf(Blob(bytes(data), "a.cubin")).index[".nv.info"]]
    assert row[5] % 12 == 0
    # The first (symbol, value) entry becomes a 4-byte value and an 8-byte entry of another
    # attribute: the section keeps its size and its 12-byte multiple.
    struct.pack_into("<BBHBBH", data, row[4], 3, 0x5F, 7, 4, 0x40, 4)
    elf = Elf(Blob(bytes(data), "a.cubin"))
    after = _module_info(elf)
    assert after == _walked_module_info(elf)
    assert sum(map(len, after.values())) == sum(map(len, before.values())) - 1


def _table(names: list[bytes]) -> tuple[bytes, list[int]]:
    raw = b"\0"
    offsets = []
    for name in names:
        offsets.append(len(raw))
        raw += name + b"\0"
    return raw, offsets


@pytest.mark.parametrize("case", ["plain", "suffix", "non-ascii", "unterminated", "out-of-range"])
def test_names_sliced_from_the_table_equal_the_one_by_one_reading(case):
    raw, offsets = _table([b".text._Z3fooi", b".nv.info._Z3fooi", b".nv.shared._Z3fooi", b""])
    if case == "suffix":  # ELF string tables may share a name's tail with another name
        offsets.append(raw.index(b"info._Z3fooi"))
    elif case == "non-ascii":
        raw, offsets = _table([b".text.\xc3\xa9t\xc3\xa9", b".nv.info"])
    elif case == "unterminated":
        raw = raw + b".nv.constant2"
        offsets.append(len(raw) - 13)
    elif case == "out-of-range":
        offsets.append(len(raw) + 5)
    table = StringTable(raw, "x.cubin", 100, "")

    def one_by_one():
        try:
            return [table.get(at, f"section {i} name") for i, at in enumerate(offsets)]
        except ImportFailure as exc:
            return str(exc)

    def sliced():
        try:
            return table.get_all(offsets, lambda i: f"section {i} name")
        except ImportFailure as exc:
            return str(exc)

    assert sliced() == one_by_one()
    if case in ("unterminated", "out-of-range"):
        assert "string" in sliced()


def _fields(records):
    return [tuple(getattr(r, f) for f in FIELDS) for r in records]


@pytest.mark.parametrize(
    "name", ["a_sm80.cubin", "b_sm90.cubin", "a_sm120.cubin", "a.fatbin", "a_lz4.fatbin", "a_zstd.fatbin", "b_host.o"]
)
def test_records_built_on_demand_equal_those_built_at_once(name):
    data = (GEN / name).read_bytes()
    if name.endswith(".cubin"):
        eager = read_cubin(data, str(GEN / name))
    elif name.endswith(".fatbin"):
        eager = read_fatbin_bytes(data, str(GEN / name)).records
    else:
        eager = read_host_binary(data, str(GEN / name)).records
    assert _fields(import_file_detailed(GEN / name).records) == _fields(merge_records(eager))


def test_a_damaged_kernel_section_fails_inside_the_import(tmp_path):
    """Records are built after the merge, still inside the import: the error comes from it."""
    data = bytearray((GEN / "a.fatbin").read_bytes())
    pos = data.index(b".nv.info._Z")  # a kernel's .nv.info section, found through its name
    cubin_at = data.index(b"\x7fELF")
    blob = Elf(Blob(bytes(data[cubin_at:]), "a.fatbin"))
    name = next(n for n in blob.names if n.startswith(".nv.info._Z"))
    row = blob.rows[blob.index[name]]
    assert pos
    data[cubin_at + row[4]] = 0x09  # unknown attribute format in its first entry
    path = tmp_path / "damaged.fatbin"
    path.write_bytes(bytes(data))
    with pytest.raises(ImportFailure, match="unknown attribute format 0x09") as info:
        import_file_detailed(path)
    assert info.value.offset == cubin_at + row[4]


def _walked_figures(data: bytes):
    """(in-place walk, general walk) of one kernel section: figures, or the general walk's error."""
    try:
        plain = kernel_figures(
            nv_info_entries(data, True, _KERNEL_ATTRS, Blob(data, "x.cubin"), ".nv.info.k", 0), 7, "<"
        )
    except ImportFailure as exc:
        plain = str(exc)
    padded = b"\xee" * 8 + data + b"\x04\x2f\xff\xff"  # the walk stays inside [lo, hi)
    fast = _walk_kernel_info(Blob(padded, "x.cubin"), 8, 8 + len(data), 7)
    return fast, plain


@pytest.mark.parametrize("path", CUBINS, ids=lambda p: p.name)
def test_the_in_place_kernel_walk_equals_the_general_walk_on_real_sections(path):
    for data in _info_sections(path):
        fast, plain = _walked_figures(data)
        assert fast == plain


def test_the_in_place_kernel_walk_equals_the_general_walk_on_generated_sections():
    """Every figure the walk reads, of every format and size, among unwanted entries; damaged tails
    send it to the general walk (``None``), which then raises."""
    rng = random.Random(20261202)
    wanted = sorted(_KERNEL_ATTRS)
    for _ in range(3000):
        data = _random_section(rng)
        if rng.random() < 0.5:  # the wanted ones with plausible payloads too
            attr = rng.choice(wanted)
            size = rng.choice([4, 8, 12, 16, 11])
            data = struct.pack("<BBH", 4, attr, size) + rng.randbytes(size) + data
        fast, plain = _walked_figures(data)
        if fast is None:
            assert isinstance(plain, str), data.hex()
        else:
            assert fast == plain, data.hex()
