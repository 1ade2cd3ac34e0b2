"""clang's CUDA objects: a whole-program object carries an ordinary ``.nv_fatbin``; a ``-fgpu-rdc``
object (clang's offload driver) carries relocatable cubins in an LLVM offload binary in its
``.llvm.offloading`` section, which cuobjdump does not read at all.

The fixtures (``tests/data/importers/clang``, built by ``regenerate_clang.sh`` with clang 22 and CUDA
13.5's ptxas) come with the truth: ptxas's ``-v`` lines of each build, cuobjdump's dump of the
whole-program object, and the images LLVM's own ``llvm-offload-binary`` extracted from the ``-rdc``
object with cuobjdump's dump of each.  The text is parsed here with regexes written apart from the
importers.  (cuobjdump's dump gives a device function of an sm_90+ relocatable image 0 registers where
its ``.nv.info`` — and ``cuobjdump -elf`` — say 24; nvcc's ``-rdc`` images show the same, so kernels are
compared with the dump and every function with the extracted image.)  Offload binaries of versions 2
and 3 (clang 23's multi-entry and compressed forms), which no clang here writes, are built by
``tests/helpers/offload_writer.py``, which follows LLVM's ``OffloadBinary.cpp``.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from occupancy_gui.importers import ImportFailure, import_file, import_file_detailed
from occupancy_gui.importers.binary.cubin import import_cubin
from occupancy_gui.importers.json_rows import record_json
from tests.helpers.offload_writer import OBJECT, PTX, offload_binary

from .conftest import GEN

CLANG = Path(__file__).resolve().parents[1] / "data" / "importers" / "clang"
_FUNCTION = re.compile(r"Function (\S+):\n\s+REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:\d+")
_ENTRY = re.compile(
    r"Compiling entry function '(\S+)' for '(\S+)'\n[^\n]*Function properties for \S+\n"
    r"\s+(\d+) bytes stack frame[^\n]*\n[^\n]*Used (\d+) registers, used (\d+) barriers"
    r"(?:, (\d+) bytes smem)?"
)


def cuobjdump_functions(text: str) -> dict[str, tuple[int, int, int]]:
    """Function -> (REG, SHARED, STACK) of one image's ``cuobjdump --dump-resource-usage``."""
    return {m[1]: (int(m[2]), int(m[4]), int(m[3])) for m in _FUNCTION.finditer(text)}


def ptxas_kernels(text: str) -> dict[tuple[str, str], tuple[int, int, int, int]]:
    """(kernel, arch) -> (registers, smem, stack frame, barriers) of ptxas's ``-v`` lines."""
    return {(m[1], m[2]): (int(m[4]), int(m[6] or 0), int(m[3]), int(m[5])) for m in _ENTRY.finditer(text)}


@pytest.mark.parametrize("name", ["whole.o", "rdc_program"])
def test_whole_program_object_and_linked_program_equal_cuobjdump(name):
    """clang wraps the cubins with NVIDIA's fatbinary, as nvcc does: a whole-program object, and the
    -fgpu-rdc object linked into a program (nvlink's images, the 1 KiB window back on sm_90a), read as any
    host binary; their kernels' figures are ptxas's."""
    records = import_file(CLANG / name)
    blocks = re.split(r"\narch = ", (CLANG / f"{name}.cuobjdump.txt").read_text())[1:]
    theirs = {
        (name, block.split("\n", 1)[0]): figures
        for block in blocks
        for name, figures in cuobjdump_functions(block).items()
    }
    ours = {
        (r.name, r.arch): (r.registers, r.static_smem + r.reserved_smem, r.local_bytes) for r in records if r.is_kernel
    }
    # The program's dump also lists the device function mix() (REG:0 on sm_90a: see the module docstring).
    assert ours == {key: figures for key, figures in theirs.items() if key[0] != "_Z3mixff"} and len(ours) == 6
    logged = ptxas_kernels((CLANG / ("whole.ptxas.log" if name == "whole.o" else "rdc.ptxas.log")).read_text())
    assert {
        (r.name, r.arch): (r.registers, r.static_smem, r.local_bytes, r.barriers) for r in records if r.is_kernel
    } == logged
    assert {r.arch: r.reserved_smem for r in records if r.name == "_Z5tiledPfPKfi"} == {"sm_80": 0, "sm_90a": 1024}


