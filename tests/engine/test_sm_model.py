"""``sm_model``: devices that differ only in their SM count get the same per-SM answers, as the batch
assumes when it asks the engine once per model."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from occupancy_gui.engine import (
    DeviceProperties,
    DeviceState,
    FunctionAttributes,
    Launch,
    Limit,
    build_query,
    compute_occupancy,
)
from occupancy_gui.engine.columns import occupancy_columns
from occupancy_gui.engine.occupancy import sm_model
from occupancy_gui.engine.rows import ReasonInputs, zero_block_reasons_many

FUNC = FunctionAttributes(num_regs=0)


def _columns(device: DeviceProperties, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = 3000
    query = build_query(
        device,
        FUNC,
        DeviceState(),
        rng.integers(1, 1200, n),
        rng.integers(0, 60000, n),
        num_regs=rng.integers(0, 300, n),
        shared_size_bytes=rng.integers(0, 50000, n),
        num_block_barriers=rng.integers(0, 40, n),
        func_reqntid=rng.choice([0, 128, 256], n),
    )
    c = occupancy_columns(device, query)
    figures = {name: np.asarray(value) for name, value in vars(c.arrays).items()}
    figures |= {f"limit {k}": np.asarray(v) for k, v in c.limits.items()}
    figures |= {"active": c.active_blocks, "binding": c.binding, "estimate": c.estimate_active_blocks}
    return figures


def test_the_sm_count_changes_no_per_sm_answer(gpu_devices: dict[str, DeviceProperties]) -> None:
    for name, device in gpu_devices.items():
        model = sm_model(device)
        assert model.num_sms == 1 and replace(model, num_sms=device.num_sms) == device, name
        a, b = _columns(device, np.random.default_rng(7)), _columns(model, np.random.default_rng(7))
        assert a.keys() == b.keys()
        for key in a:
            assert np.array_equal(a[key], b[key]), (name, key)
        for threads, regs in ((1024, 255), (64, 32), (2048, 16)):
            launch, func = Launch(threads, 1000), FunctionAttributes(num_regs=regs, shared_size_bytes=40000)
            try:
                want = compute_occupancy(device, func, launch)
            except Exception as exc:  # noqa: BLE001 - the same refusal either way
                got: object = None
                try:
                    compute_occupancy(model, func, launch)
                except Exception as other:  # noqa: BLE001
                    got = str(other)
                assert got == str(exc), name
                continue
            assert compute_occupancy(model, func, launch) == want, name


def test_a_device_without_sms_keeps_its_refusal() -> None:
    device = DeviceProperties(8, 0, 1024, 2048, 65536, 65536, 32, 49152, 167936, 0, 166912, 1024)
    assert sm_model(device) is device  # device_is_valid's answer (and its words) stay those of the device


def test_shared_reason_words_are_the_words_of_each_launch(gpu_devices: dict[str, DeviceProperties]) -> None:
    device = gpu_devices[sorted(gpu_devices)[0]]
    n = 64
    one = np.ones(n, dtype=np.int64)
    block = np.array([64, 96] * (n // 2), dtype=np.int64)
    regs = np.array([255, 255, 300, 300] * (n // 4), dtype=np.int64)
    inputs = ReasonInputs(
        block_size=block,
        dynamic_smem=0 * one,
        num_regs=regs,
        shared_size_bytes=0 * one,
        max_dynamic_smem=-one,
        shmem_limit_config=one,
        num_block_barriers=one,
        virtual_resource_count=0 * one,
        max_threads_per_block=one * 1024,
        reqntid=one * 128,
        limits={k: (0 * one if k.value in ("warps", "registers") else one) for k in Limit},
        allocated_smem=0 * one,
        sm_smem=one * 1000,
    )
    many = zero_block_reasons_many(device, inputs)
    for i in range(n):
        single = ReasonInputs(
            **{
                k: (v[i : i + 1] if isinstance(v, np.ndarray) else {a: b[i : i + 1] for a, b in v.items()})
                for k, v in vars(inputs).items()
            }
        )
        assert zero_block_reasons_many(device, single) == [many[i]]
    assert many[0] != many[1] and many[0] != many[2] and many[0] == many[4]
