"""The compiler model equals LLVM's own ``; Occupancy`` on every kernel, every target, every mode.

The oracle is Triton 3.9.0's bundled LLVM, run offline (no GPU): hand-written IR for all 14 targets in each
wave size and WGP / CU mode through the core LLVM (``llvm.translate_to_asm``, as issue #40 asks) and a
random part of it through the AMD code generator ``triton.compile`` uses (``compile_amdgpu``), plus real
``@triton.jit`` kernels.  The model is fed what a code-object reader gives: the metadata's ``.vgpr_count``,
``.agpr_count``, ``.sgpr_count``, ``.group_segment_fixed_size``, ``.max_flat_workgroup_size``,
``.wavefront_size``, ``.workgroup_processor_mode``, ``.reqd_workgroup_size``, and either the
``amdgpu-waves-per-eu`` the kernel was built with or the kernel descriptor's register allocation.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from occupancy_gui.engine.amd import AmdKernel, AmdTarget, compiler_occupancy
from occupancy_gui.profiles.amd_catalog import AmdCatalog

from .conftest import run_oracle
from .ir_cases import IrCase, modes, module, random_cases, sweep_cases

SEED = 40
TRITON_TARGETS = [
    ("gfx942", 64),
    ("gfx950", 64),
    ("gfx90a", 64),
    ("gfx908", 64),
    ("gfx906", 64),
    ("gfx1100", 32),
    ("gfx1151", 32),
    ("gfx1200", 32),
    ("gfx1201", 32),
]
"""What issue #40 lists that Triton compiles (and this catalog has): RDNA always compiles wave32 there."""


def kernel_of(record: dict[str, Any], target: AmdTarget, waves_per_eu: tuple[int, int | None] | None) -> AmdKernel:
    """The engine's input from one compiled kernel's metadata, as ``importers.amd`` reads it."""
    required = record.get("reqd_workgroup_size")
    return AmdKernel(
        vgprs=record["vgpr_count"],
        agprs=record.get("agpr_count", 0),
        sgprs=record["sgpr_count"],
        static_lds=record["group_segment_fixed_size"],
        scratch=record["private_segment_fixed_size"],
        wave_size=record["wavefront_size"],
        wgp_mode=bool(record["workgroup_processor_mode"]) if target.has_wgp else None,
        max_threads=record["max_flat_workgroup_size"],
        required_block=required[0] * required[1] * required[2] if required else 0,
        waves_per_eu=waves_per_eu,
    )


def descriptor_allocation(record: dict[str, Any], target: AmdTarget) -> tuple[int, int]:
    """(VGPRs, SGPRs) the kernel descriptor allocates: (granulated count + 1) × the encoding granule
    (VGPRs: 8 on gfx90a+ and for wave32, else 4; SGPRs: 8, encoded before gfx10 only)."""
    unified = target.agpr_file == "unified"
    vgpr_encoding = 8 if unified or record["wavefront_size"] == 32 else 4
    sgprs = (record["SGPRBlocks"] + 1) * 8 if target.gfx_major < 10 else 0
    return (record["VGPRBlocks"] + 1) * vgpr_encoding, sgprs


def ir_jobs(catalog: AmdCatalog) -> tuple[list[dict[str, Any]], list[tuple[AmdTarget, str, list[IrCase]]]]:
    jobs, meta = [], []
    for profile in catalog.targets():
        for index, (features, _wave, wgp) in enumerate(modes(profile.target)):
            cases = sweep_cases(profile.target, wgp, SEED, full=index == 0)
            jobs.append(
                {"kind": "ir", "arch": profile.name, "features": features, "backend": "core", "module": module(cases)}
            )
            meta.append((profile.target, features, cases))
            mixed = random_cases(profile.target, wgp, SEED + 1)
            jobs.append(
                {
                    "kind": "ir",
                    "arch": profile.name,
                    "features": features,
                    "backend": "codegen",
                    "module": module(mixed),
                }
            )
            meta.append((profile.target, features + " (codegen)", mixed))
    return jobs, meta


@pytest.fixture(scope="module")
def ir_results(amd_catalog: AmdCatalog) -> list[tuple[AmdTarget, str, IrCase, dict[str, Any]]]:
    jobs, meta = ir_jobs(amd_catalog)
    results = run_oracle(jobs)
    rows = []
    for (target, features, cases), records in zip(meta, results, strict=True):
        assert len(records) == len(cases)
        rows += [(target, features, case, record) for case, record in zip(cases, records, strict=True)]
    return rows


