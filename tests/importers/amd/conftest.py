from __future__ import annotations

import shutil

import pytest

from .build import device_bundles, host_set
from .reference import CLANG, READELF


def _need_tools() -> None:
    for tool in (CLANG, "ld.lld-19", READELF, "llvm-objdump-19", "clang-offload-bundler-19", "llvm-objcopy-19"):
        if shutil.which(tool) is None:
            pytest.skip(
                f"{tool} is not installed (the README's test command installs clang-19, lld-19, llvm-19 "
                "and clang-tools-19)"
            )


@pytest.fixture(scope="session")
def matrix(tmp_path_factory):
    """The device-only bundles of build.DEVICE_CONFIGS, unbundled by the reference bundler."""
    _need_tools()
    return device_bundles(tmp_path_factory.mktemp("amd-matrix"))


@pytest.fixture(scope="session")
def hosts(tmp_path_factory):
    """Host objects with plain and compressed bundles, and a static and a shared library of them."""
    _need_tools()
    return host_set(tmp_path_factory.mktemp("amd-hosts"))
