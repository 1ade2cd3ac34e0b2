"""What every fuzzed input must come to, and the inputs to start from.

For every importer and the profile loader an input ends in one of two ways: records (every field
readable) or the module's own error -- ``ImportFailure`` / ``ProfileError`` -- whose message is one
line naming the file and a line or byte offset.  Anything else (another exception, more than
``MAX_SECONDS`` on one input) is a crash.  Shared by the pytest properties (``test_fuzz.py``) and
the standalone long run (``long_run.py``).
"""

from __future__ import annotations

import os
import random
import struct
import time
from collections.abc import Callable
from pathlib import Path

from occupancy_gui.importers import IMPORTERS, ImportCancelled, ImportFailure, import_file_detailed
from occupancy_gui.importers.amd.json_rows import amd_record_json
from occupancy_gui.importers.amd.reader import read_amd
from occupancy_gui.importers.base import ImportResult
from occupancy_gui.importers.binary.archive import read_ar_archive
from occupancy_gui.importers.binary.blob import Blob
from occupancy_gui.importers.binary.cubin import read_cubin
from occupancy_gui.importers.binary.elf import Elf
from occupancy_gui.importers.binary.fatbin import read_fatbin_bytes
from occupancy_gui.importers.binary.host import read_host_binary, read_offload_section
from occupancy_gui.importers.binary.inflate import Decoding
from occupancy_gui.importers.json_rows import record_json
from occupancy_gui.importers.text.cuobjdump_text import parse_text
from occupancy_gui.importers.text.ptxas_log import parse_bytes, parse_stream
from occupancy_gui.profiles import ProfileError, parse_profile

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "importers"
MAX_SECONDS = 2.0


class Crash(AssertionError):
    """An input that ended in neither records nor the module's own one-line error."""


def _ar(*members: tuple[bytes, bytes]) -> bytes:
    out = b"!<arch>\n"
    for name, body in members:
        out += name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8)
        out += str(len(body)).encode().ljust(10) + b"`\n" + body + (b"\n" if len(body) % 2 else b"")
    return out


def seeds(target: str) -> list[bytes]:
    """The real fixtures a target's mutations start from."""
    gen, hand = DATA / "gen", DATA / "handwritten"
    if target == "ptxas_log":
        return [p.read_bytes() for p in sorted([*gen.glob("*.log"), *hand.glob("*.log")])]
    if target == "cuobjdump_text":
        return [p.read_bytes() for p in sorted(gen.glob("*.cuobjdump.txt"))]
    if target == "ncu_csv":
        return [p.read_bytes() for p in sorted((DATA / "ncu").glob("*.csv"))]
    if target == "cubin":
        return [p.read_bytes() for p in sorted(gen.glob("*.cubin"))]
    if target == "fatbin":
        return [(gen / f).read_bytes() for f in ("a.fatbin", "a_lz4.fatbin", "a_zstd.fatbin")]
    if target == "host_binary":
        return [(gen / "b_host.o").read_bytes()]
    if target == "ar_archive":
        host = (gen / "b_host.o").read_bytes()
        return [_ar((b"/", struct.pack(">I", 0)), (b"k.o/", host), (b"f.fatbin/", (gen / "a_lz4.fatbin").read_bytes()))]
    if target == "profile":
        return [p.read_bytes() for p in sorted((ROOT / "device_profiles").glob("*.yaml"))[:12]]
    if target == "amd_log":
        return [(DATA / "amd" / name).read_bytes() for name in ("remarks.log", "gfx942.s")]
    if target == "amd_code_object":
        return [p.read_bytes() for p in sorted((DATA / "amd").glob("*.co"))]
    if target == "amd_bundle":  # the host object's .hip_fatbin: a plain bundle of two code objects
        host = (DATA / "amd" / "host.o").read_bytes()
        elf = Elf(Blob(host, "host.o"))
        sec = next(sec for sec in elf.sections if sec.name == ".hip_fatbin")
        return [host[sec.offset : sec.offset + sec.size]]
    raise KeyError(target)


TEXT_TARGETS = ("ptxas_log", "cuobjdump_text", "ncu_csv", "profile", "amd_log")
BINARY_TARGETS = ("cubin", "fatbin", "host_binary", "ar_archive", "amd_code_object", "amd_bundle")
TARGETS = TEXT_TARGETS + BINARY_TARGETS


def _records(records) -> int:
    for rec in records:
        record_json(rec)  # reads every field: lazy records are built here
        _ = rec.key, rec.arch_number, hash(rec), repr(rec)
    return len(records)


def _amd_records(records) -> int:
    for rec in records:
        amd_record_json(rec)
        _ = rec.key, hash(rec), repr(rec)
    return len(records)


def _imported(result) -> int:
    """Every record of an import, NVIDIA's and AMD's, read whole."""
    return _records(result.records) + _amd_records(result.amd_records)


