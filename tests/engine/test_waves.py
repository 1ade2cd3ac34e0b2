"""Waves of a grid on the whole GPU, against figures worked by hand."""

from __future__ import annotations

import pytest

from occupancy_gui.engine import OccupancyError, analyse_waves, grid_blocks


def test_h100_example() -> None:
    # 132 SMs × 4 blocks = 528 per wave; 1000 blocks = one full wave and 472 blocks in the second.
    w = analyse_waves(1000, blocks_per_sm=4, sm_count=132)
    assert (w.blocks_per_wave, w.waves, w.full_waves, w.last_wave_blocks) == (528, 2, 1, 472)
    assert w.last_wave_utilisation == pytest.approx(472 / 528)
    assert w.efficiency == pytest.approx(1000 / 1056)
    assert (w.grid_below, w.grid_above) == (528, 1056)
    assert not w.fills_whole_waves


def test_exact_waves_and_small_grids() -> None:
    w = analyse_waves(1056, 4, 132)
    assert (w.waves, w.last_wave_blocks, w.last_wave_utilisation, w.efficiency) == (2, 528, 1.0, 1.0)
    assert w.fills_whole_waves and w.grid_below == w.grid_above == 1056
    small = analyse_waves(100, 4, 132)
    assert (small.waves, small.last_wave_blocks, small.grid_below, small.grid_above) == (1, 100, None, 528)


def test_multi_dimensional_grid() -> None:
    assert grid_blocks((40, 25)) == 1000 and grid_blocks((10, 10, 10)) == 1000 and grid_blocks(7) == 7
    w = analyse_waves((40, 25), 4, 132)
    assert w.total_blocks == 1000 and w.waves == 2
    # y = 25 is coprime with 528, so x must be a multiple of 528 to fill whole waves.
    assert (w.x_step(), w.x_below, w.x_above) == (528, None, 528)
    w = analyse_waves((100, 24, 1), 4, 132)  # 528 / gcd(528, 24) = 22
    assert (w.x_step(), w.x_below, w.x_above) == (22, 88, 110)
    assert (w.x_below * 24) % 528 == 0 and (w.x_above * 24) % 528 == 0


@pytest.mark.parametrize(
    "grid, per_sm, sms", [(0, 4, 132), ((1, 0), 4, 132), ((1, 2, 3, 4), 1, 1), (10, 0, 132), (10, 4, 0)]
)
def test_invalid_inputs_refused(grid, per_sm: int, sms: int) -> None:
    with pytest.raises(OccupancyError):
        analyse_waves(grid, per_sm, sms)
