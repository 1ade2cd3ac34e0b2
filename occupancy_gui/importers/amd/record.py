"""What the AMD readers produce: one :class:`AmdKernelRecord` per kernel and target.

The fields are the fixed contract of ``occupancy import --json`` for AMD (issue #41) and what the AMD
occupancy engine consumes: the code object metadata's figures (``.vgpr_count``, ``.sgpr_count``, ...), the
kernel descriptor's VGPR allocation beside them, and where the kernel was read.  ``None`` means "not in this
source" (a clang remark has no SGPR spill count of its own kind, a log no target features).

A record is a plain frozen value.  Where 10^5 of them are read (a ROCm library), what makes the reading
fast lives in the readers and the merge, not in the record.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from .target import vgpr_encoding_granule

VENDOR = "amd"


@dataclass(frozen=True, slots=True)
class Spills:
    """Spill counts: ``.vgpr_spill_count`` and ``.sgpr_spill_count`` of the metadata (``None``: not stated)."""

    vgpr: int | None = None
    sgpr: int | None = None


NO_SPILLS = Spills(0, 0)
UNKNOWN_SPILLS = Spills(None, None)


@dataclass(frozen=True, slots=True)
class AmdKernelRecord:
    """One kernel compiled for one AMD GPU target, as its code object (or a log, or a cache) states it.

    ``vgprs`` is the metadata's ``.vgpr_count`` (on gfx90a and later it already holds the AGPRs);
    ``allocated_vgprs`` what the kernel descriptor allocates, ``(GRANULATED_WORKITEM_VGPR_COUNT + 1)`` x the
    target's encoding granule: LLVM may allocate more than it uses to honour ``amdgpu_waves_per_eu``, and the
    hardware allocates this, while the HIP runtime computes occupancy from ``vgprs``.  ``wgp_mode`` is the
    metadata's ``.workgroup_processor_mode`` where present (code object v5+), else the descriptor's
    ``WGP_MODE`` bit.  ``block_size``, ``dynamic_lds`` and ``launch_source``: the launch a Triton cache
    records beside the code object (``num_warps`` x ``warp_size``, ``shared``).
    """

    name: str
    demangled: str
    kind: str
    arch: str
    target: str
    code_object_version: int | None
    vgprs: int | None
    agprs: int | None
    sgprs: int | None
    allocated_vgprs: int | None
    static_lds: int | None
    scratch_bytes: int | None
    dynamic_stack: bool | None
    wave_size: int | None
    wgp_mode: bool | None
    max_threads: int | None
    required_block: tuple[int, int, int] | None
    spills: Spills
    copies: int
    source: str
    block_size: int | None = None
    dynamic_lds: int | None = None
    launch_source: str | None = None

    @property
    def vendor(self) -> str:
        return VENDOR

    @property
    def is_kernel(self) -> bool:
        return self.kind == "kernel"

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.target)


FIELDS = tuple(f.name for f in fields(AmdKernelRecord))
_NOT_FIGURES = frozenset(("copies", "source", "demangled"))
_FIGURES = tuple(name for name in FIELDS if name not in _NOT_FIGURES)
_figures = operator.attrgetter(*_FIGURES)


def merge_copies(records: Iterable[AmdKernelRecord]) -> list[AmdKernelRecord]:
    """One record per distinct kernel, in first-seen order: records equal in every figure (name, target,
    counts, launch) become the first one with ``copies`` summed; records that differ anywhere are all
    kept.  As the NVIDIA readers merge the images of one library, which repeat kernels."""
    out: dict[tuple[Any, ...], AmdKernelRecord] = {}
    counts: dict[tuple[Any, ...], int] = {}
    for rec in records:
        ident = _figures(rec)
        out.setdefault(ident, rec)
        counts[ident] = counts.get(ident, 0) + rec.copies
    return [rec if counts[ident] == rec.copies else _with_copies(rec, counts[ident]) for ident, rec in out.items()]


class CopyMerger:
    """:func:`merge_copies` as records arrive: :attr:`records` is at each moment the merge of what was added,
    so that a reader streaming batches can show it (the rows seen so far keep their places; a later copy only
    raises an earlier row's ``copies``)."""

    def __init__(self) -> None:
        self.records: list[AmdKernelRecord] = []
        self._at: dict[tuple[Any, ...], int] = {}
        self._first: list[AmdKernelRecord] = []  # each row's first record (its copies before merging)
        self._counts: list[int] = []

    def add(self, batch: Iterable[AmdKernelRecord]) -> None:
        records, at, first, counts = self.records, self._at, self._first, self._counts
        for rec in batch:
            ident = _figures(rec)
            k = at.get(ident)
            if k is None:
                at[ident] = len(records)
                records.append(rec)
                first.append(rec)
                counts.append(rec.copies)
                continue
            counts[k] += rec.copies
            records[k] = _with_copies(first[k], counts[k])


def _with_copies(rec: AmdKernelRecord, copies: int) -> AmdKernelRecord:
    values = {name: getattr(rec, name) for name in FIELDS}
    values["copies"] = copies
    return AmdKernelRecord(**values)


def with_launch(rec: AmdKernelRecord, block_size: int, dynamic_lds: int, source: str) -> AmdKernelRecord:
    """``rec`` with the launch a Triton cache's JSON states."""
    values = {name: getattr(rec, name) for name in FIELDS}
    values.update(block_size=block_size, dynamic_lds=dynamic_lds, launch_source=source)
    return AmdKernelRecord(**values)


def padded_vgprs(rec: AmdKernelRecord) -> bool:
    """Whether the descriptor allocates more VGPRs than the metadata's count rounded up to the target's
    encoding granule: LLVM padded the allocation (to honour ``amdgpu_waves_per_eu``), and the hardware
    allocates more than the HIP runtime counts."""
    if rec.allocated_vgprs is None or rec.vgprs is None or not rec.arch:
        return False
    granule = vgpr_encoding_granule(rec.arch, rec.wave_size == 32)
    return rec.allocated_vgprs > -(-max(rec.vgprs, 1) // granule) * granule
