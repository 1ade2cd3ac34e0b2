"""Structure-aware generators of hostile AMD inputs (see ``binary_structures`` for the NVIDIA ones, and the
budgets and ``check`` they share): real code objects (``tests/data/importers/amd``) with hostile msgpack
metadata, ELF fields and kernel descriptor symbols; offload bundles plain and compressed (CCOB v1-v3, zlib
and zstd, bombs) whose counts, offsets, sizes and ids may lie; and a host object carrying them.

    python tests/fuzz/amd_structures.py --count 100000 [--seconds S] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import msgspec
import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.binary_structures import _section_headers, _sizes, check
from tests.fuzz.harness import INTERESTING, Crash

AMD = Path(__file__).resolve().parents[1] / "data" / "importers" / "amd"
_CODE_OBJECTS = [(AMD / name).read_bytes() for name in ("gfx942.co", "gfx1100.co")]
_HOST = (AMD / "host.o").read_bytes()
_IDS = (
    "hipv4-amdgcn-amd-amdhsa--gfx942",
    "hipv4-amdgcn-amd-amdhsa--gfx1100:xnack-",
    "hip-amdgcn-amd-amdhsa-gfx906",
    "host-x86_64-unknown-linux-gnu-",
    "openmp-amdgcn-amd-amdhsa--gfx90a",
    "",
)


def _note(data: bytes) -> tuple[int, int]:
    """(offset, size) of a code object's metadata note description."""
    shoff, entsize, elf = _section_headers(data)
    sec = next(sec for sec in elf.sections if sec.type == 7)
    namesz, descsz, _kind = struct.unpack_from("<III", data, sec.offset)
    return sec.offset + 12 + ((namesz + 3) & ~3), descsz


def _hostile_value(rng: random.Random) -> object:
    return rng.choice((-1, 1 << 40, "x", None, True, 1.5, [1, 2], {"a": 1}, rng.choice(INTERESTING), b"\xff"))


def _metadata(rng: random.Random, real: bytes) -> bytes:
    """A metadata note: the real one with hostile values, or crafted headers (huge maps, deep nesting)."""
    roll = rng.random()
    if roll < 0.5:
        meta = msgspec.msgpack.decode(real)
        for kernel in meta.get("amdhsa.kernels", []):
            for _ in range(rng.choice((0, 1, 2))):
                key = rng.choice(list(kernel) + [".reqd_workgroup_size", ".workgroup_processor_mode"])
                if rng.random() < 0.2:
                    kernel.pop(key, None)
                else:
                    kernel[key] = _hostile_value(rng)
        if rng.random() < 0.1:
            meta["amdhsa.kernels"] = meta.get("amdhsa.kernels", []) * rng.choice((2, 50))
        return msgspec.msgpack.encode(meta)
    if roll < 0.7:  # a declared length far beyond the bytes: map32, array32, str32, bin32
        head = rng.choice((b"\xdf", b"\xdd", b"\xdb", b"\xc6"))
        return b"\x81\xaeamdhsa.kernels" + head + struct.pack(">I", rng.choice(INTERESTING) & 0xFFFFFFFF)
    if roll < 0.85:  # nesting deep in a key nothing reads
        return b"\x81\xaeamdhsa.kernels\x91\x81\xa6.other" + b"\x91" * rng.choice((10, 900, 5000, 200_000)) + b"\x01"
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))


