"""Session.set_catalog: a reloaded catalog replaces the old one and the device is looked up again."""

from __future__ import annotations

from dataclasses import replace

from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog
from occupancy_gui.session import Session


def test_set_catalog_recomputes_once_with_the_new_values() -> None:
    catalog = Catalog.load([data_dir("device_profiles")])
    session = Session(catalog, device="sm_90", threads=256, registers=64)
    heard: list[frozenset[str]] = []
    session.subscribe(heard.append)
    profile = catalog.get("sm_90")
    smaller = replace(profile, values={**profile.values, "regs_per_multiprocessor": 32768})
    session.set_catalog(Catalog([smaller if p is profile else p for p in catalog.profiles]))
    assert heard == [frozenset({"device"})]
    assert session.device.regs_per_multiprocessor == 32768
    assert session.result is not None and session.result.active_blocks == 2


def test_set_catalog_without_the_device_falls_back_to_the_first_profile() -> None:
    catalog = Catalog.load([data_dir("device_profiles")])
    session = Session(catalog, device="H100")
    remaining = Catalog([p for p in catalog.profiles if p.name != session.inputs.device])
    session.set_catalog(remaining)
    assert session.inputs.device == remaining.profiles[0].name
