"""An AMD query's fields (command-line flags or batch keys) as the AMD engine's kernel and launch.

Every field, its kind, range and choices come from the field table (``fields.for_vendor("amd")``); what a
target cannot take (wave32 on gfx9, WGP mode before gfx10, a separate AGPR count where the AGPRs are in
``.vgpr_count``, a launch bound above the target's workgroup limit) is refused here too, so every error
is one line that names the field.
"""

from __future__ import annotations

from typing import Any

from .. import fields
from ..engine.amd import AmdKernel, AmdLaunch, AmdTarget
from ..fields import AMD, BYTES, COUNT, MIN_MAX, MODE, NVIDIA, InputField
from .common import QueryError, not_for

AMD_FIELDS = fields.for_vendor(AMD)
AMD_QUERY_KEYS = fields.query_keys(AMD)
NVIDIA_ONLY_KEYS = tuple(f.name for f in fields.only_for(NVIDIA) if f.query)
"""Batch keys an AMD line may not hold (``registers``, ``static_smem``, ...)."""
AMD_ONLY_KEYS = tuple(f.name for f in fields.only_for(AMD) if f.query)
"""Batch keys an NVIDIA line may not hold (``vgprs``, ``lds``, ...)."""


def _int(f: InputField, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise QueryError(f"{f.name}: expected an integer, got {value!r}")
    if not f.low <= value <= f.high:
        raise QueryError(f"{f.name}: expected {f.range_text}, got {value}")
    if f.choices and value not in f.choices:
        raise QueryError(f"{f.name}: expected {' or '.join(map(str, f.choices))}, got {value}")
    return value


def _mode(f: InputField, value: object) -> bool:
    if not isinstance(value, bool):
        raise QueryError(f"{f.name}: expected true, false or null (the device's default), got {value!r}")
    return value


def _min_max(f: InputField, value: object) -> tuple[int, int | None]:
    """``N`` (the minimum) or ``[N, M]`` (minimum and maximum), as ``amdgpu_waves_per_eu(N[, M])``."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise QueryError(f"{f.name}: expected N or [N, M] (minimum and maximum), got {value!r}")
        low, high = _int(f, value[0]), _int(f, value[1])
        if low > high:
            raise QueryError(f"{f.name}: the minimum {low} is above the maximum {high}")
        return low, high
    return _int(f, value), None


_READERS = {COUNT: _int, BYTES: _int, MODE: _mode, MIN_MAX: _min_max}


def read_fields(data: dict[str, Any], device: str, *, threads_required: bool = True) -> dict[str, Any]:
    """The AMD keys of ``data`` read and checked against the table (absent or ``null``: ``None``); ``threads``
    may be absent where ``threads_required`` is false (``occupancy suggest``)."""
    for key in NVIDIA_ONLY_KEYS:
        if data.get(key) is not None:
            raise QueryError(not_for(key, device, AMD))
    values: dict[str, Any] = {}
    for f in AMD_FIELDS:
        value = data.get(f.name)
        if value is None:
            if f.required and (threads_required or f.name != "threads"):
                raise QueryError(f"{f.name}: required")
            values[f.name] = None
        else:
            values[f.name] = _READERS[f.kind](f, value)
    return values


def _target_checks(v: dict[str, Any], target: AmdTarget) -> None:
    """What this target cannot take, named by field."""
    wave = v["wave_size"]
    if wave is not None and wave not in target.wave_sizes():
        raise QueryError(f"wave_size: {target.name} runs wave64 only (wave32 is gfx10 and later), got {wave}")
    if v["wgp_mode"] and not target.has_wgp:
        raise QueryError(f"wgp_mode: {target.name} has no WGP mode (work-group processors are gfx10 and later)")
    if v["agprs"] and target.agpr_file != "separate":
        where = ("has no AGPRs" if target.agpr_file == "none"
                 else "counts its AGPRs in .vgpr_count (only gfx908 has a separate AGPR file)")  # fmt: skip
        raise QueryError(f"agprs: {target.name} {where}; give them in vgprs")
    bound = v["max_flat_workgroup_size"]
    if bound is not None and bound > target.max_workgroup_size:
        raise QueryError(f"max_flat_workgroup_size: expected 1..{target.max_workgroup_size} on {target.name}, "
                         f"got {bound}")  # fmt: skip


def amd_query(data: dict[str, Any], target: AmdTarget, device: str, *,
              threads_required: bool = True) -> tuple[AmdKernel, AmdLaunch]:  # fmt: skip
    """The kernel and the launch a query describes, for ``target`` (``device`` names it in errors); without
    ``threads`` (``occupancy suggest``) the launch's block is 0."""
    v = read_fields(data, device, threads_required=threads_required)
    _target_checks(v, target)
    kernel = AmdKernel(
        vgprs=v["vgprs"], sgprs=v["sgprs"] or 0, agprs=v["agprs"] or 0, allocated_vgprs=v["allocated_vgprs"] or 0,
        static_lds=v["lds"] or 0, wave_size=v["wave_size"], wgp_mode=v["wgp_mode"],
        max_threads=v["max_flat_workgroup_size"], waves_per_eu=v["waves_per_eu"],
    )  # fmt: skip
    return kernel, AmdLaunch(v["threads"] if v["threads"] is not None else 0, v["dynamic_smem"] or 0)
