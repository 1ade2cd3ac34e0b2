"""LLVM itself as the compiler model's oracle: Triton 3.9.0's bundled LLVM compiles AMDGPU kernels offline.

Run as a child process (``python llvm_oracle.py JOBS.json OUT.json``) so that Triton, its LLVM and its
warnings stay out of the test process: ``triton._C.libtriton.llvm.init_targets()`` must run before any
translation (without it the process crashes), and Triton prints an FP-fusion warning the test suite's
``filterwarnings = error`` would turn into a failure.

A job is either a module of hand-written LLVM IR for one target and feature string, translated by the core
LLVM (``llvm.translate_to_asm``) or by the AMD code generator ``triton.compile`` uses
(``backends.amd.compiler.compile_amdgpu``), or a ``@triton.jit`` kernel from ``triton_kernels.py``
compiled with ``triton.compile`` for ``GPUTarget("hip", arch, warp_size)``.  Each result is the list of the
kernels in the ``.amdgcn`` text with the figures the compiler prints and the code-object metadata.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

COMMENT = re.compile(
    r"^; (NumVgprs|NumAgprs|TotalNumVgprs|TotalNumSgprs|ScratchSize|Occupancy|VGPRBlocks|SGPRBlocks|"
    r"NumVGPRsForWavesPerEU|NumSGPRsForWavesPerEU|LDSByteSize): (\d+)"
)
LABEL = re.compile(r"^([A-Za-z_][\w$]*):")
DIRECTIVE = re.compile(r"^\s*\.amdhsa_(workgroup_processor_mode|next_free_vgpr|accum_offset)\s+(\d+)")
KERNEL_BLOCK = re.compile(r"^\s*\.amdhsa_kernel\s+(\S+)")
METADATA = frozenset(
    {
        "name",
        "vgpr_count",
        "agpr_count",
        "sgpr_count",
        "group_segment_fixed_size",
        "private_segment_fixed_size",
        "max_flat_workgroup_size",
        "wavefront_size",
        "workgroup_processor_mode",
        "reqd_workgroup_size",
    }
)
"""The code-object metadata fields a reader gives the engine (the rest of each entry is dropped)."""


def parse_amdgcn(text: str) -> list[dict[str, Any]]:
    """Per kernel: the ``; Kernel info`` figures, the ``.amdhsa_*`` directives and the metadata's scalar fields.

    The metadata is read line by line rather than as YAML: a module of a thousand kernels carries 3.5 MB of it,
    which PyYAML takes seconds to load.  Kernel entries start at ``  - .``, their own keys sit at four spaces,
    ``.reqd_workgroup_size`` is a list of integers below its key.
    """
    stats: dict[str, dict[str, Any]] = {}
    current = None
    directive_owner = None
    lines = text.splitlines()
    for line in lines:
        if line.startswith(";"):
            comment = COMMENT.match(line)
            if comment and current is not None:
                stats.setdefault(current, {})[comment.group(1)] = int(comment.group(2))
        elif line[:1].isalpha() or line[:1] == "_":
            label = LABEL.match(line)
            if label:
                current = label.group(1)
        elif ".amdhsa_" in line:
            block = KERNEL_BLOCK.match(line)
            if block:
                directive_owner = block.group(1)
            directive = DIRECTIVE.match(line)
            if directive and directive_owner is not None:
                stats.setdefault(directive_owner, {})["amdhsa_" + directive.group(1)] = int(directive.group(2))
    meta_start = lines.index("\t.amdgpu_metadata")
    kernels: list[dict[str, Any]] = []
    last_key = None
    for line in lines[meta_start:]:
        if line.startswith("  - ."):
            kernels.append({})
            line = "    " + line[4:]
        if kernels and line.startswith("    .") and not line.startswith("     "):
            key, _, value = line.strip().partition(":")
            value = value.strip()
            last_key = key[1:]
            if value:
                kernels[-1][last_key] = int(value) if value.isdigit() else value
        elif (
            kernels and last_key == "reqd_workgroup_size" and line.startswith("      - ") and line[8:].strip().isdigit()
        ):
            kernels[-1].setdefault("reqd_workgroup_size", []).append(int(line[8:]))
        elif line.startswith(("amdhsa.", "\t.end_amdgpu_metadata")):
            last_key = None
    return [{**stats.get(str(k["name"]), {}), **{key: v for key, v in k.items() if key in METADATA}} for k in kernels]


def run_ir(job: dict[str, Any]) -> list[dict[str, Any]]:
    from triton._C.libtriton import amd, llvm

    triple = amd.get_target_triple(job["arch"])
    if job["backend"] == "core":
        text = llvm.translate_to_asm(job["module"], triple, job["arch"], job["features"], [], False, False, False)
    else:
        from triton.backends.amd.compiler import compile_amdgpu

        text = compile_amdgpu(
            job["module"],
            triple,
            job["arch"],
            job["features"],
            flags=[],
            enable_fp_fusion=False,
            disable_optimization=False,
            canonicalize_gep=False,
            disabled_passes="",
            dump_ir=False,
            enable_timing=False,
        )
    return parse_amdgcn(text)


def run_triton(job: dict[str, Any]) -> list[dict[str, Any]]:
    import triton
    from triton.backends.compiler import GPUTarget

    sys.path.insert(0, str(Path(__file__).parent))
    import triton_kernels

    fn, signature = triton_kernels.KERNELS[job["kernel"]]
    source = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=job["constexprs"])
    compiled = triton.compile(source, target=GPUTarget("hip", job["arch"], job["warp"]), options=job["options"])
    return parse_amdgcn(compiled.asm["amdgcn"])


def main() -> None:
    from triton._C.libtriton import llvm

    llvm.init_targets()
    jobs = json.loads(Path(sys.argv[1]).read_text())
    results = [run_ir(job) if job["kind"] == "ir" else run_triton(job) for job in jobs]
    Path(sys.argv[2]).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
