"""The engine against NVIDIA's cuda_occupancy.h, compiled from the pinned nvidia-cuda-runtime wheel.

Every result field of every query must be equal, and so must the header's status where it refuses a
query.  None of these tests may be skipped: a missing header or compiler fails them.
"""

from __future__ import annotations

import numpy as np
import pytest

from occupancy_gui.engine import (
    CacheConfig,
    DeviceProperties,
    DeviceState,
    DynamicSmem,
    FuncShmemConfig,
    FunctionAttributes,
    OccupancyError,
    PartitionedGCConfig,
    available_dynamic_smem_per_block,
    build_query,
    max_active_blocks,
    max_potential_block_size,
)
from occupancy_gui.engine import architecture as arch
from tests.harness.reference import KERNEL_FIELDS, RESULT_FIELDS, Reference, find_header

RANDOM_QUERIES_PER_DEVICE = 4000
SEED = 20261130


def random_kernels(rng: np.random.Generator, n: int, device: DeviceProperties) -> np.ndarray:
    """Kernel fields in harness order, deliberately covering edges: zero and >255 registers, opt-in,
    default shmem config, every cache config, carveouts in and out of range, barriers, partitioned GC."""
    optin = device.shared_mem_per_block_optin
    static = np.where(rng.random(n) < 0.4, 0, rng.integers(0, device.shared_mem_per_block + 1, n))
    max_dyn = np.select(
        [rng.random(n) < 0.5, rng.random(n) < 0.5],
        [np.maximum(device.shared_mem_per_block - static, 0), rng.integers(0, optin + 1, n)],
        default=rng.integers(0, optin * 2, n),
    )
    carveout = np.where(rng.random(n) < 0.5, -1, rng.integers(-3, 104, n))
    return np.column_stack(
        [
            np.where(rng.random(n) < 0.05, 0, rng.integers(0, 300, n)),  # num_regs
            static,  # shared_size_bytes
            np.where(rng.random(n) < 0.9, 2**31 - 1, rng.integers(-2, 1100, n)),  # func max threads
            rng.integers(0, 3, n),  # partitioned GC
            rng.integers(0, 2, n),  # shmem limit config
            max_dyn,
            np.where(rng.random(n) < 0.3, 1, rng.integers(0, 40, n)),  # barriers
            np.where(rng.random(n) < 0.8, 0, rng.integers(0, 140, n)),  # virtual resources
            rng.integers(0, 4, n),  # cache config
            carveout,
        ]
    )


def engine_results(device: DeviceProperties, kernel: np.ndarray, block: np.ndarray, dyn: np.ndarray) -> dict:
    q = dict(zip(KERNEL_FIELDS, kernel.T))
    func = FunctionAttributes(num_regs=0)
    r = max_active_blocks(device, build_query(device, func, DeviceState(), block, dyn, **q))
    return {name: getattr(r, name) for name in RESULT_FIELDS}


def assert_same(device_name: str, ref: dict, eng: dict, inputs: np.ndarray) -> int:
    """Compare every field (all of them where the header succeeded; the status everywhere)."""
    ok = ref["status"] == 0
    bad = ref["status"] != eng["status"]
    for name in RESULT_FIELDS[1:]:
        bad |= ok & (ref[name] != eng[name])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        diffs = {n: (int(ref[n][i]), int(eng[n][i])) for n in RESULT_FIELDS if ref[n][i] != eng[n][i]}
        pytest.fail(
            f"{device_name}: {int(bad.sum())} mismatches; first query {inputs[i].tolist()}: (header, engine) {diffs}"
        )
    return int(ok.sum())


def test_header_is_the_pinned_one() -> None:
    header = find_header()
    assert "cu13" in str(header), header


def test_random_queries_match_header(reference: Reference, cc_devices: dict, gpu_devices: dict) -> None:
    rng = np.random.default_rng(SEED)
    devices = {**cc_devices, **dict(list(gpu_devices.items())[::4])}
    total = succeeded = 0
    for name, device in devices.items():
        n = RANDOM_QUERIES_PER_DEVICE
        kernel = random_kernels(rng, n, device)
        block = np.where(
            rng.random(n) < 0.05, rng.integers(-2, 1, n), rng.integers(1, device.max_threads_per_block + 200, n)
        )
        dyn = np.where(rng.random(n) < 0.4, 0, rng.integers(0, device.shared_mem_per_block_optin + 4096, n))
        ref = reference.occupancy(device, kernel, block, dyn)
        succeeded += assert_same(
            name, ref, engine_results(device, kernel, block, dyn), np.column_stack([kernel, block, dyn])
        )
        total += n
    assert total >= 100_000
    assert succeeded > total * 0.8  # the comparison is mostly of real results, not of refusals


