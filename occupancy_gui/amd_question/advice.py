"""The AMD advisor: the VGPR counts at which waves per SIMD change under each rule, and what to write in the source
to move LLVM's answer (``__launch_bounds__`` / ``amdgpu_flat_work_group_size``, ``amdgpu_waves_per_eu``), with the
HIP runtime's own block-size suggestions.  Every figure is the AMD engine's; here they are put into words.
"""

from __future__ import annotations

import dataclasses

from ..engine.amd import (
    AmdInputError,
    compiler_occupancy,
    hip_block_size_search,
    hip_potential_block_size,
    vgpr_hint,
    vgpr_steps,
)
from .answer import AmdAnswer

VgprRow = tuple[int, int | None, int | None]
"""(waves per SIMD, the most VGPRs the HIP runtime allows for it, the most LLVM allows); None: not reachable."""


def vgpr_table(result: AmdAnswer) -> list[VgprRow]:
    """Every waves-per-SIMD level either rule reaches, highest first, with each rule's VGPR ceiling for it."""
    steps = vgpr_steps(result.device.target, result.kernel)
    by_rule: dict[str, dict[int, int]] = {"hip_runtime": {}, "compiler": {}}
    for step in steps:
        by_rule[step.rule][step.waves] = step.max_vgprs
    levels = sorted(set(by_rule["hip_runtime"]) | set(by_rule["compiler"]), reverse=True)
    return [(w, by_rule["hip_runtime"].get(w), by_rule["compiler"].get(w)) for w in levels]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def launch_bound_hint(result: AmdAnswer) -> str:
    """What ``__launch_bounds__`` (``amdgpu_flat_work_group_size``) would make of LLVM's answer for the launched block."""
    kernel, target = result.kernel, result.device.target
    block = result.launch.threads_per_block
    low, bound = kernel.flat_workgroup_sizes(target)
    now = result.compiler.waves_per_simd
    if not 1 <= block <= target.max_workgroup_size:
        return f"A block of {block} threads cannot launch (1..{target.max_workgroup_size}): no launch bound helps."
    if block > bound:
        return (
            f"The block of {block} threads is above the kernel's launch bound of {bound}: the launch fails "
            f"(hipErrorLaunchFailure). Raise __launch_bounds__ to at least {block}."
        )
    if block == bound:
        return f"The launch bound ({bound}) is the block launched: LLVM already sizes for it ({now} waves per SIMD)."
    try:
        bounded = compiler_occupancy(
            target, dataclasses.replace(kernel, max_threads=block, required_block=0)
        ).waves_per_simd
    except AmdInputError as exc:
        return f"No launch-bound hint: {exc}"
    attr = f"__launch_bounds__({block}) (amdgpu_flat_work_group_size(1, {block}))"
    if bounded == now:
        return f"{attr} would not change LLVM's answer: {now} waves per SIMD either way."
    return (
        f"{attr} lets LLVM budget for {block}-thread blocks instead of {bound}: "
        f"{_plural(bounded, 'wave')} per SIMD instead of {now}."
    )


def waves_per_eu_hint(result: AmdAnswer) -> str:
    """What ``amdgpu_waves_per_eu`` asks of LLVM, or would ask for one more VGPR-limited level."""
    kernel, target = result.kernel, result.device.target
    if kernel.waves_per_eu is not None:
        without = compiler_occupancy(target, dataclasses.replace(kernel, waves_per_eu=None)).waves_per_simd
        now = result.compiler.waves_per_simd
        setting = kernel.waves_per_eu[0] if kernel.waves_per_eu[1] is None else kernel.waves_per_eu
        if without != now:
            return (
                f"amdgpu_waves_per_eu{setting!r} gives LLVM {now} waves per SIMD; without it {without} "
                "(a maximum pads the register allocation)."
            ).replace(",)", ")")
        return f"amdgpu_waves_per_eu{setting!r} leaves LLVM's answer at {now} waves per SIMD.".replace(",)", ")")
    hint = vgpr_hint(target, kernel)
    return hint or f"VGPRs do not limit LLVM's answer ({result.compiler.waves_per_simd} waves per SIMD)."


def runtime_hints(result: AmdAnswer) -> list[str]:
    """The HIP runtime's block-size suggestions: ``hipOccupancyMaxPotentialBlockSize`` (no search) and the header
    template that searches, for the kernel and the dynamic LDS launched."""
    device, kernel, dynamic = result.device, result.kernel, result.launch.dynamic_lds
    out = []
    try:
        best = hip_potential_block_size(device, kernel, dynamic)
        search = hip_block_size_search(device, kernel, dynamic)
    except AmdInputError as exc:
        return [f"No block-size suggestion: {exc}"]
    if best.error is not None:
        out.append(f"hipOccupancyMaxPotentialBlockSize: {best.error}")
    else:
        grid = "" if best.grid_blocks is None else f", grid {best.grid_blocks}"
        out.append(
            f"hipOccupancyMaxPotentialBlockSize: {best.best_block_size} threads per block{grid} "
            "(no search: the largest wave-aligned block)"
        )
    if search.error is not None:
        out.append(f"Header template (searches): {search.error}")
    else:
        grid = "" if search.min_grid_size is None else f", grid {search.min_grid_size}"
        out.append(
            f"Header template hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags (searches): "
            f"{search.block_size} threads, {_plural(search.blocks_per_multiprocessor, 'block')} per "
            f"{result.multiprocessor}{grid}"
        )
    return out
