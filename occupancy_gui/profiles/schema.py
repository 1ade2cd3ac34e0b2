"""The device-profile schema: every key a profile file may hold, in one place.

Loader, catalog, documentation and tests all read these tables, so a new field is added here once
and nowhere else.  The nine ``LIMIT_FIELDS`` are the per-device members of ``cudaOccDeviceProp``
(``engine.types.DeviceProperties``) other than the compute capability and the SM count, which a
profile expresses as ``compute_capability`` / ``inherits`` and ``sm_count``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCHEMA_VERSION = 1
MAX_FILE_BYTES = 1024 * 1024
"""Profiles are a few kilobytes; anything above 1 MiB is refused unread rather than parsed."""

INT_MAX = 2**31 - 1
"""``cudaOccDeviceProp`` holds these limits in C ``int``s; larger values cannot be real."""

MAX_SM_COUNT = 4096


@dataclass(frozen=True)
class Field:
    """One entry of a profile's ``limits`` (or ``info``) table."""

    name: str
    type: type
    unit: str
    description: str
    minimum: int = 1
    label: str = ""
    """A short name for column headers (the GPU data table); the description says the rest."""


LIMIT_FIELDS: tuple[Field, ...] = (
    Field(
        "warp_size",
        int,
        "threads",
        "Threads per warp (cudaDeviceProp.warpSize); 32 on every NVIDIA GPU.",
        label="Warp size",
    ),
    Field(
        "max_threads_per_block",
        int,
        "threads",
        "Largest block a kernel may launch (maxThreadsPerBlock).",
        label="Max threads per block",
    ),
    Field(
        "max_threads_per_multiprocessor",
        int,
        "threads",
        "Resident threads per SM (maxThreadsPerMultiProcessor); resident warps times warp size.",
        label="Max threads per SM",
    ),
    Field(
        "regs_per_block",
        int,
        "registers",
        "32-bit registers one block may use (regsPerBlock).",
        label="Registers per block",
    ),
    Field(
        "regs_per_multiprocessor",
        int,
        "registers",
        "32-bit registers in one SM's file (regsPerMultiprocessor).",
        label="Registers per SM",
    ),
    Field(
        "shared_mem_per_block",
        int,
        "bytes",
        "Shared memory per block without opt-in (sharedMemPerBlock).",
        label="Shared memory per block",
    ),
    Field(
        "shared_mem_per_multiprocessor",
        int,
        "bytes",
        "Shared memory per SM at the largest carveout (sharedMemPerMultiprocessor).",
        label="Shared memory per SM",
    ),
    Field(
        "shared_mem_per_block_optin",
        int,
        "bytes",
        "Shared memory per block with the opt-in attribute (sharedMemPerBlockOptin).",
        label="Shared memory per block (opt-in)",
    ),
    Field(
        "reserved_shared_mem_per_block",
        int,
        "bytes",
        "Shared memory the driver reserves per block (reservedSharedMemPerBlock); 0 before CC 8.0.",
        minimum=0,
        label="Reserved shared memory per block",
    ),
)
LIMIT_NAMES: tuple[str, ...] = tuple(f.name for f in LIMIT_FIELDS)
LIMITS_BY_NAME: dict[str, Field] = {f.name: f for f in LIMIT_FIELDS}

INFO_FIELDS: tuple[Field, ...] = (
    Field("chip", str, "", "GPU die, e.g. GA100."),
    Field("memory_gib", float, "GiB", "Device memory."),
    Field("l2_cache_kib", int, "KiB", "L2 cache size."),
    Field("boost_clock_mhz", int, "MHz", "Boost clock."),
    Field("release_year", int, "year", "Year of launch."),
)
INFO_BY_NAME: dict[str, Field] = {f.name: f for f in INFO_FIELDS}
RELEASE_YEAR_RANGE = (1990, 2100)

KINDS = ("compute_capability", "gpu")
SEGMENTS = ("datacenter", "workstation", "consumer", "embedded")

SOURCED_KEYS = frozenset({"value", "source"})
"""Every number in a profile is ``{value, source}``: a value nobody can trace is not shipped."""

