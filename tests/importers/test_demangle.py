"""demangle() against binutils' ``c++filt --no-recurse-limit``, the spelling it promises.

The slow test runs every ``_Z`` name of five NVIDIA libraries, in two releases, through both (how
many cuobjdump prints of each: ``CUOBJDUMP_Z_NAMES``).  The names are the function names of every
CUDA ELF in the library, as cuobjdump reads them, plus the names of the binary reader's records (a
few device functions cuobjdump does not list).  cuobjdump itself only looks at ``.nv_fatbin`` (it
refuses libcufft.so: "does not contain device code"): libcufft 12.0 keeps all 23,984 of its fatbins
in ``.ldata`` (12.5: 18,227 in ``.data`` and ``.ldata``), libcublasLt some in ``.cask_resource``.
So the fatbins are found by their 16-byte header wherever they are, and their entries handed to
cuobjdump as one fatbin.  A scan of the library's bytes for ``_Z`` strings would not do: most
entries are compressed (it finds 60 of libcufft's 943 names).
"""

from __future__ import annotations

import mmap
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from occupancy_gui.importers.names import demangle as demangle_module
from occupancy_gui.importers.names import demangle_fallback
from occupancy_gui.importers.names.demangle import demangle
from tests.helpers import toolchains
from tests.helpers.fatbin_containers import HEADER, containers

CXXFILT = shutil.which("c++filt")
needs_cxxfilt = pytest.mark.skipif(CXXFILT is None, reason="c++filt (binutils) not installed")

CASES = {
    "_ZN3occ9tiled_sumILi512EEEvPKfPfi": "void occ::tiled_sum<512>(float const*, float*, int)",
    "_Z14named_barriersPf": "named_barriers(float*)",
    "plain_c_kernel": "plain_c_kernel",
    "_Z11local_arrayP4Pairi": "local_array(Pair*, int)",
    "_Z3fooIiEvT_": "void foo<int>(int)",
    "_ZN2ns3BarIfE3runEPS1_": "ns::Bar<float>::run(ns::Bar<float>*)",
    "_Z3addIfLj128EEvPT_S1_S1_": "void add<float, 128u>(float*, float*, float*)",
    "_Z1fPFviE": "f(void (*)(int))",
    "_Z6reduceIN3cub3SumEEvPKdPdT_": "void reduce<cub::Sum>(double const*, double*, cub::Sum)",
    "_ZN12_GLOBAL__N_16kernelEPi": "(anonymous namespace)::kernel(int*)",
    "_Z1fRKSt6vectorIiSaIiEE": "f(std::vector<int, std::allocator<int> > const&)",
    "_Z10foo_kernelILin3EEvv": "void foo_kernel<-3>()",
    "_ZN3occ6detail5applyINS_4PlusELi2EEEvPT_": "void occ::detail::apply<occ::Plus, 2>(occ::Plus*)",
    "_Z4testILm64ELx7EEvv": "void test<64ul, 7ll>()",
    "_Z6kernelILb1EEvPK6__halfPS0_": "void kernel<true>(__half const*, __half*)",
    "_Z7kernel2PrKfPrf": "kernel2(float const restrict*, float restrict*)",
    "_ZN3fooE": "foo",
    # An expression as a template argument, and a pack expansion: beyond the old hand-written demangler.
    "_ZN7cutlass6KernelIXadL_Z1fvEEEEvv": "void cutlass::Kernel<&(f())>()",
    "_Z1fIJifEEvDpPT_": "void f<int, float>(int*, float*)",
    # Clone suffixes, one [clone] each.
    "_Z5heavyPKfi.cold": "heavy(float const*, int) [clone .cold]",
    "_Z1fv.isra.0.cold": "f() [clone .isra.0] [clone .cold]",
    # c++filt's DMGL_VERBOSE: the standard substitutions in full (__cxa_demangle abbreviates them).
    "_Z1fSs": "f(std::basic_string<char, std::char_traits<char>, std::allocator<char> >)",
    "_ZNSs4sizeEv": "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::size()",
    "_Z1fRSiRSoRSd": "f(std::basic_istream<char, std::char_traits<char> >&, "
    "std::basic_ostream<char, std::char_traits<char> >&, "
    "std::basic_iostream<char, std::char_traits<char> >&)",
    "_ZNSsC1Ev": "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string()",
    "_Z1fSt6string": "f(std::string)",  # a class named string, not the substitution
}
# c++filt leaves these as they are: broken names, and nvlink's "$1" / "$kernel$function" suffixes.
UNCHANGED = [
    "_Z",
    "_Z3fo",
    "_Z1fILi",
    "_ZZ",
    "_ZN3fooE.cold",
    "_Z5heavyPKfi$1",
    "_Z12spill_kernelPKfPfi$_Z5heavyPKfi",
    "_Z" + "N" * 300,
    "_Z" + "P" * 100_000 + "i",
]
# Past Python's recursion limit: c++filt prints "f(int*...*)", the fallback gives up.
TOO_DEEP = "_Z1f" + "P" * 100_000 + "i"


