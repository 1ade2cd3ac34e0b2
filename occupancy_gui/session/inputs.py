"""The calculator's inputs: one frozen record of both vendors' choices, their ranges and defaults, and the checks
that refuse what no launch could be.

Pure Python (no Qt).  :class:`~occupancy_gui.session.Session` holds one :class:`Inputs` and validates each change
with :func:`input_problem` (NVIDIA) or the AMD question's rows (:func:`amd_value`); the session file, the report
and the command line read and write the same record.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .. import fields
from ..engine import INT_MAX, CacheConfig, FunctionAttributes
from ..fields import AMD

MAX_BLOCK_BARRIERS = fields.FIELD["barriers"].high
"""PTX named barriers are numbered 0..15 (``bar.sync 0..15``): a block can use at most 16."""


@dataclass(frozen=True)
class Inputs:
    """Everything the user chooses: device, kernel resources, launch and device state.

    Sizes are bytes.  ``max_dynamic_smem`` of ``None`` is the runtime's default attribute value;
    ``carveout`` is -1 (no preference) or a percentage of shared memory; ``cache_config`` only
    matters on compute capability 3.x.  ``threads`` above ``max_threads_per_block`` is refused by
    :meth:`Session.replace`, as the runtime refuses such a launch.
    """

    device: str
    threads: int = fields.default("threads")
    registers: int = fields.default("registers")
    static_smem: int = fields.default("static_smem")
    dynamic_smem: int = fields.default("dynamic_smem")
    max_dynamic_smem: int | None = None
    barriers: int = fields.default("barriers")
    carveout: int = fields.default("carveout")
    cache_config: CacheConfig = CacheConfig(fields.default("cache_config"))
    max_threads_per_block: int | None = None
    """The kernel's launch bound (``__launch_bounds__``, ``.maxntid``); ``None``: none."""
    required_block_size: int | None = None
    """The kernel's required block size (PTX ``.reqntid``, x·y·z threads); ``None``: none.  Any other
    ``threads`` is refused by :meth:`Session.replace`, as the runtime refuses such a launch."""
    min_blocks_per_sm: int | None = None
    """``__launch_bounds__``'s minimum blocks per SM (a compiler hint, not a launch rule); ``None``: none."""
    # AMD's inputs: they apply while an AMD device is selected and are kept as typed while an NVIDIA one is (and
    # NVIDIA's while an AMD one is); threads and dynamic shared memory (dynamic LDS) are both vendors'.
    vgprs: int = fields.default("vgprs")
    agprs: int = fields.default("agprs")
    sgprs: int = fields.default("sgprs")
    lds: int = fields.default("lds")
    """Static LDS per workgroup (bytes)."""
    wave_size: int | None = None
    """32 or 64; ``None``: the target's default."""
    wgp_mode: bool | None = None
    """Compiled in WGP mode (``True``) or CU mode (``False``); ``None``: the device's default."""
    max_flat_workgroup_size: int | None = None
    """The kernel's launch bound (``.max_flat_workgroup_size``); ``None``: the default, 1024."""
    waves_per_eu: tuple[int, int | None] | None = None
    """``amdgpu_waves_per_eu(min[, max])``; ``None``: not set."""
    allocated_vgprs: int = fields.default("allocated_vgprs")
    """VGPRs the kernel descriptor allocates where more than ``vgprs``; 0: as ``vgprs``."""


INPUT_FIELDS: tuple[str, ...] = ("device", *fields.SESSION_NAMES)
"""``device`` and every input of the field table, both vendors' (a test holds :class:`Inputs` to it, field for
field)."""
OPTIONAL_FIELDS = fields.SESSION_OPTIONAL
"""Inputs where ``None`` means "the runtime's default" / "no bound"."""
AMD_ONLY_FIELDS = frozenset(f.name for f in fields.only_for(AMD))
"""Inputs only AMD devices take: read by their row of the table (range, choices, mode, minimum-maximum)."""


