"""The Utilization dock on an AMD device: how much of one multiprocessor (a CU, or a WGP in WGP mode, as HIP counts
it) the HIP runtime's resident blocks hold — wave slots, VGPRs, SGPRs (gfx9), LDS — in NVIDIA's form (allocated |
unusable | remainder); the caption adds the compiler model's answer where it differs from the runtime's.

Every figure is the AMD engine's (``engine.amd.hip_utilization``, each resource allowing exactly the runtime's
limit for it); the view and its model are NVIDIA's.
"""

from __future__ import annotations

from ... import units
from ...engine.amd import hip_utilization
from .utilization_view import UtilizationView

NAMES = {
    "workgroup_size": "workgroup size",
    "waves": "wave slots",
    "vgprs": "VGPRs",
    "sgprs": "SGPRs",
    "lds": "LDS",
    "waves_per_eu": "amdgpu-waves-per-eu",
}


class AmdUtilizationView(UtilizationView):
    """The HIP runtime's utilization of one multiprocessor for the session's AMD question."""

    def fill_model(self) -> None:
        state = self.session.amd
        result = state.answer if state is not None else None
        if result is None:
            self.model.set_items((), ())
            return
        self.model.set_where(result.multiprocessor)
        items = hip_utilization(result.hip)
        calculations = {row.name: row.calculation for row in result.hip_rows()}
        keys = {"Wave slots": "waves", "VGPRs": "vgprs", "SGPRs": "sgprs", "LDS": "lds"}
        self.model.set_items(items, tuple(calculations[keys[i.usage.resource]] for i in items))

    def describe(self) -> str:
        state = self.session.amd
        result = state.answer if state is not None else None
        if result is None:
            reason = state.error if state is not None and state.error else "the inputs are not valid"
            return f"<b>No figures:</b> {reason}. Change the inputs on the left."
        hip, where = result.hip, result.multiprocessor
        if hip.error is not None:
            return f"<b>No figures:</b> the HIP runtime returns {hip.error}."
        if hip.active_blocks == 0:
            return (
                f"<b>No block fits on a {where}</b> (HIP runtime): a resource that cannot hold one block is all "
                "remainder."
            )
        binding = " + ".join(NAMES[k] for k in hip.binding)
        text = (
            f"One {where} with <b>{units.count(hip.active_blocks, 'resident block')}</b> "
            f"({units.count(hip.active_waves, 'wave')}), limited by <b>{binding}</b> ★ (HIP runtime): how each of "
            "its resources is used."
        )
        compiler = result.compiler
        per_simd_runtime = hip.active_waves / hip.budget.simds
        if compiler.waves_per_simd != per_simd_runtime:
            limited = " + ".join(NAMES[k] for k in compiler.binding)
            text += (
                f"<br>Compiler model (LLVM): {units.count(compiler.waves_per_simd, 'wave')} per SIMD of "
                f"{compiler.max_waves_per_simd}, limited by {limited}; the runtime's blocks give "
                f"{per_simd_runtime:g} per SIMD."
            )
        return text