COMMON_REQUIRED = frozenset({"schema", "name", "kind", "architecture"})
CC_REQUIRED = COMMON_REQUIRED | {"title", "compute_capability", "limits"}
CC_OPTIONAL = frozenset({"notes", "aliases"})
GPU_REQUIRED = COMMON_REQUIRED | {"inherits", "segment", "sm_count"}
GPU_OPTIONAL = frozenset({"title", "notes", "aliases", "limits", "info"})

KEY_ORDER = (
    "schema",
    "name",
    "kind",
    "title",
    "compute_capability",
    "inherits",
    "aliases",
    "architecture",
    "segment",
    "notes",
    "sm_count",
    "limits",
    "info",
)

CC_STRING = re.compile(r"^(\d{1,2})\.(\d)$")
CC_PROFILE_NAME = "sm_{major}{minor}"
CC_LOOKUP = re.compile(r"^(?:sm_?)?(\d{1,2})(\d)$|^(\d{1,2})\.(\d)$")
"""Spellings reserved for compute capabilities: ``sm_90``, ``sm90``, ``90``, ``9.0``."""

MAX_NAME_LENGTH = 100
MAX_TEXT_LENGTH = 4000


def allowed_keys(kind: str) -> frozenset[str]:
    """Top-level keys a profile of ``kind`` may contain."""
    if kind == "gpu":
        return GPU_REQUIRED | GPU_OPTIONAL
    return CC_REQUIRED | CC_OPTIONAL


def required_keys(kind: str) -> frozenset[str]:
    """Top-level keys a profile of ``kind`` must contain."""
    return GPU_REQUIRED if kind == "gpu" else CC_REQUIRED


def cc_profile_name(cc: tuple[int, int]) -> str:
    """The one legal name of the compute-capability profile for ``cc`` (``sm_90``, ``sm_120``)."""
    return CC_PROFILE_NAME.format(major=cc[0], minor=cc[1])


def relation_errors(values: dict[str, int]) -> list[tuple[str, str]]:
    """Cross-field impossibilities among ``values`` as ``(field, message)``; fields absent are skipped.

    These hold on every device the driver has ever reported; a profile that breaks one has a typo.
    """
    v = values
    problems: list[tuple[str, str]] = []

    def has(*names: str) -> bool:
        return all(n in v for n in names)

    if "warp_size" in v and v["warp_size"] != 32:
        problems.append(("warp_size", f"must be 32 (every CUDA device has 32-thread warps), got {v['warp_size']}"))
    if has("max_threads_per_multiprocessor", "warp_size") and v["max_threads_per_multiprocessor"] % v["warp_size"]:
        problems.append(
            (
                "max_threads_per_multiprocessor",
                f"{v['max_threads_per_multiprocessor']} is not a multiple of warp_size {v['warp_size']}",
            )
        )
    if has("max_threads_per_block", "warp_size") and v["max_threads_per_block"] % v["warp_size"]:
        problems.append(
            ("max_threads_per_block", f"{v['max_threads_per_block']} is not a multiple of warp_size {v['warp_size']}")
        )
    pairs = (
        ("max_threads_per_block", "max_threads_per_multiprocessor"),
        ("regs_per_block", "regs_per_multiprocessor"),
        ("shared_mem_per_block", "shared_mem_per_block_optin"),
        ("shared_mem_per_block", "shared_mem_per_multiprocessor"),
    )
    for small, large in pairs:
        if has(small, large) and v[small] > v[large]:
            problems.append((small, f"{v[small]} exceeds {large} {v[large]}"))
    if has("shared_mem_per_block_optin", "reserved_shared_mem_per_block", "shared_mem_per_multiprocessor"):
        total = v["shared_mem_per_block_optin"] + v["reserved_shared_mem_per_block"]
        if total > v["shared_mem_per_multiprocessor"]:
            problems.append(
                (
                    "shared_mem_per_block_optin",
                    f"{v['shared_mem_per_block_optin']} plus reserved {v['reserved_shared_mem_per_block']} "
                    f"exceeds shared_mem_per_multiprocessor {v['shared_mem_per_multiprocessor']}",
                )
            )
    return problems
