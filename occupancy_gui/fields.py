"""The calculator's question, described once: every input's name, kind, range, default, words and flag.

The session's :class:`~occupancy_gui.session.Inputs`, the window's input fields (their ranges, steps, labels and
tooltips), the command line's flags, ``occupancy batch``'s query keys, the session-file schema and the report's
input rows all read :data:`FIELDS`; a test holds ``Inputs`` to it field for field.  Adding an input is a row here
plus its rule in the engine.  Each row names the vendors whose devices take it (``threads`` and ``dynamic_smem``
both; ``registers`` NVIDIA's, ``vgprs`` AMD's): :func:`for_vendor` selects them.  Pure data (no Qt, no I/O): the
layer of ``units``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import CARVEOUT_DEFAULT

KIB = 1024
_MIB = KIB * KIB

COUNT, BYTES, CARVEOUT, CACHE = "count", "bytes", "carveout", "cache"
MODE, MIN_MAX = "mode", "min_max"
"""Kinds: a whole number; a byte size (typed as bytes or KiB); a carveout (``default`` or a percentage); a cache
preference (``none``, ``shared``, ``l1``, ``equal``); a mode that is on, off or the device's default (``True``,
``False``, ``None``: ``flag`` turns it on, ``off_flag`` off); a minimum or a minimum and maximum (``N`` or
``N,M``; in JSON ``N`` or ``[N, M]``), each within the range."""
NVIDIA, AMD = "nvidia", "amd"
VENDORS = (NVIDIA, AMD)
VENDOR_NAMES = {NVIDIA: "NVIDIA", AMD: "AMD"}

CACHE_NAMES = ("none", "shared", "l1", "equal")
"""The cache preferences by name, in the order of the header's enum (``cudaOccCacheConfig``)."""


@dataclass(frozen=True)
class InputField:
    """One input of the question."""

    name: str
    """The ``Inputs`` attribute, and the key in a batch query and in a session file."""
    kind: str
    label: str
    """What a reader calls it (report rows, error messages): "Threads per block"."""
    form_label: str
    """The window's field label, with its mnemonic: "&Threads / block:"."""
    low: int
    high: int
    """The values it can take, in the window, on the command line and in a session file: wider than any device
    allows, so an oversized block is explained by the engine rather than refused."""
    default: int | None
    help: str
    """The command line's help, one line."""
    tip: str
    """The window's tooltip."""
    flag: str | None = None
    """The command line's option (``--threads``); ``None``: none."""
    optional: bool = False
    """``None`` is a value: ``none_text`` ("none": no such limit; "runtime default")."""
    none_text: str = ""
    step: int = 1
    """The window's arrow step."""
    kernel: bool = False
    """A kernel's own attribute (set by choosing an imported kernel), not a choice about the launch."""
    query: bool = True
    """A key of ``occupancy batch``'s queries (the engine's question); a hint such as the minimum blocks per SM is
    not."""
    vendors: frozenset[str] = frozenset({NVIDIA})
    """The vendors whose devices take this input."""
    required: bool = False
    """The command line and a batch query must give it for a device of its vendor (the window starts from the
    default; ``occupancy suggest`` needs no ``--threads``)."""
    choices: tuple[int, ...] = ()
    """The only values it takes, where not every value of the range is one (a wave size: 32 or 64)."""
    off_flag: str | None = None
    """A mode's flag that turns it off (``--cu-mode``; ``flag`` turns it on)."""

    @property
    def range_text(self) -> str:
        return f"{self.low}..{self.high}"


_BOTH = frozenset({NVIDIA, AMD})
_AMD = frozenset({AMD})

