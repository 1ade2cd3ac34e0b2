"""An AMD question's field values, read and checked against the field table, and turned into the AMD engine's
kernel and launch: the one mapping the command line, the batch and the window's session share.

Every field, its kind, range and choices come from ``fields.for_vendor("amd")``; what a target cannot take (wave32
on gfx9, WGP mode before gfx10, a separate AGPR count where the AGPRs are in ``.vgpr_count``, a launch bound above
the target's workgroup limit) is a one-line problem naming the field.  :func:`applies` says which fields a target
takes at all: the window shows only those, and the session reads the others as their defaults.
"""

from __future__ import annotations

from typing import Any

from .. import fields
from ..engine.amd import AmdKernel, AmdLaunch, AmdTarget
from ..field_values import AmdFieldError, read_value
from ..fields import AMD

AMD_FIELDS = fields.for_vendor(AMD)
AMD_NAMES = tuple(f.name for f in AMD_FIELDS)


def read_values(data: dict[str, Any], *, threads_required: bool = True) -> dict[str, Any]:
    """Every AMD key of ``data`` read and checked (absent or ``null``: ``None``); ``threads`` may be absent where
    ``threads_required`` is false (``occupancy suggest``)."""
    values: dict[str, Any] = {}
    for f in AMD_FIELDS:
        value = data.get(f.name)
        if value is None:
            if f.required and (threads_required or f.name != "threads"):
                raise AmdFieldError(f"{f.name}: required")
            values[f.name] = None
        else:
            values[f.name] = read_value(f, value)
    return values


def applies(name: str, target: AmdTarget) -> bool:
    """Whether ``target`` takes the field at all: AGPRs on a separate file only (gfx908), a wave size where there is
    a choice (gfx10+), a WGP or CU mode where there are WGPs (gfx10+)."""
    if name == "agprs":
        return target.agpr_file == "separate"
    if name == "wave_size":
        return len(target.wave_sizes()) > 1
    if name == "wgp_mode":
        return target.has_wgp
    return True


def target_problem(values: dict[str, Any], target: AmdTarget) -> str | None:
    """What this target cannot take, named by field, or ``None``."""
    wave = values.get("wave_size")
    if wave is not None and wave not in target.wave_sizes():
        return f"wave_size: {target.name} runs wave64 only (wave32 is gfx10 and later), got {wave}"
    if values.get("wgp_mode") and not target.has_wgp:
        return f"wgp_mode: {target.name} has no WGP mode (work-group processors are gfx10 and later)"
    if values.get("agprs") and target.agpr_file != "separate":
        where = (
            "has no AGPRs"
            if target.agpr_file == "none"
            else "counts its AGPRs in .vgpr_count (only gfx908 has a separate AGPR file)"
        )
        return f"agprs: {target.name} {where}; give them in vgprs"
    bound = values.get("max_flat_workgroup_size")
    if bound is not None and bound > target.max_workgroup_size:
        return f"max_flat_workgroup_size: expected 1..{target.max_workgroup_size} on {target.name}, got {bound}"
    return None


def kernel_and_launch(values: dict[str, Any]) -> tuple[AmdKernel, AmdLaunch]:
    """The AMD engine's kernel and launch for checked values (``None``: the field's default); without ``threads``
    (``occupancy suggest``) the launch's block is 0."""
    v = values
    kernel = AmdKernel(
        vgprs=v["vgprs"],
        sgprs=v["sgprs"] or 0,
        agprs=v["agprs"] or 0,
        allocated_vgprs=v["allocated_vgprs"] or 0,
        static_lds=v["lds"] or 0,
        wave_size=v["wave_size"],
        wgp_mode=v["wgp_mode"],
        max_threads=v["max_flat_workgroup_size"],
        waves_per_eu=v["waves_per_eu"],
    )
    return kernel, AmdLaunch(v["threads"] if v["threads"] is not None else 0, v["dynamic_smem"] or 0)


def target_values(inputs: object, target: AmdTarget) -> dict[str, Any]:
    """The AMD fields of a session's inputs as ``target`` takes them: a field the target does not take (hidden in
    the window, kept for another device) reads as its default."""
    return {name: getattr(inputs, name) if applies(name, target) else fields.FIELD[name].default for name in AMD_NAMES}
