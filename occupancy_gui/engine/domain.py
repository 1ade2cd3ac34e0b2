"""The inputs the engine answers for: what the header itself refuses, and what its 32-bit ints can hold.

One table serves the scalar engine (``compute_occupancy`` raises the first failure) and the batch
(every query of a chunk checked at once, the first failure's message per query), so both refuse the
same inputs with the same words.  Every field has an upper bound, so a value that passes fits numpy's
int64 arithmetic with room to spare (``10**23`` block barriers is refused, not an ``OverflowError``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._int import IntArray
from .errors import OccupancyError
from .launch import Launch
from .occupancy import MAX_BLOCK_SIZE, MAX_REGISTERS, MAX_SHARED_BYTES
from .types import INT_MAX, DeviceState, FunctionAttributes, OccError

MAX_INT_ATTRIBUTE = INT_MAX
"""Block barriers, virtual resources, the kernel's max threads and the max dynamic shared memory
attribute are C ``int`` values in the header and the runtime."""


@dataclass(frozen=True)
class DomainInputs:
    """The checked fields of one query (Python ints) or of many (int64 arrays of one shape).

    ``max_dynamic_smem`` is the attribute as given, 0 where the runtime default applies.
    """

    block_size: Any
    num_regs: Any
    shared_size_bytes: Any
    dynamic_smem: Any
    num_block_barriers: Any
    virtual_resource_count: Any
    max_threads_per_block: Any
    reqntid: Any
    carveout: Any
    max_dynamic_smem: Any


def domain_inputs(func: FunctionAttributes, state: DeviceState, launch: Launch) -> DomainInputs:
    """The checked fields of one launch."""
    return DomainInputs(
        block_size=launch.block_size,
        num_regs=func.num_regs,
        shared_size_bytes=func.shared_size_bytes,
        dynamic_smem=launch.dynamic_smem,
        num_block_barriers=func.num_block_barriers,
        virtual_resource_count=func.virtual_resource_count,
        max_threads_per_block=func.max_threads_per_block,
        reqntid=func.reqntid,
        carveout=state.carveout_config,
        max_dynamic_smem=func.max_dynamic_shared_size_bytes or 0,
    )


Check = tuple[Callable[[DomainInputs], Any], Callable[[DomainInputs], str], bool]
"""(fails, message, is an upper bound rather than one of the header's own refusals)."""

_CHECKS: tuple[Check, ...] = (
    (lambda d: d.block_size <= 0, lambda d: f"threads per block must be at least 1 (got {d.block_size})", False),
    (
        lambda d: d.block_size > MAX_BLOCK_SIZE,
        lambda d: f"threads per block {d.block_size} is beyond {MAX_BLOCK_SIZE}",
        True,
    ),
    (lambda d: d.num_regs < 0, lambda d: f"registers per thread must be 0 or more (got {d.num_regs})", False),
    (
        lambda d: d.num_regs > MAX_REGISTERS,
        lambda d: f"registers per thread {d.num_regs} is beyond {MAX_REGISTERS}",
        True,
    ),
    (
        lambda d: d.shared_size_bytes < 0,
        lambda d: f"static shared memory must be 0 or more (got {d.shared_size_bytes})",
        False,
    ),
    (lambda d: d.dynamic_smem < 0, lambda d: f"dynamic shared memory must be 0 or more (got {d.dynamic_smem})", False),
    # Written as a difference: both are >= 0 here, so neither side can overflow int64.
    (
        lambda d: d.shared_size_bytes > MAX_SHARED_BYTES - d.dynamic_smem,
        lambda d: f"shared memory per block {d.shared_size_bytes + d.dynamic_smem} B is beyond {MAX_SHARED_BYTES} B",
        True,
    ),
    (
        lambda d: d.num_block_barriers < 0,
        lambda d: f"block barriers must be 0 or more (got {d.num_block_barriers})",
        False,
    ),
    (
        lambda d: d.num_block_barriers > MAX_INT_ATTRIBUTE,
        lambda d: f"block barriers {d.num_block_barriers} is beyond {MAX_INT_ATTRIBUTE}",
        True,
    ),
    (
        lambda d: d.virtual_resource_count < 0,
        lambda d: f"virtual resources must be 0 or more (got {d.virtual_resource_count})",
        False,
    ),
    (
        lambda d: d.virtual_resource_count > MAX_INT_ATTRIBUTE,
        lambda d: f"virtual resources {d.virtual_resource_count} is beyond {MAX_INT_ATTRIBUTE}",
        True,
    ),
    (
        lambda d: d.max_threads_per_block <= 0,
        lambda d: f"the kernel's max threads per block must be at least 1 (got {d.max_threads_per_block})",
        False,
    ),
    (
        lambda d: d.max_threads_per_block > MAX_INT_ATTRIBUTE,
        lambda d: f"the kernel's max threads per block {d.max_threads_per_block} is beyond {MAX_INT_ATTRIBUTE}",
        True,
    ),
    (
        lambda d: d.reqntid < 0,
        lambda d: f"the kernel's required block size (.reqntid) must be at least 1, or 0 for none (got {d.reqntid})",
        False,
    ),
    (
        lambda d: d.reqntid > MAX_BLOCK_SIZE,
        lambda d: f"the kernel's required block size (.reqntid) {d.reqntid} is beyond {MAX_BLOCK_SIZE}",
        True,
    ),
    (
        lambda d: (d.carveout < -1) | (d.carveout > 100),
        lambda d: f"carveout must be -1 (default) or a percentage 0..100 (got {d.carveout})",
        False,
    ),
    (
        lambda d: d.max_dynamic_smem < 0,
        lambda d: f"max dynamic shared memory must be 0 or more (got {d.max_dynamic_smem})",
        False,
    ),
    (
        lambda d: d.max_dynamic_smem > MAX_INT_ATTRIBUTE,
        lambda d: f"max dynamic shared memory {d.max_dynamic_smem} B is beyond {MAX_INT_ATTRIBUTE} B",
        True,
    ),
)


def first_violation(inputs: DomainInputs) -> IntArray:
    """Per query, the index of the first check it fails (the message ``violation_message`` gives), or -1."""
    first = np.full(np.broadcast_shapes(*(np.shape(v) for v in vars(inputs).values())), -1, dtype=np.int64)
    for index in range(len(_CHECKS) - 1, -1, -1):
        first = np.where(_CHECKS[index][0](inputs), index, first)
    return first


_HUGE = 10**99
_DIGIT_RUN = re.compile(r"\d{100,}")


def _worded(message: Callable[[DomainInputs], str], inputs: DomainInputs) -> str:
    """``message(inputs)``; a figure too long for ``str(int)`` (CPython refuses 4,300+ digits) is
    named by its size instead, so that the refusal itself cannot fail."""
    try:
        return message(inputs)
    except ValueError:

        def clip(v: Any) -> Any:
            return v if not isinstance(v, int) or abs(v) < _HUGE else _HUGE if v > 0 else -_HUGE

        shown = message(DomainInputs(**{k: clip(v) for k, v in vars(inputs).items()}))
        return _DIGIT_RUN.sub("(a number of thousands of digits)", shown)


def violation_message(index: int, inputs: DomainInputs) -> str:
    """The words of check ``index`` for one query given as Python ints."""
    return _worded(_CHECKS[index][1], inputs)


def check_domain(inputs: DomainInputs, *, bounds_only: bool = False) -> None:
    """Raise ``OccupancyError`` (``INVALID_INPUT``) for the first check one query (Python ints) fails.

    ``bounds_only`` keeps to the upper bounds: for the header functions that accept what the occupancy
    query refuses (a carveout out of range before Volta, ...) but must still not overflow.
    """
    for failed, message, bound in _CHECKS:
        if (bound or not bounds_only) and failed(inputs):
            raise OccupancyError(OccError.INVALID_INPUT, _worded(message, inputs))
