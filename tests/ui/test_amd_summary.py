"""The AMD answer card's words for its binding limits."""

from __future__ import annotations

from occupancy_gui.ui.calculator.amd_summary import COMPILER_WORDS, HIP_WORDS, binding_words


def test_binding_limits_beyond_two_are_counted_in_words() -> None:
    assert binding_words((), HIP_WORDS) == "nothing"
    assert binding_words(("waves",), HIP_WORDS) == "the wave cap"
    assert binding_words(("waves", "vgprs"), HIP_WORDS) == "the wave cap + VGPRs"
    four = ("waves", "workgroup_size", "vgprs", "sgprs")
    assert binding_words(four, COMPILER_WORDS) == "wave cap + workgroups + 2 more"
    assert binding_words(four[:3], COMPILER_WORDS) == "wave cap + workgroups + 1 more"