def test_model_equals_llvm_on_every_ir_kernel(ir_results: list[tuple[AmdTarget, str, IrCase, dict[str, Any]]]) -> None:
    mismatches = []
    binding: Counter[str] = Counter()
    for target, features, case, record in ir_results:
        model = compiler_occupancy(target, kernel_of(record, target, case.waves_per_eu))
        binding.update(model.binding)
        figures = (model.waves_per_simd, model.budget.padded_vgprs, model.budget.padded_sgprs)
        llvm = (record["Occupancy"], record["NumVGPRsForWavesPerEU"], record["NumSGPRsForWavesPerEU"])
        if figures != llvm:
            mismatches.append(f"{target.name} {features or 'default'} {case}: model {figures}, LLVM {llvm}")
    assert mismatches == [], f"{len(mismatches)} of {len(ir_results)}: " + "; ".join(mismatches[:5])
    assert len(ir_results) > 10_000
    assert set(binding) == {"waves", "workgroup_size", "lds", "vgprs", "sgprs", "waves_per_eu"}, binding


def test_every_target_and_mode_compiled(
    ir_results: list[tuple[AmdTarget, str, IrCase, dict[str, Any]]], amd_catalog: AmdCatalog
) -> None:
    seen = {(t.name, f) for t, f, _c, _r in ir_results}
    for profile in amd_catalog.targets():
        for features, _wave, _wgp in modes(profile.target):
            assert (profile.name, features) in seen and (profile.name, features + " (codegen)") in seen
    waves = {(t.name, r["wavefront_size"], r.get("workgroup_processor_mode")) for t, _f, _c, r in ir_results}
    assert ("gfx1030", 64, 0) in waves and ("gfx1031", 32, 1) in waves and ("gfx942", 64, None) in waves


def test_descriptor_allocation_stands_in_for_waves_per_eu(
    ir_results: list[tuple[AmdTarget, str, IrCase, dict[str, Any]]],
) -> None:
    """A code object does not record ``amdgpu-waves-per-eu``, but its descriptor allocates the padded
    registers: given those and no attribute, the model still equals LLVM."""
    padded = 0
    mismatches = []
    for target, features, case, record in ir_results:
        vgprs, sgprs = descriptor_allocation(record, target)
        kernel = kernel_of(record, target, None)
        kernel = AmdKernel(**{**kernel.__dict__, "allocated_vgprs": vgprs, "allocated_sgprs": sgprs})
        padded += vgprs > record["vgpr_count"] + 8 and case.waves_per_eu is not None
        if compiler_occupancy(target, kernel).waves_per_simd != record["Occupancy"]:
            mismatches.append(f"{target.name} {features} {case}")
    assert mismatches == [], mismatches[:5]
    assert padded > 100


@pytest.fixture(scope="module")
def triton_results() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    jobs = []
    for arch, warp in TRITON_TARGETS:
        for rows in (2, 8, 32, 64):
            jobs.append(
                {
                    "kind": "triton",
                    "kernel": "pressure",
                    "arch": arch,
                    "warp": warp,
                    "constexprs": {"rows": rows, "block": 1024},
                    "options": {"num_warps": 4},
                }
            )
        for warps in (1, 8):
            jobs.append(
                {
                    "kind": "triton",
                    "kernel": "pressure",
                    "arch": arch,
                    "warp": warp,
                    "constexprs": {"rows": 8, "block": 512},
                    "options": {"num_warps": warps},
                }
            )
        for waves in (0, 2, 4):
            jobs.append(
                {
                    "kind": "triton",
                    "kernel": "dot",
                    "arch": arch,
                    "warp": warp,
                    "constexprs": {"size_m": 128, "size_n": 128, "size_k": 64},
                    "options": {"num_warps": 4, "waves_per_eu": waves},
                }
            )
        jobs.append(
            {
                "kind": "triton",
                "kernel": "dot",
                "arch": arch,
                "warp": warp,
                "constexprs": {"size_m": 64, "size_n": 64, "size_k": 32},
                "options": {"num_warps": 2},
            }
        )
    results = run_oracle(jobs)
    return [(job["arch"], job, records[0]) for job, records in zip(jobs, results, strict=True)]


def test_model_equals_llvm_on_triton_kernels(
    triton_results: list[tuple[str, dict[str, Any], dict[str, Any]]], amd_catalog: AmdCatalog
) -> None:
    mismatches = []
    for arch, job, record in triton_results:
        target = amd_catalog.get(arch).target
        waves = job["options"].get("waves_per_eu", 0)
        kernel = kernel_of(record, target, (waves, waves) if waves else None)
        model = compiler_occupancy(target, kernel).waves_per_simd
        if model != record["Occupancy"]:
            mismatches.append(
                f"{arch} {job['kernel']} {job['constexprs']} {job['options']}: {model} != {record['Occupancy']}"
            )
    assert mismatches == [], mismatches
    # The sweep reaches what it is meant to: register limits, AGPRs, spills to scratch, several launch bounds.
    assert any(r.get("agpr_count", 0) > 0 for _a, _j, r in triton_results)
    assert any(r["private_segment_fixed_size"] > 0 for _a, _j, r in triton_results)
    assert len({r["max_flat_workgroup_size"] for _a, _j, r in triton_results}) >= 3
    assert len({r["Occupancy"] for _a, _j, r in triton_results}) >= 5
