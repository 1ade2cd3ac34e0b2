"""The whole GPU: how a grid of blocks runs in waves of ``active blocks × SMs``.

A wave is every SM holding as many blocks as fit at once.  A grid that is not a multiple of the wave
leaves a partial last wave, during which part of the GPU idles (the "tail effect").  This is the
theoretical picture: blocks that finish at different times blur the waves in practice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import OccupancyError
from .types import OccError


def grid_blocks(dims: int | Sequence[int]) -> int:
    """Blocks in a grid given as a count or as 1-, 2- or 3-D dimensions (every dimension at least 1)."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise OccupancyError(
            OccError.INVALID_INPUT, f"grid dimensions must be 1 to 3 values of at least 1 (got {dims})"
        )
    return math.prod(dims)


@dataclass(frozen=True)
class WaveAnalysis:
    """How ``grid`` blocks run on ``sm_count`` SMs holding ``blocks_per_sm`` each."""

    grid: tuple[int, ...]
    total_blocks: int
    blocks_per_sm: int
    sm_count: int

    @property
    def blocks_per_wave(self) -> int:
        """Blocks resident on the whole GPU at once."""
        return self.blocks_per_sm * self.sm_count

    @property
    def waves(self) -> int:
        return -(-self.total_blocks // self.blocks_per_wave)

    @property
    def full_waves(self) -> int:
        return self.total_blocks // self.blocks_per_wave

    @property
    def last_wave_blocks(self) -> int:
        """Blocks in the last wave (a whole wave where the grid fills it)."""
        return self.total_blocks - (self.waves - 1) * self.blocks_per_wave

    @property
    def last_wave_utilisation(self) -> float:
        """The last wave's blocks over a whole wave's (0..1]."""
        return self.last_wave_blocks / self.blocks_per_wave

    @property
    def efficiency(self) -> float:
        """Blocks run over the block slots the waves offer: 1 when every wave is full."""
        return self.total_blocks / (self.waves * self.blocks_per_wave)

    @property
    def fills_whole_waves(self) -> bool:
        return self.total_blocks % self.blocks_per_wave == 0

    @property
    def grid_below(self) -> int | None:
        """The largest total ≤ the grid that fills whole waves (``None`` below one wave)."""
        return self.full_waves * self.blocks_per_wave or None

    @property
    def grid_above(self) -> int:
        """The smallest total ≥ the grid that fills whole waves."""
        return self.waves * self.blocks_per_wave

    def x_step(self) -> int:
        """The step of the grid's x dimension that keeps whole waves, other dimensions held."""
        rest = math.prod(self.grid[1:])
        return self.blocks_per_wave // math.gcd(self.blocks_per_wave, rest)

    @property
    def x_below(self) -> int | None:
        """The largest x ≤ the current one filling whole waves with y and z held (``None`` if none)."""
        return (self.grid[0] // self.x_step()) * self.x_step() or None

    @property
    def x_above(self) -> int:
        """The smallest x ≥ the current one filling whole waves with y and z held."""
        return -(-self.grid[0] // self.x_step()) * self.x_step()


def analyse_waves(grid: int | Sequence[int], blocks_per_sm: int, sm_count: int) -> WaveAnalysis:
    """Waves of a grid on a GPU; raises ``OccupancyError`` where no block fits or the inputs are invalid."""
    total = grid_blocks(grid)
    if sm_count < 1:
        raise OccupancyError(OccError.INVALID_INPUT, f"SM count must be at least 1 (got {sm_count})")
    if blocks_per_sm < 1:
        raise OccupancyError(OccError.INVALID_INPUT, "no block fits on an SM: the grid cannot run at all")
    dims = (grid,) if isinstance(grid, int) else tuple(grid)
    return WaveAnalysis(dims, total, blocks_per_sm, sm_count)