def code_object(rng: random.Random) -> bytes:
    """A real code object whose metadata, ELF header, section headers or symbols carry hostile values."""
    seed = rng.choice(_CODE_OBJECTS)
    data = bytearray(seed)
    shoff, entsize, elf = _section_headers(seed)  # where things are, read once from the seed
    at, size = _note(seed)
    for _ in range(rng.choice((1, 1, 2, 3))):
        what = rng.randrange(4)
        if what == 0:
            note = _metadata(rng, seed[at : at + size])
            data[at : at + size] = note[:size].ljust(size, b"\xc0")
        elif what == 1:  # e_flags, OS/ABI, ABI version, machine
            where, fmt = rng.choice(((0x30, "<I"), (7, "B"), (8, "B"), (18, "<H")))
            struct.pack_into(
                fmt,
                data,
                where,
                rng.choice(INTERESTING + [0x40, 0x4F, 0x5F, 224]) & ((1 << (8 * struct.calcsize(fmt))) - 1),
            )
        elif what == 2:
            index = rng.randrange(1, len(elf.rows))
            field = rng.choice(((24, "<Q"), (32, "<Q"), (40, "<I"), (4, "<I")))
            struct.pack_into(
                field[1],
                data,
                shoff + index * entsize + field[0],
                rng.choice(INTERESTING) & ((1 << (8 * struct.calcsize(field[1]))) - 1),
            )
        else:
            tables = [sec for sec in elf.sections if sec.type in (2, 11) and sec.size >= 24]
            sec = rng.choice(tables)
            symbol = sec.offset + 24 * rng.randrange(sec.size // 24)
            field = rng.choice(((6, "<H"), (8, "<Q"), (16, "<Q"), (4, "B"), (0, "<I")))
            struct.pack_into(
                field[1],
                data,
                symbol + field[0],
                rng.choice(INTERESTING) & ((1 << (8 * struct.calcsize(field[1]))) - 1),
            )
    return bytes(data)


def _plain(rng: random.Random, lying: bool) -> bytes:
    entries = [
        (rng.choice(_IDS), rng.choice(_CODE_OBJECTS) if rng.random() < 0.8 else code_object(rng))
        for _ in range(rng.choice((1, 1, 2, 3)))
    ]
    size = (lambda n: _sizes(rng, n)) if lying else (lambda n: n)
    table = sum(24 + len(i) for i, _ in entries)
    offset = -(-(32 + table) // 4096) * 4096
    head, body = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", size(len(entries)) & (2**64 - 1)), b""
    for entry_id, data in entries:
        head += (
            struct.pack(
                "<QQQ",
                size(offset + len(body)) & (2**64 - 1),
                size(len(data)) & (2**64 - 1),
                size(len(entry_id)) & (2**64 - 1),
            )
            + entry_id.encode()
        )
        body += data.ljust(-(-len(data) // 4096) * 4096, b"\0")
    return head.ljust(offset, b"\0") + body


def _compressed(rng: random.Random, plain: bytes, lying: bool) -> bytes:
    version, method = rng.choice((1, 2, 3, 3, rng.randrange(1 << 16))), rng.choice((0, 1, 1, rng.randrange(1 << 16)))
    if rng.random() < 0.1:  # a bomb: zeros far beyond any bundle
        plain = bytes(rng.choice((1 << 20, 256 << 20)))
    packed = zlib.compress(plain, 1) if method == 0 else zstandard.ZstdCompressor(level=1).compress(plain)
    size = (lambda n: _sizes(rng, n)) if lying else (lambda n: n)
    if version == 1:
        return struct.pack("<4sHHIQ", b"CCOB", 1, method, size(len(plain)) & 0xFFFFFFFF, 0) + packed
    if version == 2:
        return (
            struct.pack(
                "<4sHHIIQ", b"CCOB", 2, method, size(24 + len(packed)) & 0xFFFFFFFF, size(len(plain)) & 0xFFFFFFFF, 0
            )
            + packed
        )
    return (
        struct.pack(
            "<4sHHQQQ",
            b"CCOB",
            version,
            method & 0xFFFF,
            size(32 + len(packed)) & (2**64 - 1),
            size(len(plain)) & (2**64 - 1),
            0,
        )
        + packed
    )


def bundle(rng: random.Random) -> bytes:
    """Bundles end to end, plain or compressed, with padding; sizes, counts and ids that may lie."""
    out = b""
    for _ in range(rng.choice((1, 1, 2, 3))):
        lying = rng.random() < 0.3
        plain = _plain(rng, lying)
        one = _compressed(rng, plain, lying) if rng.random() < 0.5 else plain
        out += one + bytes(-len(one) % 4096 if rng.random() < 0.8 else rng.choice((0, 1, 7, 64)))
    return out


def host_object(rng: random.Random) -> bytes:
    """The host object with a generated bundle in its ``.hip_fatbin`` (same size: the ELF stays valid)."""
    _shoff, _entsize, elf = _section_headers(_HOST)
    data = bytearray(_HOST)
    sec = next(sec for sec in elf.sections if sec.name == ".hip_fatbin")
    data[sec.offset : sec.offset + sec.size] = bundle(rng)[: sec.size].ljust(sec.size, b"\0")
    return bytes(data)


GENERATORS: dict[str, tuple[str, Callable[[random.Random], bytes]]] = {
    "amd_code_object": ("amd_code_object", code_object),
    "amd_bundle": ("amd_bundle", bundle),
    "amd_host_object": ("amd_host", host_object),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="inputs per generator")
    parser.add_argument("--seconds", type=float, default=float("inf"), help="time per generator")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (target, generate) in GENERATORS.items():
            rng = random.Random(f"{args.seed}:{name}")
            path = os.path.join(tmp, f"input.{name}")
            done = errors = 0
            start = time.perf_counter()
            while done < args.count and time.perf_counter() - start < args.seconds:
                data = generate(rng)
                done += 1
                try:
                    errors += check(target, data, path) == "error"
                except Crash as crash:
                    failures += 1
                    keep = os.path.join(os.getcwd(), f"crash-{name}-{done}.bin")
                    Path(keep).write_bytes(data)
                    print(f"{name}: input {done}: {crash} (kept as {keep})", flush=True)
            print(
                f"{name}: {done} inputs, {errors} one-line errors, {done - errors} with records, "
                f"{time.perf_counter() - start:.0f} s",
                flush=True,
            )
    print(f"failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
