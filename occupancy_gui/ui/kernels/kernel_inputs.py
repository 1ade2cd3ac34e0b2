"""What a kernel table row means for the calculator: the inputs it sets, and the notes shown for it.

Pure functions of a :class:`KernelTable` row (no Qt): the panel applies the changes to the session and
hands the notes to the kernel panel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import units
from ...kernel_table import cluster_note
from ...record_launch import record_device, record_inputs

if TYPE_CHECKING:
    from ...engine import DeviceProperties
    from ...kernel_table import KernelTable
    from ...profiles import Catalog
    from ...session import Inputs

Notes = tuple[str | None, str | None]
"""(spill warning, architecture note)."""


def kernel_changes(
    table: KernelTable, i: int, catalog: Catalog, device: DeviceProperties, threads: int, match_device: bool = False
) -> dict[str, Any]:
    """The session inputs that choosing record ``i`` sets (``record_launch.record_inputs``, the one rule) while
    the calculator holds ``threads`` on ``device``; ``match_device`` adds the catalog's device for its arch."""
    rec = table.nvidia_record(i)
    changes: dict[str, Any] = {}
    name = record_device(rec, catalog) if match_device else None
    if name is not None:
        changes["device"] = name
        device = catalog.get(name).device_properties()
    changes.update(record_inputs(rec, device, threads))
    return changes


def kernel_notes(
    table: KernelTable, i: int, inputs: Inputs, device: DeviceProperties, catalog: Catalog | None = None
) -> Notes:
    """Local memory, spill, launch-bound and architecture notes on record ``i``, while the inputs hold its figures."""
    if (inputs.registers, inputs.static_smem) != (table.registers[i], table.static_smem[i]):
        return (None, None)
    if table.required[i] > 0 and inputs.required_block_size != table.required[i]:
        return (None, None)
    return (_memory_note(table, i), _arch_note(table, i, device, catalog))


def _memory_note(table: KernelTable, i: int) -> str | None:
    from ...importers import STACK_UNKNOWN  # noqa: PLC0415 - lazy: a table exists, so the importers are loaded

    spills, local = table.spills(i), int(table.local_bytes[i]) if table.local_bytes.size else 0
    parts = []
    if table.stack_bytes.size and table.stack_bytes[i] < 0:
        parts.append(f"Stack: {STACK_UNKNOWN}")
    elif local > 0:
        parts.append(f"Local memory: {units.kib(local)} per thread (stack frame and spills)")
    if spills is not None and any(spills):
        parts.append(
            f"⚠ Spills: {spills[0]} B stores, {spills[1]} B loads per thread — the kernel ran out of registers"
        )
    return ". ".join(parts) + "." if parts else None


def _arch_note(table: KernelTable, i: int, device: DeviceProperties, catalog: Catalog | None) -> str | None:
    from ...compatibility import mismatch_message  # noqa: PLC0415 - lazy: with the first imported kernel

    cc = device.compute_capability
    notes = []
    cannot = mismatch_message(table.arch[i], cc, catalog)
    if cannot is not None:
        notes.append(cannot)
    elif table.arch_number[i] >= 0 and table.arch_number[i] != cc[0] * 10 + cc[1]:
        notes.append(
            f"The kernel was compiled for {table.arch[i]}; the device is CC {cc[0]}.{cc[1]}. "
            f"Its registers and shared memory may differ when compiled for sm_{cc[0]}{cc[1]}."
        )
    rec = table.nvidia_record(i)
    if rec.req_threads:
        x, y, z = rec.req_threads
        notes.append(
            f"Required block size (.reqntid) {x}×{y}×{z} = {x * y * z} threads: no other block size can launch."
        )
    if rec.cluster_dims:
        notes.append(f"{cluster_note(rec.cluster_dims)}.")
    return "\n".join(notes) or None
