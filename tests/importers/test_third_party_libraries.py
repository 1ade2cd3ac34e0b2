"""Binaries NVIDIA did not build: bitsandbytes ships one library per CUDA toolkit it supports (11.8, 12.1,
12.4, 12.6, 12.8, 13.0, 13.2), each built by that toolkit's nvcc for sm_60 ... sm_120, so one wheel holds
seven toolkits' images, compiled on a build farm and not on this machine.  Every library equals cuobjdump,
registered and embedded, record for record (the vendor-library test's comparison).

cuobjdump 13.x stops at the second image of the CUDA 12.1 build ("Invalid ELF", after its sm_60 image's
203 functions; 13.1, 13.2 and 13.5 alike; 12.4 and 12.8 read all seven images): there the truth is
cuobjdump 12.8, the one Triton 3.5.1 bundles (its wheel is fetched for the Triton cache tests too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from occupancy_gui.importers import import_file_detailed
from tests.helpers import toolchains
from tests.importers.test_vendor_libraries import compare, cuobjdump

pytestmark = pytest.mark.slow

BITSANDBYTES = "bitsandbytes==0.50.2"
OLDER_CUOBJDUMP = "triton==3.5.1"
"""Its ``backends/nvidia/bin/cuobjdump`` is CUDA 12.8's."""
REFUSED_BY_CUOBJDUMP_13 = {"libbitsandbytes_cuda121.so"}


def _libraries() -> list[Path]:
    found = sorted((toolchains.wheel_tree(BITSANDBYTES) / "bitsandbytes").glob("libbitsandbytes_cuda*.so"))
    assert len(found) >= 7, found
    return found


def test_every_toolkit_build_equals_cuobjdump() -> None:
    older = toolchains.wheel_tree(OLDER_CUOBJDUMP) / "triton" / "backends" / "nvidia" / "bin" / "cuobjdump"
    for path in _libraries():
        records = import_file_detailed(path).records
        assert records and not [r for r in records if r.embedded], path.name
        rc, text = cuobjdump(path)
        if path.name in REFUSED_BY_CUOBJDUMP_13:
            assert rc != 0 and "Invalid ELF" in text, f"{path.name}: cuobjdump 13.5 reads it now: compare with it"
        else:
            assert rc == 0, text[-500:]
            compare(records, text, f"{path.name} (cuobjdump 13.5)")
        rc, text = cuobjdump(path, older)
        assert rc == 0, text[-500:]
        compare(records, text, f"{path.name} (cuobjdump 12.8)")
        assert {r.arch for r in records} >= {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}, path.name


FLASHINFER_CUBIN = "flashinfer-cubin==0.6.13"
"""15,970 standalone cubins (ELF ABI 8, CUDA 12.9): 588 of them, trtllm-gen's sm_100a/sm_103a FMHA kernels from
NVIDIA's own assembler, carry a toolkit note without ``-arch``: their ``a`` is in ``e_flags`` (0x08) alone (60
more such sm_100 cubins have none)."""


def test_cubins_of_nvidias_assembler_read_as_cuobjdump_says(tmp_path):
    """Every cubin whose note names no arch, and one of every other ``e_flags`` value, against ``cuobjdump -elf``'s
    arch and ``cuobjdump --dump-resource-usage``'s functions (the reader printed sm_100 for 1,176 records)."""
    import re
    import struct
    import subprocess
    import zipfile
    from collections import Counter

    from occupancy_gui.importers.binary.cubin import read_cubin
    from occupancy_gui.importers.text.cuobjdump_text import parse_text

    chosen, flags_seen = [], set()
    with zipfile.ZipFile(toolchains.wheel_file(FLASHINFER_CUBIN)) as wheel:
        for member in wheel.namelist():
            if member.endswith(".cubin"):
                data = wheel.read(member)
                flags = struct.unpack_from("<I", data, 48)[0]
                if re.search(rb"-arch[ =]+sm_", data) is None or flags not in flags_seen:
                    chosen.append((member, data))
                    flags_seen.add(flags)
    bare = [d for _, d in chosen if re.search(rb"-arch[ =]+sm_", d) is None]
    assert (len(bare), sum(struct.unpack_from("<I", d, 48)[0] & 0x08 != 0 for d in bare)) == (648, 588)
    tool = str(toolchains.cuobjdump())
    archs: Counter = Counter()
    refused = 0
    for member, data in chosen:
        path = tmp_path / "k.cubin"
        path.write_bytes(data)
        ours = read_cubin(data, member)
        # (cuobjdump -elf stops at "Invalid ELF" further into some of these, after the header line)
        header = subprocess.run([tool, "-elf", str(path)], capture_output=True, text=True).stdout
        expected = "sm_" + re.search(r"\bsm=(\w+)", header).group(1)
        note = re.search(rb"-arch[ =]+(sm_\w+)", data)
        assert {r.arch for r in ours} == {note.group(1).decode() if note else expected}, member
        proc = subprocess.run([tool, "--dump-resource-usage", str(path)], capture_output=True, text=True)
        if proc.returncode:
            refused += 1
            continue
        theirs = parse_text(proc.stdout, member)
        # (cuobjdump names no arch for a bare cubin: its SHARED is compared whole, the reserved window in it)
        assert Counter((r.name, r.registers, r.static_smem + r.reserved_smem, r.stack_bytes) for r in ours) == Counter(
            (r.name, r.registers, r.static_smem + r.reserved_smem, r.stack_bytes) for r in theirs
        ), member
        archs[next(iter({r.arch for r in ours}))] += len(ours)
    assert archs["sm_100a"] and archs["sm_103a"] and refused < len(chosen) // 10, (archs, refused)