@pytest.mark.parametrize("name", ["rdc.o", "librdc.a"])
def test_rdc_offload_images_read_as_ptxas_and_cuobjdump_say(name):
    """Each relocatable cubin in the offload binary: the figures ptxas printed when it was compiled and
    cuobjdump's of the image extracted by llvm-offload-binary (no reserved window: relocatable)."""
    records = import_file(CLANG / name)
    assert {r.arch for r in records} == {"sm_80", "sm_90a"} and all(r.relocatable for r in records)
    logged = ptxas_kernels((CLANG / "rdc.ptxas.log").read_text())
    assert {
        (r.name, r.arch): (r.registers, r.static_smem, r.local_bytes, r.barriers) for r in records if r.is_kernel
    } == logged
    for arch in ("sm_80", "sm_90a"):
        extracted = import_cubin(CLANG / f"rdc.o.{arch}.cubin")
        assert _all_fields([r for r in records if r.arch == arch]) == _all_fields(extracted), arch
        theirs = cuobjdump_functions((CLANG / f"rdc.o.{arch}.cuobjdump.txt").read_text())
        assert {r.name: (r.registers, r.static_smem) for r in records if r.arch == arch and r.is_kernel} == {
            fn: (regs, shared) for fn, (regs, shared, _stack) in theirs.items() if fn != "_Z3mixff"
        }, arch
        assert all(r.reserved_smem == 0 for r in records if r.arch == arch)
    bounded = [r for r in records if r.name == "_Z7boundedPd"]
    assert [r.max_threads for r in bounded] == [128, 128]
    assert all(f"{name.split('.')[0]}" in r.source and ".llvm.offloading: offload image" in r.source for r in records)


def _all_fields(records) -> list[dict]:
    return sorted(
        ({k: v for k, v in record_json(r).items() if k != "source"} for r in records), key=lambda row: row["name"]
    )


@pytest.mark.parametrize("log,binary", [("whole.ptxas.log", "whole.o"), ("rdc.ptxas.log", "rdc.o")])
def test_clang_build_logs_read_as_the_objects(log, binary):
    """clang's ``-Xcuda-ptxas -v`` lines (with their "cumulative stack size") through the log importer."""

    def figures(path):
        return sorted(
            (r.name, r.arch, r.registers, r.static_smem, r.local_bytes, r.barriers)
            for r in import_file(CLANG / path)
            if r.is_kernel
        )

    assert figures(log) == figures(binary) and len(figures(log)) == 6


def test_openmp_target_offload_object():
    """OpenMP target offload writes the same offload binary (producer "openmp"): its outlined kernel and
    device functions read as the image llvm-offload-binary extracts."""
    records = import_file(CLANG / "omp.o")
    assert _all_fields(records) == _all_fields(import_cubin(CLANG / "omp.o.sm_80.cubin"))
    (kernel,) = [r for r in records if r.is_kernel]
    assert kernel.name.startswith("__omp_offloading_") and kernel.arch == "sm_80" and kernel.relocatable


def test_lto_object_says_why_it_lists_nothing():
    """-foffload-lto keeps LLVM bitcode: there are no figures before the device link, and the message says so."""
    with pytest.raises(ImportFailure) as failure:
        import_file_detailed(CLANG / "lto.o")
    text = str(failure.value)
    assert "lto.o" in text and "2 LLVM bitcode images for nvptx64-nvidia-cuda (sm_80, sm_90a)" in text
    assert "-foffload-lto" in text and "linked executable" in text and "\n" not in text


# --- offload binaries written here, in each version ---------------------------------------------------


def _nvptx(arch: str) -> dict[str, str]:
    return {"triple": "nvptx64-nvidia-cuda", "arch": arch}


SM80, SM120 = (GEN / "a_sm80.cubin").read_bytes(), (GEN / "a_sm120.cubin").read_bytes()


def _figures(records) -> set[tuple]:
    return {
        (r.name, r.arch, r.registers, r.static_smem, r.reserved_smem, r.local_bytes, r.max_threads) for r in records
    }


EXPECTED = _figures(import_cubin(GEN / "a_sm80.cubin")) | _figures(import_cubin(GEN / "a_sm120.cubin"))


