"""How one SM's resources are used by the resident blocks, as Nsight Compute's occupancy section shows it.

Each limit's numbers (``LimitUsage``, written by ``rows.constraint_rows`` from the rule modules) are
split three ways, which add up to the SM's capacity:

- **allocated**: what the resident blocks hold, ``resident blocks × per block``;
- **unusable**: room for more blocks under this limit alone, left empty because another limit binds,
  ``(blocks this limit allows − resident blocks) × per block``;
- **remainder**: what is left after the last block this limit allows, too little (or, for registers,
  too fragmented across the sub-partitions) for one more block, ``capacity − blocks allowed × per block``.

A limit that does not apply (a kernel with no shared memory) allocates nothing and is all unusable:
another limit decides.  Nothing here knows a vendor's field names: the view draws whatever limits the
engine lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from .types import LimitUsage, OccupancyResult


@dataclass(frozen=True)
class ResourceUtilization:
    """One resource of one SM, split into allocated + unusable + remainder (= ``usage.capacity``)."""

    usage: LimitUsage
    resident_blocks: int
    allocated: int
    unusable: int
    remainder: int
    binding: bool
    """This limit's ceiling is the number of resident blocks (where none fit: this limit allows none)."""

    @property
    def capacity(self) -> int:
        return self.usage.capacity

    def fraction(self, part: int) -> float:
        """``part`` as a share of the capacity (0 where the SM has none of this resource)."""
        return part / self.usage.capacity if self.usage.capacity > 0 else 0.0


def split_usage(usage: LimitUsage, resident_blocks: int) -> ResourceUtilization:
    """Split ``usage`` for ``resident_blocks`` resident blocks (at most ``usage.blocks``).

    Raises ``ValueError`` where the figures cannot come from one launch: more resident blocks than the
    limit allows, or blocks that together hold more than the capacity.
    """
    allowed = usage.blocks
    if allowed is not None and not 0 <= resident_blocks <= allowed:
        raise ValueError(f"{usage.resource}: {resident_blocks} resident blocks, but this limit allows {allowed}")
    allocated = resident_blocks * usage.per_block
    remainder = 0 if allowed is None else usage.capacity - allowed * usage.per_block
    unusable = usage.capacity - allocated - remainder
    if remainder < 0 or unusable < 0:
        raise ValueError(
            f"{usage.resource}: {allowed} blocks of {usage.per_block} exceed the capacity {usage.capacity}"
        )
    return ResourceUtilization(
        usage,
        resident_blocks,
        allocated,
        unusable,
        remainder,
        binding=allowed is not None and allowed == resident_blocks,
    )


def utilization(result: OccupancyResult) -> tuple[ResourceUtilization, ...]:
    """Every limit of ``result``, in the constraint table's order, split for its resident blocks."""
    return tuple(split_usage(row.usage, result.active_blocks) for row in result.rows)
