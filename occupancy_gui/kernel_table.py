"""The imported kernels as plain columns: one row per (kernel, architecture), with its occupancy.

Qt-free (the view-model layer): :class:`KernelTable` is built on the import thread, so the GUI thread
never demangles 10^5 names or walks 10^5 records; :func:`occupancy_column` answers every row in one
engine call; :func:`record_tags` and :func:`record_notes` are the words a row carries beside its
figures.  ``ui.views.kernel_table_model`` adapts the table to Qt.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .engine import INT_MAX, DeviceProperties, DeviceState, FunctionAttributes, build_query, max_active_blocks

if TYPE_CHECKING:
    from .importers import KernelRecord


@dataclass
class KernelTable:
    """Columns of an import, ready for display; built off the GUI thread by :meth:`from_records`."""

    path: str
    records: list[KernelRecord]
    names: list[str]
    demangled: list[str]
    haystack: list[str]
    arch: list[str]
    arch_number: np.ndarray  # -1: unknown
    registers: np.ndarray
    static_smem: np.ndarray
    spill_stores: np.ndarray  # -1: not reported
    spill_loads: np.ndarray
    barriers: np.ndarray  # -1: not reported
    max_threads: np.ndarray  # 0: no launch bound
    is_kernel: np.ndarray
    local_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    # Distinct (launch bound, registers, smem, barriers): occupancy is computed once per combination.
    combo_inverse: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    combos: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.int64))
    impossible: dict[int, str] = field(default_factory=dict)
    """Record index -> why no GPU can have its figures (see ``importers.records.impossible_figure``)."""

    def __len__(self) -> int:
        return len(self.records)

    @classmethod
    def from_records(cls, path: str, records: list[KernelRecord], cancelled: Any = None) -> KernelTable:
        """Build the columns; ``cancelled()`` is polled every 4096 records."""
        n = len(records)
        names, demangled, hay, archs = [], [], [], []
        ints = np.zeros((9, n), dtype=np.int64)
        from .importers.records import impossible_figure  # noqa: PLC0415 - lazy: loaded with the importers, off the GUI thread

        impossible: dict[int, str] = {}
        for i, rec in enumerate(records):
            if cancelled is not None and not i & 4095 and cancelled():
                from .importers import ImportCancelled  # noqa: PLC0415 - on the pool thread, once cancelled

                raise ImportCancelled(os.fspath(path))
            name, pretty = rec.name, rec.demangled or rec.name
            names.append(name)
            demangled.append(pretty)
            hay.append(f"{pretty}\n{name}".casefold())
            archs.append(rec.arch)
            number = rec.arch_number
            req = rec.req_threads
            bound = rec.max_threads or (req[0] * req[1] * req[2] if req else 0)
            row: tuple[int, ...] = (
                -1 if number is None else number, rec.registers, rec.static_smem or 0,
                -1 if rec.spill_stores is None else rec.spill_stores, -1 if rec.spill_loads is None else rec.spill_loads,
                -1 if rec.barriers is None else rec.barriers, bound, int(rec.is_kernel), rec.local_bytes or 0)  # fmt: skip
            reason = impossible_figure(rec)
            if reason is not None:  # flagged; its figures are clipped so that a column can hold them
                impossible[i] = reason
                row = tuple(min(max(v, -1), _CLIP) for v in row)
            ints[:, i] = row
        table = cls(os.fspath(path), records, names, demangled, hay, archs, arch_number=ints[0], registers=ints[1],
                    static_smem=ints[2], spill_stores=ints[3], spill_loads=ints[4], barriers=ints[5],
                    max_threads=ints[6], is_kernel=ints[7].astype(bool), local_bytes=ints[8], impossible=impossible)
        if n:
            table.combos, table.combo_inverse = _distinct(
                np.stack([table.max_threads, table.registers, table.static_smem,
                          np.where(table.barriers < 0, 1, table.barriers)], axis=1))  # fmt: skip
        return table

    def spills(self, i: int) -> tuple[int, int] | None:
        st, ld = int(self.spill_stores[i]), int(self.spill_loads[i])
        return None if st < 0 and ld < 0 else (max(st, 0), max(ld, 0))


_CLIP = 1 << 40  # beyond any figure a GPU has; far inside int64


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, axis=0, return_inverse=True)``, via one packed int64 where the values fit.

    The row-wise unique sorts a structured dtype while holding the GIL (~120 ms for 10^5 rows,
    felt as a stall by the GUI thread); the packed key sorts plain integers in a few ms.
    """
    bits = [max(int(keys[:, j].max()), 0).bit_length() for j in range(keys.shape[1])]
    if keys.min() < 0 or sum(bits) > 62:
        combos, inverse = np.unique(keys, axis=0, return_inverse=True)
        return combos, inverse.reshape(-1)
    packed = np.zeros(len(keys), dtype=np.int64)
    for j, width in enumerate(bits):
        packed = (packed << width) | keys[:, j]
    _values, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    return keys[first], inverse.reshape(-1)


