"""What every importer produces: one :class:`KernelRecord` per function and architecture.

The figures are those ``cudaFuncGetAttributes`` and ``ptxas -v`` speak of: registers per thread,
static shared memory per block (the user's ``__shared__`` variables, without the per-block
reservation that sm_80+ devices add on their own, which the engine takes from the device's
``reserved_shared_mem_per_block``), local memory per thread, and so on.
"""

from __future__ import annotations

import functools
import operator
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from itertools import repeat
from typing import Any

from .names.demangle import demangle

STACK_UNKNOWN = "unknown — recursion or indirect calls"
"""What a stack that cannot be bounded is called wherever it is shown (``stack_bytes`` is ``None``)."""

RESERVED_SMEM_BASE = 1024
"""Bytes that sm_90+ toolchains place at the start of a kernel's ``.nv.shared`` section for the
driver's reserved shared memory.  ``cuobjdump`` counts them, ``nvlink -v`` only for sm_90/sm_90a,
``ptxas -v`` never."""


@dataclass(frozen=True)
class KernelRecord:
    """Resource usage of one compiled function for one architecture.

    ``None`` means "not in this source": a binary does not record spills, a log does not record
    ``__launch_bounds__``.  ``const_banks`` maps constant bank number to bytes (bank 0 holds the
    kernel parameters and the driver's launch data).
    """

    __slots__ = ("__dict__", "_lazy")  # _lazy: (build, *args) of a record not yet built

    name: str
    arch: str
    registers: int
    demangled: str = ""
    is_kernel: bool = True
    static_smem: int = 0
    stack_bytes: int | None = 0
    """Stack per thread as cuobjdump prints it (``STACK``): ``EIATTR_MIN_STACK_SIZE`` of a linked image,
    the frame of a relocatable one, ``ptxas -v``'s stack frame (cumulative stack size, ``lmem`` of old
    toolkits) in a log.  ``None`` where it cannot be bounded (recursion or indirect calls: cuobjdump's
    ``STACK:UNKNOWN``, ptxas's "Stack size ... cannot be statically determined"); see :data:`STACK_UNKNOWN`."""
    spill_stores: int | None = None
    spill_loads: int | None = None
    barriers: int | None = None
    const_bytes: int | None = None
    const_banks: dict[int, int] = field(default_factory=dict, hash=False)
    max_threads: int | None = None
    min_blocks: int | None = None
    req_threads: tuple[int, int, int] | None = None
    cluster_dims: tuple[int, int, int] | None = None
    max_registers: int | None = None
    reserved_smem: int = 0
    relocatable: bool = False
    """From a relocatable image (``-rdc`` before nvlink): the translation unit's own figures; the
    device link may add registers, stack and shared memory of functions in other units."""
    embedded: bool = False
    """From a fatbin outside the sections the CUDA runtime registers (a library loads it itself)."""
    copies: int = 1
    """Identical copies of this record that the input holds (images of one library repeat kernels)."""
    source: str = ""
    # Launch and measurement figures: Nsight Compute reports carry them; Triton caches the launch
    # (block_size = num_warps x warp size, dynamic_smem = its "shared").
    block_size: int | None = None
    grid_size: int | None = None
    dynamic_smem: int | None = None
    theoretical_occupancy: float | None = None
    achieved_occupancy: float | None = None
    waves_per_sm: float | None = None
    device_name: str | None = None
    launch_source: str | None = None
    """Where ``block_size``/``dynamic_smem`` were read (a Triton ``NAME.json``, an Nsight Compute row);
    records built before this field existed (bulk ``fast_record`` dicts) read it as ``None``."""

    def __post_init__(self) -> None:
        if not self.demangled:
            # Demangled on first use (see __getattr__): a big log holds 10^5 names nobody reads.
            del self.__dict__["demangled"]

    def __getattr__(self, attr: str) -> Any:
        # Only called for attributes missing from the instance: a lazy record's fields, `demangled`.
        if attr == "_lazy":
            raise AttributeError(attr)
        state = self.__dict__
        lazy = _get_lazy(self)
        if lazy is not None:
            state = _build(self, lazy)
            if attr in state:
                return state[attr]
        if attr == "demangled" and "name" in state:
            value = state["demangled"] = demangle(state["name"])
            return value
        if attr in LATE_DEFAULTS:
            return LATE_DEFAULTS[attr]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle/copy: the built fields (a frozen dataclass refuses the default slot restore).
        return (fast_record, ({name: getattr(self, name) for name in FIELDS},))

    @property
    def local_bytes(self) -> int:
        """Deprecated: :attr:`stack_bytes` under its old name, kept for one release, 0 where the stack is
        unknown (read ``stack_bytes``, which says ``None`` then)."""
        stack: int | None = self.stack_bytes
        return stack or 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.arch)

    @property
    def arch_number(self) -> int | None:
        return arch_number(self.arch)

    @property
    def kind(self) -> str:
        """``"kernel"`` for an entry function (``__global__``), ``"device_function"`` otherwise."""
        return "kernel" if self.is_kernel else "device_function"


