"""AMD kernels as rows of the kernel table: their columns, and each row's occupancy by the HIP runtime's rule.

Qt-free.  ``kernel_table`` lists both vendors' kernels in one table; this module reads AMD records
(``importers.AmdKernelRecord``) into the table's shared columns — name, target, VGPRs in *registers*, static LDS
in *static shared memory*, scratch per work-item in *local*, VGPR / SGPR spill counts in *spills*,
``.max_flat_workgroup_size`` as the launch bound, a Triton cache's launch — and into the columns only AMD has
(SGPRs, AGPRs, the descriptor's VGPR allocation, wave size, WGP mode), column by column in C (``map``): a ROCm
library lists 4 x 10^5 of them.

:func:`amd_occupancy` answers each distinct combination of figures once, through the one rule a chosen row's
inputs follow (``amd_record.record_inputs``) and the engine's ``max_active_blocks`` that the session's HIP
runtime answer calls: a row's figure is the calculator's answer once that row is chosen.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import fields
from .distinct_rows import distinct_rows

if TYPE_CHECKING:
    from ..importers import AmdKernelRecord
    from ..profiles import AmdProfile

AMD_COMBO = (
    "processor",
    "vgprs",
    "agprs",
    "sgprs",
    "allocated",
    "lds",
    "wave",
    "wgp",
    "bound",
    "required",
    "launch_block",
    "launch_dynamic",
)
"""The figures an AMD row's occupancy depends on (``AmdColumns.combo_keys``' columns)."""

_get = operator.attrgetter


@dataclass
class AmdColumns:
    """What only AMD rows have, one entry per AMD row (in the order of the table's AMD rows)."""

    rows: np.ndarray
    """The table's row of each AMD record."""
    sgprs: np.ndarray  # -1: not stated
    agprs: np.ndarray  # -1: not stated (no AGPRs on the target, or a log)
    allocated: np.ndarray  # 0: not stated
    wave_size: np.ndarray  # 0: not stated
    wgp: np.ndarray  # -1: not stated, 0: CU mode, 1: WGP mode
    padded: np.ndarray
    """The descriptor allocates more VGPRs than ``.vgpr_count`` rounded to its granule (``importers`` says)."""
    processors: list[str]
    """Distinct processors (``gfx942``), indexed by :attr:`processor`."""
    processor: np.ndarray
    combos: np.ndarray = field(default_factory=lambda: np.zeros((0, len(AMD_COMBO)), np.int64))
    combo_inverse: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    combo_first: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Each combination's first AMD row (an index into the AMD rows), whose record stands for it."""


@dataclass(frozen=True)
class AmdRowsRead:
    """AMD records read into the table's shared columns and :class:`AmdColumns`."""

    names: list[str]
    demangled: list[str]
    targets: list[str]
    shared: list[list[Any]]
    """The table's integer columns (``kernel_table._int_columns``' order)."""
    own: AmdColumns


def _or(values: list[Any], default: int) -> list[Any]:
    return list(map({None: default}.get, values, values)) if None in values else values


def read_amd_rows(records: Sequence[AmdKernelRecord], first_row: int) -> AmdRowsRead:
    """The columns of ``records``, which the table lists from row ``first_row`` on."""
    from ..importers import padded_vgprs  # noqa: PLC0415 - lazy: loaded with the records, off the GUI thread

    n = len(records)
    names = list(map(_get("name"), records))
    demangled = [d or name for d, name in zip(map(_get("demangled"), records), names)]
    targets = [t or a for t, a in zip(map(_get("target"), records), map(_get("arch"), records))]
    spills = list(map(_get("spills"), records))
    scratch = _or(list(map(_get("scratch_bytes"), records)), 0)
    dynamic = list(map(_get("dynamic_stack"), records))
    required = [r[0] * max(r[1], 1) * max(r[2], 1) if r else 0 for r in map(_get("required_block"), records)]
    shared = [
        [-1] * n,
        _or(list(map(_get("vgprs"), records)), 0),
        _or(list(map(_get("static_lds"), records)), 0),
        _or(list(map(_get("vgpr"), spills)), -1),
        _or(list(map(_get("sgpr"), spills)), -1),
        [-1] * n,
        _or(list(map(_get("max_threads"), records)), 0),
        list(map(int, map(_get("is_kernel"), records))),
        scratch,
        [-1 if dyn else s for dyn, s in zip(dynamic, scratch)],
        required,
        _or(list(map(_get("block_size"), records)), 0),
        _or(list(map(_get("dynamic_lds"), records)), 0),
    ]
    from ..amd_record import processor_of  # noqa: PLC0415 - lazy: an NVIDIA table (and start-up) loads no AMD rules

    procs = list(map(processor_of, targets))
    distinct = sorted(set(procs))
    index = {p: i for i, p in enumerate(distinct)}
    wgp = [-1 if w is None else int(w) for w in map(_get("wgp_mode"), records)]
    own = AmdColumns(
        rows=np.arange(first_row, first_row + n, dtype=np.int64),
        sgprs=np.array(_or(list(map(_get("sgprs"), records)), -1), np.int64),
        agprs=np.array(_or(list(map(_get("agprs"), records)), -1), np.int64),
        allocated=np.array(_or(list(map(_get("allocated_vgprs"), records)), 0), np.int64),
        wave_size=np.array(_or(list(map(_get("wave_size"), records)), 0), np.int64),
        wgp=np.array(wgp, np.int64),
        padded=np.fromiter(map(padded_vgprs, records), bool, count=n),
        processors=distinct,
        processor=np.array(list(map(index.__getitem__, procs)), np.int64),
    )
    return AmdRowsRead(names, demangled, targets, shared, own)


def combo_keys(
    own: AmdColumns,
    registers: np.ndarray,
    static: np.ndarray,
    bound: np.ndarray,
    required: np.ndarray,
    launch: np.ndarray,
    launch_dynamic: np.ndarray,
) -> np.ndarray:
    """The :data:`AMD_COMBO` columns of the AMD rows (the shared columns given at the AMD rows)."""
    return np.stack(
        [
            own.processor,
            registers,
            np.maximum(own.agprs, 0),
            np.maximum(own.sgprs, 0),
            own.allocated,
            static,
            own.wave_size,
            own.wgp,
            bound,
            required,
            launch,
            launch_dynamic,
        ],
        axis=1,
    )


def set_combos(own: AmdColumns, keys: np.ndarray) -> None:
    """``own``'s distinct combinations of ``keys`` (:func:`combo_keys`), each row's, and each one's first row."""
    own.combos, own.combo_inverse = distinct_rows(keys)
    first = np.full(len(own.combos), len(keys), np.int64)
    np.minimum.at(first, own.combo_inverse, np.arange(len(keys)))
    own.combo_first = first


@dataclass(frozen=True)
class AmdFigures:
    """The AMD rows' threads per block and occupancy once chosen (NaN: cannot launch or no profile)."""

    threads: np.ndarray
    occupancy: np.ndarray
    devices: dict[str, str]
    """Processor -> the profile its rows' figures are on."""
    missing: dict[str, str]
    """Processor -> why its rows have no figure (no profile of that target)."""


def amd_occupancy(
    own: AmdColumns,
    records: Callable[[int], AmdKernelRecord],
    profile_for: Callable[[str], AmdProfile | None],
    threads: int,
    dynamic_lds: int,
) -> AmdFigures:
    """Each AMD row's threads and HIP runtime occupancy once chosen while the calculator holds ``threads`` and
    ``dynamic_lds``; ``records(k)`` is the record of AMD row ``k``, ``profile_for(processor)`` the profile choosing
    it selects (``amd_record.record_profile``)."""
    from ..amd_question import kernel_and_launch, target_problem, target_values  # noqa: PLC0415 - lazy: as above
    from ..amd_record import record_inputs  # noqa: PLC0415 - lazy: as above
    from ..engine.amd import AmdInputError, max_active_blocks  # noqa: PLC0415 - lazy: as above

    profiles = {p: profile_for(p) for p in own.processors}
    devices = {p: prof.device() for p, prof in profiles.items() if prof is not None}
    m = len(own.combos)
    block = np.zeros(m, np.int64)
    occ = np.full(m, np.nan)
    for c in range(m):
        processor = own.processors[int(own.combos[c, 0])]
        profile = profiles[processor]
        rec = records(int(own.combo_first[c]))
        if profile is None:
            block[c] = threads
            continue
        inputs = record_inputs(rec, profile.target, threads)
        block[c] = inputs["threads"]
        values = target_values(SimpleNamespace(**{**_DEFAULTS, "dynamic_smem": dynamic_lds, **inputs}), profile.target)
        if target_problem(values, profile.target) is not None:
            continue
        kernel, launch = kernel_and_launch(values)
        try:
            result = max_active_blocks(devices[processor], kernel, launch.threads_per_block, launch.dynamic_lds)
        except AmdInputError:
            continue
        if result.error is None and launch.threads_per_block <= profile.target.max_workgroup_size:
            occ[c] = result.occupancy  # else NaN: the launch fails (no block of this size can start)
    missing = {
        p: f"No device profile of {p}: add one (device_profiles/amd) to see its occupancy"
        for p, prof in profiles.items()
        if prof is None
    }
    return AmdFigures(
        block[own.combo_inverse],
        occ[own.combo_inverse],
        {p: prof.name for p, prof in profiles.items() if prof is not None},
        missing,
    )


_DEFAULTS = {name: fields.FIELD[name].default for name in fields.SESSION_NAMES}
