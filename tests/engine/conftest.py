"""Fixtures for the engine tests: the reference harness and the devices to compare on."""

from __future__ import annotations

import pytest

from occupancy_gui.engine import DeviceProperties
from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog
from tests.harness.reference import Reference


@pytest.fixture(scope="session")
def reference() -> Reference:
    """The C++ harness built against the wheel's cuda_occupancy.h; failing to build is a test failure."""
    return Reference.build()


@pytest.fixture(scope="session")
def bundled_catalog() -> Catalog:
    return Catalog.load([data_dir("device_profiles")])


@pytest.fixture(scope="session")
def cc_devices(bundled_catalog: Catalog) -> dict[str, DeviceProperties]:
    """One device per compute capability profile (SM count 1, as the CC profiles have none)."""
    return {p.name: p.device_properties() for p in bundled_catalog.profiles if p.kind == "compute_capability"}


@pytest.fixture(scope="session")
def gpu_devices(bundled_catalog: Catalog) -> dict[str, DeviceProperties]:
    return {p.name: p.device_properties() for p in bundled_catalog.profiles if p.kind == "gpu"}
