"""Structure-aware generators of hostile binaries: valid containers with hostile sizes, counts,
padding and compression, and real cubins whose tables carry hostile fields.

Byte mutations of the fixtures rarely get past the first header check; these inputs do: every
container parses up to the one field that lies, so the reader's limits (declared sizes, ratios,
totals, counts, padding, section sizes) are what is exercised.  Each input must end in records or a
one-line ``ImportFailure`` (``harness.run_one``) within a time budget and a memory budget
(``check``); exceeding either is a failure like an exception.

    python tests/fuzz/binary_structures.py --count 1000000 [--seconds S] [--seed 1]
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

import lz4.block
import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from occupancy_gui.importers.binary.blob import Blob
from occupancy_gui.importers.binary.elf import Elf
from occupancy_gui.importers.binary.fatbin import (
    FATBIN_MAGIC,
    FLAG_COMPRESSED_LZ4,
    FLAG_COMPRESSED_ZSTD,
    KIND_ELF,
    KIND_PTX,
)
from tests.fuzz import harness
from tests.fuzz.harness import INTERESTING, Crash, run_one
from tests.helpers import offload_writer

GEN = Path(__file__).resolve().parents[1] / "data" / "importers" / "gen"
CLANG = Path(__file__).resolve().parents[1] / "data" / "importers" / "clang"
TIME_BUDGET = 10.0  # seconds per input
MEMORY_BUDGET = 1 << 30  # peak RSS growth per input

_CUBINS = [p.read_bytes() for p in sorted(GEN.glob("*.cubin"))]
_HOST = (GEN / "b_host.o").read_bytes()
_CLANG_RDC = (CLANG / "rdc.o").read_bytes()


def _sizes(rng: random.Random, true: int) -> int:
    """A declared size: usually the truth, else near it, zero, or an interesting extreme."""
    roll = rng.random()
    if roll < 0.6:
        return true
    if roll < 0.8:
        return max(0, true + rng.randint(-64, 64))
    return rng.choice(INTERESTING)


def _entry(rng: random.Random) -> bytes:
    """One fatbin entry (header + payload): a real cubin, raw, LZ4 or zstd, with hostile fields."""
    image = rng.choice(_CUBINS)
    if rng.random() < 0.15:  # an image of zeros, the best compression there is
        image = bytes(rng.choice((4096, 1 << 20, 16 << 20)))
    codec = rng.choice(("none", "lz4", "zstd"))
    if codec == "none" and len(image) > 65536:
        image = image[:4096]  # the file stays small: what lies is the declared size
    if codec == "lz4":
        packed, flags = lz4.block.compress(image, store_size=False), FLAG_COMPRESSED_LZ4
    elif codec == "zstd":
        packed, flags = zstandard.ZstdCompressor(level=1).compress(image), FLAG_COMPRESSED_ZSTD
    else:
        packed, flags = image, 0
    kind = rng.choice((KIND_ELF, KIND_ELF, KIND_ELF, KIND_PTX, rng.randrange(1 << 16)))
    header_size = rng.choice((64, 64, 112, 80, rng.randrange(1, 256)))
    usize = _sizes(rng, len(image))
    csize = _sizes(rng, len(packed))
    head = struct.pack("<HHIQ", kind, 0x101, header_size & 0xFFFFFFFF, _sizes(rng, len(packed)) & (2**64 - 1))
    tail = struct.pack(
        "<IIHHIIIQQQ",
        csize & 0xFFFFFFFF,
        0,
        8,
        1,
        rng.choice((52, 80, 90, 100, 120)),
        0,
        0,
        flags | 0x11,
        0,
        usize & (2**64 - 1),
    )
    header = (head + tail).ljust(max(header_size, 16), b"\0")[: max(header_size, 16)]
    return header + packed


def fatbin(rng: random.Random) -> bytes:
    """Containers laid end to end with hostile padding and counts; sizes that may lie."""
    out = bytearray()
    containers = rng.choice((1, 1, 2, 3, 50))
    for _ in range(containers):
        body = b"".join(_entry(rng) for _ in range(1 if containers > 3 else rng.choice((1, 1, 2, 4, 8))))
        out += struct.pack(
            "<IHHQ",
            FATBIN_MAGIC,
            rng.choice((1, 1, 1, 2)),
            rng.choice((16, 16, 16, 8, 4096)),
            _sizes(rng, len(body)) & (2**64 - 1),
        )
        out += body
        out += bytes(rng.choice((0, 0, 1, 7, 8, 4096, 1 << 20 if containers <= 3 else 64)))  # padding, or a lot
    return bytes(out)


def _section_headers(data: bytes) -> tuple[int, int, Elf]:
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    (entsize,) = struct.unpack_from("<H", data, 0x3A)
    return shoff, entsize, Elf(Blob(data, "seed"))


def cubin(rng: random.Random) -> bytes:
    """A real cubin whose section headers, ``.nv.info`` entries or symbols carry hostile values."""
    data = bytearray(rng.choice(_CUBINS))
    shoff, entsize, elf = _section_headers(bytes(data))
    for _ in range(rng.choice((1, 1, 2, 4))):
        what = rng.randrange(3)
        if what == 0:  # a section header field: offset, size, link, info, type
            index = rng.randrange(1, len(elf.rows))
            field = rng.choice(((24, "<Q"), (32, "<Q"), (40, "<I"), (44, "<I"), (4, "<I")))
            value = rng.choice(INTERESTING) & ((1 << (8 * struct.calcsize(field[1]))) - 1)
            struct.pack_into(field[1], data, shoff + index * entsize + field[0], value)
        elif what == 1:  # an .nv.info entry's size or value
            infos = [sec for sec in elf.sections if sec.name.startswith(".nv.info") and sec.size >= 4]
            if infos:
                sec = rng.choice(infos)
                at = sec.offset + 4 * rng.randrange(sec.size // 4)
                width = rng.choice((2, 4))
                struct.pack_into(
                    "<H" if width == 2 else "<I",
                    data,
                    at + (2 if width == 2 else 0),
                    rng.choice(INTERESTING) & ((1 << (8 * width)) - 1),
                )
        else:  # a symbol's shndx, value or size
            symtab = next((sec for sec in elf.sections if sec.type == 2), None)
            if symtab is not None and symtab.size >= 24:
                at = symtab.offset + 24 * rng.randrange(symtab.size // 24)
                field = rng.choice(((6, "<H"), (8, "<Q"), (16, "<Q"), (4, "B"), (5, "B")))
                struct.pack_into(
                    field[1],
                    data,
                    at + field[0],
                    rng.choice(INTERESTING) & ((1 << (8 * struct.calcsize(field[1]))) - 1),
                )
    return bytes(data)


def host_binary(rng: random.Random) -> bytes:
    """The host object with a generated fatbin in its ``.nv_fatbin`` section (same size: the ELF
    stays valid), or appended where no section says where it is."""
    shoff, entsize, elf = _section_headers(_HOST)
    data = bytearray(_HOST)
    sec = next(sec for sec in elf.sections if sec.name == ".nv_fatbin")
    generated = fatbin(rng)
    if rng.random() < 0.7:
        data[sec.offset : sec.offset + sec.size] = generated[: sec.size].ljust(sec.size, b"\0")
    else:
        struct.pack_into("<Q", data, shoff + sec.index * entsize + 32, len(generated))
        struct.pack_into("<Q", data, shoff + sec.index * entsize + 24, len(data))
        data += generated
    return bytes(data)


def _offload_one(rng: random.Random) -> bytes:
    """One LLVM offload binary (see ``importers.binary.offload``): real cubins as its images, in any
    version, maybe compressed or a bomb, with sizes, counts, offsets and strings that may lie."""
    lying = rng.random() < 0.3  # else every size and offset is true, and what may lie is the version or codec
    version = rng.choice((1, 2, 3, 3, 3, rng.randrange(1 << 32)))
    if version == 3 and rng.random() < 0.1:  # a bomb: zeros that inflate far beyond the binary
        zeros = rng.choice((1 << 20, 64 << 20))
        packed = zlib.compress(bytes(zeros), 1)
        return offload_writer.MAGIC + struct.pack("<IQQQQ", 3, 40 + len(packed), 40, 1, 40 + zeros) + packed
    triple = rng.choice(("nvptx64-nvidia-cuda",) * 6 + ("amdgcn-amd-amdhsa", ""))
    images = [
        (
            rng.choice((1,) * 6 + (3, 4, 5, 2, rng.randrange(1 << 16))),
            {"triple": triple, "arch": "sm_80"},
            rng.choice(_CUBINS)[: rng.choice((1 << 30,) * 6 + (64, 700))],
        )
        for _ in range(1 if version <= 1 else rng.choice((1, 1, 2, 3)))
    ]
    compress = rng.choice(("", "zlib")) if version == 3 else ""
    data = offload_writer.offload_binary(version, images, compress, (lambda n: _sizes(rng, n)) if lying else _same)
    return data + bytes(-len(data) % 8)


def _same(n: int) -> int:
    return n


def offload_binary(rng: random.Random) -> bytes:
    """Offload binaries end to end, bare, as ``llvm-offload-binary -o`` writes them."""
    return b"".join(_offload_one(rng) for _ in range(rng.choice((1, 1, 2, 3)))) + bytes(rng.choice((0, 0, 8, 64)))


def clang_object(rng: random.Random) -> bytes:
    """clang's ``-fgpu-rdc`` object with generated offload binaries in its ``.llvm.offloading`` section
    (same size: the ELF stays valid)."""
    _shoff, _entsize, elf = _section_headers(_CLANG_RDC)
    data = bytearray(_CLANG_RDC)
    sec = next(sec for sec in elf.sections if sec.name == ".llvm.offloading")
    data[sec.offset : sec.offset + sec.size] = offload_binary(rng)[: sec.size].ljust(sec.size, b"\0")
    return bytes(data)


GENERATORS: dict[str, tuple[str, Callable[[random.Random], bytes]]] = {
    "fatbin": ("fatbin", fatbin),
    "cubin": ("cubin", cubin),
    "host_binary": ("host_binary", host_binary),
    "offload_binary": ("offload_binary", offload_binary),
    "clang_object": ("host_binary", clang_object),
}


def _peak_rss() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) << 10 for line in status if line.startswith("VmHWM"))


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # resets VmHWM to the current RSS (Linux 4.0+)
        return True
    except OSError:
        return False


def check(target: str, data: bytes, path: str) -> str:
    """``run_one`` under the time and memory budgets.  Time is CPU time (every thread's), so that a
    run at low priority on a busy machine judges the reader, not the scheduler; wall time over three
    budgets is a hang whatever the CPU says."""
    measured = _reset_peak()
    before = _peak_rss() if measured else 0
    start, cpu = time.perf_counter(), time.process_time()
    saved, harness.MAX_SECONDS = harness.MAX_SECONDS, 3 * TIME_BUDGET  # this check's budget, not the harness's
    try:
        outcome = run_one(target, data, path)
    finally:
        harness.MAX_SECONDS = saved
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    if cpu > TIME_BUDGET:
        raise Crash(f"took {cpu:.1f} s of CPU ({elapsed:.1f} s wall; budget {TIME_BUDGET} s)")
    if measured and _peak_rss() - before > MEMORY_BUDGET:
        raise Crash(f"peak RSS grew by {(_peak_rss() - before) >> 20} MiB (budget {MEMORY_BUDGET >> 20} MiB)")
    return outcome


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
                    if check(target, data, path) == "error":
                        errors += 1
                except Crash as crash:
                    failures += 1
                    keep = os.path.join(os.getcwd(), f"crash-{name}-{done}.bin")
                    Path(keep).write_bytes(data)
                    print(f"{name}: input {done}: {crash} (kept as {keep})", flush=True)
            seconds = time.perf_counter() - start
            print(
                f"{name}: {done} inputs, {errors} one-line errors, {done - errors} with records, "
                f"{seconds:.0f} s ({done / max(seconds, 1e-9):.0f}/s)",
                flush=True,
            )
    print(f"failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
