"""AMD compiler output as text: clang's resource-usage remarks and ``--save-temps`` assembly.

* ``-Rpass-analysis=kernel-resource-usage`` (clang, hipcc)::

      k.hip:3:1: remark: Function Name: add [-Rpass-analysis=kernel-resource-usage]
      k.hip:3:1: remark:     SGPRs: 10 [-Rpass-analysis=kernel-resource-usage]
      k.hip:3:1: remark:     VGPRs: 6 [...]        AGPRs: 0   ScratchSize [bytes/lane]: 0   Dynamic Stack: False
      Occupancy [waves/SIMD]: 8   SGPRs Spill: 0   VGPRs Spill: 0   LDS Size [bytes/block]: 0

  (``--save-temps`` moves the location after ``remark:``.)  A remark names no target: a build for several
  ``--offload-arch`` prints one block per target, in turn.
  Where the log holds clang's ``-v`` command lines, each ``-target-cpu gfxNNN`` names the target of the
  blocks after it; otherwise the target is unknown.  The remark's ``VGPRs`` are architectural only: on
  gfx90a and later the metadata's ``.vgpr_count`` adds the AGPRs (``alignTo(VGPRs, 4) + AGPRs`` where
  there are AGPRs), which is what ``vgprs`` holds here where the target is known; with AGPRs and no target,
  ``vgprs`` is left unknown.
* ``.s`` files (``--save-temps``): ``.amdgcn_target``, ``.amdhsa_code_object_version``, each kernel's
  ``.amdhsa_kernel`` block, the ``; Kernel info:`` / ``; Function info:`` comments (``; NumVgprs``,
  ``; TotalNumVgprs``, ``; ScratchSize``, ...) and, at the end, the metadata (the YAML
  ``llvm-readelf --notes`` prints).  Kernels are read from the metadata and the directives exactly as from
  the code object the assembler makes; device functions from their comments.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..base import ImportFailure
from ..files import open_regular
from ..names.demangle import demangle
from .bundles import Batch, Walk
from .metadata import MetadataError
from .metadata_v2 import parse_yaml
from .record import UNKNOWN_SPILLS, AmdKernelRecord, Spills
from .target import has_unified_vgprs, split_target, vgpr_encoding_granule

REMARK_TAG = "[-Rpass-analysis=kernel-resource-usage]"
_REMARK = re.compile(
    r"^(?:.*?: )?remark: (?:\S+:\d+:\d+: )?(?:Function Name: (?P<name>\S+)|\s+(?P<key>[A-Za-z ]+?)"
    r"(?: \[[^\]]*\])?: (?P<value>\S+)) \[-Rpass-analysis=kernel-resource-usage\]\s*$"
)
_TARGET_CPU = re.compile(r"-target-cpu\s+(gfx\S+)")
_BEGIN = re.compile(r";\s+-- Begin function (\S+)")
_COMMENT = re.compile(r"^;\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(\S+)")
_DIRECTIVE = re.compile(r"^\s*\.(amdhsa_\w+)\s+(\S+)")
MAX_LINE = 1 << 20
MAX_ASM_METADATA = 64 << 20
_MARKERS = (REMARK_TAG.encode(), b".amdgcn_target", b".amdhsa_kernel", b"; NumVgprs:")


def looks_like_amd_log(head: bytes) -> bool:
    """Whether text holds AMD resource-usage remarks or AMDGPU assembly."""
    return any(marker in head for marker in _MARKERS)


def log_records(path: str, walk: Walk) -> Batch:
    """The records of a remarks log or an assembly file."""
    with open_regular(path) as stream:
        lines = (raw.decode("utf-8", "replace") for raw in _lines(stream, path))
        first: list[str] = []
        for line in lines:
            first.append(line)
            if len(first) >= 64 or "remark:" in line or ".amdgcn_target" in line:
                break
        text = "".join(first)
        rest = _chain(first, lines)
        records = _remarks(rest, path) if REMARK_TAG in text or ".amdgcn_target" not in text else _assembly(rest, path)
    if not records:
        raise ImportFailure(
            path,
            "no kernel-resource-usage remarks and no AMDGPU kernels in it (build with "
            "-Rpass-analysis=kernel-resource-usage, or --save-temps for .s files)",
        )
    return records


def _lines(stream: Any, path: str) -> Iterator[bytes]:
    number = 0
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE:
            raise ImportFailure(path, f"a line of more than {MAX_LINE} bytes: not compiler output", line=number)
        yield raw


def _chain(first: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from first
    yield from rest


def _remarks(lines: Iterator[str], path: str) -> Batch:
    records: Batch = []
    current: dict[str, Any] | None = None
    target = ""
    for number, line in enumerate(lines, 1):
        if REMARK_TAG not in line:
            found = _TARGET_CPU.search(line)
            if found:
                target = found.group(1)
            continue
        m = _REMARK.match(line)
        if m is None:
            continue
        if m.group("name") is not None:
            if current is not None:
                records.append(_remark_record(current, path))
            current = {"name": m.group("name"), "target": target, "where": f"{path}:{number}"}
        elif current is not None:
            current[m.group("key")] = m.group("value")
    if current is not None:
        records.append(_remark_record(current, path))
    return records


def _int(fields: dict[str, Any], key: str, path: str) -> int | None:
    value = fields.get(key)
    if value is None:
        return None
    if not value.isdigit() or len(value) > 12:
        raise ImportFailure(
            path, f"remark {key!r} of {fields['name']} is {value!r}, not a count ({fields['where'].rsplit(':', 1)[-1]})"
        )
    return int(value)


def _remark_record(fields: dict[str, Any], path: str) -> AmdKernelRecord:
    arch, _ = split_target(fields["target"])
    vgprs, agprs = _int(fields, "VGPRs", path), _int(fields, "AGPRs", path)
    total: int | None = vgprs
    if agprs and vgprs is not None:
        total = (-(-vgprs // 4) * 4 + agprs if has_unified_vgprs(arch) else max(vgprs, agprs)) if arch else None
    stack = fields.get("Dynamic Stack")
    name = fields["name"]
    return AmdKernelRecord(
        name,
        demangle(name),
        "kernel",
        arch or "",
        fields["target"],
        None,
        total,
        agprs,
        _int(fields, "SGPRs", path),
        None,
        _int(fields, "LDS Size", path),
        _int(fields, "ScratchSize", path),
        None if stack is None else stack == "True",
        None,
        None,
        None,
        None,
        Spills(_int(fields, "VGPRs Spill", path), _int(fields, "SGPRs Spill", path)),
        1,
        fields["where"],
    )


def _assembly(lines: Iterator[str], path: str) -> Batch:
    target, version = "", None
    blocks: dict[str, dict[str, str]] = {}
    infos: list[tuple[str, str, dict[str, str], int]] = []  # (function, "Kernel"/"Function", comments, line)
    function = ""
    block: dict[str, str] | None = None
    info: dict[str, str] | None = None
    meta_lines: list[str] | None = None
    meta_text = ""
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if meta_lines is not None:
            if stripped == ".end_amdgpu_metadata":
                meta_text, meta_lines = "".join(meta_lines), None
            else:
                meta_lines.append(line)
            continue
        if stripped.startswith(".amdgcn_target"):
            target = stripped.split(None, 1)[1].strip('"').rpartition("--")[2] if " " in stripped else ""
        elif stripped.startswith(".amdhsa_code_object_version"):
            value = stripped.split()[-1]
            version = int(value) if value.isdigit() else None
        elif stripped.startswith(".amdhsa_kernel "):
            block = blocks.setdefault(stripped.split()[1], {})
        elif stripped == ".end_amdhsa_kernel":
            block = None
        elif block is not None:
            m = _DIRECTIVE.match(line)
            if m:
                block[m.group(1)] = m.group(2)
        elif stripped in ("; Kernel info:", "; Function info:"):
            info = {}
            infos.append((function, stripped[2:-6], info, number))
        elif stripped == ".amdgpu_metadata":
            meta_lines = []
        else:
            begin = _BEGIN.search(line)
            if begin:
                function, info = begin.group(1), None
            elif info is not None:
                m = _COMMENT.match(stripped)
                if m:
                    info[m.group(1)] = m.group(2)
                elif not stripped.startswith(";"):
                    info = None
    return _assembly_records(path, target, version, blocks, infos, meta_text)


def _assembly_records(
    path: str,
    target: str,
    version: int | None,
    blocks: dict[str, dict[str, str]],
    infos: list[tuple[str, str, dict[str, str], int]],
    meta_text: str,
) -> Batch:
    arch, _ = split_target(target)
    meta: dict[str, dict[str, Any]] = {}
    if meta_text:
        try:
            doc = parse_yaml(meta_text.encode(), limit=MAX_ASM_METADATA)
        except MetadataError as exc:
            raise ImportFailure(path, str(exc)) from None
        kernels = doc.get("amdhsa.kernels") if isinstance(doc, dict) else None
        meta = {k[".name"]: k for k in kernels or () if isinstance(k, dict) and isinstance(k.get(".name"), str)}
    records: Batch = []
    for function, what, info, number in infos:
        source = f"{path}:{number}"
        if what == "Kernel" and function in meta:
            records.append(
                _kernel_from_asm(
                    function, meta[function], blocks.get(function, {}), arch, target, version, source, path
                )
            )
        else:
            records.append(_from_comments(function, what, info, arch, target, version, source, path))
    return records


def _kernel_from_asm(
    name: str,
    k: dict[str, Any],
    block: dict[str, str],
    arch: str,
    target: str,
    version: int | None,
    source: str,
    path: str,
) -> AmdKernelRecord:
    def count(key: str) -> int | None:
        value = k.get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ImportFailure(path, f"metadata {key} of {name} is {value!r}, not a count")
        return value

    wave32 = block.get("amdhsa_wavefront_size32") == "1"
    free = block.get("amdhsa_next_free_vgpr")
    granule = vgpr_encoding_granule(arch, wave32)
    allocated = -(-max(1, int(free)) // granule) * granule if free is not None and free.isdigit() else None
    wgp = k.get(".workgroup_processor_mode")
    if wgp is None and block:  # the bit the assembler writes: 0 where the directive is absent (gfx9)
        wgp = block.get("amdhsa_workgroup_processor_mode") == "1"
    reqd = k.get(".reqd_workgroup_size")
    stack = k.get(".uses_dynamic_stack")
    return AmdKernelRecord(
        name,
        demangle(name),
        "kernel",
        arch,
        target,
        version,
        count(".vgpr_count"),
        count(".agpr_count"),
        count(".sgpr_count"),
        allocated,
        count(".group_segment_fixed_size"),
        count(".private_segment_fixed_size"),
        stack if isinstance(stack, bool) else None,
        count(".wavefront_size"),
        None if wgp is None else bool(wgp),
        count(".max_flat_workgroup_size"),
        tuple(reqd) if isinstance(reqd, list) and len(reqd) == 3 else None,
        Spills(count(".vgpr_spill_count"), count(".sgpr_spill_count")),
        1,
        source,
    )


def _from_comments(
    name: str, what: str, info: dict[str, str], arch: str, target: str, version: int | None, source: str, path: str
) -> AmdKernelRecord:
    def count(key: str) -> int | None:
        value = info.get(key)
        return int(value) if value is not None and value.isdigit() else None

    return AmdKernelRecord(
        name,
        demangle(name),
        "kernel" if what == "Kernel" else "device_function",
        arch,
        target,
        version,
        count("TotalNumVgprs") if "TotalNumVgprs" in info else count("NumVgprs"),
        count("NumAgprs"),
        count("NumSgprs"),
        None,
        count("LDSByteSize"),
        count("ScratchSize"),
        None,
        None,
        None,
        None,
        None,
        UNKNOWN_SPILLS,
        1,
        source,
    )