def _direct(target: str, data: bytes, path: str) -> None:
    """The target's own parser, past format detection."""
    if target == "ptxas_log":
        _records(parse_bytes(data, path))
        import io

        _records(parse_stream(io.BytesIO(data), path, len(data), chunk_size=97))
    elif target == "cuobjdump_text":
        _records(parse_text(data.decode("utf-8", "replace"), path))
    elif target == "ncu_csv":
        _records(IMPORTERS["ncu_csv"](path))
    elif target == "cubin":
        _records(read_cubin(data, path))
    elif target == "fatbin":
        _records(read_fatbin_bytes(data, path).records)
    elif target == "host_binary":
        _records(read_host_binary(data, path).records)
    elif target == "ar_archive":
        _records(read_ar_archive(data, path).records)
    elif target in ("amd_code_object", "amd_bundle", "amd_log"):
        _amd_records(read_amd(path, target).records)
    elif target == "amd_host":  # a host object's AMD device code alone (its NVIDIA reading is the import's)
        _amd_records(read_amd(path, "host").records)
    elif target == "offload_binary":
        result = ImportResult()
        read_offload_section(Blob(data, path), 0, len(data), result, path, Decoding(None, len(data)))
        _records(result.records)


def _check_message(exc: Exception, path: str) -> None:
    text = str(exc)
    if "\n" in text or "\r" in text:
        raise Crash(f"multi-line message: {text!r}")
    if not text.startswith(path):
        raise Crash(f"message does not start with the file name: {text!r}")


def run_one(target: str, data: bytes, path: str) -> str:
    """Feed ``data`` (written to ``path``) to ``target``; return "records"/"error", or raise Crash."""
    start = time.perf_counter()
    outcome = "records"
    try:
        if target == "profile":
            try:
                parse_profile(data, path)
            except ProfileError as exc:
                _check_message(exc, path)
                outcome = "error"
        else:
            with open(path, "wb") as fh:
                fh.write(data)
            for call in (lambda: _imported(import_file_detailed(path)), lambda: _direct(target, data, path)):
                try:
                    call()
                except ImportFailure as exc:
                    _check_message(exc, path)
                    outcome = "error"
    except Crash:
        raise
    except ImportCancelled as exc:
        raise Crash(f"ImportCancelled without a cancel callback: {exc!r}") from exc
    except Exception as exc:
        raise Crash(f"{type(exc).__name__}: {exc}"[:500]) from exc
    elapsed = time.perf_counter() - start
    if elapsed > MAX_SECONDS:
        raise Crash(f"took {elapsed:.2f} s (limit {MAX_SECONDS} s)")
    return outcome


# -- mutations (shared by the long run; hypothesis draws the same kinds of edits) -------------------
INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32, (1 << 63) - 1, (1 << 64) - 1]
TEXT_TOKENS = [
    b"ptxas info    : Used ",
    b"ptxas info    : Compiling entry function '",
    b"' for 'sm_90'\n",
    b"ptxas info    : Function properties for ",
    b" bytes stack frame, ",
    b" bytes spill stores, ",
    b" bytes spill loads\n",
    b"nvlink info    : Function properties for '",
    b"(target: sm_80)",
    b"99999999999999999999999999999",
    b"-1",
    b"\r\n",
    b"\n",
    b"\x00",
    b"\xff\xfe",
    b"\x1b[31m",
    b"'",
    b'"',
    b",",
    b"1,024",
    b"Kbyte/block",
    b"n/a",
    b"Resource usage:",
    b" Function ",
    b"REG:",
    b"SHARED:",
    b"CONSTANT[0]:",
    b"arch = sm_",
    b"&a ",
    b"*a",
    b"!!python/object ",
    b"[",
    b"{",
    b": ",
    b"\t",
    b"schema: 1\n",
    b"limits:\n",
    b"  value: ",
    b"  source: ",
    b" remark: Function Name: k [-Rpass-analysis=kernel-resource-usage]\n",
    b"    VGPRs: ",
    b"-target-cpu gfx90a ",
    b"\t.amdhsa_kernel k\n",
    b"\t.end_amdhsa_kernel\n",
    b"; Kernel info:\n",
    b"; NumVgprs: ",
    b".amdgpu_metadata\n",
    b".end_amdgpu_metadata\n",
    b"    .vgpr_count:     ",
    b"  - .name: k\n",
    b'.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
]


def mutate(rng: random.Random, data: bytes, others: list[bytes], text: bool) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3, 8))):
        op = rng.randrange(9)
        n = len(buf)
        pos = rng.randrange(n + 1)
        if op == 0 and n:  # bit flip
            buf[min(pos, n - 1)] ^= 1 << rng.randrange(8)
        elif op == 1 and n:  # random byte
            buf[min(pos, n - 1)] = rng.randrange(256)
        elif op == 2:  # truncate
            del buf[pos:]
        elif op == 3 and others:  # splice from another seed
            other = rng.choice(others)
            a = rng.randrange(len(other) + 1)
            buf[pos : pos + rng.randrange(64)] = other[a : a + rng.randrange(1, 512)]
        elif op == 4 and n >= 4:  # an interesting integer over a field
            at = min(pos, n - 4)
            width, fmt = rng.choice(((2, "<H"), (4, "<I"), (8, "<Q")))
            value = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
            buf[at : at + width] = struct.pack(fmt, value)
        elif op == 5:  # token / huge number
            buf[pos:pos] = rng.choice(TEXT_TOKENS) if text or rng.random() < 0.3 else os.urandom(rng.randrange(1, 16))
        elif op == 6 and n:  # duplicate a region
            a = rng.randrange(n)
            buf[pos:pos] = buf[a : a + rng.randrange(1, 4096)]
        elif op == 7:  # random bytes
            buf[pos : pos + rng.randrange(16)] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 32)))
        elif op == 8 and n:  # delete a region
            del buf[pos : pos + rng.randrange(1, 256)]
    return bytes(buf)


Runner = Callable[[str, bytes, str], str]
