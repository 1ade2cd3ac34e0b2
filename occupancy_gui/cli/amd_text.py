"""``occupancy calc``'s text for an AMD device: both answers side by side, every limit of each (the binding ones
marked ``*``, as for NVIDIA), and the one-line explanation of a disagreement."""

from __future__ import annotations

from ..engine.amd import (
    AmdDevice,
    AmdKernel,
    AmdLaunch,
    AmdLimitRow,
    CompilerResult,
    HipRuntimeResult,
    compiler_rows,
    hip_rows,
)
from ..units import count, format_bytes

LIMIT_ORDER = ("workgroup_size", "waves", "vgprs", "sgprs", "lds", "waves_per_eu")
"""The rows of the table: the runtime's limits in its order, then the compiler's own (``waves_per_eu``)."""


def _pct(value: float) -> str:
    return f"{value:.1%}"


def _cell(row: AmdLimitRow | None) -> str:
    if row is None or row.value is None:
        return "-"
    return ("* " if row.binding else "  ") + str(row.value)


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join([line, "  ".join("-" * w for w in widths), *body])


def _heading(title: str, device: AmdDevice, kernel: AmdKernel, launch: AmdLaunch) -> str:
    target = device.target
    cus = (
        "no CU count (a bare target)"
        if device.compute_units is None
        else f"{device.compute_units} CUs, HIP multiProcessorCount {device.multiprocessor_count}"
    )
    wave = kernel.resolved_wave_size(target)
    mode = "" if not target.has_wgp else ", WGP mode" if kernel.resolved_wgp_mode(target) else ", CU mode"
    lds = f", {format_bytes(kernel.static_lds)} static + {format_bytes(launch.dynamic_lds)} dynamic LDS"
    where = cus if title == target.name else f"{target.name}, {cus}"
    return (
        f"{title} ({where}): {launch.threads_per_block} threads per block, wave{wave}{mode}, "
        f"{kernel.vgprs} VGPRs, {kernel.sgprs} SGPRs{lds}"
    )


def _runtime_line(hip: HipRuntimeResult, unit: str) -> str:
    name = "HIP runtime (hipOccupancyMaxActiveBlocksPerMultiprocessor)"
    if hip.error is not None:
        return f"{name}: {hip.error}"
    grid = "no grid size without a CU count" if hip.grid_blocks is None else f"grid {hip.grid_blocks} blocks"
    return (
        f"{name}: {count(hip.active_blocks, 'block')}, {count(hip.active_waves, 'wave')} per {unit}; occupancy "
        f"{_pct(hip.occupancy)} ({hip.active_waves}/{hip.max_waves} waves); best block {hip.best_block_size}, "
        f"{grid}"
    )


def _compiler_line(compiler: CompilerResult) -> str:
    return (
        f"compiler model (LLVM's '; Occupancy', static LDS only: it leaves out dynamic LDS): "
        f"{count(compiler.waves_per_simd, 'wave')} per SIMD; occupancy {_pct(compiler.occupancy)} "
        f"({compiler.waves_per_simd}/{compiler.max_waves_per_simd} waves)"
    )


def calc_text(
    title: str,
    device: AmdDevice,
    kernel: AmdKernel,
    launch: AmdLaunch,
    hip: HipRuntimeResult,
    compiler: CompilerResult,
    explanation: str,
) -> str:
    """Both answers, their limits in one table and the explanation, as a terminal reader wants them."""
    unit = "WGP" if kernel.resolved_wgp_mode(device.target) else "CU"
    runtime = {r.name: r for r in hip_rows(hip, device, kernel, launch)}
    model = {r.name: r for r in compiler_rows(compiler, device.target, kernel)}
    stopped = hip.error is not None or hip.limits.get("workgroup_size") == 0
    rows = []
    for name in LIMIT_ORDER:
        r, c = runtime.get(name), model.get(name)
        if r is None:
            words = ""
        elif r.value is None and stopped:  # the call returned before it reached this limit
            words = "not reached: the call returned first"
        else:
            words = r.calculation
        rows.append([name, _cell(r), words, _cell(c), c.calculation if c is not None else ""])
    table = _table(
        ["limit", f"HIP runtime (blocks per {unit})", "calculation", "compiler (waves per SIMD)", "calculation"], rows
    )
    limited = "; ".join(
        f"{who} {', '.join(binding) or '-'}"
        for who, binding in (("runtime", hip.binding), ("compiler", compiler.binding))
    )
    lines = [
        _heading(title, device, kernel, launch),
        _runtime_line(hip, unit),
        _compiler_line(compiler),
        f"limited by: {limited}  (* marks the binding limits)",
        f"why: {explanation}",
        "",
        table,
    ]
    return "\n".join(lines)
