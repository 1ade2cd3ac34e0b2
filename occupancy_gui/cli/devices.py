"""Device lookup and listing for the CLI."""

from __future__ import annotations

import json
from typing import Any

from ..engine import (
    DeviceProperties,
    max_blocks_per_multiprocessor,
    reg_allocation_granularity,
    reg_allocation_max_per_thread,
    smem_allocation_granularity,
    sub_partitions_per_multiprocessor,
)
from ..paths import data_dir
from ..profiles import Catalog, DeviceProfile, ProfileError, default_catalog, parse_profile


class DeviceLookupError(ValueError):
    """A query's device is neither a known profile name nor a valid profile mapping."""


def load_catalog() -> Catalog:
    """The bundled and user profiles (a broken user profile is reported, never fatal)."""
    return default_catalog(data_dir("device_profiles"))


def device_from_query(value: object, catalog: Catalog, where: str) -> DeviceProperties:
    """A batch query's ``device``: a profile name, or a mapping in the profile schema."""
    if isinstance(value, str):
        try:
            return catalog.get(value).device_properties()
        except KeyError as exc:
            raise DeviceLookupError(f"device: {exc.args[0] if exc.args else value}") from None
    if isinstance(value, dict):
        try:
            raw = parse_profile(json.dumps(value), source=f"{where} device")
            return catalog.resolve(raw).device_properties()
        except ProfileError as exc:
            raise DeviceLookupError(str(exc)) from None
    raise DeviceLookupError("device: required (a profile name or a profile mapping)")


def profile_to_json(profile: DeviceProfile) -> dict[str, Any]:
    """Every limit of a profile, with its SM count where known and the architecture's own constants."""
    cc = profile.compute_capability
    return {
        "name": profile.name,
        "kind": profile.kind,
        "title": profile.title,
        "compute_capability": profile.cc_string,
        "architecture": profile.architecture,
        "segment": profile.segment,
        "aliases": list(profile.aliases),
        "sm_count": profile.sm_count,
        "user": profile.user,
        "limits": dict(profile.values),
        "architecture_limits": {
            "max_blocks_per_multiprocessor": max_blocks_per_multiprocessor(cc),
            "register_allocation_unit": reg_allocation_granularity(cc),
            "max_registers_per_thread": reg_allocation_max_per_thread(cc),
            "shared_memory_allocation_unit": smem_allocation_granularity(cc),
            "sub_partitions": sub_partitions_per_multiprocessor(cc),
        },
        "sources": dict(profile.sources),
    }


def profiles_to_text(profiles: list[DeviceProfile]) -> str:
    """One line per profile: name, CC, SMs, the limits people compare most."""
    header = f"{'name':34} {'CC':>5} {'SMs':>4} {'thr/SM':>6} {'blk/SM':>6} {'regs/SM':>7} {'smem/SM':>8} {'smem/blk opt-in':>15}"
    lines = [header, "-" * len(header)]
    for p in profiles:
        v = p.values
        sms = "-" if p.sm_count is None else str(p.sm_count)
        lines.append(
            f"{p.name[:34]:34} {p.cc_string:>5} {sms:>4} {v['max_threads_per_multiprocessor']:>6} "
            f"{max_blocks_per_multiprocessor(p.compute_capability):>6} {v['regs_per_multiprocessor']:>7} "
            f"{v['shared_mem_per_multiprocessor']:>8} {v['shared_mem_per_block_optin']:>15}"
            + ("  (user)" if p.user else "")
        )
    return "\n".join(lines)