# The class attributes the dataclass leaves for defaults would hide __getattr__ (the generated
# __init__ keeps its own copies of the defaults): every field lives in the instance.
for _f in fields(KernelRecord):
    if hasattr(KernelRecord, _f.name):
        delattr(KernelRecord, _f.name)

_LAUNCH_KEYS = ("block_size", "grid_size", "dynamic_smem", "theoretical_occupancy",
                "achieved_occupancy", "waves_per_sm", "device_name")
FIELDS = tuple(f.name for f in fields(KernelRecord) if f.name != "demangled")
LATE_DEFAULTS: dict[str, Any] = {"launch_source": None}
"""Fields the bulk importers' ``fast_record`` dicts may leave out: read as their default."""
_new = object.__new__


def fast_record(values: dict[str, Any]) -> KernelRecord:
    """A KernelRecord from a dict holding every field but ``demangled`` (which stays lazy).

    Bulk importers build 10^5 records; this skips the frozen dataclass's per-field ``__setattr__``.
    ``values`` becomes the record's own ``__dict__`` (no copy): the caller hands it over.
    """
    rec = _new(KernelRecord)
    _set_dict(rec, "__dict__", values)
    return rec


_set_lazy = KernelRecord._lazy.__set__  # type: ignore[attr-defined]  # the slot's descriptor, not the field
_lazy_slot = KernelRecord._lazy.__get__  # type: ignore[attr-defined]  # as above
_set_dict = object.__setattr__  # past the frozen dataclass's __setattr__


def new_lazy_records(builds: Iterable[tuple[Any, ...]]) -> list[KernelRecord]:
    """Records whose fields are ``build(*args)`` (a dict of every field), called on first read.

    For a cache's 10^5 rows: the loops run in C (``map``), ~0.2 us a record.
    """
    pending = list(builds)
    recs = list(map(_new, repeat(KernelRecord, len(pending))))
    deque(map(_set_lazy, recs, pending), maxlen=0)
    return recs


def build_records(records: list[KernelRecord], states: list[dict[str, Any]]) -> None:
    """Make lazy records whole at once, ``states[i]`` becoming ``records[i]``'s ``__dict__`` (none may
    hold a field yet): the loops run in C."""
    deque(map(_set_dict, records, repeat("__dict__"), states), maxlen=0)
    deque(map(_set_lazy, records, repeat(None)), maxlen=0)


def _build(rec: KernelRecord, lazy: tuple[Any, ...]) -> dict[str, Any]:
    """Make a lazy record whole; its new ``__dict__`` is the dict its build returned."""
    built: dict[str, Any] = lazy[0](*lazy[1:])  # may raise (a damaged binary): the record stays lazy
    if rec.__dict__:
        built.update(rec.__dict__)  # fields set before the build
    _set_dict(rec, "__dict__", built)
    _set_lazy(rec, None)
    return built


def realize(records: list[KernelRecord]) -> None:
    """Build every lazy record now, so that a build that fails does so inside the import."""
    for rec in records:
        lazy = _get_lazy(rec) if "registers" not in rec.__dict__ else None
        if lazy is not None:
            _build(rec, lazy)


def built_states(records: list[KernelRecord]) -> list[dict[str, Any]]:
    """Every record built (:func:`realize`) and its fields, its ``__dict__``: what the column-wise
    readers (the JSON rows, the cache's rows, the kernel table, the merge) take fields from in C."""
    realize(records)
    return list(map(_get_state, records))


