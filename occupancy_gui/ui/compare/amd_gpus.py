"""Compare on an AMD device: the same kernel on every AMD GPU (AMD devices are compared with one another only: no
rule turns NVIDIA registers into VGPRs), the A / B figures of an AMD configuration, and A's curves for the plots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...fields import AMD
from .gpu_rows_model import GpuRowsModel

if TYPE_CHECKING:
    from ...engine import StepCurve
    from ...report import AmdGpuRow, Figure
    from ...session import Session

AMD_GPU_HEADERS = ("GPU", "Target", "CUs (HIP)", "HIP blocks", "HIP occupancy", "Grid", "LLVM waves")
"""The columns of the every-AMD-GPU table (each row's tooltip adds the binding limit and LLVM's occupancy)."""
OCCUPANCY_COLUMN = AMD_GPU_HEADERS.index("HIP occupancy")
PLOT_KEYS = {"threads": "threads", "vgprs": "registers", "lds": "shared_memory"}
"""AMD curve -> the plot it is drawn in."""


def figures(session: Session) -> tuple[Figure, ...]:
    """Every input and result figure of ``session``'s configuration, of either vendor."""
    from ...report import amd_describe, describe  # noqa: PLC0415 - lazy: the report module loads with the first compare

    if session.vendor == AMD:
        state = session.amd
        return amd_describe(
            session.amd_profile, session.inputs, state.answer if state else None, state.error if state else None
        )
    return describe(session.profile, session.inputs, session.result, session.error)


def kernel_words(session: Session) -> str:
    """The configuration in a few words: device, threads and registers (VGPRs on an AMD device)."""
    i = session.inputs
    registers = f"{i.vgprs} VGPRs" if session.vendor == AMD else f"{i.registers} registers"
    return f"{i.device}, {i.threads} threads, {registers}"


def plot_curves(pinned: Session | None, vendor: str) -> dict[str, StepCurve]:
    """A's curves by plot key, where A's device is of the shown ``vendor`` (else none: other plots)."""
    if pinned is None or pinned.vendor != vendor:
        return {}
    if vendor != AMD:
        return dict(pinned.curves)
    state = pinned.amd
    return {PLOT_KEYS[name]: sweep.runtime for name, sweep in (state.curves.items() if state else ())}


class AmdGpuTableModel(GpuRowsModel["AmdGpuRow"]):
    """One row per AMD GPU product: the HIP runtime's answer, its grid and LLVM's waves per SIMD."""

    HEADERS = AMD_GPU_HEADERS
    TEXT_COLUMNS = frozenset({0, 1})

    def texts(self, g: AmdGpuRow) -> tuple[str, ...]:
        return (
            g.name,
            g.target,
            str(g.multiprocessors),
            "—" if g.error else str(g.blocks),
            "—" if g.error else f"{g.occupancy * 100:.4g} %",
            str(g.grid),
            str(g.compiler_waves),
        )

    def sort_keys(self, g: AmdGpuRow) -> tuple[Any, ...]:
        return (g.name.casefold(), g.target, g.multiprocessors, g.blocks, g.occupancy, g.grid, g.compiler_waves)

    def tip(self, g: AmdGpuRow) -> str | None:
        return g.error or (
            f"{g.name}: HIP runtime {g.blocks} blocks per CU or WGP ({g.occupancy * 100:.4g} %), "
            f"limited by {g.binding}; grid {g.grid}. Compiler (LLVM): {g.compiler_waves} waves per "
            f"SIMD ({g.compiler_occupancy * 100:.4g} %)."
        )
