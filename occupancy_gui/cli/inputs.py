"""Turn command-line or JSON query fields into engine inputs, with one-line errors naming the field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine import CARVEOUT_DEFAULT, INT_MAX, CacheConfig, DeviceState, FunctionAttributes, Launch
from .common import QueryError

__all__ = ["CACHE_CONFIGS", "KernelQuery", "QueryError", "kernel_query", "parse_cache_config", "parse_carveout"]

CACHE_CONFIGS = {
    "none": CacheConfig.PREFER_NONE,
    "shared": CacheConfig.PREFER_SHARED,
    "l1": CacheConfig.PREFER_L1,
    "equal": CacheConfig.PREFER_EQUAL,
}


@dataclass(frozen=True)
class KernelQuery:
    """Everything a query says about the kernel, the launch and the device state."""

    func: FunctionAttributes
    launch: Launch
    state: DeviceState


def _int_field(data: dict[str, Any], key: str, default: int | None = None, *, required: bool = False) -> int | None:
    if key not in data or data[key] is None:
        if required:
            raise QueryError(f"{key}: required")
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise QueryError(f"{key}: expected an integer, got {value!r}")
    return value


def parse_carveout(value: object) -> int:
    """``default`` (or -1) or a percentage 0..100."""
    if value is None or value == "default":
        return CARVEOUT_DEFAULT
    if isinstance(value, str):
        try:
            value = int(value.rstrip("%"))
        except ValueError:
            raise QueryError(f"carveout: expected 'default' or a percentage 0..100, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value <= 100:
        raise QueryError(f"carveout: expected 'default' (-1) or a percentage 0..100, got {value!r}")
    return value


def parse_cache_config(value: object) -> CacheConfig:
    """``none``, ``shared``, ``l1`` or ``equal`` (or the header's enum value 0..3)."""
    if value is None:
        return CacheConfig.PREFER_NONE
    if isinstance(value, str) and value.lower() in CACHE_CONFIGS:
        return CACHE_CONFIGS[value.lower()]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return CacheConfig(value)
    raise QueryError(f"cache_config: expected one of {', '.join(CACHE_CONFIGS)}, got {value!r}")


def _max_threads_per_block(data: dict[str, Any]) -> int:
    """The kernel's launch bound (``max_threads_per_block``); absent means none (the header's INT_MAX)."""
    value = _int_field(data, "max_threads_per_block")
    if value is None:
        return INT_MAX
    if value < 1:
        raise QueryError(f"max_threads_per_block: expected at least 1 (the kernel's launch bound), got {value}")
    return value


def _required_block_size(data: dict[str, Any]) -> int:
    """The kernel's required block size (``required_block_size``, PTX ``.reqntid``); absent means none (0)."""
    value = _int_field(data, "required_block_size")
    if value is None:
        return 0
    if value < 1:
        raise QueryError(f"required_block_size: expected at least 1 (the kernel's .reqntid), got {value}")
    return value


def kernel_query(data: dict[str, Any]) -> KernelQuery:
    """Build engine inputs from query keys (the batch format, also used by ``calc``)."""
    threads = _int_field(data, "threads", required=True)
    registers = _int_field(data, "registers", required=True)
    assert threads is not None and registers is not None
    func = FunctionAttributes(
        num_regs=registers,
        shared_size_bytes=_int_field(data, "static_smem", 0) or 0,
        max_dynamic_shared_size_bytes=_int_field(data, "max_dynamic_smem"),
        num_block_barriers=_int_field(data, "barriers", 1) or 0,
        max_threads_per_block=_max_threads_per_block(data),
        reqntid=_required_block_size(data),
    )
    state = DeviceState(
        cache_config=parse_cache_config(data.get("cache_config")), carveout_config=parse_carveout(data.get("carveout"))
    )
    return KernelQuery(func, Launch(threads, _int_field(data, "dynamic_smem", 0) or 0), state)