def _get_lazy(rec: KernelRecord) -> tuple[Any, ...] | None:
    try:
        lazy: tuple[Any, ...] | None = _lazy_slot(rec)
        return lazy
    except AttributeError:  # never set: an eager record
        return None


def arch_number(arch: str) -> int | None:
    """``"sm_90a"`` -> 90; ``None`` for anything else."""
    if not arch.startswith(("sm_", "compute_")):
        return None
    digits = ""
    for ch in arch.split("_", 1)[1]:
        if ch not in "0123456789":  # str.isdigit() also accepts "³", which int() refuses
            break
        digits += ch
    return int(digits) if digits else None


def split_reserved_smem(arch: str, section_bytes: int) -> tuple[int, int]:
    """(static, reserved) from a ``.nv.shared`` size as ``cuobjdump``/``nvlink`` print it.

    For sm_90+ a non-empty section starts with the driver's 1 KiB reservation; text formats carry no
    other evidence of it, so this is decided by architecture.
    """
    number = arch_number(arch)
    if number is not None and number >= 90 and section_bytes >= RESERVED_SMEM_BASE:
        return section_bytes - RESERVED_SMEM_BASE, RESERVED_SMEM_BASE
    return section_bytes, 0


def split_nvlink_smem(arch: str, smem: int) -> tuple[int, int]:
    """(static, reserved) of a linked kernel from the "bytes smem" of ``nvlink -v``.

    Measured with CUDA 13.0's and 13.5's nvlink on ``-rdc`` objects of ptxas 12.0 to 13.5 (the toolkit
    matrix): for sm_90/sm_90a the figure is the section's size, the 1 KiB window included, as cuobjdump
    prints it; for sm_100 and later it is the kernel's own bytes, the window left out, although the
    linked section starts with it all the same wherever it is not empty.
    """
    number = arch_number(arch)
    if number is not None and number >= 100 and smem > 0:
        return smem, RESERVED_SMEM_BASE
    return split_reserved_smem(arch, smem)


IMPOSSIBLE_ABOVE = {
    "registers": 255,  # the ISA's register numbers: R0-R254 (and RZ) on every architecture
    "max_registers": 255,
    "static_smem": 256 << 10,  # more than the 228 KiB of the largest SM's shared memory
    "reserved_smem": 256 << 10,
    "stack_bytes": 512 << 10,  # the largest local memory per thread any GPU has (512 KiB)
    "barriers": 16,  # named barriers 0-15
    "max_threads": 1024,  # threads per block on every compute capability 2.0+
    "const_bytes": 64 << 10,  # a constant bank
    "spill_stores": 512 << 10,
    "spill_loads": 512 << 10,
}
"""The largest value each figure can have on any GPU: a record beyond one is damaged or crafted."""


def impossible_figure(rec: KernelRecord) -> str | None:
    """Why no GPU can run ``rec`` as read (the first figure beyond :data:`IMPOSSIBLE_ABOVE`, or
    negative), else ``None``.  Such a record is listed, flagged, and never loaded into the inputs."""
    state = rec.__dict__ if "registers" in rec.__dict__ else _build_state(rec)
    for name, limit in _IMPOSSIBLE_LIMITS:
        value = state[name]
        if value is not None and not 0 <= value <= limit:
            shown = str(value) if len(str(value)) <= 24 else f"a {len(str(value))}-digit number"
            return f"impossible {name.replace('_', ' ')} {shown} (no GPU has more than {limit})"
    return None


_IMPOSSIBLE_LIMITS = tuple(IMPOSSIBLE_ABOVE.items())


def impossible_figures(records: list[KernelRecord]) -> list[str | None]:
    """:func:`impossible_figure` of every record (lazy ones built): each figure's column is checked
    with one ``min`` and one ``max`` in C, and only a column that breaks its limit is looked at per
    record (libcusparse's 40,667 records: 2 ms, not 60 ms)."""
    return _impossible_in(records, built_states(records))


