"""What a kernel table row means for the calculator: the inputs it sets, and the notes shown for it.

Pure functions of a :class:`KernelTable` row (no Qt): the panel applies the changes to the session and
hands the notes to the kernel panel.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...engine import DeviceProperties
    from ...profiles import Catalog
    from ...session import Inputs
    from .kernel_table_model import KernelTable

Notes = tuple[str | None, str | None]
"""(spill warning, architecture note)."""


def kernel_changes(table: KernelTable, i: int, catalog: Catalog, match_device: bool = False) -> dict[str, Any]:
    """The session inputs that record ``i`` sets; ``match_device`` adds the catalog's device for its arch."""
    changes: dict[str, Any] = dict(registers=int(table.registers[i]), static_smem=int(table.static_smem[i]))
    if table.barriers[i] >= 0:
        changes["barriers"] = int(table.barriers[i])
    if table.max_threads[i] > 0:
        changes["threads"] = int(table.max_threads[i])
    if match_device and table.arch_number[i] >= 0:
        with contextlib.suppress(KeyError):
            changes["device"] = catalog.get(table.arch[i].rstrip("af")).name
    return changes


def kernel_notes(table: KernelTable, i: int, inputs: Inputs, device: DeviceProperties) -> Notes:
    """Spill and architecture notes on record ``i``, while the inputs still hold its registers and smem."""
    if (inputs.registers, inputs.static_smem) != (table.registers[i], table.static_smem[i]):
        return (None, None)
    spills = table.spills(i)
    spill_note = None
    if spills is not None and any(spills):
        spill_note = (f"⚠ Spills: {spills[0]} B stores, {spills[1]} B loads per thread — the kernel ran out of "
                      "registers and uses local memory.")  # fmt: skip
    arch_note = None
    cc = device.compute_capability
    if table.arch_number[i] >= 0 and table.arch_number[i] != cc[0] * 10 + cc[1]:
        arch_note = (f"The kernel was compiled for {table.arch[i]}; the device is CC {cc[0]}.{cc[1]}. "
                     f"Its registers and shared memory may differ when compiled for sm_{cc[0]}{cc[1]}.")  # fmt: skip
    return (spill_note, arch_note)
