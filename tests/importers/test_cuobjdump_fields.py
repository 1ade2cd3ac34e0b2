"""The fields where the binary reader disagreed with cuobjdump (issue #39), each on images built here with
the pinned toolkits from ``src/cuobjdump_fields.cu`` and held to ``cuobjdump --dump-resource-usage`` of the
same file: every function it lists, and only those, with its registers, shared memory and stack.

* the stack is ``EIATTR_MIN_STACK_SIZE`` (CUDA 11.8 writes a ``EIATTR_MAX_STACK_SIZE`` of 0 beside it, which
  the reader took: 0 where cuobjdump prints 88);
* a stack no bound exists for (recursion) is unknown: ``stack_bytes`` ``None``, JSON ``null`` with a note,
  "unknown" in ``occupancy import``'s table, where the reader printed the frame as if it were known;
* ptxas's local copies of its helpers (``$__internal_0_$__cuda_sm20_div_u64``) are not functions: they own
  no ``.text`` section and cuobjdump lists none of them;
* device functions of a linked image: registers and stack as cuobjdump prints them (the ``.text`` section's
  ``sh_info``: 0 on sm_90+);
* the ``a`` suffix of an image whose toolkit note names no ``-arch`` (NVIDIA's own assembler writes such
  images): from ``e_flags`` (ABI 7: ``0x800``; ABI 8: ``0x08``) or ``.nv.compat`` (ptxas 13.x), as
  ``cuobjdump -elf`` prints it.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from occupancy_gui.cli.import_command import run_import
from occupancy_gui.importers import import_file, import_file_detailed
from occupancy_gui.importers.binary.cubin import read_cubin
from occupancy_gui.importers.records import STACK_UNKNOWN
from occupancy_gui.importers.text.cuobjdump_text import parse_text
from tests.helpers import toolchains

pytestmark = pytest.mark.slow

SOURCE = Path(__file__).resolve().parents[1] / "data" / "importers" / "src" / "cuobjdump_fields.cu"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """``build(toolkit, arch, rdc=False)``: the fixture compiled by that toolkit's ptxas (from CUDA 13.5's
    PTX, relabelled to the ISA that ptxas takes), cached per module."""
    root = tmp_path_factory.mktemp("fields")
    ptx = root / "fields.ptx"
    toolchains.run([toolchains.nvcc13_bin() / "nvcc", "-ptx", "-arch=compute_75", SOURCE, "-o", ptx])
    text = ptx.read_text()
    made: dict[tuple[str, str, bool], Path] = {}

    def make(toolkit: str, arch: str, rdc: bool = False) -> Path:
        key = (toolkit, arch, rdc)
        if key not in made:
            source = root / f"{toolkit}_{arch}.ptx"
            isa = toolchains.PTX_ISA.get(toolkit)
            body = re.sub(r"^\.version \S+", f".version {isa}", text, flags=re.M) if isa else text
            source.write_text(re.sub(r"^\.target \S+", f".target {arch}", body, flags=re.M))
            out = root / f"{toolkit}_{arch}{'_rdc' if rdc else ''}.cubin"
            toolchains.run([toolchains.ptxas(toolkit), f"-arch={arch}", *(["-c"] if rdc else []), source, "-o", out])
            made[key] = out
        return made[key]

    return make


def cuobjdump_text(path: Path) -> str:
    proc = subprocess.run(
        [str(toolchains.cuobjdump()), "--dump-resource-usage", str(path)], capture_output=True, text=True, check=True
    )
    return proc.stdout


def fields(records) -> Counter:
    return Counter((r.name, r.registers, r.static_smem, r.stack_bytes) for r in records)


def assert_as_cuobjdump(path: Path) -> list:
    """Every function of ``path`` (kernels and device functions) equals cuobjdump's listing."""
    ours = import_file(path)
    theirs = parse_text(cuobjdump_text(path), path.name)
    assert fields(ours) == fields(theirs), (fields(ours) - fields(theirs), fields(theirs) - fields(ours))
    return ours


def by_name(records) -> dict:
    return {r.name: r for r in records}


def test_stack_is_the_minimum_stack_size_where_the_maximum_is_zero(build):
    """CUDA 11.8 writes EIATTR_MAX_STACK_SIZE 0 for every kernel; the stack is the minimum (88 B here: the
    deepest indirect call's frame), which the reader took as 0 (the kernel's own frame)."""
    path = build("11.8", "sm_80")
    got = by_name(assert_as_cuobjdump(path))
    assert got["indirect_framed"].stack_bytes == 88
    assert got["calls_wide"].stack_bytes > 0 and got["u64_division"].stack_bytes == 0


