"""The reference harness fixture for the replay tests."""

from __future__ import annotations

import pytest

from tests.harness.reference import Reference


@pytest.fixture(scope="session")
def reference() -> Reference:
    return Reference.build()
