"""An AMD query's fields (command-line flags or batch keys) as the AMD engine's kernel and launch.

The reading and the mapping are ``amd_question``'s (the window's session uses the same); here a refusal becomes
the command line's ``QueryError``, and a key only NVIDIA devices take is refused by name.
"""

from __future__ import annotations

from typing import Any

from .. import fields
from ..amd_question import AMD_FIELDS, AmdFieldError, kernel_and_launch, read_values, target_problem
from ..engine.amd import AmdKernel, AmdLaunch, AmdTarget
from ..fields import AMD, NVIDIA
from .common import QueryError, not_for

AMD_QUERY_KEYS = fields.query_keys(AMD)
NVIDIA_ONLY_KEYS = tuple(f.name for f in fields.only_for(NVIDIA) if f.query)
"""Batch keys an AMD line may not hold (``registers``, ``static_smem``, ...)."""
AMD_ONLY_KEYS = tuple(f.name for f in fields.only_for(AMD) if f.query)
"""Batch keys an NVIDIA line may not hold (``vgprs``, ``lds``, ...)."""

__all__ = ["AMD_FIELDS", "AMD_ONLY_KEYS", "AMD_QUERY_KEYS", "NVIDIA_ONLY_KEYS", "amd_query", "read_fields"]


def read_fields(data: dict[str, Any], device: str, *, threads_required: bool = True) -> dict[str, Any]:
    """The AMD keys of ``data`` read and checked against the table (absent or ``null``: ``None``); ``threads``
    may be absent where ``threads_required`` is false (``occupancy suggest``)."""
    for key in NVIDIA_ONLY_KEYS:
        if data.get(key) is not None:
            raise QueryError(not_for(key, device, AMD))
    try:
        return read_values(data, threads_required=threads_required)
    except AmdFieldError as exc:
        raise QueryError(str(exc)) from None


def amd_query(
    data: dict[str, Any], target: AmdTarget, device: str, *, threads_required: bool = True
) -> tuple[AmdKernel, AmdLaunch]:
    """The kernel and the launch a query describes, for ``target`` (``device`` names it in errors); without
    ``threads`` (``occupancy suggest``) the launch's block is 0."""
    values = read_fields(data, device, threads_required=threads_required)
    problem = target_problem(values, target)
    if problem is not None:
        raise QueryError(problem)
    return kernel_and_launch(values)
