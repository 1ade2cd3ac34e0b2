"""Compare what the CUDA runtime answered (a probe document) with the engine, field by field.

Shared by ``check_runtime.py`` (live, on a GPU machine) and ``test_replay.py`` (saved fixtures).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from occupancy_gui.engine import (
    DeviceProperties,
    DeviceState,
    FunctionAttributes,
    Launch,
    OccupancyError,
    available_dynamic_smem_per_block,
    compute_occupancy,
    max_potential_block_size,
)

CUDA_SUCCESS = 0


@dataclass
class Comparison:
    """Rows of (what, runtime, engine) and how many disagree."""

    rows: list[tuple[str, str, str, bool]]

    @property
    def mismatches(self) -> int:
        return sum(1 for *_, ok in self.rows if not ok)

    def table(self, only_mismatches: bool = False) -> str:
        lines = [f"{'query':70} {'runtime':>14} {'engine':>14}"]
        for what, runtime, engine, ok in self.rows:
            if ok and only_mismatches:
                continue
            lines.append(f"{what[:70]:70} {runtime:>14} {engine:>14}{'' if ok else '  <-- MISMATCH'}")
        lines.append(f"{len(self.rows)} comparisons, {self.mismatches} mismatches")
        return "\n".join(lines)


def device_from_probe(device: dict[str, Any]) -> DeviceProperties:
    return DeviceProperties(
        compute_major=device["major"],
        compute_minor=device["minor"],
        max_threads_per_block=device["maxThreadsPerBlock"],
        max_threads_per_multiprocessor=device["maxThreadsPerMultiProcessor"],
        regs_per_block=device["regsPerBlock"],
        regs_per_multiprocessor=device["regsPerMultiprocessor"],
        warp_size=device["warpSize"],
        shared_mem_per_block=device["sharedMemPerBlock"],
        shared_mem_per_multiprocessor=device["sharedMemPerMultiprocessor"],
        num_sms=device["multiProcessorCount"],
        shared_mem_per_block_optin=device["sharedMemPerBlockOptin"],
        reserved_shared_mem_per_block=device["reservedSharedMemPerBlock"],
    )


def _func(attributes: dict[str, int], barriers: int = 1) -> FunctionAttributes:
    """What the runtime hands its occupancy calculator (``cudaOccFuncAttributes(cudaFuncAttributes)``)."""
    return FunctionAttributes(
        num_regs=attributes["numRegs"],
        shared_size_bytes=attributes["sharedSizeBytes"],
        max_threads_per_block=attributes["maxThreadsPerBlock"],
        max_dynamic_shared_size_bytes=attributes["maxDynamicSharedSizeBytes"],
        num_block_barriers=barriers,
    )


def _blocks(device: DeviceProperties, func: FunctionAttributes, state: DeviceState, block: int, dyn: int) -> int | None:
    try:
        return compute_occupancy(device, func, Launch(block, dyn), state).active_blocks
    except OccupancyError:
        return None


def _cluster_rows(
    tag: str, device: DeviceProperties, func: FunctionAttributes, state: DeviceState, clusters: list[list[int]]
) -> list[tuple[str, str, str, bool]]:
    """``cudaOccupancyMaxActiveClusters`` against the engine's bound: clusters are made of co-resident
    blocks, so at most blocks/SM x SMs / cluster size fit.  (The exact count depends on how the chip's
    SMs fall into GPCs, which no header models: the runtime's figures are kept, the bound is checked.)"""
    rows = []
    for block, dyn, size, status, count in clusters:
        blocks = _blocks(device, func, state, block, dyn)
        bound = 0 if blocks is None else blocks * device.num_sms // size
        theirs = str(count) if status == CUDA_SUCCESS else f"error {status}"
        ok = count <= bound if status == CUDA_SUCCESS else bound == 0
        rows.append((f"{tag} clusters of {size} at {block} threads, {dyn} B dyn", theirs, f"<= {bound}", ok))
    return rows


def _importer_rows(
    name: str, attrs: dict[str, Any], entry: dict[str, Any], reading: dict[str, Any]
) -> list[tuple[str, str, str, bool]]:
    """The importer's figures for a kernel against ``cudaFuncGetAttributes`` of the loaded kernel."""
    rows = []
    for ours, theirs_key in (("registers", "numRegs"), ("static_smem", "sharedSizeBytes")):
        rows.append(
            (f"{name} importer {ours}", str(attrs[theirs_key]), str(reading[ours]), attrs[theirs_key] == reading[ours])
        )
    if "requiredClusterWidth" in attrs and "cluster_dims" in reading:
        dims = [attrs[f"requiredCluster{axis}"] for axis in ("Width", "Height", "Depth")]
        expected = dims if dims[0] > 0 else None
        got = list(reading["cluster_dims"]) if reading["cluster_dims"] is not None else None
        rows.append((f"{name} importer cluster_dims", str(expected), str(got), expected == got))
    launch = reading.get("launch")
    if launch is not None:  # the launch Triton's metadata gives was asked of the runtime too
        asked = any([block, dyn] == list(launch) for block, dyn, *_ in entry["occupancy"])
        rows.append(
            (
                f"{name} importer launch {launch[0]} threads, {launch[1]} B dyn asked",
                "asked",
                "asked" if asked else "missing",
                asked,
            )
        )
    return rows


def compare_probe(probe: dict[str, Any], imported: dict[str, dict[str, Any]] | None = None) -> Comparison:
    """Every runtime answer in ``probe`` against the engine; ``imported`` adds the importer's readings."""
    device = device_from_probe(probe["device"])
    rows: list[tuple[str, str, str, bool]] = []
    for entry in probe["kernels"]:
        name, carveout, attrs = entry["kernel"], entry["carveout"], entry["attributes"]
        barriers = (imported or {}).get(name, {}).get("barriers", 1) or 1
        func, state = _func(attrs, barriers), DeviceState(carveout_config=carveout)
        tag = f"{name} carveout={carveout}"
        for block, dyn, status, blocks in entry["occupancy"]:
            try:
                mine = str(compute_occupancy(device, func, Launch(block, dyn), state).active_blocks)
            except OccupancyError as exc:
                mine = f"error {int(exc.status)}"
            theirs = str(blocks) if status == CUDA_SUCCESS else f"error {status}"
            rows.append(
                (
                    f"{tag} blocks/SM at {block} threads, {dyn} B dyn",
                    theirs,
                    mine,
                    theirs == mine or (status != CUDA_SUCCESS and mine.startswith("error")),
                )
            )
        for smem, status, grid, block in entry["potential"]:
            try:
                s = max_potential_block_size(device, func, smem, state)
                mine = f"{s.min_grid_size}/{s.block_size}"
            except OccupancyError:
                mine = "error"
            theirs = f"{grid}/{block}" if status == CUDA_SUCCESS else "error"
            rows.append((f"{tag} potential grid/block, {smem} B dyn", theirs, mine, theirs == mine))
        for block, nblocks, status, bytes_ in entry["available"]:
            try:
                mine = str(available_dynamic_smem_per_block(device, func, nblocks, block, state))
            except OccupancyError:
                mine = "error"
            theirs = str(bytes_) if status == CUDA_SUCCESS else "error"
            rows.append((f"{tag} available dyn smem, {nblocks} x {block}", theirs, mine, theirs == mine))
        rows.extend(_cluster_rows(tag, device, func, state, entry.get("clusters", [])))
        reading = (imported or {}).get(name)
        if reading is not None and carveout == -1:
            rows.extend(_importer_rows(name, attrs, entry, reading))
    return Comparison(rows)
