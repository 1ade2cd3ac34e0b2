"""The start-up cache of the device catalog: same profiles as the YAML, invalidated by any change."""

from __future__ import annotations

import os

from occupancy_gui.paths import data_dir
from occupancy_gui.profiles import Catalog
from occupancy_gui.ui.support import catalog_cache

USER_PROFILE = """\
schema: 1
name: Lab Card
kind: gpu
inherits: sm_86
architecture: Ampere
segment: workstation
sm_count:
  value: 10
  source: our lab's deviceQuery output
"""


def test_cache_round_trip_and_invalidation(tmp_path, monkeypatch):
    bundled, user, cache = data_dir("device_profiles"), tmp_path / "user", tmp_path / "cache.json"
    user.mkdir()
    fresh = Catalog.load([bundled], [user])
    first = catalog_cache.load_catalog(bundled, user, cache)
    assert cache.is_file() and first.profiles == fresh.profiles

    def no_yaml(*_args, **_kwargs):
        raise AssertionError("the cache should have answered")

    monkeypatch.setattr(Catalog, "load", no_yaml)
    second = catalog_cache.load_catalog(bundled, user, cache)
    assert second.profiles == fresh.profiles
    assert second.get("sm_100").device_properties() == fresh.get("sm_100").device_properties()
    monkeypatch.undo()

    (user / "lab.yaml").write_text(USER_PROFILE)  # a new user profile: the cache no longer matches
    third = catalog_cache.load_catalog(bundled, user, cache)
    assert third.get("Lab Card").user and third.get("Lab Card").sm_count == 10
    stamp = (user / "lab.yaml").stat().st_mtime_ns
    (user / "lab.yaml").write_text(USER_PROFILE.replace("value: 10", "value: 12"))
    os.utime(user / "lab.yaml", ns=(stamp + 10**9, stamp + 10**9))
    assert catalog_cache.load_catalog(bundled, user, cache).get("Lab Card").sm_count == 12


def test_damaged_cache_is_ignored(tmp_path):
    bundled, cache = data_dir("device_profiles"), tmp_path / "cache.json"
    cache.write_text("{not json")
    catalog = catalog_cache.load_catalog(bundled, tmp_path / "none", cache)
    assert catalog.get("sm_90").name == "sm_90"
    assert cache.read_text().startswith("{")  # rewritten


def test_user_profile_errors_are_not_cached(tmp_path):
    bundled, user, cache = data_dir("device_profiles"), tmp_path / "user", tmp_path / "cache.json"
    user.mkdir()
    (user / "bad.yaml").write_text("schema: 1\nname: Bad\nkind: gpu\n")
    catalog = catalog_cache.load_catalog(bundled, user, cache)
    assert catalog.errors and not cache.exists()
