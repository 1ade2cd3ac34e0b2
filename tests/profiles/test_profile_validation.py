"""One test per kind of invalid profile: each must fail with the file, the line and the field."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from occupancy_gui.profiles import Catalog, ProfileError, load_profile, parse_profile

from .texts import CC_TEMPLATE, GPU_TEMPLATE

SRC = "device_profiles/test.yaml"


def fails(text: str | bytes) -> ProfileError:
    with pytest.raises(ProfileError) as info:
        parse_profile(text, SRC)
    error = info.value
    assert error.path == SRC
    assert "\n" not in str(error)
    return error


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_templates_are_valid() -> None:
    assert parse_profile(CC_TEMPLATE, SRC).compute_capability == (8, 0)
    gpu = parse_profile(GPU_TEMPLATE, SRC)
    assert gpu.sm_count is not None and gpu.sm_count.value == 10 and gpu.aliases == ("TGPU",)


def test_error_is_value_error_with_attributes() -> None:
    text = CC_TEMPLATE.replace('{value: 65536, source: "guide"}', '{value: -5, source: "guide"}', 1)
    error = fails(text)
    assert isinstance(error, ValueError)
    line = line_of(text, "value: -5")
    assert (error.line, error.field) == (line, "limits.regs_per_block")
    assert str(error) == f"{SRC}:{line}: limits.regs_per_block: expected a positive integer, got -5"


def test_yaml_syntax_error_has_line() -> None:
    error = fails("schema: 1\nname: [unclosed\nkind: gpu\n")
    assert error.line is not None and "YAML syntax error" in str(error)


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", ""])
def test_top_level_not_a_mapping(text: str) -> None:
    assert "top level must be a mapping" in str(fails(text))


def test_unknown_top_level_key() -> None:
    error = fails(CC_TEMPLATE + "colour: green\n")
    assert error.field == "colour" and "unknown key" in error.message
    assert error.line == len(CC_TEMPLATE.splitlines()) + 1


def test_unknown_limit_key() -> None:
    text = CC_TEMPLATE + "  max_regs: {value: 1, source: x}\n"
    assert fails(text).field == "limits.max_regs"


def test_unknown_key_inside_value_entry() -> None:
    text = CC_TEMPLATE.replace('{value: 32, source: "guide"}', '{value: 32, source: "guide", unit: threads}')
    error = fails(text)
    assert error.field == "limits.warp_size.unit" and error.line == line_of(text, "unit: threads")


def test_unknown_info_key() -> None:
    text = GPU_TEMPLATE + "info:\n  colour: {value: green, source: box}\n"
    assert fails(text).field == "info.colour"


def test_gpu_may_not_set_compute_capability() -> None:
    error = fails(GPU_TEMPLATE + 'compute_capability: "8.0"\n')
    assert error.field == "compute_capability" and "inherits" in error.message


def test_missing_top_level_key() -> None:
    text = GPU_TEMPLATE.replace("segment: datacenter\n", "")
    error = fails(text)
    assert error.field == "segment" and "missing" in error.message


def test_missing_limit_in_cc_profile() -> None:
    text = "\n".join(line for line in CC_TEMPLATE.splitlines() if "regs_per_block" not in line) + "\n"
    assert fails(text).field == "limits.regs_per_block"


def test_missing_value() -> None:
    text = GPU_TEMPLATE.replace('{value: 10, source: "spec sheet"}', '{source: "spec sheet"}')
    assert fails(text).field == "sm_count"


@pytest.mark.parametrize(
    ("replacement", "shown"),
    [
        ("true", "true (a boolean)"),
        ('"32"', "'32' (a string)"),
        ("32.0", "32.0 (a decimal number)"),
        ("[32]", "a list"),
    ],
)
def test_wrong_type_bool_is_not_int(replacement: str, shown: str) -> None:
    text = CC_TEMPLATE.replace("{value: 32,", f"{{value: {replacement},")
    error = fails(text)
    assert error.field == "limits.warp_size" and error.message.endswith(shown)


@pytest.mark.parametrize("value", ["0", "-1"])
def test_zero_or_negative(value: str) -> None:
    text = GPU_TEMPLATE.replace("{value: 10,", f"{{value: {value},")
    assert "expected a positive integer" in fails(text).message


def test_too_large() -> None:
    text = CC_TEMPLATE.replace("{value: 65536, source", "{value: 4294967296, source", 1)
    assert "at most 2147483647" in fails(text).message


def test_reserved_may_be_zero_but_not_negative() -> None:
    parse_profile(limit(CC_TEMPLATE, "reserved_shared_mem_per_block", 0), SRC)
    error = fails(limit(CC_TEMPLATE, "reserved_shared_mem_per_block", -1))
    assert error.field == "limits.reserved_shared_mem_per_block" and "non-negative" in error.message


def limit(text: str, name: str, value: int) -> str:
    lines = text.splitlines()
    out = [
        f'  {name}: {{value: {value}, source: "guide"}}' if line.strip().startswith(name + ":") else line
        for line in lines
    ]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    ("name", "value", "field", "words"),
    [
        ("warp_size", 64, "limits.warp_size", "must be 32"),
        ("shared_mem_per_block", 200000, "limits.shared_mem_per_block", "exceeds shared_mem_per_block_optin"),
        ("regs_per_block", 131072, "limits.regs_per_block", "exceeds regs_per_multiprocessor"),
        ("max_threads_per_block", 4096, "limits.max_threads_per_block", "exceeds max_threads_per_multiprocessor"),
        (
            "max_threads_per_multiprocessor",
            2000,
            "limits.max_threads_per_multiprocessor",
            "not a multiple of warp_size",
        ),
        ("shared_mem_per_block_optin", 167936, "limits.shared_mem_per_block_optin", "plus reserved"),
    ],
)
def test_impossible_values(name: str, value: int, field: str, words: str) -> None:
    text = limit(CC_TEMPLATE, name, value)
    error = fails(text)
    assert error.field == field and words in error.message
    assert error.line == line_of(text, f"{name}:")


@pytest.mark.parametrize("cc", ['"8"', '"8.0.1"', '"x.y"', '"80"', "8.0", "[8, 0]"])
def test_bad_compute_capability_string(cc: str) -> None:
    error = fails(CC_TEMPLATE.replace('compute_capability: "8.0"', f"compute_capability: {cc}"))
    assert error.field == "compute_capability" and "MAJOR.MINOR" in error.message


def test_cc_profile_name_must_match_capability() -> None:
    error = fails(CC_TEMPLATE.replace("name: sm_80", "name: sm_86"))
    assert error.field == "name" and "'sm_80'" in error.message


@pytest.mark.parametrize("alias", ["sm_90", "9.0", "90"])
def test_gpu_names_may_not_look_like_capabilities(alias: str) -> None:
    assert fails(GPU_TEMPLATE.replace("[TGPU]", f'["{alias}"]')).field == "aliases[0]"


def test_bad_kind_and_segment() -> None:
    assert fails(GPU_TEMPLATE.replace("kind: gpu", "kind: card")).field == "kind"
    assert fails(GPU_TEMPLATE.replace("segment: datacenter", "segment: gaming")).field == "segment"


def test_schema_version() -> None:
    error = fails(GPU_TEMPLATE.replace("schema: 1", "schema: 2"))
    assert error.field == "schema" and error.line == 1


@pytest.mark.parametrize("source", ['""', '"   "', "42"])
def test_empty_or_non_text_source(source: str) -> None:
    error = fails(GPU_TEMPLATE.replace('source: "spec sheet"', f"source: {source}"))
    assert error.field == "sm_count.source" and error.line == 8


def test_missing_source() -> None:
    error = fails(CC_TEMPLATE.replace('{value: 32, source: "guide"}', "{value: 32}"))
    assert error.field == "limits.warp_size.source" and "source missing" in error.message


def test_duplicate_key() -> None:
    error = fails(GPU_TEMPLATE + "segment: consumer\n")
    assert error.field == "segment" and "duplicate key" in error.message


def test_duplicate_alias_within_file() -> None:
    assert "duplicate alias" in fails(GPU_TEMPLATE.replace("[TGPU]", "[TGPU, tgpu]")).message


def test_not_utf8_reports_byte_offset() -> None:
    data = GPU_TEMPLATE.encode() + b"notes: caf\xe9\n"
    error = fails(data)
    offset = len(GPU_TEMPLATE.encode()) + len(b"notes: caf")
    assert f"byte offset {offset}" in error.message and error.line == len(GPU_TEMPLATE.splitlines()) + 1


def test_utf8_bom_and_non_ascii_are_fine() -> None:
    parse_profile(b"\xef\xbb\xbf" + GPU_TEMPLATE.encode() + "notes: café\n".encode(), SRC)


@pytest.mark.parametrize(
    "extra",
    ["notes: &a hello\n", "info:\n  chip: &c {value: X, source: Y}\n", "notes: *undefined\n"],
)
def test_anchor_or_alias_rejected(extra: str) -> None:
    error = fails(GPU_TEMPLATE + extra)
    assert "anchors and aliases" in error.message and error.line is not None


def test_billion_laughs_rejected_quickly() -> None:
    bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        bomb += f"{cur}: &{cur} [{', '.join(['*' + prev] * 9)}]\n"
    start = time.perf_counter()
    error = fails(bomb)
    assert time.perf_counter() - start < 1.0 and error.line == 1


def test_custom_tag_rejected() -> None:
    assert "unsupported YAML tag" in fails(GPU_TEMPLATE + "notes: !!python/name:os.system x\n").message


def test_file_larger_than_one_mib(tmp_path: Path) -> None:
    text = GPU_TEMPLATE + "notes: " + "x" * (1024 * 1024) + "\n"
    assert "1 MiB" in fails(text).message
    big = tmp_path / "big.yaml"
    big.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match="1 MiB") as info:
        load_profile(big)
    assert info.value.path == str(big)


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_inherits_suggests(cc_dir: Path) -> None:
    path = write(cc_dir, "gpu.yaml", GPU_TEMPLATE.replace("inherits: sm_80", "inherits: sm_08"))
    with pytest.raises(ProfileError) as info:
        Catalog.load([cc_dir])
    error = info.value
    assert (error.path, error.line, error.field) == (str(path), 4, "inherits")
    assert "sm_80" in error.message


def test_gpu_may_not_inherit_a_gpu(cc_dir: Path) -> None:
    write(cc_dir, "a.yaml", GPU_TEMPLATE)
    other = GPU_TEMPLATE.replace("Test GPU", "Other").replace("[TGPU]", "[]")
    write(cc_dir, "b.yaml", other.replace("inherits: sm_80", "inherits: Test GPU"))
    with pytest.raises(ProfileError, match="is a gpu profile") as info:
        Catalog.load([cc_dir])
    assert info.value.field == "inherits"


def test_duplicate_names_across_files(cc_dir: Path) -> None:
    write(cc_dir, "a.yaml", GPU_TEMPLATE)
    second = write(
        cc_dir, "b.yaml", GPU_TEMPLATE.replace("[TGPU]", "[Other]").replace("name: Test GPU", "name: test gpu")
    )
    with pytest.raises(ProfileError, match="already used") as info:
        Catalog.load([cc_dir])
    assert (info.value.path, info.value.field, info.value.line) == (str(second), "name", 2)


def test_duplicate_alias_across_files(cc_dir: Path) -> None:
    write(cc_dir, "a.yaml", GPU_TEMPLATE)
    write(cc_dir, "b.yaml", GPU_TEMPLATE.replace("name: Test GPU", "name: Other GPU").replace("[TGPU]", "[X, tgpu]"))
    with pytest.raises(ProfileError, match="already used") as info:
        Catalog.load([cc_dir])
    assert (info.value.field, info.value.line) == ("aliases[1]", 5)


def test_duplicate_compute_capability_across_files(cc_dir: Path) -> None:
    write(cc_dir, "sm_80_again.yaml", CC_TEMPLATE)
    with pytest.raises(ProfileError, match="already used"):
        Catalog.load([cc_dir])


def test_gpu_override_checked_after_inheritance(cc_dir: Path) -> None:
    text = GPU_TEMPLATE.replace("limits: {}", 'limits:\n  regs_per_block: {value: 131072, source: "x"}')
    path = write(cc_dir, "gpu.yaml", text)
    with pytest.raises(ProfileError, match="after inheriting sm_80") as info:
        Catalog.load([cc_dir])
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 10, "limits.regs_per_block")


def test_gpu_override_is_applied(cc_dir: Path) -> None:
    text = GPU_TEMPLATE.replace("limits: {}", 'limits:\n  regs_per_block: {value: 32768, source: "board sheet"}')
    write(cc_dir, "gpu.yaml", text)
    profile = Catalog.load([cc_dir]).get("TGPU")
    assert profile.values["regs_per_block"] == 32768 and profile.sources["regs_per_block"] == "board sheet"
    assert "inherited from sm_80" in profile.sources["regs_per_multiprocessor"]
