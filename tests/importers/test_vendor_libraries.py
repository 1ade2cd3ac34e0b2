"""NVIDIA's own libraries, read whole and compared with cuobjdump record for record.

The five libraries (curand, cublas, cublasLt, cufft, cusparse) come from their pinned pip wheels
at test time, in two releases (``toolchains.LIBRARY_RELEASES``).  For each, the records of the
fatbins the CUDA runtime registers are compared with ``cuobjdump --dump-resource-usage`` of the
library, and the records of the embedded fatbins (cublasLt's ``.cask_resource``, cufft's
``.data``/``.ldata``, curand 10.4.5's ``.data``, cusparse's ``.rodata``), which cuobjdump does not
look at, with cuobjdump of a fatbin file made of every container outside ``.nv_fatbin`` (and
``__nv_relfatbin``, the pre-link copies), found by its header (``tests/helpers/fatbin_containers.py``), not
by our reader.  cuobjdump refuses libcufft.so ("does
not contain device code"): all of its kernels are embedded, so that second comparison is the whole
check for it.

Compared as multisets, each record counted ``copies`` times: for kernels (name, arch, registers,
static shared memory less the sm_90+ reserved window, stack), both ways; for device functions
(name, arch), cuobjdump's within ours (it prints REG:0 for a device function nvlink gave a
register count, and omits the copies ptxas makes inside a kernel's code).  Stack is left
out for relocatable images, where cuobjdump prints STACK:0 and ptxas the function's frame (the
toolkit matrix checks those against ptxas).
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from occupancy_gui.importers import import_file_detailed
from occupancy_gui.importers.text.cuobjdump_text import parse_text
from tests.helpers import toolchains
from tests.helpers.fatbin_containers import embedded_containers, write_fatbin

pytestmark = pytest.mark.slow


def cuobjdump(path: Path, tool: Path | None = None) -> tuple[int, str]:
    """``cuobjdump --dump-resource-usage`` of ``path`` (the pinned one, or ``tool``): its exit status and text."""
    proc = subprocess.run(
        [str(tool or toolchains.cuobjdump()), "--dump-resource-usage", str(path)], capture_output=True, text=True
    )
    return proc.returncode, proc.stdout + (proc.stderr if proc.returncode else "")


def multiset(records, relocatable: set, count_copies: bool) -> Counter:
    out: Counter = Counter()
    for r in records:
        stack = "pre-link" if r.key in relocatable else r.stack_bytes
        out[(r.kind, r.name, r.arch, r.registers, r.static_smem, stack)] += r.copies if count_copies else 1
    return out


def compare(ours, text: str, what: str) -> None:
    """Every record of ``ours`` against cuobjdump's text, kernels and device functions alike, both ways:
    name, kind, arch, registers, static shared memory and stack (``None``: STACK:UNKNOWN)."""
    theirs = parse_text(text, what)
    kinds = {r.key: r.is_kernel for r in ours}
    for r in theirs:  # cuobjdump's text does not say which functions are kernels: ours does
        object.__setattr__(r, "is_kernel", kinds.get(r.key, True))
    relocatable = {r.key for r in ours if r.relocatable}
    mine = multiset(ours, relocatable, True)
    cuobj = multiset(theirs, relocatable, False)
    only_ours, only_theirs = mine - cuobj, cuobj - mine
    assert not only_ours and not only_theirs, (
        f"{what}: {sum(only_ours.values())} records only ours, {sum(only_theirs.values())} only cuobjdump's; "
        f"e.g. {sorted(only_ours, key=str)[:3]} / {sorted(only_theirs, key=str)[:3]}"
    )


@pytest.mark.parametrize("case", toolchains.library_cases(), ids=toolchains.library_case_id)
def test_library_matches_cuobjdump(case, tmp_path):
    path = toolchains.library_file(*case[1:], release=case[0])
    records = import_file_detailed(path).records
    assert records
    registered = [r for r in records if not r.embedded]
    embedded = [r for r in records if r.embedded]
    rc, text = cuobjdump(path)
    if rc and "does not contain device code" in text:
        assert not [r for r in registered if r.is_kernel], f"{path.name}: kernels cuobjdump says are not there"
    else:
        assert rc == 0, text[-500:]
        compare(registered, text, path.name)
    spans = embedded_containers(path)
    if spans:
        fatbin = tmp_path / "embedded.fatbin"
        write_fatbin(path, spans, fatbin)
        rc, text = cuobjdump(fatbin)
        assert rc == 0, text[-500:]
        compare(embedded, text, f"{path.name} (its {len(spans)} embedded containers)")
    else:
        assert not embedded, f"{path.name}: embedded records, but no container outside .nv_fatbin"
    sources = [r.source for r in records]
    assert len(set(sources)) == len(sources), "two records with one source"


WINDOWS_CURAND = toolchains.LIBRARY_RELEASES["newest"]["curand"]
"""A Windows build of a library this suite reads on Linux: its DLL is a PE file, which cuobjdump for
Linux refuses ("does not contain device code"), so the Linux build of the same release is the truth."""


def _portable(rec) -> tuple:
    """A record's figures with its demangled name as both ABIs spell it: the DLL's host compiler (MSVC)
    makes ``size_t`` ``unsigned long long`` where the Linux build has ``unsigned long``."""
    name = rec.demangled.replace("unsigned long long", "unsigned long").replace("long long", "long")
    return (
        name,
        rec.arch,
        rec.kind,
        rec.registers,
        rec.static_smem,
        rec.reserved_smem,
        rec.local_bytes,
        rec.barriers,
        rec.max_threads,
        rec.const_bytes,
        rec.relocatable,
        rec.embedded,
    )


def test_windows_dll_reads_as_the_linux_library():
    tree = toolchains.wheel_tree(WINDOWS_CURAND, platform="win_amd64")
    (dll,) = tree.glob("nvidia/*/bin/*/curand64_*.dll")
    ours = Counter()
    for rec in import_file_detailed(dll).records:
        ours[_portable(rec)] += rec.copies
    linux = Counter()
    for rec in import_file_detailed(toolchains.library_file("curand", "libcurand.so")).records:
        linux[_portable(rec)] += rec.copies
    # (every function cuobjdump lists, not ptxas's local copies: 3,043 records with them)
    assert sum(ours.values()) > 1700 and sum(n for key, n in ours.items() if key[-1]) > 1000  # .data's LTO fatbins
    assert ours == linux, (sorted(ours - linux)[:2], sorted(linux - ours)[:2])
