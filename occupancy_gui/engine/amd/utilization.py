"""How much of one multiprocessor (a CU, or a WGP in WGP mode, as HIP counts it) the HIP runtime's resident blocks
hold, resource by resource: the NVIDIA utilization split (allocated + unusable + remainder) for the runtime's rule.

The runtime pools a multiprocessor's SIMDs: its wave slots (SIMDs × the runtime's wave cap), its VGPR file (SIMDs ×
VGPRs per SIMD, each wave taking its VGPRs rounded to comgr's granule), its SGPRs on gfx9 (SIMDs × 800, each wave
taking a multiple of 16) and the LDS a workgroup may use (no granule).  A block takes its waves' share of each, so
each resource alone allows exactly the runtime's limit for it (``HipRuntimeResult.limits``); the resident blocks
are the runtime's answer.  Sizes are as the rule counts them: VGPRs per lane, summed over waves.
"""

from __future__ import annotations

from ..resource_use import ResourceUtilization, split_usage
from ..types import LimitUsage
from .hip_runtime import HipRuntimeResult

RESOURCES = {
    "waves": ("Wave slots", "wave"),
    "vgprs": ("VGPRs", "VGPR"),
    "sgprs": ("SGPRs", "SGPR"),
    "lds": ("LDS", "byte"),
}
"""The runtime's limits that are a shared resource, with their display name and unit (the workgroup-size limit is
a rule about one block, not a resource)."""


def hip_utilization(result: HipRuntimeResult) -> tuple[ResourceUtilization, ...]:
    """Every resource the runtime's answer used, split for its resident blocks; empty where it returned an error."""
    if result.error is not None or result.limits.get("workgroup_size") == 0:
        return ()
    b = result.budget
    waves = b.aligned_block // b.wave_size
    usages = [LimitUsage(*RESOURCES["waves"], waves, b.simds * b.cap, result.limits["waves"])]
    if b.vgprs_allocated and b.vgprs_per_simd is not None:
        usages.append(
            LimitUsage(
                *RESOURCES["vgprs"], waves * b.vgprs_allocated, b.simds * b.vgprs_per_simd, result.limits["vgprs"]
            )
        )
    if b.sgprs_allocated and b.sgprs_per_simd is not None:
        usages.append(
            LimitUsage(
                *RESOURCES["sgprs"], waves * b.sgprs_allocated, b.simds * b.sgprs_per_simd, result.limits["sgprs"]
            )
        )
    if b.lds_per_block:
        usages.append(LimitUsage(*RESOURCES["lds"], b.lds_per_block, b.lds_per_workgroup, result.limits["lds"]))
    return tuple(split_usage(usage, result.active_blocks) for usage in usages)
