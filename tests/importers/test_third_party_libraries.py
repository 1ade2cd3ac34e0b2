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
from tests import toolchains
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