@pytest.mark.parametrize("version,compress", [(2, ""), (3, ""), (3, "zlib"), (3, "zstd")])
def test_every_version_and_compression_reads_as_the_cubins(version, compress, tmp_path):
    """Two images in one binary (version 2+), or compressed (version 3): the records of the cubins."""
    path = tmp_path / "device.bin"  # a bare offload binary, as llvm-offload-binary -o writes one
    path.write_bytes(
        offload_binary(version, [(OBJECT, _nvptx("sm_80"), SM80), (OBJECT, _nvptx("sm_120"), SM120)], compress)
    )
    assert _figures(import_file(path)) == EXPECTED


def test_binaries_end_to_end_and_padding(tmp_path):
    """Several binaries in one section, each 8-aligned, zero padding after the last (as a linker merges them)."""
    one = offload_binary(1, [(OBJECT, _nvptx("sm_80"), SM80)])
    two = offload_binary(3, [(OBJECT, _nvptx("sm_120"), SM120)], "zlib")
    path = tmp_path / "merged.bin"
    path.write_bytes(one + two + bytes(-len(two) % 8) + bytes(64))
    assert _figures(import_file(path)) == EXPECTED


def test_ptx_and_foreign_images(tmp_path):
    """PTX alone fails as a PTX-only fatbin does; another vendor's image is a note beside the records."""
    ptx_only = tmp_path / "ptx.bin"
    ptx_only.write_bytes(offload_binary(2, [(PTX, _nvptx("sm_80"), b".version 8.0\n.target sm_80\n")]))
    with pytest.raises(ImportFailure, match="only 1 PTX entry"):
        import_file(ptx_only)
    mixed = tmp_path / "mixed.bin"
    mixed.write_bytes(
        offload_binary(
            2,
            [(OBJECT, _nvptx("sm_80"), SM80), (OBJECT, {"triple": "amdgcn-amd-amdhsa", "arch": "gfx90a"}, b"\x7fELF")],
        )
    )
    result = import_file_detailed(mixed)
    assert {r.arch for r in result.records} == {"sm_80"}
    assert result.notes == [
        f"{mixed}: 1 object image for amdgcn-amd-amdhsa (gfx90a) in mixed.bin skipped: "
        "not NVIDIA device code this reader can list"
    ]


def _failure(tmp_path, data: bytes) -> str:
    path = tmp_path / "bad.bin"
    path.write_bytes(data)
    with pytest.raises(ImportFailure) as failure:
        import_file(path)
    text = str(failure.value)
    assert "bad.bin" in text and "\n" not in text
    return text


def test_damaged_binaries_fail_with_one_line(tmp_path):
    good = offload_binary(2, [(OBJECT, _nvptx("sm_80"), SM80), (OBJECT, _nvptx("sm_120"), SM120)])
    assert "version 9 is not one this reader knows" in _failure(tmp_path, good[:4] + struct.pack("<I", 9) + good[8:])
    assert "does not fit its section" in _failure(tmp_path, good[: len(good) // 2])
    many = good[:24] + struct.pack("<Q", 10**6) + good[32:]
    assert "entries" in _failure(tmp_path, many)
    image_past = bytearray(good)
    struct.pack_into("<Q", image_past, 32 + 32, len(good))  # entry 1's image offset at the binary's end
    assert "outside the binary" in _failure(tmp_path, bytes(image_past))
    bomb = offload_binary(3, [(OBJECT, _nvptx("sm_80"), SM80)], "zlib")
    assert "budget of 1073741824 bytes held at once" in _failure(
        tmp_path, bomb[:32] + struct.pack("<Q", 1 << 40) + bomb[40:]
    )
    short = bytearray(bomb)
    struct.pack_into("<Q", short, 32, struct.unpack_from("<Q", bomb, 32)[0] + 8)
    assert "inflated to" in _failure(tmp_path, bytes(short))
    assert "zlib data is corrupt" in _failure(tmp_path, bomb[:40] + bytes(len(bomb) - 40))


def test_every_truncation_fails_cleanly(tmp_path):
    """Whatever prefix of a binary is left, the import answers with records or one ImportFailure."""
    data = offload_binary(3, [(OBJECT, _nvptx("sm_80"), SM80), (OBJECT, _nvptx("sm_120"), SM120)], "zstd")
    path = tmp_path / "cut.bin"
    for end in range(8, len(data), 97):
        path.write_bytes(data[:end])
        with pytest.raises(ImportFailure):
            import_file(path)