def demangled_names(states: list[dict[str, Any]]) -> list[str]:
    """The demangled name of each built record whose ``__dict__`` is in ``states``: known where a cache's
    row or an earlier read left it, else demangled here and kept in the record, as reading the
    ``demangled`` attribute does (a JSON listing, a cache entry and the window's table all want it)."""
    names = list(map(operator.methodcaller("get", "demangled"), states))
    for i in [i for i, text in enumerate(names) if text is None]:
        names[i] = states[i]["demangled"] = demangle(states[i]["name"])
    return names


def _impossible_in(records: list[KernelRecord], states: list[dict[str, Any]]) -> list[str | None]:
    """:func:`impossible_figures` of built records whose ``__dict__`` are ``states``."""
    flagged: set[int] = set()
    for name, limit in _IMPOSSIBLE_LIMITS:
        column = list(map(operator.itemgetter(name), states))
        present = list(filter(_not_none, column))
        if present and (min(present) < 0 or max(present) > limit):
            flagged.update(i for i, value in enumerate(column) if value is not None and not 0 <= value <= limit)
    reasons: list[str | None] = [None] * len(records)
    for i in flagged:
        reasons[i] = impossible_figure(records[i])
    return reasons


_get_state = operator.attrgetter("__dict__")
_not_none = functools.partial(operator.is_not, None)
def _build_state(rec: KernelRecord) -> dict[str, Any]:
    """The fields of a record, a lazy one built first."""
    rec.registers  # noqa: B018 - the read builds it
    return rec.__dict__


_NOT_FIGURES = frozenset(("source", "copies", "demangled", "const_banks", "launch_source"))
_FIGURES = tuple(name for name in FIELDS if name not in _NOT_FIGURES)


_get_figures = operator.itemgetter(*_FIGURES)


def figures(rec: KernelRecord) -> tuple[Any, ...]:
    """Everything a record says of its function but where it was read: two copies of a kernel
    with equal figures are the same kernel to the occupancy model.  (Built records only.)"""
    state = rec.__dict__
    return _get_figures(state), frozenset(state["const_banks"].items())


def merge_records(records: list[KernelRecord]) -> list[KernelRecord]:
    """One record per distinct copy, in first-seen order: identical copies of a function (same
    name, arch and figures) become one record whose ``copies`` counts them and whose ``source``
    is the first; copies that differ in any figure are all kept, each with its own source.

    A relocatable copy (``-rdc``, before nvlink) is dropped when the input also holds a linked
    copy of the same function for the same arch: the linked image is what the GPU runs.  Embedded
    fatbins (which their library links and loads itself) and registered ones are apart here.

    The identities are made column-wise in C (``map``); only the dictionary step is Python
    (libcusparse's 66,478 records: 0.12 -> 0.04 s).
    """
    states = built_states(records)
    idents = zip(map(_get_figures, states), map(frozenset, map(dict.items, map(_get_banks, states))))
    kept: Iterable[tuple[KernelRecord, Any]] = zip(records, idents)
    if any(map(_get_relocatable, states)):
        linked = {key for key, relocatable in zip(map(_get_key, states), map(_get_relocatable, states))
                  if not relocatable}
        kept = [(rec, ident) for (rec, ident), state in zip(kept, states)
                if not (state["relocatable"] and _get_key(state) in linked)]
    out: dict[Any, KernelRecord] = {}
    first_of = out.setdefault
    for rec, ident in kept:
        first = first_of(ident, rec)
        if first is not rec:
            _set_dict(first, "copies", first.copies + rec.copies)
    merged = list(out.values())
    while out:  # the identities freed a few at a time: all at once, libtorch_cuda's 143,409 held the GIL ~50 ms
        out.popitem()
    return merged


_get_banks = operator.itemgetter("const_banks")
_get_relocatable = operator.itemgetter("relocatable")
_get_key = operator.itemgetter("name", "arch", "embedded")  # a record's (key, embedded)


def records_from(states: list[dict[str, Any]]) -> list[KernelRecord]:
    """Records whose ``__dict__`` are ``states`` (each holding every field but ``demangled``), made in
    C: :func:`fast_record` for a batch (a worker process's rows)."""
    recs = list(map(_new, repeat(KernelRecord, len(states))))
    deque(map(_set_dict, recs, repeat("__dict__"), states), maxlen=0)
    return recs