@pytest.mark.parametrize("toolkit,arch", [("11.8", "sm_80"), ("13.5", "sm_90"), ("13.5", "sm_120")])
def test_an_unbounded_stack_is_unknown_everywhere_it_is_shown(build, toolkit, arch, tmp_path, capsys):
    path = build(toolkit, arch)
    recursive = by_name(assert_as_cuobjdump(path))["recursive"]
    assert recursive.stack_bytes is None and recursive.local_bytes == 0  # the old name: a number, for one release
    assert run_import([str(path), "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    row = next(r for r in json.loads(out) if r["name"] == "recursive")
    assert row["stack_bytes"] is None and row["local_bytes"] is None and row["stack_note"] == STACK_UNKNOWN
    assert all("stack_note" not in r for r in json.loads(out) if r["name"] != "recursive")
    assert f"stack {STACK_UNKNOWN}" in err and f"recursive ({arch})" in err
    assert run_import([str(path), "--no-cache"]) == 0
    table = capsys.readouterr().out.splitlines()
    head = table[0].split()
    line = next(line for line in table if line.endswith(" recursive"))
    assert line.split()[head.index("stack")] == "unknown"
    dump = tmp_path / "dump.txt"  # cuobjdump's own text reads the same (it failed on STACK:UNKNOWN)
    dump.write_text(cuobjdump_text(path))
    assert by_name(import_file(dump))["recursive"].stack_bytes is None


@pytest.mark.parametrize("toolkit,arch", [("11.8", "sm_80"), ("13.5", "sm_90"), ("13.5", "sm_100")])
def test_local_copies_are_not_listed(build, toolkit, arch):
    """With --all-functions the reader listed ptxas's copies (``$__internal_0_$__cuda_sm20_div_u64`` shown
    as ``__cuda_sm20_div_u64``, 0 registers): cuobjdump lists what owns a .text section, the kernels here."""
    records = assert_as_cuobjdump(build(toolkit, arch))
    assert {r.kind for r in records} == {"kernel"}
    assert "u64_division" in {r.name for r in records}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_100"])
def test_linked_device_functions_read_as_cuobjdump_prints_them(build, arch, tmp_path):
    """nvlink keeps each -rdc unit's device functions in .text sections of their own.  On sm_90+ cuobjdump
    prints REG 0 (their sh_info) and STACK 0 for them, where the reader printed EIATTR_REGCOUNT and the frame:
    equal cuobjdump (the choice documented in docs/intake.md, "Kernels and device functions")."""
    unit = build("13.5", arch, rdc=True)
    linked = tmp_path / f"linked_{arch}.cubin"
    toolchains.run([toolchains.nvcc13_bin() / "nvlink", f"-arch={arch}", unit, "-o", linked])
    records = assert_as_cuobjdump(linked)
    functions = {r.name: r for r in records if r.kind == "device_function"}
    assert {"_Z4widePKfi", "_Z6narrowPKfi", "_Z7recurseiPKi"} <= functions.keys()
    if arch != "sm_80":
        assert {(r.registers, r.stack_bytes) for r in functions.values()} == {(0, 0)}
    else:
        assert all(r.registers > 0 for r in functions.values())


def _without_arch_note(path: Path, tmp_path: Path) -> Path:
    """The image with its toolkit note's ``-arch`` blanked, as NVIDIA's own assembler writes the note (ptxas
    before 12.8 writes no note)."""
    data = path.read_bytes()
    out = tmp_path / f"noarch_{path.name}"
    out.write_bytes(data.replace(b"-arch ", b"-xxxx "))
    return out


def cuobjdump_elf_arch(path: Path) -> str:
    proc = subprocess.run([str(toolchains.cuobjdump()), "-elf", str(path)], capture_output=True, text=True, check=True)
    return "sm_" + re.search(r"\bsm=(\w+)", proc.stdout).group(1)


# (toolkit, arch, the image's ELF ABI): ABI 7 with its 0x800 bit, ABI 8 of ptxas 12.8/12.9 with its 0x08 bit,
# ABI 8 of ptxas 13.x with .nv.compat's accelerator target; family targets (f) are in no flag.
ARCH_CASES = [
    ("12.4", "sm_90", 7),
    ("12.4", "sm_90a", 7),
    ("12.9", "sm_90a", 7),
    ("12.9", "sm_100a", 8),
    ("12.9", "sm_103a", 8),
    ("12.9", "sm_100f", 8),
    ("12.9", "sm_120a", 8),
    ("13.0", "sm_100a", 8),
    ("13.5", "sm_90a", 8),
    ("13.5", "sm_100", 8),
    ("13.5", "sm_100a", 8),
    ("13.5", "sm_121a", 8),
    ("13.5", "sm_120f", 8),
]


@pytest.mark.parametrize("toolkit,arch,abi", ARCH_CASES, ids=[f"{t}-{a}" for t, a, _ in ARCH_CASES])
def test_arch_suffix_without_the_toolkit_note_as_cuobjdump_says(build, toolkit, arch, abi, tmp_path):
    path = build(toolkit, arch)
    assert path.read_bytes()[8] == abi  # EI_ABIVERSION
    assert {r.arch for r in import_file(path)} == {arch}  # the note names it
    bare = _without_arch_note(path, tmp_path)
    expected = cuobjdump_elf_arch(bare)
    assert expected == arch.rstrip("f")  # the family is in no flag: cuobjdump says sm_100 for sm_100f
    assert {r.arch for r in read_cubin(bare.read_bytes(), bare.name)} == {expected}


def test_image_without_functions_is_an_empty_listing(build, tmp_path, capsys):
    """An ELF image with no function (a unit that defines only a __device__ variable) lists nothing and exits
    0, as cuobjdump does; the reader exited 2 with no JSON."""
    source = tmp_path / "variable_only.cu"
    source.write_text("__device__ int counter[64];\n")
    fatbin = tmp_path / "variable_only.fatbin"
    toolchains.run([toolchains.nvcc13_bin() / "nvcc", "-fatbin", "-arch=sm_90", source, "-o", fatbin])
    result = import_file_detailed(fatbin)
    assert result.records == [] and result.no_functions and "no function" in result.notes[0]
    assert run_import([str(fatbin), "--json", "--no-cache"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert "Function" not in cuobjdump_text(fatbin)
