"""Inputs the fuzzers found, and hostile profiles: each once crashed or could have."""

from __future__ import annotations

import time

import pytest

from occupancy_gui.importers import ImportFailure, import_file_detailed
from occupancy_gui.profiles import ProfileError, parse_profile

from .harness import DATA, run_one


def test_cuobjdump_error_names_the_full_path(tmp_path):
    # Found by test_mutated_fixtures[cuobjdump_text]: the message named the file's base name only.
    text = (DATA / "gen" / "a.fatbin.cuobjdump.txt").read_text().replace("REG:", "RGE:", 1)
    path = tmp_path / "dump.txt"
    path.write_text(text)
    with pytest.raises(ImportFailure, match="resource line without REG") as info:
        import_file_detailed(path)
    assert str(info.value).startswith(f"{path}:") and info.value.line is not None


@pytest.mark.parametrize(
    "text",
    [
        "schema: 1\nlimits: " + "[" * 5000,  # found by test_generated_profiles: RecursionError
        "schema: 1\nlimits: " + "{a: " * 3000,
        "- " * 3000 + "x",
        "limits:\n" + "".join("  " * i + "a:\n" for i in range(1, 400)),
    ],
    ids=["flow-lists", "flow-maps", "block-lists", "block-maps"],
)
def test_deep_nesting_is_a_profile_error(text):
    start = time.perf_counter()
    with pytest.raises(ProfileError, match="nested more than 32 deep") as info:
        parse_profile(text, "deep.yaml")
    assert info.value.line is not None and time.perf_counter() - start < 2


def test_wide_profile_within_the_size_limit_is_fast():
    text = "schema: 1\nkind: gpu\nname: wide\n" + "".join(f"k{i}: {i}\n" for i in range(60_000))
    assert len(text.encode()) < 1 << 20
    start = time.perf_counter()
    # Found while writing the hostile tests: 60 000 keys took 3-6 s to compose.
    with pytest.raises(ProfileError, match="more than 5000 keys and values") as info:
        parse_profile(text, "wide.yaml")
    assert info.value.line == 2500
    assert time.perf_counter() - start < 2


def test_long_single_line_and_alias_bomb_in_flow_style():
    with pytest.raises(ProfileError):
        parse_profile("name: " + "x" * (1 << 19), "long.yaml")
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c]\n"
    with pytest.raises(ProfileError, match="anchors and aliases"):
        parse_profile(bomb, "bomb.yaml")


def test_harness_sees_no_crash_in_fixtures(tmp_path):
    for target in ("ptxas_log", "cubin", "ar_archive", "ncu_csv"):
        from .harness import seeds

        for data in seeds(target):
            assert run_one(target, data, str(tmp_path / "f")) in ("records", "error")


def test_superscript_digit_in_an_arch_is_not_a_number() -> None:
    """Found by the long fuzz run (ptxas_log input 409667): "sm_³6" crashed ``int()``."""
    from occupancy_gui.importers.records import arch_number

    assert arch_number("sm_\u00b36") is None
    assert arch_number("sm_90a") == 90


def test_kernel_info_section_past_the_end_is_one_line(tmp_path) -> None:
    """Found by the structured fuzzer (cubin input 6242): a kernel's ``.nv.info.<name>`` whose offset lies
    past the end of the file (size 0) raised IndexError in the in-place walk instead of ImportFailure."""
    import struct

    from tests.fuzz.binary_structures import GEN, _section_headers

    data = bytearray((GEN / "a_sm80.cubin").read_bytes())
    shoff, entsize, elf = _section_headers(bytes(data))
    sec = next(s for s in elf.sections if s.name.startswith(".nv.info._Z"))
    struct.pack_into("<QQ", data, shoff + sec.index * entsize + 24, (1 << 63) - 1, 0)  # sh_offset, sh_size
    path = tmp_path / "past.cubin"
    path.write_bytes(bytes(data))
    with pytest.raises(ImportFailure, match="lies beyond the end of the data"):
        import_file_detailed(path)