def test_unknown_and_invalid_devices_match_header_status(reference: Reference, cc_devices: dict) -> None:
    base = cc_devices["sm_90"]
    from dataclasses import replace

    odd = [
        replace(base, compute_major=4),
        replace(base, compute_major=13),
        replace(base, compute_minor=5, compute_major=10),
        replace(base, compute_major=12, compute_minor=2),
        replace(base, num_sms=0),
        replace(base, warp_size=0),
        replace(base, shared_mem_per_multiprocessor=400 * 1024),
    ]
    rng = np.random.default_rng(SEED + 1)
    for device in odd:
        kernel = random_kernels(rng, 500, base)
        block = rng.integers(1, 1025, 500)
        dyn = rng.integers(0, 60000, 500)
        ref = reference.occupancy(device, kernel, block, dyn)
        assert_same(str(device), ref, engine_results(device, kernel, block, dyn), np.column_stack([kernel, block, dyn]))


@pytest.mark.slow
def test_exhaustive_block_size_by_registers(reference: Reference, cc_devices: dict) -> None:
    """Block size 1..1024 × registers 0..255 on every compute capability, all fields equal."""
    block, regs = (a.ravel() for a in np.meshgrid(np.arange(1, 1025), np.arange(0, 256), indexing="ij"))
    n = block.size
    for name, device in cc_devices.items():
        kernel = np.zeros((n, len(KERNEL_FIELDS)), dtype=np.int64)
        kernel[:, 0] = regs
        kernel[:, 1] = 4096
        kernel[:, 2] = 2**31 - 1
        kernel[:, 4] = FuncShmemConfig.OPTIN
        kernel[:, 5] = device.shared_mem_per_block - 4096
        kernel[:, 6] = 1
        kernel[:, 9] = -1
        dyn = np.zeros(n, dtype=np.int64)
        ref = reference.occupancy(device, kernel, block, dyn)
        assert (
            assert_same(name, ref, engine_results(device, kernel, block, dyn), np.column_stack([kernel, block, dyn]))
            == n
        )


def test_potential_block_size_matches_header(reference: Reference, cc_devices: dict, gpu_devices: dict) -> None:
    rng = np.random.default_rng(SEED + 2)
    for name, device in {**cc_devices, **dict(list(gpu_devices.items())[::6])}.items():
        n = 60
        kernel = random_kernels(rng, n, device)
        kernel[:, 2] = np.where(rng.random(n) < 0.7, 2**31 - 1, rng.integers(1, 1100, n))
        terms = np.column_stack(
            [
                rng.integers(0, 20000, n) * (rng.random(n) < 0.5),
                rng.integers(0, 64, n) * (rng.random(n) < 0.3),
                rng.integers(0, 1024, n) * (rng.random(n) < 0.3),
            ]
        )
        ref = reference.potential_block_size(device, kernel, terms)
        for i in range(n):
            func, state = kernel_from_row(kernel[i])
            smem = DynamicSmem(int(terms[i, 0]), int(terms[i, 1]), int(terms[i, 2]))
            try:
                got = max_potential_block_size(device, func, smem, state)
                mine = (0, got.min_grid_size, got.block_size)
            except OccupancyError as exc:
                mine = (int(exc.status), None, None)
            want = tuple(int(v) for v in ref[i])
            context = (name, kernel[i].tolist(), terms[i].tolist(), want, mine)
            assert mine[0] == want[0] and (want[0] != 0 or mine == want), context


def kernel_from_row(row: np.ndarray) -> tuple[FunctionAttributes, DeviceState]:
    v = [int(x) for x in row]
    func = FunctionAttributes(
        num_regs=v[0],
        shared_size_bytes=v[1],
        max_threads_per_block=v[2],
        partitioned_gc_config=PartitionedGCConfig(v[3]),
        shmem_limit_config=FuncShmemConfig(v[4]),
        max_dynamic_shared_size_bytes=v[5],
        num_block_barriers=v[6],
        virtual_resource_count=v[7],
    )
    return func, DeviceState(cache_config=CacheConfig(v[8]), carveout_config=v[9])


def test_available_dynamic_smem_matches_header(reference: Reference, cc_devices: dict) -> None:
    rng = np.random.default_rng(SEED + 3)
    compared = 0
    for name, device in cc_devices.items():
        n = 400
        kernel = random_kernels(rng, n, device)
        kernel[:, 3] = 0
        blocks = rng.integers(-1, 9, n)
        kernel[:, 9] = np.where(rng.random(n) < 0.7, -1, kernel[:, 9])
        sizes = rng.integers(1, 1025, n)
        ref = reference.available_dynamic_smem(device, kernel, blocks, sizes)
        for i in range(n):
            func, state = kernel_from_row(kernel[i])
            try:
                mine = (0, available_dynamic_smem_per_block(device, func, int(blocks[i]), int(sizes[i]), state))
            except OccupancyError as exc:
                mine = (int(exc.status), None)
            want = (int(ref[i, 0]), int(ref[i, 1]) % (1 << 64))
            context = (name, kernel[i].tolist(), blocks[i], sizes[i], want, mine)
            assert mine[0] == want[0] and (want[0] != 0 or mine == want), context
            compared += want[0] == 0
    assert compared > 800  # most random kernels fit fewer blocks than asked; the refusals are compared too


def test_every_profile_compute_capability_is_known_to_engine(cc_devices: dict) -> None:
    assert {(d.compute_major, d.compute_minor) for d in cc_devices.values()} == set(arch.KNOWN_COMPUTE_CAPABILITIES)
