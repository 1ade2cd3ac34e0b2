"""Fixtures for the engine tests: the devices to compare on (the reference harness and the bundled catalog
are the suite's, in tests/conftest.py)."""

from __future__ import annotations

import pytest

from occupancy_gui.engine import DeviceProperties
from occupancy_gui.profiles import Catalog


@pytest.fixture(scope="session")
def cc_devices(bundled_catalog: Catalog) -> dict[str, DeviceProperties]:
    """One device per compute capability profile (SM count 1, as the CC profiles have none)."""
    return {p.name: p.device_properties() for p in bundled_catalog.profiles if p.kind == "compute_capability"}


@pytest.fixture(scope="session")
def gpu_devices(bundled_catalog: Catalog) -> dict[str, DeviceProperties]:
    return {p.name: p.device_properties() for p in bundled_catalog.profiles if p.kind == "gpu"}
