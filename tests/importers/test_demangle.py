from __future__ import annotations

import shutil
import subprocess

import pytest

from occupancy_gui.importers.demangle import demangle

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
}


@pytest.mark.parametrize("mangled,expected", sorted(CASES.items()))
def test_demangle(mangled, expected):
    assert demangle(mangled) == expected


@pytest.mark.parametrize("bad", ["_Z", "_ZN3fooE", "_Z3fo", "_ZN7cutlass6KernelIXadL_Z1fvEEEEvv", "_Z1fILi", "_ZZ"])
def test_unsupported_or_broken_names_come_back_unchanged(bad):
    out = demangle(bad)
    assert isinstance(out, str)
    if bad != "_ZN3fooE":
        assert out == bad


def test_clone_suffix():
    assert demangle("_Z5heavyPKfi$1") == "heavy(float const*, int) [clone $1]"


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt not installed")
def test_agrees_with_cxxfilt():
    names = [n for n in CASES if n != "plain_c_kernel"]
    out = subprocess.run(["c++filt", *names], capture_output=True, text=True, check=True).stdout.split("\n")
    for name, ref in zip(names, out):
        assert demangle(name) == ref, name
