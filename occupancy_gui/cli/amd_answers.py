"""The AMD answers of ``occupancy calc``, ``suggest`` and ``batch``: the HIP runtime's and the compiler's, side by
side, with the one-line explanation of a disagreement (issue #40's JSON contract).

A query (flags or batch keys) is read by ``amd_query``; both rules and the explanation are the AMD engine's
(``engine.amd``); the text is ``amd_text``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..amd_question import VENDOR, AmdAnswer
from ..amd_question import answer as both_answers
from ..engine.amd import AmdInputError, hip_block_size_search, hip_potential_block_size
from .amd_query import amd_query
from .amd_text import calc_text
from .common import QueryError

if TYPE_CHECKING:
    from ..profiles import AmdProfile

__all__ = ["AmdAnswer", "answer", "answer_text", "suggest", "suggest_text"]


def answer(profile: AmdProfile, data: dict[str, Any]) -> AmdAnswer:
    """Both answers for a query (its keys as ``occupancy batch`` takes them) on ``profile``'s device.

    The device runs in the driver's default WGP mode (on for gfx10+); the query's ``wgp_mode`` is the kernel's
    (compiled with or without ``+cumode``), as HIP's grid size reads it.
    """
    kernel, launch = amd_query(data, profile.target, profile.name)
    try:
        return both_answers(profile, kernel, launch)
    except AmdInputError as exc:  # what amd_query does not check first: the engine's words, one line
        raise QueryError(str(exc)) from None


def answer_text(result: AmdAnswer) -> str:
    """``occupancy calc``'s text for an AMD answer."""
    return calc_text(
        result.profile.name,
        result.device,
        result.kernel,
        result.launch,
        result.hip,
        result.compiler,
        result.explanation,
    )


def suggest(profile: AmdProfile, data: dict[str, Any]) -> dict[str, Any]:
    """``hipOccupancyMaxPotentialBlockSize`` (no search: the largest wave-aligned block within the ALU budget)
    and its grid; beside it, labelled, the header template that does search
    (``hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags``).  ``threads`` is the block size limit (absent:
    none)."""
    device = profile.device()
    kernel, launch = amd_query(data, device.target, profile.name, threads_required=False)
    limit = launch.threads_per_block
    try:
        runtime = hip_potential_block_size(device, kernel, launch.dynamic_lds, limit)
        search = hip_block_size_search(device, kernel, launch.dynamic_lds, limit)
    except AmdInputError as exc:  # as in answer
        raise QueryError(str(exc)) from None
    return {
        "vendor": VENDOR,
        "device": profile.name,
        "block_size": runtime.best_block_size,
        "min_grid_size": runtime.grid_blocks,
        "blocks_per_multiprocessor": runtime.active_blocks,
        "error": runtime.error,
        "block_size_limit": limit or None,
        "header_template_search": {
            "block_size": search.block_size,
            "min_grid_size": search.min_grid_size,
            "blocks_per_multiprocessor": search.blocks_per_multiprocessor,
            "error": search.error,
        },
    }


SUGGEST_LABELS = {
    "block_size": "hipOccupancyMaxPotentialBlockSize: block size",
    "min_grid_size": "hipOccupancyMaxPotentialBlockSize: grid size",
    "header_template_search": "header template hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags (searches)",
}
"""What each line of ``suggest``'s text says, where the JSON key alone would not."""


def suggest_text(data: dict[str, Any]) -> str:
    """``suggest``'s answer as lines of ``label: value``, the header template's search labelled as such."""
    lines = []
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"{SUGGEST_LABELS.get(key, key)}:")
            lines += [f"  {k}: {'-' if v is None else v}" for k, v in value.items()]
        else:
            lines.append(f"{SUGGEST_LABELS.get(key, key)}: {'-' if value is None else value}")
    return "\n".join(lines)