def cxxfilt(names: list[str]) -> list[str]:
    """``c++filt --no-recurse-limit`` of each name: one process, one name a line on its stdin."""
    assert all(re.fullmatch(r"[A-Za-z0-9_$.]+", n) for n in names), "c++filt would split such a line"
    proc = subprocess.run(
        [str(CXXFILT), "--no-recurse-limit"],
        input="".join(n + "\n" for n in names),
        capture_output=True,
        text=True,
        check=True,
    )
    out = proc.stdout.split("\n")
    assert out[-1] == "" and len(out) == len(names) + 1
    return out[:-1]


@pytest.mark.parametrize("mangled,expected", sorted(CASES.items()))
def test_demangle(mangled, expected):
    assert demangle(mangled) == expected


@pytest.mark.parametrize("bad", UNCHANGED, ids=lambda s: s[:40])
def test_broken_names_come_back_unchanged(bad):
    assert demangle(bad) == bad


@pytest.mark.parametrize("odd", ["", "k", "a b", "_Z3f\0oi", "_Z3fo\0", "_Z1f\ud800", "\ud800", TOO_DEEP])
def test_never_raises(odd):
    assert demangle(odd) == odd


def test_utf8_identifiers():
    assert (
        demangle("_Z3f\u00e9v") == "f\u00e9()"
    )  # "3": a length in bytes, as in c++filt (given the name as an argument)


def long_name(n: int) -> str:
    """A function template over ``n`` distinct class types: over 1024 characters from n = 70."""
    args = "".join(f"N2ns3FooILi{k}EEE" for k in range(n))
    return f"_Z1fIJ{args}EEvv"


@needs_cxxfilt
def test_agrees_with_cxxfilt():
    # libstdc++'s __cxa_demangle takes names of up to 1024 bytes: simple ones either side of that.
    simple = [f"_Z{n - 7}{'a' * (n - 7)}v" for n in (1024, 1025)]
    names = [n for n in [*CASES, *UNCHANGED] if n != "plain_c_kernel"] + [long_name(70), long_name(400), *simple]
    for name, ref in zip(names, cxxfilt(names)):
        assert demangle(name) == ref, name


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="libstdc++ is the Linux runtime")
def test_linux_uses_binutils_libiberty_else_libstdcxx():
    kinds = [kind for kind, _ in demangle_module.runtimes()]
    assert kinds[-1] == "libstdc++"
    if CXXFILT is not None and Path("/usr/lib/x86_64-linux-gnu").glob("libbfd*.so"):  # binutils installed
        assert kinds[0] == "binutils", kinds


def _libstdcxx():
    return next(found for found in demangle_module.runtimes() if found[0] == "libstdc++")


@pytest.fixture
def through_libstdcxx(monkeypatch):
    """demangle() as a system without binutils' libbfd runs it: libstdc++, and the fallback past 1,024."""
    monkeypatch.setattr(demangle_module, "runtime", _libstdcxx)
    demangle.cache_clear()
    yield
    demangle.cache_clear()


