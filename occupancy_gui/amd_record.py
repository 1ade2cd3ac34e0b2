"""An AMD kernel record becomes the calculator's inputs: one rule, for the window's table, its selection and
anyone else who loads an :class:`~occupancy_gui.importers.AmdKernelRecord`.

The AMD twin of ``record_launch`` (NVIDIA's rule), and the same rule in spirit: choosing a kernel sets what the
kernel *is* — its VGPRs (``.vgpr_count``), AGPRs where the target has a separate file (gfx908), SGPRs, static LDS,
wave size, WGP or CU mode, its launch bound (``.max_flat_workgroup_size``) and the descriptor's VGPR allocation
where it is larger than ``.vgpr_count`` — and keeps what the user chose about the *launch*, as far as the kernel
can be launched so: a launch recorded with the kernel (a Triton cache's ``num_warps`` x ``warp_size`` and
``shared``) is taken as recorded; else a required workgroup size (``.reqd_workgroup_size``) is the only block;
else the current threads per block stay, capped at the launch bound (a larger block fails to launch,
``hipErrorLaunchFailure``).  ``amdgpu_waves_per_eu`` is not in a code object: it is cleared.

The device follows the kernel's target: the catalog's profile of its processor (``gfx942:sramecc+:xnack-`` ->
``gfx942``), unless the selected device already is that processor (MI300X is gfx942: it stays).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .record_launch import launch_reason, launch_threads

if TYPE_CHECKING:
    from .engine.amd import AmdTarget
    from .importers import AmdKernelRecord
    from .profiles import AmdCatalog, AmdProfile


def processor_of(target: str) -> str:
    """The processor of a target id: ``gfx942:sramecc+:xnack-`` -> ``gfx942``."""
    return target.split(":", 1)[0]


def record_profile(rec: AmdKernelRecord, catalog: AmdCatalog, selected: AmdProfile | None = None) -> AmdProfile | None:
    """The profile choosing ``rec`` selects: ``selected`` where it already is the record's processor, else the
    catalog's profile of that processor; ``None`` where the catalog has none (a generic or unknown target)."""
    return processor_profile(processor_of(rec.target or rec.arch), catalog, selected)


def processor_profile(processor: str, catalog: AmdCatalog, selected: AmdProfile | None = None) -> AmdProfile | None:
    """:func:`record_profile` for a processor (``gfx942``): the rows of one processor share their profile."""
    if selected is not None and selected.target.name == processor:
        return selected
    try:
        profile = catalog.get(processor)
    except KeyError:
        return None
    return profile if profile.target.name == processor else None


def required_threads(rec: AmdKernelRecord) -> int:
    """The workgroup size ``.reqd_workgroup_size`` requires (x·y·z), 0 where none."""
    req = rec.required_block
    return req[0] * max(req[1], 1) * max(req[2], 1) if req else 0


def record_inputs(rec: AmdKernelRecord, target: AmdTarget, threads: int) -> dict[str, Any]:
    """The session inputs choosing ``rec`` sets on a device of ``target`` while the calculator holds ``threads``.

    Every AMD kernel field is set, to the record's value or to its default, so choosing another kernel clears the
    previous one's; a field the target does not take (AGPRs outside gfx908) is its default."""
    vgprs = rec.vgprs or 0
    allocated = rec.allocated_vgprs or 0
    changes: dict[str, Any] = {
        "vgprs": vgprs,
        "agprs": (rec.agprs or 0) if target.agpr_file == "separate" else 0,
        "sgprs": rec.sgprs or 0,
        "lds": rec.static_lds or 0,
        "wave_size": rec.wave_size if rec.wave_size in target.wave_sizes() else None,
        "wgp_mode": rec.wgp_mode if target.has_wgp else None,
        "max_flat_workgroup_size": rec.max_threads or None,
        "waves_per_eu": None,
        "allocated_vgprs": allocated if allocated > vgprs else 0,
        "threads": launch_threads(threads, rec.max_threads or 0, required_threads(rec), rec.block_size or 0),
    }
    if rec.block_size:
        changes["dynamic_smem"] = rec.dynamic_lds or 0
    return changes


def threads_reason(rec: AmdKernelRecord, threads: int) -> str | None:
    """Why choosing ``rec`` moves threads per block away from ``threads``, in words; ``None`` when it does not."""
    return launch_reason(
        threads,
        (rec.max_threads or 0, ".max_flat_workgroup_size"),
        (required_threads(rec), "required workgroup size (.reqd_workgroup_size)"),
        (rec.block_size or 0, rec.launch_source),
    )