def function_attributes(i: Inputs) -> FunctionAttributes:
    """The engine's ``cudaOccFuncAttributes`` for these inputs (no launch bound: the header's INT_MAX)."""
    return FunctionAttributes(
        num_regs=i.registers,
        shared_size_bytes=i.static_smem,
        max_dynamic_shared_size_bytes=i.max_dynamic_smem,
        num_block_barriers=i.barriers,
        max_threads_per_block=i.max_threads_per_block or INT_MAX,
        reqntid=i.required_block_size or 0,
    )


class InputRefused(ValueError):
    """A combination of inputs the session refuses; the message says why in one line."""


def meet_kernel_limits(inputs: Inputs) -> Inputs:
    """``inputs`` with threads per block moved to what the NVIDIA kernel's own limits allow: its required size, else
    at most its launch bound.  Used when an NVIDIA device is chosen after an AMD one: threads per block is both
    vendors' input and may have been typed past the NVIDIA kernel's limits meanwhile."""
    if inputs.required_block_size is not None and inputs.threads != inputs.required_block_size:
        return dataclasses.replace(inputs, threads=inputs.required_block_size)
    bound = inputs.max_threads_per_block
    if bound is not None and inputs.threads > bound:
        return dataclasses.replace(inputs, threads=bound)
    return inputs


def input_problem(inputs: Inputs) -> str | None:
    """Why these inputs cannot be a launch the user asks about, or ``None``.

    Only what no device can ever run is refused here; what one device cannot fit is the engine's
    answer (0 blocks, with the reasons).
    """
    bound = inputs.max_threads_per_block
    if bound is not None and bound < 1:
        return f"the kernel's launch bound must be at least 1 thread (got {bound})"
    required = inputs.required_block_size
    if required is not None and required < 1:
        return f"the kernel's required block size must be at least 1 thread (got {required})"
    if required is not None and bound is not None and required > bound:
        return (
            f"the kernel's required block size of {required} threads is above its launch bound of {bound}: "
            "no block could launch"
        )
    if required is not None and inputs.threads != required:
        return (
            f"{inputs.threads} threads per block is not the kernel's required block size of {required} "
            "(.reqntid): the launch would fail"
        )
    if bound is not None and inputs.threads > bound:
        return (
            f"{inputs.threads} threads per block is above the kernel's launch bound of {bound} "
            "(__launch_bounds__ / maxThreadsPerBlock): the launch would fail"
        )
    if inputs.min_blocks_per_sm is not None and inputs.min_blocks_per_sm < 1:
        return f"the kernel's minimum blocks per SM must be at least 1 (got {inputs.min_blocks_per_sm})"
    if not 0 <= inputs.barriers <= MAX_BLOCK_BARRIERS:
        return f"block barriers must be 0..{MAX_BLOCK_BARRIERS} (PTX named barriers 0-15), got {inputs.barriers}"
    return None


KIB = 1024
INPUT_RANGES: dict[str, tuple[int, int]] = fields.SESSION_RANGES
"""The values each integer input can take in the window (its fields' ranges), on the command line and
in a session file: wider than any device allows, so that an oversized block is explained by the
engine rather than refused; a session file outside them is refused, never clamped or defaulted."""

DEFAULT_DEVICE = "sm_100"
"""The device a fresh start shows, where the catalog has it (else its first profile)."""
DEFAULT_INPUTS: dict[str, Any] = {"threads": 256, "registers": 64, "static_smem": 24 * KIB}
"""The Programming Guide's worked example: 4 blocks of 256 threads, 50 %, limited by registers."""


def amd_value(name: str, value: Any) -> Any:
    """An AMD input's value as its row of the table reads it; :class:`InputRefused` (one line) where it refuses."""
    from ..field_values import AmdFieldError, read_value  # noqa: PLC0415 - lazy: an NVIDIA session never reads AMD

    try:
        return read_value(fields.FIELD[name], value)
    except AmdFieldError as exc:
        raise InputRefused(str(exc)) from None