@needs_cxxfilt
def test_names_libstdcxx_refuses_for_length_go_to_the_fallback(through_libstdcxx):
    name = long_name(70)
    assert len(name) > 1024
    assert _libstdcxx()[1](name.encode()) is None  # libiberty's recursion limit
    assert demangle(name) == demangle_fallback.demangle(name) == cxxfilt([name])[0]


# Past libstdc++'s 1,024 characters (so through the fallback where binutils' libbfd is not there): an empty
# trailing pack after a template argument (c++filt closes with ">>": libiberty takes back the ", " it wrote
# before the empty pack but remembers the blank), and lambdas' closure types.  The fallback printed "> >"
# and left the lambdas mangled.
PAST_1024 = [
    f"_Z1fIJ{''.join(f'N2ns3FooILi{k}EEE' for k in range(80))}1AI1BIiEJEEEEvv",
    f"_Z1fIJ{''.join(f'N2ns3FooILi{k}EEE' for k in range(80))}EZ4mainEUlvE_Evv",
    f"_Z1fIJ{''.join(f'N2ns3FooILi{k}EEE' for k in range(80))}EZ4mainEUlifE0_Evv",
    f"_ZN1XIJ{''.join(f'N2ns3FooILi{k}EEE' for k in range(80))}EE1hI1AI1BIiEJEEEEvv",
]


@needs_cxxfilt
@pytest.mark.parametrize("name", PAST_1024, ids=["empty-pack", "lambda", "lambda-args", "member-empty-pack"])
def test_long_names_with_empty_packs_and_lambdas_as_cxxfilt_prints_them(name, through_libstdcxx):
    assert len(name) > 1024
    ref = cxxfilt([name])[0]
    assert ref != name
    assert demangle_fallback.demangle(name) == ref
    assert demangle(name) == ref
    for kind, call in demangle_module.runtimes():
        if kind == "binutils":
            assert call(name.encode()).decode() == ref


def test_without_a_runtime_the_fallback_demangles(monkeypatch):
    monkeypatch.setattr(demangle_module, "runtime", lambda: None)
    demangle.cache_clear()
    try:
        assert demangle("_ZN3occ9tiled_sumILi512EEEvPKfPfi") == "void occ::tiled_sum<512>(float const*, float*, int)"
        assert demangle("_Z1fIJifEEvDpPT_") == "_Z1fIJifEEvDpPT_"  # pack expansions: left mangled
    finally:
        demangle.cache_clear()


@needs_cxxfilt
def test_fallback_is_never_wrong_on_the_cases():
    names = [n for n in CASES if n != "plain_c_kernel"]
    for name, ref in zip(names, cxxfilt(names)):
        assert demangle_fallback.demangle(name) in (ref, name), name


def test_buffers_are_freed():
    """200,000 calls do not grow the process by the 12 MB or more the unfreed buffers would take."""
    found = demangle_module.runtime()
    if found is None or not Path("/proc/self/statm").exists():
        pytest.skip("no C++ runtime demangler, or no /proc")
    call = found[1]
    name = b"_ZN3occ9tiled_sumILi512EEEvPKfPfi"

    def rss() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * mmap.PAGESIZE

    for _ in range(10_000):
        call(name)
    before = rss()
    for _ in range(200_000):
        call(name)
    assert rss() - before < 4 << 20


# -- every _Z name of five NVIDIA libraries ----------------------------------------------------------

# Distinct _Z function names cuobjdump prints for each (pinned wheels, pinned cuobjdump), by release.
CUOBJDUMP_Z_NAMES = {
    "earlier": {
        "libcurand.so": 281,
        "libcublas.so": 3589,
        "libcublasLt.so": 5368,
        "libcufft.so": 943,
        "libcusparse.so": 5325,
    },
    "newest": {
        "libcurand.so": 27,
        "libcublas.so": 3723,
        "libcublasLt.so": 6247,
        "libcufft.so": 1042,
        "libcusparse.so": 6355,
    },
}


