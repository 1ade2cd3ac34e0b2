"""What every importer produces: one :class:`KernelRecord` per function and architecture (many of them held by
:class:`~.record_list.Records`).

The figures are those ``cudaFuncGetAttributes`` and ``ptxas -v`` speak of: registers per thread,
static shared memory per block (the user's ``__shared__`` variables, without the per-block
reservation that sm_80+ devices add on their own, which the engine takes from the device's
``reserved_shared_mem_per_block``), local memory per thread, and so on.
"""

from __future__ import annotations

import operator
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from .names.demangle import demangle

VENDOR = "nvidia"
"""The vendor tag of every :class:`KernelRecord` (AMD's records say ``"amd"``)."""

STACK_UNKNOWN = "unknown — recursion or indirect calls"
"""What a stack that cannot be bounded is called wherever it is shown (``stack_bytes`` is ``None``)."""

RESERVED_SMEM_BASE = 1024
"""Bytes that sm_90+ toolchains place at the start of a kernel's ``.nv.shared`` section for the
driver's reserved shared memory.  ``cuobjdump`` counts them, ``nvlink -v`` only for sm_90/sm_90a,
``ptxas -v`` never."""


@dataclass(frozen=True, slots=True)
class KernelRecord:
    """Resource usage of one compiled function for one architecture: a plain frozen value.

    ``None`` means "not in this source": a binary does not record spills, a log does not record
    ``__launch_bounds__``.  ``const_banks`` maps constant bank number to bytes (bank 0 holds the
    kernel parameters and the driver's launch data).  ``demangled``: the name as ``c++filt`` prints it;
    left empty, it is worked out from ``name`` when the record is made.

    An import's 10^5 records are not made one by one: a reader gives each one's fields as a dict (its
    *state*, :func:`new_state`), and :class:`~.record_list.Records` holds the states, makes a record where
    one is read, and lets bulk readers (the JSON rows, the record cache, the window's table) take the
    states' columns as they are.
    """

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
    """Where ``block_size``/``dynamic_smem`` were read (a Triton ``NAME.json``, an Nsight Compute row)."""

    def __post_init__(self) -> None:
        if not self.demangled and self.name:
            object.__setattr__(self, "demangled", demangle(self.name))  # the frozen dataclass's own idiom

    @property
    def local_bytes(self) -> int:
        """Deprecated: :attr:`stack_bytes` under its old name, kept for one release, 0 where the stack is
        unknown (read ``stack_bytes``, which says ``None`` then)."""
        return self.stack_bytes or 0

    @property
    def vendor(self) -> str:
        """``"nvidia"``: the tag the kernel table reads from every row, this record's and AMD's alike."""
        return VENDOR

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


FIELDS = tuple(f.name for f in fields(KernelRecord) if f.name != "demangled")
"""The fields a reader gives (a state's keys); ``demangled`` is worked out from ``name`` where none is given."""
LAUNCH_KEYS = (
    "block_size",
    "grid_size",
    "dynamic_smem",
    "theoretical_occupancy",
    "achieved_occupancy",
    "waves_per_sm",
    "device_name",
)
"""The launch and measurement figures, ``None`` in every record but a Triton cache's or a profiler's."""
LATE_DEFAULTS: dict[str, Any] = {"launch_source": None}
"""Fields a state may leave out (the bulk readers' dicts were made before it existed): read as their default."""
_DEFAULTS = {f.name: f.default for f in fields(KernelRecord) if f.default is not MISSING and f.name != "demangled"}


def new_state(**values: Any) -> dict[str, Any]:
    """A record's state: ``values`` over every field's default (``name``, ``arch`` and ``registers`` have none;
    ``demangled`` is left out, to be worked out when needed)."""
    state = dict(_DEFAULTS)
    state["const_banks"] = {}
    state.update(values)
    return state


def record_state(rec: KernelRecord) -> dict[str, Any]:
    """A made record's fields as a state (a new dict), its demangled name among them."""
    return dict(zip(_STATE_KEYS, _get_all(rec)))


_STATE_KEYS = (*FIELDS, "demangled")
_get_all = operator.attrgetter(*_STATE_KEYS)


def make_record(state: dict[str, Any]) -> KernelRecord:
    """The record whose fields are ``state``; its demangled name, where the state has none, is worked out and
    kept in the state (a listing, the record cache and the window's table all want it)."""
    if "demangled" not in state:
        state["demangled"] = demangle(state["name"])
    return KernelRecord(**(state if "launch_source" in state else {**LATE_DEFAULTS, **state}))


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
    return impossible_in_state({name: getattr(rec, name) for name in IMPOSSIBLE_ABOVE})


def impossible_in_state(state: dict[str, Any]) -> str | None:
    """:func:`impossible_figure` of a record's state."""
    for name, limit in IMPOSSIBLE_LIMITS:
        value = state[name]
        if value is not None and not 0 <= value <= limit:
            shown = str(value) if len(str(value)) <= 24 else f"a {len(str(value))}-digit number"
            return f"impossible {name.replace('_', ' ')} {shown} (no GPU has more than {limit})"
    return None


IMPOSSIBLE_LIMITS = tuple(IMPOSSIBLE_ABOVE.items())
