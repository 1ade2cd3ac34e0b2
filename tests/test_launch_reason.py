"""Why a chosen kernel runs at another block size, in each vendor's words (record_launch.launch_reason)."""

from __future__ import annotations

from occupancy_gui.record_launch import launch_reason

NVIDIA = ((256, "__launch_bounds__"), (0, "required block size (.reqntid)"))
AMD = ((256, ".max_flat_workgroup_size"), (0, "required workgroup size (.reqd_workgroup_size)"))


def test_no_reason_when_the_block_size_stays() -> None:
    assert launch_reason(128, *NVIDIA, (0, None)) is None
    assert launch_reason(256, *AMD, (0, None)) is None


def test_the_launch_bound_in_each_vendors_words() -> None:
    assert launch_reason(512, *NVIDIA, (0, None)) == (
        "256 threads per block: 512 is above the kernel's launch bound of 256 (__launch_bounds__)"
    )
    assert launch_reason(1024, *AMD, (0, None)) == (
        "256 threads per block: 1024 is above the kernel's launch bound of 256 (.max_flat_workgroup_size)"
    )


def test_a_required_size_then_a_recorded_launch_win() -> None:
    bound, required = AMD[0], (64, AMD[1][1])
    assert launch_reason(128, bound, required, (0, None)) == (
        "64 threads per block: the kernel's required workgroup size (.reqd_workgroup_size)"
    )
    assert launch_reason(128, bound, required, (96, "triton cache")) == (
        "96 threads per block: the launch recorded with the kernel (triton cache)"
    )
    assert launch_reason(128, bound, required, (96, None)) == (
        "96 threads per block: the launch recorded with the kernel (its source)"
    )