def cuobjdump_names(library: Path, scratch: Path) -> set[str]:
    """Function names cuobjdump prints for the entries of every fatbin in ``library``, gathered into one."""
    with open(library, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        spans = containers(m)
        assert spans, f"{library.name}: no fatbin"
        with open(scratch, "wb") as out:  # one container holding every container's entries
            out.write(HEADER + struct.pack("<Q", sum(n - 16 for _, n in spans)))
            for at, n in spans:
                out.write(m[at + 16 : at + n])
    proc = subprocess.run(
        [str(toolchains.cuobjdump()), "--dump-resource-usage", str(scratch)],
        capture_output=True,
        text=True,
        check=False,
    )
    scratch.unlink()
    assert proc.returncode == 0, proc.stderr[-500:]
    return set(re.findall(r"^ Function ([^\s:]+):$", proc.stdout, re.MULTILINE))


@pytest.mark.slow
@pytest.mark.parametrize("case", toolchains.library_cases(), ids=toolchains.library_case_id)
def test_every_library_name_as_cxxfilt_prints_it(case, tmp_path, monkeypatch):
    if CXXFILT is None:
        pytest.skip("c++filt (binutils) not installed")
    from occupancy_gui.importers import import_file_detailed

    release, wheel, stem = case
    library = toolchains.library_file(wheel, stem, release)
    listed = {n for n in cuobjdump_names(library, tmp_path / "all.fatbin") if n.startswith("_Z")}
    assert len(listed) == CUOBJDUMP_Z_NAMES[release][stem]
    names = sorted(listed | {r.name for r in import_file_detailed(library).records if r.name.startswith("_Z")})
    assert_as_cxxfilt(names, monkeypatch)


def assert_as_cxxfilt(names: list[str], monkeypatch) -> None:
    """Every name through every demangler this system has, held to c++filt name for name: binutils' libiberty
    (what demangle() takes where it is there), libstdc++ with the fallback past 1,024 characters (what it takes
    where it is not), and the pure-Python fallback alone (Windows), which may leave a name mangled (expressions
    in template arguments, dependent names) but never prints one otherwise."""
    refs = cxxfilt(names)
    wrong = [(n, demangle(n), ref) for n, ref in zip(names, refs) if demangle(n) != ref]
    assert not wrong, f"{len(wrong)} of {len(names)} names unlike c++filt, e.g. {wrong[:2]}"
    assert max(map(len, names)) <= demangle_module._BINUTILS_MAX_LEN
    for kind, call in demangle_module.runtimes():
        if kind == "binutils":
            wrong = [n for n, ref in zip(names, refs) if (call(n.encode()) or n.encode()).decode() != ref]
            assert not wrong, f"binutils' libiberty: {len(wrong)} names unlike c++filt, e.g. {wrong[:2]}"
    monkeypatch.setattr(demangle_module, "runtime", _libstdcxx)
    demangle.cache_clear()
    try:
        wrong = [(n, demangle(n), ref) for n, ref in zip(names, refs) if demangle(n) != ref]
    finally:
        demangle.cache_clear()
    assert not wrong, f"libstdc++ and the fallback: {len(wrong)} of {len(names)} unlike c++filt, e.g. {wrong[:2]}"
    fallback_wrong = [n for n, ref in zip(names, refs) if demangle_fallback.demangle(n) not in (ref, n)]
    assert not fallback_wrong, fallback_wrong[:2]


@pytest.mark.slow
def test_every_third_party_and_fixture_name_as_cxxfilt_prints_it(monkeypatch):
    """bitsandbytes' seven builds (compiled off this machine by CUDA 11.8-13.2) and the suite's own fixtures."""
    if CXXFILT is None:
        pytest.skip("c++filt (binutils) not installed")
    from occupancy_gui.importers import import_file_detailed
    from tests.importers.test_third_party_libraries import _libraries

    names: set[str] = set()
    data = Path(__file__).resolve().parents[1] / "data" / "importers"
    paths = [
        *_libraries(),
        *sorted(data.glob("gen/*.cubin")),
        *sorted(data.glob("gen/*.fatbin")),
        *sorted(data.glob("gen/*.o")),
        data / "clang" / "rdc.o",
        data / "clang" / "omp.o",
    ]
    for path in paths:
        names |= {r.name for r in import_file_detailed(path).records if r.name.startswith("_Z")}
    assert len(names) > 200
    assert_as_cxxfilt(sorted(names), monkeypatch)