def occupancy_column(table: KernelTable, device: DeviceProperties, block_size: int, dynamic_smem: int = 0,
                     state: DeviceState | None = None) -> np.ndarray:  # fmt: skip
    """Occupancy (0..1, NaN where the launch fails) of every row, one engine call for all of them.

    A kernel with a launch bound is launched at that bound; the others at ``block_size``.
    """
    if not len(table):
        return np.zeros(0)
    state = state or DeviceState()
    bound, regs, smem, barriers = table.combos.T
    blocks = np.where(bound > 0, bound, block_size)
    query = build_query(
        device, FunctionAttributes(num_regs=0), state, blocks, dynamic_smem,
        num_regs=regs, shared_size_bytes=smem, num_block_barriers=barriers,
        max_dynamic_smem=np.maximum(0, device.shared_mem_per_block - smem),
        func_max_threads_per_block=np.where(bound > 0, bound, INT_MAX),
    )  # fmt: skip
    arrays = max_active_blocks(device, query)
    warps = -(-blocks // device.warp_size)
    occ = arrays.active_blocks * warps / device.max_warps_per_multiprocessor
    shown: np.ndarray = np.where(arrays.status == 0, occ, np.nan)[table.combo_inverse]
    return shown


def record_tags(rec: KernelRecord) -> list[str]:
    """Short marks shown after a name: pre-link (-rdc), embedded fatbin, identical copies."""
    from .importers.records import impossible_figure  # noqa: PLC0415 - lazy: the records' module, loaded by then

    tags = ["impossible figures"] if impossible_figure(rec) is not None else []
    if rec.relocatable:
        tags.append("pre-link")
    if rec.embedded:
        tags.append("embedded")
    if rec.copies > 1:
        tags.append(f"×{rec.copies}")
    return tags


def record_notes(rec: KernelRecord) -> list[str]:
    """What a reader of a row should know beyond its figures, one line each."""
    from .importers.records import impossible_figure  # noqa: PLC0415 - lazy: the records' module, loaded by then

    notes = [] if rec.is_kernel else ["(device function, not a kernel)"]
    reason = impossible_figure(rec)
    if reason is not None:
        notes.append(f"⚠ {reason[0].upper()}{reason[1:]}: the file is damaged or crafted; not loaded into the inputs")
    if rec.relocatable:
        notes.append("Pre-link copy (-rdc): nvlink may add registers, stack and shared memory of\n"
                     "functions in other translation units; open the linked program for the final figures")
    if rec.embedded:
        notes.append("From a fatbin the library loads itself at run time (not registered with the runtime)")
    if rec.copies > 1:
        notes.append(f"{rec.copies} identical copies in this file")
    if rec.source:
        notes.append(f"From {rec.source}")
    return notes