FIELDS: tuple[InputField, ...] = (
    InputField(
        "threads",
        COUNT,
        "Threads per block",
        "&Threads / block:",
        1,
        16384,
        256,
        "threads per block",
        "Threads per block (blockDim.x × y × z). Arrows and the slider step by one warp;\n"
        "type any value and press Enter.",
        flag="--threads",
        step=32,
        vendors=_BOTH,
        required=True,
    ),
    InputField(
        "registers",
        COUNT,
        "Registers per thread",
        "&Registers / thread:",
        0,
        1024,
        32,
        "registers per thread",
        "Registers per thread, as reported by ptxas -v or nvcc --resource-usage\n(cudaFuncAttributes.numRegs).",
        flag="--registers",
        kernel=True,
        required=True,
    ),
    InputField(
        "static_smem",
        BYTES,
        "Static shared memory",
        "&Static shared mem:",
        0,
        4 * _MIB,
        0,
        "static shared memory per block (bytes or KiB)",
        "Static shared memory per block (__shared__ variables; cudaFuncAttributes.sharedSizeBytes).\n"
        "Type bytes (24576) or KiB (24 KiB); K and KB also mean 1024 bytes.",
        flag="--static-smem",
        step=KIB,
        kernel=True,
    ),
    InputField(
        "dynamic_smem",
        BYTES,
        "Dynamic shared memory",
        "D&ynamic shared mem:",
        0,
        4 * _MIB,
        0,
        "dynamic shared memory per block (bytes or KiB)",
        "Dynamic shared memory per block: the third <<<grid, block, bytes>>> launch parameter.\n"
        "Type bytes (24576) or KiB (24 KiB).",
        flag="--dynamic-smem",
        step=KIB,
        vendors=_BOTH,
    ),
    InputField(
        "max_dynamic_smem",
        BYTES,
        "Max dynamic shared memory attribute",
        "&Max dynamic attr.:",
        0,
        4 * _MIB,
        None,
        "cudaFuncAttributeMaxDynamicSharedMemorySize (default: 48 KiB minus static, no opt-in)",
        "cudaFuncAttributeMaxDynamicSharedMemorySize: opt in to more than the default per-block\n"
        "shared memory. Unset, the runtime uses shared memory per block − static shared memory.",
        flag="--max-dynamic-smem",
        optional=True,
        none_text="runtime default",
        step=KIB,
    ),
    InputField(
        "barriers",
        COUNT,
        "Block barriers",
        "Block &barriers:",
        0,
        16,
        1,
        "named block barriers per block (1: __syncthreads alone)",
        "Named barriers a block uses (1 for __syncthreads alone; PTX has barriers 0-15, so at most 16).\n"
        "Limits resident blocks from compute capability 9.0.",
        flag="--barriers",
        kernel=True,
    ),
    InputField(
        "carveout",
        CARVEOUT,
        "Shared memory carveout",
        "Carveout:",
        -1,
        100,
        CARVEOUT_DEFAULT,
        "shared memory carveout: default or 0..100 (percent)",
        "cudaFuncAttributePreferredSharedMemoryCarveout: the share of the unified L1/shared memory to\n"
        "configure as shared memory (-1: no preference).",
        flag="--carveout",
    ),
    InputField(
        "cache_config",
        CACHE,
        "Cache preference (CC 3.x)",
        "Cache config:",
        0,
        3,
        0,
        "CC 3.x cache preference: none, shared, l1, equal",
        "cudaFuncSetCacheConfig: the L1/shared memory split preference of compute capability 3.x.",
        flag="--cache-config",
    ),
    InputField(
        "max_threads_per_block",
        COUNT,
        "Launch bound (max threads per block)",
        "Ma&x threads (bound):",
        1,
        16384,
        None,
        "the kernel's launch bound (__launch_bounds__ / cudaFuncAttributes.maxThreadsPerBlock)",
        "The kernel's own limit on threads per block (cudaFuncAttributes.maxThreadsPerBlock):\n"
        "__launch_bounds__(N) or .maxntid. A larger block cannot launch.\n"
        "'none': no bound beyond the device's. Set by choosing an imported kernel.",
        flag="--max-threads-per-block",
        optional=True,
        none_text="none",
        step=32,
        kernel=True,
    ),
    InputField(
        "required_block_size",
        COUNT,
        "Required block size (.reqntid)",
        "Re&quired size:",
        1,
        16384,
        None,
        "the kernel's required block size (PTX .reqntid, x*y*z): any other block cannot launch",
        "The kernel's required block size (PTX .reqntid x, y, z: x·y·z threads). A block of any other\n"
        "size cannot launch, so threads per block must equal it. 'none': no required size.\n"
        "Set by choosing an imported kernel that has one; setting it moves threads per block there.",
        flag="--required-block-size",
        optional=True,
        none_text="none",
        step=32,
        kernel=True,
    ),
    InputField(
        "min_blocks_per_sm",
        COUNT,
        "Min blocks per SM (__launch_bounds__)",
        "Min blocks &per SM:",
        1,
        1024,
        None,
        "__launch_bounds__'s minimum blocks per SM (a compiler hint): say when the launch has fewer",
        "__launch_bounds__(maxThreads, minBlocksPerMultiprocessor): the compiler caps registers so that\n"
        "this many blocks could reside per SM. Not a launch rule: the summary says when the launch\n"
        "leaves fewer blocks resident, which defeats the hint. 'none': no hint.",
        flag="--min-blocks-per-sm",
        optional=True,
        none_text="none",
        kernel=True,
        query=False,
    ),
    # AMD: the code object's figures (AMDGPU metadata, `.amdhsa_*` directives) and its compile attributes.
    InputField(
        "vgprs",
        COUNT,
        "VGPRs per lane",
        "VGP&Rs:",
        0,
        2048,
        32,
        "VGPRs (the code object's .vgpr_count; on gfx90a and later it already holds the AGPRs)",
        "Vector registers per lane: the code object's .vgpr_count (; NumVgprs / TotalNumVgprs).\n"
        "On gfx90a and later it already counts the AGPRs.",
        flag="--vgprs",
        step=8,
        kernel=True,
        vendors=_AMD,
        required=True,
    ),
    InputField(
        "agprs",
        COUNT,
        "AGPRs per lane (gfx908)",
        "&AGPRs:",
        0,
        2048,
        0,
        "AccVGPRs of gfx908's separate file (.agpr_count); later targets count them in --vgprs",
        "AccVGPRs per lane (.agpr_count) where they are a separate file (gfx908, MI100).\n"
        "On gfx90a and later .vgpr_count already holds them.",
        flag="--agprs",
        step=4,
        kernel=True,
        vendors=_AMD,
    ),
    InputField(
        "sgprs",
        COUNT,
        "SGPRs per wave",
        "&SGPRs:",
        0,
        800,
        0,
        "SGPRs (the code object's .sgpr_count; 0: no SGPR limit)",
        "Scalar registers per wave: the code object's .sgpr_count. They limit waves only before gfx10\n"
        "(800 per SIMD); 0 means no SGPR limit.",
        flag="--sgprs",
        step=16,
        kernel=True,
        vendors=_AMD,
    ),
    InputField(
        "lds",
        BYTES,
        "Static LDS",
        "Static &LDS:",
        0,
        4 * _MIB,
        0,
        "static LDS per workgroup (.group_segment_fixed_size; bytes or KiB)",
        "Static LDS per workgroup (__shared__ variables; .group_segment_fixed_size).\n"
        "Type bytes (16384) or KiB (16 KiB).",
        flag="--lds",
        step=KIB,
        kernel=True,
        vendors=_AMD,
    ),
    InputField(
        "wave_size",
        COUNT,
        "Wave size",
        "&Wave size:",
        32,
        64,
        None,
        "32 or 64 (default: the target's, 64 on gfx9 and 32 on gfx10+)",
        "The wave size the kernel is compiled for: 64 on gfx9; 32 (default) or 64 on gfx10 and later.",
        flag="--wave-size",
        optional=True,
        none_text="the target's",
        kernel=True,
        vendors=_AMD,
        choices=(32, 64),
    ),
    InputField(
        "wgp_mode",
        MODE,
        "WGP mode",
        "W&GP mode:",
        0,
        1,
        None,
        "compiled in WGP mode (the default on gfx10+: a workgroup's waves share a WGP's two CUs)",
        "Whether the kernel is compiled in WGP mode (two CUs, four SIMDs per workgroup) or CU mode\n"
        "(+cumode). gfx10 and later only; the default is the device's (WGP mode).",
        flag="--wgp-mode",
        off_flag="--cu-mode",
        optional=True,
        none_text="the device's",
        kernel=True,
        vendors=_AMD,
    ),
    InputField(
        "max_flat_workgroup_size",
        COUNT,
        "Max flat workgroup size",
        "Ma&x flat workgroup:",
        1,
        16384,
        None,
        "the kernel's launch bound (__launch_bounds__ / amdgpu_flat_work_group_size; default 1024)",
        "The kernel's maximum flat workgroup size (.max_flat_workgroup_size): __launch_bounds__(N) or\n"
        "amdgpu_flat_work_group_size(1, N). The compiler sizes its occupancy for it, not for the block\n"
        "launched. 'none': the default, 1024.",
        flag="--max-flat-workgroup-size",
        optional=True,
        none_text="none",
        step=64,
        kernel=True,
        vendors=_AMD,
    ),
    InputField(
        "waves_per_eu",
        MIN_MAX,
        "Waves per EU (amdgpu_waves_per_eu)",
        "Waves &per EU:",
        1,
        64,
        None,
        "amdgpu_waves_per_eu: N (the minimum) or N,M (minimum and maximum waves per SIMD)",
        "amdgpu_waves_per_eu(min[, max]): the waves per SIMD the compiler budgets registers for; a\n"
        "maximum pads the register allocation and lowers occupancy. 'none': not set.",
        flag="--waves-per-eu",
        optional=True,
        none_text="none",
        kernel=True,
        vendors=_AMD,
    ),
    InputField(
        "allocated_vgprs",
        COUNT,
        "Allocated VGPRs (kernel descriptor)",
        "Allo&cated VGPRs:",
        0,
        2048,
        0,
        "VGPRs the kernel descriptor allocates, where more than .vgpr_count (0: as .vgpr_count)",
        "The VGPRs the kernel descriptor allocates (GRANULATED_WORKITEM_VGPR_COUNT): LLVM pads it past\n"
        ".vgpr_count to honour amdgpu_waves_per_eu. 0: as .vgpr_count.",
        flag="--allocated-vgprs",
        step=8,
        kernel=True,
        vendors=_AMD,
    ),
)
"""Every input but the device, in the order a reader meets them."""

