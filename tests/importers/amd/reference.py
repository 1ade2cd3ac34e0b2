"""The reference readers for AMD code objects (Debian 12's LLVM 19), and every record held to them.

* ``llvm-readelf-19 -h``: the ELF header (OS/ABI, ABI version -> code object version, e_flags as LLVM names
  them);
* ``llvm-readelf-19 --notes``: the metadata note as YAML (msgpack for v3+, v2's YAML), parsed here;
* ``llvm-objdump-19 -D -j .rodata``: every ``NAME.kd`` kernel descriptor as ``.amdhsa_*`` directives
  (``.amdhsa_next_free_vgpr`` is the descriptor's VGPR allocation).  LLVM 19 names no processor newer than
  gfx1152 (no gfx950, gfx1153, gfx9-4-generic, gfx125x): for those, a copy with the processor number
  of one it knows *with the same VGPR encoding granule* (gfx950 and gfx9-4-generic -> gfx942, gfx1153 ->
  gfx1151) is disassembled; gfx125x have none (16 VGPRs per granule in wave32) and are left to the
  assembler's own ``.amdhsa_next_free_vgpr`` where a test has it.
* ``clang-offload-bundler-19 --list/--unbundle``: plain and CCOB v2 bundles (not v3, nor zlib CCOBs).

:func:`extract_bundle` unpacks bundles (plain and CCOB v1-v3) with its own few lines of ``struct`` over the
documented layout, so that the code objects inside a bundle the bundler cannot read still go to readelf and
objdump through something other than the reader under test.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml

READELF = "llvm-readelf-19"
OBJDUMP = "llvm-objdump-19"
BUNDLER = "clang-offload-bundler-19"
CLANG = "clang-19"

needs_llvm = pytest.mark.skipif(
    shutil.which(READELF) is None or shutil.which(OBJDUMP) is None,
    reason="llvm-19 is not installed (the README's test command installs it)",
)
needs_clang = pytest.mark.skipif(
    shutil.which(CLANG) is None or shutil.which("ld.lld-19") is None,
    reason="clang-19 and lld-19 are not installed (the README's test command installs them)",
)

_SAME_GRANULE = {0x4F: 0x4C, 0x5F: 0x4C, 0x58: 0x4A}
_NO_DISASSEMBLER = {0x49, 0x50, 0x5A, 0x5B, 0x5C, 0x5D, 0x5E}
"""gfx1250, gfx1310, gfx1251, gfx12-5-generic, gfx117x: no LLVM 19 processor shares their VGPR encoding."""
"""Processors LLVM 19 does not know -> one it knows with the same VGPR encoding granule."""
_UNNAMED = {
    0x4F: "gfx950",
    0x58: "gfx1153",
    0x49: "gfx1250",
    0x5A: "gfx1251",
    0x5B: "gfx12-5-generic",
    0x5F: "gfx9-4-generic",
    0x50: "gfx1310",
}
"""e_flags processors llvm-readelf-19 prints no name for, as AMDGPUUsage's "AMDGPU ELF Header" table names them
(used only where a code object has no amdhsa.target: aiter's hand-written code objects)."""
_XNACK = {
    "gfx801",
    "gfx810",
    "gfx900",
    "gfx902",
    "gfx904",
    "gfx906",
    "gfx908",
    "gfx909",
    "gfx90a",
    "gfx90c",
    "gfx940",
    "gfx941",
    "gfx942",
    "gfx1010",
    "gfx1011",
    "gfx1012",
    "gfx1013",
}
_SRAMECC = {"gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"}


def run(*cmd: str | Path) -> str:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout


def header(path: Path) -> dict[str, Any]:
    """OS/ABI, code object version and the processor and feature words of ``llvm-readelf -h``."""
    out = run(READELF, "-h", path)
    abi = int(re.search(r"ABI Version:\s+(\d+)", out).group(1))
    flags = re.search(r"Flags:\s+0x([0-9a-fA-F]+)((?:, [\w+-]+)*)", out)
    words = [w.strip() for w in flags.group(2).split(",") if w.strip()]
    return {
        "osabi": re.search(r"OS/ABI:\s+(.*)", out).group(1).strip(),
        "version": abi + 2,
        "flags": int(flags.group(1), 16),
        "words": words,
    }


class _Loader(yaml.CSafeLoader):
    """PyYAML's safe loader, reading LLVM's ``!str`` tag (a string that would otherwise read as a number)."""


_Loader.add_constructor("!str", lambda loader, node: loader.construct_scalar(node))

_YAML_DOC = re.compile(r"Metadata:\n\s*---\n(.*?)\n\.\.\.\n", re.S)


def notes(path: Path, fast: bool = False) -> dict[str, Any]:
    """The metadata note as ``llvm-readelf --notes`` prints it, parsed by PyYAML, or with ``fast`` by
    :func:`scan_notes` (for libraries of 10^5 kernels, where YAML takes 0.4 s a code object)."""
    out = run(READELF, "--notes", path)
    found = _YAML_DOC.search(out)
    assert found, f"{path}: no metadata in llvm-readelf --notes"
    return scan_notes(found.group(1)) if fast else yaml.load(found.group(1), Loader=_Loader)


_TOP = re.compile(r"^(amdhsa\.\w+):[ ]*(.*)$")
_KEY = re.compile(r"^(  - |    )(\.\w+):[ ]*(.*)$")
_ITEM = re.compile(r"^      - (.*)$")


def scan_notes(text: str) -> dict[str, Any]:
    """``llvm-readelf --notes``' YAML for v3+ read line by line: each kernel's own keys (indent 4, the
    first after ``  - ``), with scalar values or lists of scalars (``.reqd_workgroup_size``); the keys below
    (``.args``) are passed over.  A test holds it to PyYAML on real libraries' code objects."""
    doc: dict[str, Any] = {"amdhsa.kernels": []}
    kernel: dict[str, Any] | None = None
    listing: list[Any] | None = None
    for line in text.splitlines():
        m = _KEY.match(line)
        if m:
            if m.group(1) == "  - ":
                kernel = {}
                doc["amdhsa.kernels"].append(kernel)
            assert kernel is not None
            value = m.group(3)
            listing = kernel[m.group(2)] = [] if value == "" else None
            if value:
                kernel[m.group(2)] = _scalar(value)
            continue
        item = _ITEM.match(line)
        if item and listing is not None:
            listing.append(_scalar(item.group(1)))
            continue
        if not line.startswith("      "):
            listing = None
        top = _TOP.match(line)
        if top and top.group(2):
            doc[top.group(1)] = _scalar(top.group(2))
    return doc


def _scalar(text: str) -> Any:
    if text == "[]":
        return []
    if text in ("true", "false"):
        return text == "true"
    if text.lstrip("-").isdigit():
        return int(text)
    return text.strip("'")


_KD = re.compile(r"<(?P<sym>[^>]+)\.kd>:\n\.amdhsa_kernel (?P<name>\S+)\n(?P<body>.*?)\.end_amdhsa_kernel", re.S)


def descriptors(path: Path, tmp: Path) -> dict[str, dict[str, int]] | None:
    """Every kernel descriptor of a code object as ``llvm-objdump -D`` prints it: name -> directives;
    ``None`` for a processor LLVM 19 has no disassembler for, nor one of the same granule."""
    data = path.read_bytes()
    flags = struct.unpack_from("<I", data, 0x30)[0]
    mach = flags & 0xFF
    if mach in _NO_DISASSEMBLER:
        return None
    if mach in _SAME_GRANULE:
        patched = tmp / (path.name + ".as-known.co")
        patched.write_bytes(data[:0x30] + struct.pack("<I", (flags & ~0xFF) | _SAME_GRANULE[mach]) + data[0x34:])
        path = patched
    out = run(OBJDUMP, "-D", "-j", ".rodata", path)
    refused = _REFUSED.findall(out)
    if refused:  # see _clear_sgpr_blocks
        path = _clear_sgpr_blocks(path, [int(address, 16) for address in refused], tmp)
        out = run(OBJDUMP, "-D", "-j", ".rodata", path)
    # llvm-objdump-19 refuses a descriptor whose offset in .rodata is not a multiple of 64 (it checks the
    # offset in the section, not the address: xla_rocm_plugin.so has 26 such, at 64-aligned addresses of a
    # section that starts off 64).  Their allocation has no reference reader: None, left unchecked.
    table: dict[str, dict[str, Any]] = {sym: {"next_free_vgpr": None} for sym in _MISALIGNED.findall(out)}
    for m in _KD.finditer(out):
        directives = dict(line.split()[:2] for line in m.group("body").splitlines() if line.strip().startswith("."))
        table[m.group("sym")] = {key[len(".amdhsa_") :]: int(value) for key, value in directives.items()}
    return table


_REFUSED = re.compile(
    r"^([0-9a-f]+) <[^>]+\.kd>:\n; error decoding [^\n]*GRANULATED_WAVEFRONT_SGPR_COUNT reserved bits", re.M
)
_MISALIGNED = re.compile(r"^[0-9a-f]+ <([^>]+)\.kd>:\n; error decoding [^\n]*must be 64-byte aligned", re.M)
_SECTION = re.compile(r"\]\s+\.rodata\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)")


def _clear_sgpr_blocks(path: Path, addresses: list[int], tmp: Path) -> Path:
    """A copy of ``path`` whose descriptors at ``addresses`` have ``GRANULATED_WAVEFRONT_SGPR_COUNT``
    (rsrc1 bits 6-9) cleared.  LLVM 19's compiler writes that field for gfx10+ code object v4, where the
    hardware ignores it, and LLVM 19's disassembler then refuses the whole descriptor; the VGPR field it is
    asked for lies in bits 0-5, untouched."""
    address, offset = (int(v, 16) for v in _SECTION.search(run(READELF, "-S", "-W", path)).groups())
    data = bytearray(path.read_bytes())
    for kd in addresses:
        at = offset + kd - address + 48
        struct.pack_into("<I", data, at, struct.unpack_from("<I", data, at)[0] & ~(0xF << 6))
    patched = tmp / (path.name + ".sgpr-cleared.co")
    patched.write_bytes(bytes(data))
    return patched


def processor_of(meta: dict[str, Any], head: dict[str, Any]) -> str:
    """The target id the reference readers give: ``amdhsa.target``'s processor part (v4+), or for v2/v3 the
    processor ``readelf`` names with each feature the processor has, ``+`` where ``readelf`` prints it."""
    target = meta.get("amdhsa.target")
    if target is not None:
        return target.split("-", 4)[4]
    words = head["words"]
    name = next((w for w in words if w.startswith("gfx")), None) or _UNNAMED[head["flags"] & 0xFF]
    if head["version"] <= 3:
        features = [
            f"{feature}{'+' if feature in words else '-'}"
            for feature, has in (("sramecc", _SRAMECC), ("xnack", _XNACK))
            if name in has
        ]
    else:  # readelf prints "xnack" for any, "xnack-" for off, "xnack+" for on
        features = [
            word for feature in ("sramecc", "xnack") for word in (feature + "+", feature + "-") if word in words
        ]
    return ":".join([name, *features])


def expected_records(path: Path, tmp: Path, fast: bool = False) -> dict[str, dict[str, Any]]:
    """What the reference readers say of every kernel of the code object ``path``, in the JSON contract's
    terms: name -> {field: value}.  ``fast``: see :func:`notes`."""
    head = header(path)
    meta = notes(path, fast=fast and head["version"] > 2)
    v2 = head["version"] == 2
    kernels = meta.get("Kernels" if v2 else "amdhsa.kernels") or []
    target = processor_of(meta, head)
    arch = target.split(":")[0]
    kds = {} if v2 else descriptors(path, tmp)
    if kds is None:  # no reference descriptor reader: the metadata's kernels, allocation unchecked here
        kds = {
            k[".symbol"][:-3]: {
                "group_segment_fixed_size": k[".group_segment_fixed_size"],
                "private_segment_fixed_size": k[".private_segment_fixed_size"],
                "next_free_vgpr": None,
            }
            for k in kernels
        }
    out = {}
    for k in kernels:
        if v2:
            out[k["Name"]] = _expected_v2(k, arch, target)
            continue
        symbol = k[".symbol"][:-3]
        kd = kds.get(symbol)
        if kd is None:
            continue
        if "workgroup_processor_mode" not in k and kd["next_free_vgpr"] is None:
            wgp = None  # no reference for the descriptor's bit
        else:
            wgp = k.get(".workgroup_processor_mode", kd.get("workgroup_processor_mode", 0))
        stack = k.get(".uses_dynamic_stack")
        if stack is None and "uses_dynamic_stack" in kd and head["version"] >= 5:
            stack = bool(kd["uses_dynamic_stack"])
        assert kd.get("group_segment_fixed_size", k[".group_segment_fixed_size"]) == k[".group_segment_fixed_size"]
        assert (
            kd.get("private_segment_fixed_size", k[".private_segment_fixed_size"]) == k[".private_segment_fixed_size"]
        )
        reqd = k.get(".reqd_workgroup_size")
        out[k[".name"]] = {
            "name": k[".name"],
            "kind": "kernel",
            "arch": arch,
            "target": target,
            "code_object_version": head["version"],
            "vgprs": k[".vgpr_count"],
            "agprs": k.get(".agpr_count"),
            "sgprs": k[".sgpr_count"],
            "allocated_vgprs": kd["next_free_vgpr"],
            "static_lds": k[".group_segment_fixed_size"],
            "scratch_bytes": k[".private_segment_fixed_size"],
            "dynamic_stack": stack,
            "wave_size": k[".wavefront_size"],
            "wgp_mode": None if wgp is None else bool(wgp),
            "max_threads": k[".max_flat_workgroup_size"],
            "required_block": reqd,
            "spills": {"vgpr": k.get(".vgpr_spill_count"), "sgpr": k.get(".sgpr_spill_count")},
        }
    return out


def _expected_v2(k: dict[str, Any], arch: str, target: str) -> dict[str, Any]:
    props = k.get("CodeProps", {})
    attrs = k.get("Attrs", {})
    return {
        "name": k["Name"],
        "kind": "kernel",
        "arch": arch,
        "target": target,
        "code_object_version": 2,
        "vgprs": props.get("NumVGPRs", 0),
        "agprs": None,
        "sgprs": props.get("NumSGPRs", 0),
        "static_lds": props.get("GroupSegmentFixedSize", 0),
        "scratch_bytes": props.get("PrivateSegmentFixedSize", 0),
        "dynamic_stack": props.get("IsDynamicCallStack"),
        "wave_size": props.get("WavefrontSize"),
        "wgp_mode": False,
        "max_threads": props.get("MaxFlatWorkGroupSize"),
        "required_block": attrs.get("ReqdWorkGroupSize"),
        "spills": {"vgpr": props.get("NumSpilledVGPRs", 0), "sgpr": props.get("NumSpilledSGPRs", 0)},
    }


def mismatches(records: list[dict[str, Any]], expected: dict[str, dict[str, Any]], where: str) -> list[str]:
    """Every field where a record's JSON differs from the reference, and every kernel either side lacks."""
    got = {r["name"]: r for r in records}
    problems = [f"{where}: {name}: missing" for name in expected if name not in got]
    problems += [f"{where}: {name}: not in the reference" for name in got if name not in expected]
    for name, ref in expected.items():
        rec = got.get(name)
        if rec is None:
            continue
        for key, value in ref.items():
            if value is None and key in ("allocated_vgprs", "wgp_mode"):
                continue  # no reference reader for this descriptor
            if rec[key] != value:
                problems.append(f"{where}: {name}: {key} {rec[key]!r} != reference {value!r}")
    return problems


def bundler_list(path: Path) -> list[str]:
    return run(BUNDLER, "--list", "--type=o", f"--input={path}").split()


def bundler_unbundle(path: Path, entry: str, out: Path) -> Path:
    run(BUNDLER, "--unbundle", "--type=o", f"--input={path}", f"--targets={entry}", f"--output={out}")
    return out


def extract_bundle(data: bytes) -> list[tuple[str, bytes]]:
    """The (entry id, bytes) of a plain bundle or a compressed one (v1-v3, zlib or zstd)."""
    if data[:4] == b"CCOB":
        version, method = struct.unpack_from("<HH", data, 4)
        if version == 1:
            size, start, end = struct.unpack_from("<I", data, 8)[0], 20, len(data)
        elif version == 2:
            end, size = struct.unpack_from("<II", data, 8)
            start = 24
        else:
            end, size = struct.unpack_from("<QQ", data, 8)
            start = 32
        packed = data[start:end]
        if method == 1:
            import zstandard

            data = zstandard.ZstdDecompressor().decompress(packed, max_output_size=size)
        else:
            data = zlib.decompress(packed)
    assert data[:24] == b"__CLANG_OFFLOAD_BUNDLE__"
    (count,) = struct.unpack_from("<Q", data, 24)
    pos, out = 32, []
    for _ in range(count):
        offset, size, id_size = struct.unpack_from("<QQQ", data, pos)
        out.append((data[pos + 24 : pos + 24 + id_size].decode(), data[offset : offset + size]))
        pos += 24 + id_size
    return out


def section(path: Path, name: str) -> bytes:
    """The contents of a host ELF's section (``llvm-objcopy-19 -O binary --only-section``)."""
    out = path.parent / f"{path.name}.{name.strip('.')}.bin"
    run("llvm-objcopy-19", "-O", "binary", f"--only-section={name}", path, out)
    return out.read_bytes()
