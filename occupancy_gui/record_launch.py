"""A kernel record becomes the calculator's inputs: one rule, for the window, the command line and the report.

Choosing a kernel sets what the kernel *is* — its registers, static shared memory, block barriers and
its own launch limits (``__launch_bounds__``, ``.reqntid``, minimum blocks per SM) — and keeps what the
user chose about the *launch*, as far as the kernel can be launched so:

- a record that carries its launch (a Triton cache's ``NAME.json``, an Nsight Compute row) is launched as
  recorded: its block size and dynamic shared memory, and the shared-memory attributes its launcher sets;
- else a kernel with a required block size (``.reqntid``) is launched at that size, the only one it can;
- else the current threads per block stay, capped at the kernel's launch bound (a larger block cannot
  launch).

The kernel table computes each row's occupancy with the same rule (:func:`launch_threads` and
:func:`launch_smem` take numpy arrays as well as ints), so a row's figure is the answer the calculator
gives once that row is chosen.

Triton's launcher (``backends/nvidia/driver.c``), for ``shared`` above 48 KiB on a device whose opt-in
limit is higher, calls ``cuFuncSetCacheConfig(PREFER_SHARED)`` and sets
``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` to the opt-in limit minus the static shared memory.
(Triton 3.9 first tries CUDA 13's oversized-shared-memory mode, which ``cuda_occupancy.h`` does not
model; the legacy path is what the occupancy API can answer for.)
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import numpy as np

from .engine import CacheConfig, DeviceProperties

if TYPE_CHECKING:
    from .importers import KernelRecord
    from .profiles import Catalog

DEFAULT_DYNAMIC_LIMIT = 48 << 10
"""Dynamic shared memory a kernel may use without the opt-in attribute."""
DEFAULT_BARRIERS = 1
"""Block barriers where a source does not say: the runtime's assumption (``__syncthreads`` alone)."""


def required_block_size(rec: KernelRecord) -> int | None:
    """The block size a record's ``.reqntid`` requires (x·y·z threads), or ``None``."""
    req = rec.req_threads
    return req[0] * max(req[1], 1) * max(req[2], 1) if req else None


def launch_threads(threads: Any, bound: Any, required: Any, launch: Any) -> Any:
    """The block size a chosen kernel runs at (0 in ``bound``/``required``/``launch`` means none): its
    recorded launch, else its required size, else ``threads`` capped at its launch bound."""
    capped = np.where((bound > 0) & (threads > bound), bound, threads)
    out = np.where(launch > 0, launch, np.where(required > 0, required, capped))
    return out if out.ndim else int(out)


def launch_smem(device: DeviceProperties, dynamic: Any, static: Any) -> tuple[Any, Any]:
    """(max dynamic shared memory attribute or -1 for the runtime default, opt-in cache preference or -1)
    that a recorded launch's launcher sets for ``dynamic`` bytes (Triton's rule; see the module's text)."""
    opt_in = (dynamic > DEFAULT_DYNAMIC_LIMIT) & (device.shared_mem_per_block_optin > DEFAULT_DYNAMIC_LIMIT)
    attribute = np.where(opt_in, device.shared_mem_per_block_optin - static, -1)
    cache = np.where(opt_in, int(CacheConfig.PREFER_SHARED), int(CacheConfig.PREFER_NONE))
    return attribute, cache


def record_device(rec: KernelRecord, catalog: Catalog) -> str | None:
    """The catalog's profile for the architecture ``rec`` was compiled for (``sm_90a`` → ``sm_90``), or ``None``."""
    arch = str(rec.arch or "").rstrip("af")
    if not arch.startswith("sm_"):
        return None
    with contextlib.suppress(KeyError):
        return catalog.get(arch).name
    return None


def record_inputs(rec: KernelRecord, device: DeviceProperties, threads: int) -> dict[str, Any]:
    """The session inputs choosing ``rec`` sets on ``device`` while the calculator holds ``threads``.

    Every kernel field is set, to the record's value or to "none", so choosing another kernel clears the
    previous one's; barriers a source does not report are the runtime's 1.  Threads per block follow
    :func:`launch_threads`; a recorded launch also sets dynamic shared memory and its attributes."""
    bound = rec.max_threads or None
    required = required_block_size(rec)
    launch = rec.block_size or 0
    changes: dict[str, Any] = {
        "registers": rec.registers,
        "static_smem": rec.static_smem or 0,
        "barriers": DEFAULT_BARRIERS if rec.barriers is None else rec.barriers,
        "max_threads_per_block": bound,
        "required_block_size": required,
        "min_blocks_per_sm": rec.min_blocks or None,
        "threads": launch_threads(threads, bound or 0, required or 0, launch),
    }
    if launch:
        dynamic = rec.dynamic_smem or 0
        attribute, cache = launch_smem(device, dynamic, changes["static_smem"])
        changes.update(
            dynamic_smem=dynamic,
            max_dynamic_smem=None if attribute < 0 else int(attribute),
            cache_config=CacheConfig(int(cache)),
        )
    return changes


def threads_reason(rec: KernelRecord, threads: int) -> str | None:
    """Why choosing ``rec`` moves threads per block away from ``threads``, in words; ``None`` when it does not."""
    return launch_reason(
        threads,
        (rec.max_threads or 0, "__launch_bounds__"),
        (required_block_size(rec) or 0, "required block size (.reqntid)"),
        (rec.block_size or 0, rec.launch_source),
    )


def launch_reason(
    threads: int, bound: tuple[int, str], required: tuple[int, str], launch: tuple[int, str | None]
) -> str | None:
    """Why a chosen kernel runs at another block size than ``threads`` (:func:`launch_threads`'s rule), in words;
    ``None`` when it does not.  Each of ``bound``, ``required`` and ``launch`` is (a size, 0 for none; what the
    vendor calls it, or where the launch was recorded), so that NVIDIA's and AMD's kernels say it in their words."""
    chosen = launch_threads(threads, bound[0], required[0], launch[0])
    if chosen == threads:
        return None
    if launch[0]:
        return f"{chosen} threads per block: the launch recorded with the kernel ({launch[1] or 'its source'})"
    if required[0]:
        return f"{chosen} threads per block: the kernel's {required[1]}"
    return f"{chosen} threads per block: {threads} is above the kernel's launch bound of {bound[0]} ({bound[1]})"