FIELD: dict[str, InputField] = {f.name: f for f in FIELDS}


def for_vendor(vendor: str) -> tuple[InputField, ...]:
    """The inputs that apply to ``vendor``'s devices, in the table's order."""
    return tuple(f for f in FIELDS if vendor in f.vendors)


def query_keys(vendor: str) -> tuple[str, ...]:
    """The input keys of a batch query for ``vendor``'s devices (besides ``device``)."""
    return tuple(f.name for f in for_vendor(vendor) if f.query)


def only_for(vendor: str) -> tuple[InputField, ...]:
    """The inputs that apply to ``vendor``'s devices and to no other vendor's."""
    return tuple(f for f in FIELDS if f.vendors == {vendor})


# The NVIDIA calculator's inputs (its command line, batch keys and report rows read these names).
_NVIDIA_FIELDS = for_vendor(NVIDIA)
NAMES: tuple[str, ...] = tuple(f.name for f in _NVIDIA_FIELDS)
"""The NVIDIA inputs: ``session.Inputs``' fields."""
RANGES: dict[str, tuple[int, int]] = {f.name: (f.low, f.high) for f in _NVIDIA_FIELDS}
OPTIONAL: tuple[str, ...] = tuple(f.name for f in _NVIDIA_FIELDS if f.optional)
KERNEL_FIELDS: frozenset[str] = frozenset(f.name for f in _NVIDIA_FIELDS if f.kernel)
KERNEL_LIMITS: tuple[str, ...] = tuple(f.name for f in _NVIDIA_FIELDS if f.kernel and f.optional)
"""A kernel's own launch limits (launch bound, required size, minimum blocks): "none" unless a kernel says."""
BYTE_FIELDS: frozenset[str] = frozenset(f.name for f in _NVIDIA_FIELDS if f.kind == BYTES)
QUERY_KEYS: tuple[str, ...] = query_keys(NVIDIA)
"""The input keys of an NVIDIA batch query (besides ``device``)."""

# The session holds every vendor's inputs at once: the selected device's vendor decides which apply, and the
# other vendor's stay as typed, for when that vendor is chosen again.
SESSION_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
"""Every input of either vendor: ``session.Inputs``' fields (besides ``device``)."""
INTEGER_KINDS = frozenset({COUNT, BYTES, CARVEOUT, CACHE})
SESSION_RANGES: dict[str, tuple[int, int]] = {f.name: (f.low, f.high) for f in FIELDS if f.kind in INTEGER_KINDS}
"""The range of every integer input of either vendor (a mode and a minimum-maximum are read by their kind)."""
SESSION_OPTIONAL: tuple[str, ...] = tuple(f.name for f in FIELDS if f.optional)


def default(name: str) -> int:
    """The default of a field that always has a value."""
    value = FIELD[name].default
    assert value is not None, name  # an optional field's default is None: ask FIELD for it
    return value
