"""The AMD profile schema: every key an ``amd_target`` or ``amd_gpu`` profile may hold, in one place.

AMD profiles live in ``device_profiles/amd/``, apart from NVIDIA's, and come in two kinds: a gfx
target (``gfx942``: the limits the HIP runtime and LLVM use) and a product (``AMD Instinct MI300X``:
its target and its CU counts).  The target's ``limits`` are exactly the fields of
``engine.amd.AmdTarget`` other than its name; a test keeps the two lists equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCHEMA_VERSION = 1
MAX_FILE_BYTES = 1024 * 1024
MAX_NAME_LENGTH = 100
MAX_TEXT_LENGTH = 4000
MAX_COMPUTE_UNITS = 4096

KINDS = ("amd_target", "amd_gpu")
SEGMENTS = ("datacenter", "workstation", "consumer", "embedded")
TARGET_NAME = re.compile(r"^gfx\d{1,2}[0-9a-f][0-9a-f]$")


@dataclass(frozen=True)
class AmdField:
    """One entry of a target's ``limits``: its type, unit, meaning and the values it may take."""

    name: str
    type: type
    unit: str
    description: str
    minimum: int = 1
    nullable: bool = False
    choices: tuple[str, ...] = ()


def _int(name: str, unit: str, description: str, *, nullable: bool = False) -> AmdField:
    return AmdField(name, int, unit, description, nullable=nullable)


TARGET_FIELDS: tuple[AmdField, ...] = (
    _int("simds_per_cu", "SIMDs", "SIMDs in one CU (ROCclr's ISA table: 4 on gfx9, 2 on RDNA)."),
    _int("default_wave_size", "lanes", "The wave size HIP compiles for and reports as warpSize."),
    AmdField("wave32", bool, "", "The target can run wave32 (gfx10 and later)."),
    AmdField("has_wgp", bool, "", "The target has work-group processors and a WGP / CU mode (gfx10 and later)."),
    _int("max_workgroup_size", "threads", "Largest workgroup (block) the runtime launches."),
    AmdField(
        "agpr_file",
        str,
        "",
        "AccVGPRs: none, separate (gfx908) or unified with the VGPRs (gfx90a+).",
        choices=("none", "separate", "unified"),
    ),
    _int("lds_per_workgroup", "bytes", "The runtime's localMemSize_: LDS one workgroup may use (ROCr group segment)."),
    _int("runtime_vgpr_granule", "VGPRs", "comgr VGPRAllocGranule: the runtime's VGPR allocation granule."),
    _int("runtime_vgprs_per_simd", "VGPRs", "comgr TotalNumVGPRs: VGPRs per SIMD lane as the runtime counts them."),
    _int(
        "runtime_sgprs_per_simd",
        "SGPRs",
        "SGPRs per SIMD shared by its waves (800 on gfx8-9); null: no limit.",
        nullable=True,
    ),
    _int("runtime_max_waves_per_simd", "waves", "The runtime's cap on waves per SIMD (8 on gfx9, 16 after)."),
    _int("max_waves_per_cu", "waves", "HSA MAX_WAVES_PER_CU: maxThreadsPerMultiProcessor / wave size per CU."),
    _int("llvm_max_waves_per_eu", "waves", "LLVM getMaxWavesPerEU: waves per SIMD the compiler allows."),
    _int("llvm_vgpr_granule_wave64", "VGPRs", "LLVM getVGPRAllocGranule for wave64."),
    _int(
        "llvm_vgpr_granule_wave32", "VGPRs", "LLVM getVGPRAllocGranule for wave32; null without wave32.", nullable=True
    ),
    _int("llvm_total_vgprs_wave64", "VGPRs", "LLVM getTotalNumVGPRs for wave64."),
    _int("llvm_total_vgprs_wave32", "VGPRs", "LLVM getTotalNumVGPRs for wave32; null without wave32.", nullable=True),
    _int("llvm_addressable_vgprs", "VGPRs", "LLVM getAddressableNumVGPRs."),
    _int("llvm_lds_per_cu", "bytes", "LLVM getLocalMemorySize in CU mode (doubled in WGP mode)."),
    _int("llvm_lds_granule", "bytes", "LLVM's LDS rounding per workgroup: getLdsDwGranularity x 4."),
    _int("llvm_total_sgprs", "SGPRs", "LLVM getTotalNumSGPRs."),
    _int("llvm_sgpr_granule", "SGPRs", "LLVM getSGPRAllocGranule."),
    _int("llvm_addressable_sgprs", "SGPRs", "LLVM getAddressableNumSGPRs."),
    _int("llvm_trap_sgprs", "SGPRs", "SGPRs LLVM keeps for the trap handler when it budgets SGPRs."),
)
TARGET_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in TARGET_FIELDS)
TARGET_FIELDS_BY_NAME: dict[str, AmdField] = {f.name: f for f in TARGET_FIELDS}

SOURCED_KEYS = frozenset({"value", "source"})

TARGET_REQUIRED = frozenset({"schema", "name", "kind", "title", "architecture", "limits"})
TARGET_OPTIONAL = frozenset({"notes", "aliases"})
GPU_REQUIRED = frozenset({"schema", "name", "kind", "target", "segment", "compute_units", "hip_multiprocessor_count"})
GPU_OPTIONAL = frozenset({"title", "notes", "aliases"})

KEY_ORDER = (
    "schema",
    "name",
    "kind",
    "title",
    "target",
    "architecture",
    "aliases",
    "segment",
    "notes",
    "compute_units",
    "hip_multiprocessor_count",
    "limits",
)


def allowed_keys(kind: str) -> frozenset[str]:
    """Top-level keys a profile of ``kind`` may contain."""
    return GPU_REQUIRED | GPU_OPTIONAL if kind == "amd_gpu" else TARGET_REQUIRED | TARGET_OPTIONAL


def required_keys(kind: str) -> frozenset[str]:
    return GPU_REQUIRED if kind == "amd_gpu" else TARGET_REQUIRED


def target_relation_errors(values: dict[str, object]) -> list[tuple[str, str]]:
    """Impossibilities across a target's fields as ``(field, message)``; each one is a typo in a profile."""
    v = values
    problems: list[tuple[str, str]] = []
    wave32 = v.get("wave32")
    for name in ("llvm_vgpr_granule_wave32", "llvm_total_vgprs_wave32"):
        if name in v and (v[name] is None) == bool(wave32):
            want = "a number" if wave32 else "null"
            problems.append((name, f"must be {want} for a target with wave32 {'on' if wave32 else 'off'}"))
    if "default_wave_size" in v and v["default_wave_size"] not in (32, 64):
        problems.append(("default_wave_size", f"must be 32 or 64, got {v['default_wave_size']}"))
    elif v.get("default_wave_size") == 32 and wave32 is False:
        problems.append(("default_wave_size", "is 32 but wave32 is false"))
    if v.get("has_wgp") is True and wave32 is False:
        problems.append(("has_wgp", "WGP mode exists only on gfx10+ targets, which run wave32"))
    for granule, total in (
        ("runtime_vgpr_granule", "runtime_vgprs_per_simd"),
        ("llvm_vgpr_granule_wave64", "llvm_total_vgprs_wave64"),
        ("llvm_vgpr_granule_wave32", "llvm_total_vgprs_wave32"),
    ):
        g, t = v.get(granule), v.get(total)
        if isinstance(g, int) and isinstance(t, int) and t % g:
            problems.append((total, f"{t} is not a multiple of {granule} {g}"))
    return problems
