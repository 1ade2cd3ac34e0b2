"""Device lookup and listing for the CLI, both vendors': a name is looked up among NVIDIA's profiles, then
AMD's (``device_profiles/amd/``, read on first need)."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from ..profiles import AmdCatalog, AmdProfile


class DeviceLookupError(ValueError):
    """A query's device is neither a known profile name nor a valid profile mapping."""


def load_catalog() -> Catalog:
    """The bundled and user profiles (a broken user profile is reported, never fatal)."""
    return default_catalog(data_dir("device_profiles"))


def amd_catalog() -> AmdCatalog:
    """The bundled AMD profiles, read once (a broken bundled file is a ``ProfileError``)."""
    from ..amd_question import bundled_catalog  # noqa: PLC0415 - lazy: an NVIDIA device needs neither the AMD engine nor its files

    return bundled_catalog()


def find_device(name: str, catalog: Catalog) -> DeviceProfile | AmdProfile:
    """The NVIDIA profile called ``name``, else the AMD one; ``KeyError`` (one line, the closest names of both
    vendors) if neither (``amd_question.find_device``, the window's lookup too)."""
    try:
        return catalog.get(name)
    except KeyError:
        pass
    from ..amd_question import find_device as find_either  # noqa: PLC0415 - lazy: as amd_catalog

    return find_either(name, catalog, amd_catalog)


def device_from_query(value: object, catalog: Catalog, where: str) -> DeviceProperties | AmdProfile:
    """A batch query's ``device``: a profile name (an AMD one gives its profile), or a mapping in the NVIDIA
    profile schema."""
    if isinstance(value, str):
        try:
            found = find_device(value, catalog)
        except KeyError as exc:
            raise DeviceLookupError(f"device: {exc.args[0] if exc.args else value}") from None
        except ProfileError as exc:
            raise DeviceLookupError(f"device: {exc}") from None
        return found.device_properties() if isinstance(found, DeviceProfile) else found
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
        "vendor": "nvidia",
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


def amd_profile_to_json(profile: AmdProfile) -> dict[str, Any]:
    """An AMD profile: its target, its CUs as the hardware has them and as HIP reports ``multiProcessorCount``,
    the defaults a kernel takes, and every limit of the target with its source."""
    target, device = profile.target, profile.device()
    limits = {f.name: getattr(target, f.name) for f in dataclasses.fields(target) if f.name != "name"}
    return {
        "vendor": "amd",
        "name": profile.name,
        "kind": profile.kind,
        "title": profile.title,
        "target": target.name,
        "architecture": profile.architecture,
        "segment": profile.segment,
        "aliases": list(profile.aliases),
        "compute_units": profile.compute_units,
        "hip_multiprocessor_count": profile.hip_multiprocessor_count,
        "wave_size": target.default_wave_size,
        "wave_sizes": list(target.wave_sizes()),
        "wgp_mode": device.runtime_wgp_mode if target.has_wgp else None,
        "lds_per_workgroup": target.lds_per_workgroup,
        "limits": limits,
        "notes": profile.notes,
        "sources": dict(profile.sources),
    }


def amd_profiles_to_text(profiles: list[AmdProfile]) -> str:
    """One line per AMD profile: name, target, CUs (and HIP's count), wave size, WGP mode, the limits people
    compare most."""
    header = (
        f"{'name':34} {'target':8} {'CUs':>4} {'HIP MPs':>7} {'wave':>5} {'WGP':>4} {'SIMD/CU':>7} "
        f"{'VGPR/SIMD':>9} {'LDS/WG':>7} {'waves/SIMD HIP/LLVM':>19}"
    )
    lines = [header, "-" * len(header)]
    for p in profiles:
        t = p.target
        cus = "-" if p.compute_units is None else str(p.compute_units)
        mps = "-" if p.hip_multiprocessor_count is None else str(p.hip_multiprocessor_count)
        wave = "/".join(str(w) for w in sorted(t.wave_sizes(), key=lambda w: w != t.default_wave_size))
        waves = f"{t.runtime_max_waves_per_simd}/{t.llvm_max_waves_per_eu}"
        lines.append(
            f"{p.name[:34]:34} {t.name:8} {cus:>4} {mps:>7} {wave:>5} {'on' if t.has_wgp else '-':>4} "
            f"{t.simds_per_cu:>7} {t.runtime_vgprs_per_simd:>9} {t.lds_per_workgroup // 1024:>5} K "
            f"{waves:>19}"
        )
    return "\n".join(lines)
