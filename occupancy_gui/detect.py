"""Read the local GPUs' properties through NVIDIA's CUDA runtime and save them as user profiles.

Needs the optional extra ``occupancy_gui[cuda]`` (NVIDIA's ``cuda-bindings``) and a driver; without
either, ``detect_devices`` raises ``DetectionUnavailable`` with one line saying which is missing.
A detected profile is an ordinary user profile (``kind: gpu``) whose every value cites the
``cudaGetDeviceProperties`` call, the driver version and the date it was read.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine import max_blocks_per_multiprocessor
from .profiles import LIMIT_NAMES

DEVICE_PROP_FIELDS = {
    "warp_size": "warpSize",
    "max_threads_per_block": "maxThreadsPerBlock",
    "max_threads_per_multiprocessor": "maxThreadsPerMultiProcessor",
    "regs_per_block": "regsPerBlock",
    "regs_per_multiprocessor": "regsPerMultiprocessor",
    "shared_mem_per_block": "sharedMemPerBlock",
    "shared_mem_per_multiprocessor": "sharedMemPerMultiprocessor",
    "shared_mem_per_block_optin": "sharedMemPerBlockOptin",
    "reserved_shared_mem_per_block": "reservedSharedMemPerBlock",
}
"""Profile limit name -> ``cudaDeviceProp`` field, the same mapping ``cudaOccDeviceProp`` uses."""

ARCHITECTURES = {
    3: "Kepler",
    5: "Maxwell",
    6: "Pascal",
    7: "Volta",
    8: "Ampere",
    9: "Hopper",
    10: "Blackwell",
    11: "Blackwell",
    12: "Blackwell",
}


class DetectionUnavailable(RuntimeError):
    """No local GPU can be read: the extra is not installed, no driver, or no device."""


@dataclass(frozen=True)
class DetectedDevice:
    """One local GPU as the runtime reports it."""

    index: int
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    limits: dict[str, int]
    driver_version: str
    runtime_version: str
    integrated: bool = False
    l2_cache_kib: int | None = None
    memory_gib: float | None = None
    pci_bus_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def architecture(self) -> str:
        return ARCHITECTURES.get(self.compute_capability[0], "Unknown")

    @property
    def profile_name(self) -> str:
        """Unique next to the bundled profile of the same GPU model."""
        return f"{self.name} [detected{'' if self.index == 0 else f' #{self.index}'}]"


def _version(code: int) -> str:
    return f"{code // 1000}.{(code % 1000) // 10}"


def _load_runtime() -> Any:
    try:
        from cuda.bindings import runtime  # noqa: PLC0415 - optional: the [cuda] extra
    except ImportError:
        raise DetectionUnavailable(
            "GPU detection needs the optional extra: pip install 'occupancy_gui[cuda]' (NVIDIA cuda-bindings)"
        ) from None
    return runtime


def _check(result: tuple[Any, ...], what: str) -> Any:
    error, *values = result
    if int(error) != 0:
        name = getattr(error, "name", str(error))
        raise DetectionUnavailable(f"{what} failed: {name} (no NVIDIA driver or GPU on this machine?)")
    return values[0] if len(values) == 1 else values


def detect_devices(runtime: Any | None = None) -> list[DetectedDevice]:
    """Every CUDA device the runtime sees; ``runtime`` may be injected (tests pass a fake)."""
    rt = runtime or _load_runtime()
    count = _check(rt.cudaGetDeviceCount(), "cudaGetDeviceCount")
    if count == 0:
        raise DetectionUnavailable("the CUDA runtime reports no devices")
    driver = _version(_check(rt.cudaDriverGetVersion(), "cudaDriverGetVersion"))
    runtime_version = _version(_check(rt.cudaRuntimeGetVersion(), "cudaRuntimeGetVersion"))
    devices = []
    for index in range(count):
        prop = _check(rt.cudaGetDeviceProperties(index), f"cudaGetDeviceProperties({index})")
        name = prop.name.decode(errors="replace") if isinstance(prop.name, bytes) else str(prop.name)
        devices.append(
            DetectedDevice(
                index=index,
                name=name.strip("\x00").strip(),
                compute_capability=(int(prop.major), int(prop.minor)),
                sm_count=int(prop.multiProcessorCount),
                limits={ours: int(getattr(prop, theirs)) for ours, theirs in DEVICE_PROP_FIELDS.items()},
                driver_version=driver,
                runtime_version=runtime_version,
                integrated=bool(prop.integrated),
                l2_cache_kib=int(prop.l2CacheSize) // 1024,
                memory_gib=round(int(prop.totalGlobalMem) / 2**30, 2),
                pci_bus_id=f"{int(prop.pciDomainID):04x}:{int(prop.pciBusID):02x}:{int(prop.pciDeviceID):02x}",
                extra={"maxBlocksPerMultiProcessor": int(prop.maxBlocksPerMultiProcessor)},
            )
        )
    return devices


def _segment(device: DetectedDevice) -> str:
    """A best guess for the catalog grouping; the profile's notes say it is a guess."""
    if device.integrated:
        return "embedded"
    if re.search(r"GeForce|TITAN", device.name, re.I):
        return "consumer"
    if re.search(r"Quadro|RTX A\d|RTX PRO|Ada Generation|RTX \d000", device.name, re.I):
        return "workstation"
    return "datacenter"


def profile_document(device: DetectedDevice, today: _dt.date | None = None) -> dict[str, Any]:
    """The user-profile mapping (profile schema) for a detected device."""
    when = (today or _dt.date.today()).isoformat()
    source = (
        f"cudaGetDeviceProperties on device {device.index} ({device.pci_bus_id}), "
        f"driver {device.driver_version}, runtime {device.runtime_version}, detected {when}"
    )
    cc = f"sm_{device.compute_capability[0]}{device.compute_capability[1]}"
    info: dict[str, Any] = {"l2_cache_kib": {"value": device.l2_cache_kib, "source": source}}
    if device.memory_gib is not None:
        info["memory_gib"] = {"value": device.memory_gib, "source": source}
    blocks = device.extra.get("maxBlocksPerMultiProcessor")
    table = _table_blocks(device.compute_capability)
    differs = blocks and table and blocks != table
    mismatch = f" The driver reports {blocks} blocks per SM; the occupancy model uses {table}." if differs else ""
    return {
        "schema": 1,
        "name": device.profile_name,
        "kind": "gpu",
        "inherits": cc,
        "architecture": device.architecture,
        "segment": _segment(device),
        "notes": f"detected: read from the local GPU with driver {device.driver_version} on {when}; "
        f"segment is a guess.{mismatch}",
        "sm_count": {"value": device.sm_count, "source": source},
        "limits": {name: {"value": device.limits[name], "source": source} for name in LIMIT_NAMES},
        "info": info,
    }


def _table_blocks(cc: tuple[int, int]) -> int | None:
    try:
        return max_blocks_per_multiprocessor(cc)
    except Exception:  # noqa: BLE001 - a compute capability newer than the model: say nothing
        return None


def save_profile(device: DetectedDevice, directory: Path) -> Path:
    """Write the device's profile into ``directory`` atomically (JSON is valid YAML); return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "_", device.name.lower()).strip("_") or "gpu"
    path = directory / f"detected_{slug}_{device.index}.yaml"
    text = (
        "# Detected by occupancy devices --detect; edit freely.\n"
        + json.dumps(profile_document(device), indent=2)
        + "\n"
    )
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".detected-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)
    return path
