"""What an AMD row's cells say: VGPRs with the descriptor's allocation where LLVM padded it, AGPRs, SGPRs, wave size
and WGP mode, scratch, LDS, spill counts and launch bounds in AMD's words.

Functions of a :class:`~occupancy_gui.kernel_table.KernelTable` row (no widget): the model asks them for an AMD
row's text and tooltip, and falls back to its shared code where they answer ``None`` (the threads and occupancy
columns, which follow one rule for both vendors).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ... import units
from .table_columns import AGPRS, BARRIERS, LAUNCH_BOUND, LOCAL, REGISTERS, SGPRS, SPILLS, STATIC_SMEM, WAVE

if TYPE_CHECKING:
    from ...kernel_table import AmdColumns, KernelTable

_GFX10_PLUS = re.compile(r"gfx1\d(\d\d|-)")
"""RDNA processors (gfx10 and later, their generic targets too): wave32 or wave64, WGP or CU mode."""


def _own(t: KernelTable, i: int) -> tuple[AmdColumns, int]:
    own = t.amd
    assert own is not None  # an AMD row: the table has AMD columns
    return own, i - t.nvidia_rows


def _count(value: int) -> str:
    return "—" if value < 0 else str(value)


def _wave(own: AmdColumns, k: int) -> str:
    wave, wgp = int(own.wave_size[k]), int(own.wgp[k])
    text = str(wave) if wave else "—"
    if _GFX10_PLUS.match(own.processors[int(own.processor[k])]) and wgp >= 0:
        text += " · WGP" if wgp else " · CU"
    return text


def amd_display(t: KernelTable, i: int, column: int) -> str | None:
    """The text of AMD row ``i``'s ``column``; ``None`` where the shared code says it (threads, occupancy)."""
    own, k = _own(t, i)
    if column == REGISTERS:
        vgprs = str(int(t.registers[i]))
        return f"{vgprs} (alloc {int(own.allocated[k])})" if own.padded[k] else vgprs
    if column == AGPRS:
        return _count(int(own.agprs[k]))
    if column == SGPRS:
        return _count(int(own.sgprs[k]))
    if column == WAVE:
        return _wave(own, k)
    shared = memory_text(t, i, column)
    if shared is not None:
        return shared
    if column == BARRIERS:
        return ""
    if column == LAUNCH_BOUND:
        if t.required[i] > 0:
            return f"= {int(t.required[i])}"
        return f"≤ {int(t.max_threads[i])}" if t.max_threads[i] > 0 else "—"
    return None


def amd_tooltip(t: KernelTable, i: int, column: int) -> str | None:
    """The tooltip of AMD row ``i``'s ``column``; ``None`` for none (threads and occupancy: the shared code's)."""
    own, k = _own(t, i)
    if column == REGISTERS:
        vgprs, allocated = int(t.registers[i]), int(own.allocated[k])
        tip = f"{vgprs} VGPRs per lane (.vgpr_count: what the HIP runtime counts)"
        if allocated:
            tip += f"; the kernel descriptor allocates {allocated} (what the hardware allocates"
            tip += ": LLVM padded it past the count, to honour amdgpu_waves_per_eu)" if own.padded[k] else ")"
        return tip
    if column == AGPRS:
        agprs = int(own.agprs[k])
        return (
            "The code object states no AGPR count"
            if agprs < 0
            else (
                f"{agprs} AGPRs per lane (.agpr_count): a separate file on gfx908, counted in the VGPRs on gfx90a and later"
            )
        )
    if column == SGPRS:
        sgprs = int(own.sgprs[k])
        return "Not stated by this source" if sgprs < 0 else f"{sgprs} SGPRs per wave (.sgpr_count)"
    if column == WAVE:
        return "Wave size (.wavefront_size); on gfx10 and later, WGP mode (.workgroup_processor_mode) or CU mode"
    if column == LOCAL:
        if t.stack_bytes[i] < 0:
            return "Dynamic stack (recursion, indirect calls or dynamic allocas): the scratch it needs is set at launch"
        return f"{units.bytes_tooltip(int(t.local_bytes[i]))} of scratch per work-item (.private_segment_fixed_size)"
    if column == STATIC_SMEM:
        return f"{units.bytes_tooltip(int(t.static_smem[i]))} of static LDS per workgroup (.group_segment_fixed_size)"
    if column == SPILLS:
        spills = t.spills(i)
        if spills is None:
            return "This source does not record spills"
        return f"{spills[0]} VGPRs and {spills[1]} SGPRs spilled (.vgpr_spill_count / .sgpr_spill_count)"
    if column == LAUNCH_BOUND:
        if t.required[i] > 0:
            return f"Required workgroup size (.reqd_workgroup_size): exactly {int(t.required[i])} threads per block"
        if t.max_threads[i] > 0:
            return (
                f"Launch bound (.max_flat_workgroup_size, __launch_bounds__): at most {int(t.max_threads[i])} "
                "threads per block"
            )
        return "No launch bound stated by this source"
    return None


def memory_text(t: KernelTable, i: int, column: int) -> str | None:
    """Row ``i``'s scratch or local memory, static shared memory (LDS) or spills, as both vendors' rows show
    them; ``None`` for any other column."""
    if column == LOCAL:
        return "unknown" if t.stack_bytes[i] < 0 else units.kib(int(t.local_bytes[i]))
    if column == STATIC_SMEM:
        return units.kib(int(t.static_smem[i]))
    if column == SPILLS:
        spills = t.spills(i)
        if spills is None:
            return "—"
        return f"⚠ {spills[0]} / {spills[1]}" if any(spills) else "0 / 0"
    return None
