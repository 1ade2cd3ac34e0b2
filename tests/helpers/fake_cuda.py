"""A stand-in for ``cuda.bindings.runtime`` on an H200 machine, shared by the detection tests."""

from __future__ import annotations

from types import SimpleNamespace


class Ok(int):
    name = "cudaSuccess"


class NoDriver(int):
    name = "cudaErrorInsufficientDriver"


def fake_h200_runtime(count: int = 1) -> SimpleNamespace:
    prop = SimpleNamespace(
        name=b"NVIDIA H200",
        major=9,
        minor=0,
        multiProcessorCount=132,
        warpSize=32,
        maxThreadsPerBlock=1024,
        maxThreadsPerMultiProcessor=2048,
        regsPerBlock=65536,
        regsPerMultiprocessor=65536,
        sharedMemPerBlock=49152,
        sharedMemPerMultiprocessor=233472,
        sharedMemPerBlockOptin=232448,
        reservedSharedMemPerBlock=1024,
        integrated=0,
        l2CacheSize=50 * 2**20,
        totalGlobalMem=141 * 2**30,
        pciDomainID=0,
        pciBusID=0x1B,
        pciDeviceID=0,
        maxBlocksPerMultiProcessor=32,
    )
    return SimpleNamespace(
        cudaGetDeviceCount=lambda: (Ok(0), count),
        cudaDriverGetVersion=lambda: (Ok(0), 13050),
        cudaRuntimeGetVersion=lambda: (Ok(0), 13050),
        cudaGetDeviceProperties=lambda i: (Ok(0), prop),
    )


class NoDevice(int):
    name = "cudaErrorNoDevice"
