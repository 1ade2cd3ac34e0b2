"""The imported kernels as plain columns: one row per (kernel, architecture), with its occupancy.

Qt-free (the view-model layer): :class:`KernelTable` is built on the import thread, so the GUI thread
never demangles 10^5 names or walks 10^5 records; :func:`occupancy_column` answers every NVIDIA row in one
engine call, :func:`amd_occupancy_column` every AMD row (``amd_rows``) once per distinct combination.
Both vendors' kernels are rows of one table: NVIDIA's first, then AMD's, each record a :class:`KernelRow`
(its ``vendor`` tag says whose, ``kernel_rows``); the shared columns hold each vendor's own figure of
the same meaning.  ``ui.kernels.kernel_table_model`` adapts the table to Qt.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import (
    INT_MAX,
    DeviceProperties,
    DeviceState,
    FunctionAttributes,
    build_query,
    default_max_dynamic_smem,
    max_active_blocks,
    supports_cache_config,
)
from ..record_launch import DEFAULT_BARRIERS, launch_smem, launch_threads
from .amd_rows import AmdColumns, AmdFigures, amd_occupancy, combo_keys, read_amd_rows, set_combos
from .distinct_rows import distinct_rows
from .filter_masks import FilterMasks as FilterMasks
from .filter_masks import SearchTexts
from .rows import TableRecords

if TYPE_CHECKING:
    from ..importers import AmdKernelRecord, KernelRecord
    from ..profiles import AmdProfile


COMBO = ("max_threads", "required", "registers", "static_smem", "barriers", "launch_block", "launch_dynamic")
"""The columns of :attr:`KernelTable.combos`, in order."""


@dataclass
class KernelTable:
    """Columns of an import, ready for display; built off the GUI thread by :meth:`from_records`."""

    path: str
    records: TableRecords
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
    max_threads: np.ndarray  # 0: no launch bound (__launch_bounds__, .maxntid)
    is_kernel: np.ndarray
    local_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Stack per thread (``stack_bytes``), 0 where unknown: kept for the window until it reads :attr:`stack_bytes`."""
    stack_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Stack per thread as cuobjdump prints it; -1 where no bound is known (recursion or indirect calls:
    show ``importers.STACK_UNKNOWN``, "unknown — recursion or indirect calls")."""
    required: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """The required block size (.reqntid x·y·z); 0: none."""
    launch_block: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """The block size a record carries with its launch (a Triton cache's); 0: none."""
    launch_dynamic: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """The dynamic shared memory of that launch."""
    # Distinct (launch bound, required size, registers, smem, barriers, launch block, launch dynamic smem):
    # occupancy is computed once per combination.
    combo_inverse: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    combos: np.ndarray = field(default_factory=lambda: np.zeros((0, len(COMBO)), np.int64))
    impossible: dict[int, str] = field(default_factory=dict)
    """Record index -> why no GPU can have its figures (see ``importers.impossible_figure``)."""
    notes: tuple[str, ...] = ()
    """The import's own notes, one line each: entries it skipped, kernels a cut-off log lost, assumptions it made."""
    launch_bounds_unknown: bool = False
    """The input records no launch bound (a build log): a bound shown as none may be there in the binary."""
    filter_masks: dict[str, np.ndarray] = field(default_factory=dict)
    """Filter text -> its rows (:class:`FilterMasks`' memory, kept with the table so that the import
    thread can scan for the filter shown while the file was read)."""
    nvidia_count: int = -1
    """Rows ``0..nvidia_count-1`` are NVIDIA's, the rest AMD's (-1: all NVIDIA); :attr:`combos` are NVIDIA's."""
    amd: AmdColumns | None = None
    """What only the AMD rows have (``None``: no AMD row)."""
    search_texts: list[str] = field(default_factory=list)
    """The AMD rows' distinct search texts (one per name: the rows share them)."""
    search_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Each AMD row's search text in :attr:`search_texts` (``filter_masks`` scans each text once)."""

    @property
    def nvidia_rows(self) -> int:
        return len(self) if self.nvidia_count < 0 else self.nvidia_count

    def is_amd(self, i: int) -> bool:
        return i >= self.nvidia_rows

    def nvidia_record(self, i: int) -> KernelRecord:
        """The record of NVIDIA row ``i`` (``IndexError`` for an AMD row)."""
        if i >= self.nvidia_rows:
            raise IndexError(f"row {i} is an AMD kernel's")
        return self.records.nvidia[i]

    def amd_record(self, i: int) -> AmdKernelRecord:
        """The record of AMD row ``i`` (``IndexError`` for an NVIDIA row)."""
        if i < self.nvidia_rows:
            raise IndexError(f"row {i} is an NVIDIA kernel's")
        return self.records.amd[i - self.nvidia_rows]

    @property
    def vendors(self) -> frozenset[str]:
        """The vendors of the table's rows."""
        return frozenset(v for v, n in (("nvidia", self.nvidia_rows), ("amd", len(self) - self.nvidia_rows)) if n)

    def __len__(self) -> int:
        return len(self.records)

    @classmethod
    def from_records(
        cls, path: str, records: Sequence[KernelRecord], cancelled: Any = None, amd: Sequence[AmdKernelRecord] = ()
    ) -> KernelTable:
        """Build the columns of ``records`` and then of the ``amd`` records (``amd_rows``); ``cancelled()`` is
        polled every :data:`SLICE` records.

        Column by column in C (``map``), a slice of records at a time: a loop over the records took
        libcublasLt's 42,517 0.17-0.23 s and a 200 MB log's 137,990 0.39 s, on the pool thread the
        window waits on; a slice's C loops are short, so the GUI thread gets the GIL between them.  The records
        stay as the import holds them (``importers.Records``: a record is made where a row is read)."""
        # Lazy: loaded with the importers, off the GUI thread.
        from ..importers import ImportCancelled, Records, arch_number, built_states, impossible_figures  # noqa: PLC0415

        records = Records.of(records)

        n = len(records)
        names: list[str] = []
        demangled: list[str] = []
        hay: list[str] = []
        archs: list[str] = []
        columns: list[list[int]] = [[] for _ in range(13)]
        impossible: dict[int, str] = {}
        numbers: dict[str, int] = {}
        for at in range(0, n, SLICE):
            if cancelled is not None and cancelled():
                raise ImportCancelled(os.fspath(path))
            block = records[at : at + SLICE]
            states = built_states(block)
            block_names = list(map(_get("name"), states))
            pretty = _pretty_names(states, block_names)
            block_archs = list(map(_get("arch"), states))
            for arch in set(block_archs) - numbers.keys():
                number = arch_number(arch)
                numbers[arch] = -1 if number is None else number
            names += block_names
            demangled += pretty
            hay += map(str.casefold, map("{}\n{}".format, pretty, block_names))
            archs += block_archs
            for column, values in zip(columns, _int_columns(states, block_archs, numbers)):
                column += values
            for i, reason in enumerate(impossible_figures(block)):
                if reason is not None:  # flagged; its figures are clipped so that a column can hold them
                    impossible[at + i] = reason
                    for column in columns:
                        column[at + i] = min(max(column[at + i], -1), _CLIP)
        own, search_ids, search_texts = None, np.zeros(0, np.int64), list[str]()
        if amd:
            if cancelled is not None and cancelled():
                raise ImportCancelled(os.fspath(path))
            read = read_amd_rows(amd, n)
            names += read.names
            demangled += read.demangled
            texts = SearchTexts()
            ids = texts.add(read.demangled, read.names)
            hay += map(texts.texts.__getitem__, ids)
            search_ids, search_texts = np.array(ids, np.int64), texts.texts
            archs += read.targets
            for column, values in zip(columns, read.shared):
                column += values
            own = read.own
        ints = int64_columns(columns)
        table = cls(
            os.fspath(path),
            TableRecords(records, list(amd)),
            names,
            demangled,
            hay,
            archs,
            arch_number=ints[0],
            registers=ints[1],
            static_smem=ints[2],
            spill_stores=ints[3],
            spill_loads=ints[4],
            barriers=ints[5],
            max_threads=ints[6],
            is_kernel=ints[7].astype(bool),
            local_bytes=ints[8],
            stack_bytes=ints[9],
            required=ints[10],
            launch_block=ints[11],
            launch_dynamic=ints[12],
            impossible=impossible,
            nvidia_count=n if amd else -1,
            amd=own,
            search_texts=search_texts,
            search_ids=search_ids,
        )
        if n:
            nv = slice(0, n)
            table.combos, table.combo_inverse = distinct_rows(
                np.stack(
                    [
                        table.max_threads[nv],
                        table.required[nv],
                        table.registers[nv],
                        table.static_smem[nv],
                        np.where(table.barriers[nv] < 0, DEFAULT_BARRIERS, table.barriers[nv]),
                        table.launch_block[nv],
                        table.launch_dynamic[nv],
                    ],
                    axis=1,
                )
            )
        if own is not None:
            tail = slice(n, None)
            keys = combo_keys(
                own,
                table.registers[tail],
                table.static_smem[tail],
                table.max_threads[tail],
                table.required[tail],
                table.launch_block[tail],
                table.launch_dynamic[tail],
            )
            set_combos(own, keys)
        return table

    def spills(self, i: int) -> tuple[int, int] | None:
        st, ld = int(self.spill_stores[i]), int(self.spill_loads[i])
        return None if st < 0 and ld < 0 else (max(st, 0), max(ld, 0))


_CLIP = 1 << 40  # beyond any figure a GPU has; far inside int64
SLICE = 1024
"""Records made into columns at a time (and between two polls of ``cancelled``).  Each column of a slice is
one C call that holds the GIL: at 4,096, libtorch_cuda's long names made the search text's alone 21 ms a
slice, 30-77 ms (once 247 ms) beside the window's other threads; at 1,024 the whole table builds as fast
(0.44-0.50 s against 0.53-0.70 s)."""
_get = operator.itemgetter


def _pretty_names(states: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Each record's demangled name (``importers.demangled_names``), its mangled one where that is empty."""
    from ..importers import demangled_names  # noqa: PLC0415 - lazy: as in KernelTable.from_records

    pretty = demangled_names(states)
    return [text or name for text, name in zip(pretty, names)] if "" in pretty else pretty


def _or(values: list[Any], default: int) -> list[Any]:
    """``values`` with ``None`` as ``default`` (an int is no key of the dict: it maps to itself)."""
    return list(map({None: default}.get, values, values)) if None in values else values


def _int_columns(states: list[dict[str, Any]], archs: list[str], numbers: dict[str, int]) -> list[list[Any]]:
    """The table's integer columns of built records: arch number, registers, static shared memory, spill
    stores and loads, barriers (-1 where not reported), launch bound (0: none), kernel or not, stack bytes (0 where
    unknown: the window's local column), stack bytes (-1: unknown), required block size, launch block size and
    launch dynamic shared memory (0: none)."""
    required = [req[0] * req[1] * req[2] if req else 0 for req in map(_get("req_threads"), states)]
    zero_for_none = [
        _or([state.get(name) for state in states], 0) for name in ("max_threads", "block_size", "dynamic_smem")
    ]
    stacks = list(map(_get("stack_bytes"), states))
    return [
        list(map(numbers.__getitem__, archs)),
        list(map(_get("registers"), states)),
        _or(list(map(_get("static_smem"), states)), 0),
        *(_or(list(map(_get(name), states)), -1) for name in ("spill_stores", "spill_loads", "barriers")),
        zero_for_none[0],
        list(map(int, map(_get("is_kernel"), states))),
        _or(stacks, 0),
        _or(stacks, -1),
        required,
        zero_for_none[1],
        zero_for_none[2],
    ]


INT_COLUMNS = (
    "arch_number",
    "registers",
    "static_smem",
    "spill_stores",
    "spill_loads",
    "barriers",
    "max_threads",
    "is_kernel",
    "local_bytes",
    "stack_bytes",
    "required",
    "launch_block",
    "launch_dynamic",
)
"""The table's integer columns in :func:`_int_columns`' (and ``amd_rows.AmdRowsRead.shared``'s) order."""


def int64_columns(columns: list[list[int]]) -> np.ndarray:
    """The columns as one int64 array; a figure beyond int64 that no check flagged is clipped too.

    A column at a time: each conversion is one C call that holds the GIL, and libtorch_cuda's nine
    columns of 143,409 figures at once held it 29-40 ms alone, 120 ms beside the window's other threads."""
    out = np.empty((len(columns), len(columns[0]) if columns else 0), dtype=np.int64)
    for k, column in enumerate(columns):
        try:
            out[k] = np.array(column, dtype=np.int64)
        except OverflowError:
            out[k] = np.array([min(max(v, -1), _CLIP) for v in column], dtype=np.int64)
    return out


@dataclass(frozen=True)
class RowLaunch:
    """What each row's occupancy is for: the inputs choosing that row gives the calculator."""

    threads: np.ndarray
    """Threads per block (``record_launch.launch_threads``, ``amd_record.record_inputs`` for AMD rows)."""
    occupancy: np.ndarray
    """0..1; NaN where the launch fails (or, for an AMD row, where ``missing`` says why there is no figure)."""
    devices: dict[str, str] = field(default_factory=dict)
    """AMD processor -> the profile its rows' figures are on."""
    missing: dict[str, str] = field(default_factory=dict)
    """AMD processor -> why its rows have no figure (no profile of that target)."""


def occupancy_column(
    table: KernelTable,
    device: DeviceProperties,
    state: DeviceState,
    threads: int,
    dynamic_smem: int = 0,
    max_dynamic_smem: int | None = None,
) -> RowLaunch:
    """Every row's block size and occupancy once chosen, with the calculator holding ``threads``, ``dynamic_smem``
    and ``max_dynamic_smem`` (``None``: the runtime's default) under ``state``: one engine call for all of them,
    under the rule of ``record_launch`` (a row's figure is the calculator's answer once that row is chosen)."""
    n, rows = len(table), table.nvidia_rows
    if not rows:
        return RowLaunch(np.zeros(n, np.int64), np.full(n, np.nan))
    bound, required, regs, smem, barriers, launch, launch_dynamic = table.combos.T
    block = launch_threads(threads, bound, required, launch)
    recorded = launch > 0
    attribute, cache = launch_smem(device, launch_dynamic, smem)
    typed = default_max_dynamic_smem(device, smem) if max_dynamic_smem is None else max_dynamic_smem
    query = build_query(
        device,
        FunctionAttributes(num_regs=0),
        state,
        block,
        np.where(recorded, launch_dynamic, dynamic_smem),
        num_regs=regs,
        shared_size_bytes=smem,
        num_block_barriers=barriers,
        max_dynamic_smem=np.where(
            recorded, np.where(attribute >= 0, attribute, default_max_dynamic_smem(device, smem)), typed
        ),
        cache_config=np.where(
            recorded & supports_cache_config(device.compute_capability), cache, int(state.cache_config)
        ),
        func_max_threads_per_block=np.where(bound > 0, bound, INT_MAX),
        func_reqntid=required,
    )
    arrays = max_active_blocks(device, query)
    warps = -(-block // device.warp_size)
    occ = arrays.active_blocks * warps / device.max_warps_per_multiprocessor
    inverse = table.combo_inverse
    threads_out, occupancy = block[inverse], np.where(arrays.status == 0, occ, np.nan)[inverse]
    if rows < n:  # the AMD rows: no NVIDIA figure (amd_occupancy_column answers them)
        threads_out = np.concatenate([threads_out, np.zeros(n - rows, np.int64)])
        occupancy = np.concatenate([occupancy, np.full(n - rows, np.nan)])
    return RowLaunch(threads_out, occupancy)


def amd_occupancy_column(
    table: KernelTable, profile_for: Callable[[str], AmdProfile | None], threads: int, dynamic_lds: int
) -> AmdFigures | None:
    """Every AMD row's threads and HIP runtime occupancy once chosen (``amd_rows.amd_occupancy``), on the profile
    ``profile_for(processor)`` that choosing it selects; ``None`` where the table has no AMD row."""
    own = table.amd
    if own is None:
        return None
    amd = table.records.amd
    return amd_occupancy(own, amd.__getitem__, profile_for, threads, dynamic_lds)


def with_amd(launch: RowLaunch, table: KernelTable, figures: AmdFigures | None) -> RowLaunch:
    """``launch`` (every row's NVIDIA figures) with the AMD rows' ``figures`` in their place."""
    if figures is None:
        return launch
    rows = table.nvidia_rows
    return RowLaunch(
        np.concatenate([launch.threads[:rows], figures.threads]),
        np.concatenate([launch.occupancy[:rows], figures.occupancy]),
        figures.devices,
        figures.missing,
    )
