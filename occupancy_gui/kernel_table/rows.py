"""What a row of the kernel table is, whichever vendor's kernel it holds, and the words a row carries beside its
figures.

Both vendors' records are rows of one table (``kernel_table``): :class:`KernelRow` is what the table reads of
either, :class:`TableRecords` holds an import's NVIDIA records and then its AMD ones; :func:`record_tags` and
:func:`record_notes` are the short marks before a name and the lines of its tooltip, by vendor.  Qt-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, overload

if TYPE_CHECKING:
    from ..importers import AmdKernelRecord, KernelRecord, Records


class KernelRow(Protocol):
    """What the table reads of every row's record, NVIDIA's (``KernelRecord``) and AMD's (``AmdKernelRecord``)
    alike; the rest is read by vendor (``vendor``: ``"nvidia"`` or ``"amd"``)."""

    @property
    def vendor(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def arch(self) -> str: ...
    @property
    def is_kernel(self) -> bool: ...
    @property
    def copies(self) -> int: ...
    @property
    def source(self) -> str: ...


class TableRecords(Sequence["KernelRow"]):
    """The table's records: an import's NVIDIA ``Records`` (a record made where it is read), then its AMD records."""

    __slots__ = ("amd", "nvidia")

    def __init__(self, nvidia: Records, amd: list[AmdKernelRecord]) -> None:
        self.nvidia = nvidia
        self.amd = amd

    def __len__(self) -> int:
        return len(self.nvidia) + len(self.amd)

    @overload
    def __getitem__(self, i: int) -> KernelRow: ...
    @overload
    def __getitem__(self, i: slice) -> list[KernelRow]: ...
    def __getitem__(self, i: int | slice) -> KernelRow | list[KernelRow]:
        if isinstance(i, slice):
            return [self[k] for k in range(len(self))[i]]
        n = len(self.nvidia)
        if i < 0:
            i += len(self)
        if i < n:
            return self.nvidia[i]
        if i - n >= len(self.amd):
            raise IndexError(i)
        return self.amd[i - n]

    def parts(self) -> tuple[Records, list[AmdKernelRecord]]:
        """The two lists (the release of a replaced table empties them a slice at a time)."""
        return self.nvidia, self.amd


def row_tags(rec: KernelRow) -> list[str]:
    """Short marks shown before a row's name, by vendor (:func:`record_tags`, :func:`amd_tags`)."""
    return amd_tags(rec) if _is_amd(rec) else record_tags(rec)  # type: ignore[arg-type]  # the vendor tag says


def row_notes(rec: KernelRow) -> list[str]:
    """A row's tooltip lines beyond its figures, by vendor (:func:`record_notes`, :func:`amd_notes`)."""
    return amd_notes(rec) if _is_amd(rec) else record_notes(rec)  # type: ignore[arg-type]  # as above


def _is_amd(rec: KernelRow) -> bool:
    return rec.vendor == "amd"


def amd_tags(rec: AmdKernelRecord) -> list[str]:
    """Short marks before an AMD kernel's name: a descriptor padding its VGPRs, a required size, copies."""
    from ..importers import padded_vgprs  # noqa: PLC0415 - lazy: the records' module, loaded by then

    tags = ["padded VGPRs"] if padded_vgprs(rec) else []
    if rec.required_block is not None:
        tags.append("reqd {}×{}×{}".format(*rec.required_block))
    if rec.copies > 1:
        tags.append(f"×{rec.copies}")
    return tags


def amd_notes(rec: AmdKernelRecord) -> list[str]:
    """What a reader of an AMD row should know beyond its figures, one line each."""
    from ..importers import padded_vgprs  # noqa: PLC0415 - lazy: as above

    notes = [] if rec.is_kernel else ["(device function, not a kernel)"]
    version = f", code object v{rec.code_object_version}" if rec.code_object_version else ""
    notes.append(f"AMD {rec.target or rec.arch}{version}")
    if padded_vgprs(rec):
        notes.append(
            f"The kernel descriptor allocates {rec.allocated_vgprs} VGPRs, more than its .vgpr_count of "
            f"{rec.vgprs}: the hardware allocates {rec.allocated_vgprs}, the HIP runtime counts {rec.vgprs}"
        )
    if rec.dynamic_stack:
        notes.append(
            "Dynamic stack (recursion, indirect calls or dynamic allocas): the scratch it needs is set at launch"
        )
    if rec.required_block is not None:
        x, y, z = rec.required_block
        notes.append(f"Required workgroup size (.reqd_workgroup_size) {x}×{y}×{z} = {x * y * z} threads")
    if rec.block_size:
        notes.append(
            f"Launched with {rec.block_size} threads and {rec.dynamic_lds or 0} B of dynamic LDS "
            f"({rec.launch_source or 'as recorded'})"
        )
    if rec.copies > 1:
        notes.append(f"{rec.copies} identical copies in this file")
    if rec.source:
        notes.append(f"From {rec.source}")
    return notes


def record_tags(rec: KernelRecord) -> list[str]:
    """Short marks shown before a name: pre-link (-rdc), embedded fatbin, identical copies, cluster shape."""
    from ..importers import impossible_figure  # noqa: PLC0415 - lazy: the records' module, loaded by then

    tags = ["impossible figures"] if impossible_figure(rec) is not None else []
    if rec.cluster_dims:
        tags.append("cluster {}×{}×{}".format(*rec.cluster_dims))
    if rec.relocatable:
        tags.append("pre-link")
    if rec.embedded:
        tags.append("embedded")
    if rec.copies > 1:
        tags.append(f"×{rec.copies}")
    return tags


def record_notes(rec: KernelRecord) -> list[str]:
    """What a reader of a row should know beyond its figures, one line each."""
    from ..importers import STACK_UNKNOWN, impossible_figure  # noqa: PLC0415 - lazy: loaded by then

    notes = [] if rec.is_kernel else ["(device function, not a kernel)"]
    if rec.stack_bytes is None:
        notes.append(
            f"Stack: {STACK_UNKNOWN} (cuobjdump: STACK:UNKNOWN); the figure the GPU needs is set at "
            "launch (cudaDeviceSetLimit cudaLimitStackSize)"
        )
    reason = impossible_figure(rec)
    if reason is not None:
        notes.append(f"⚠ {reason[0].upper()}{reason[1:]}: the file is damaged or crafted; not loaded into the inputs")
    if rec.relocatable:
        notes.append(
            "Pre-link copy (-rdc): nvlink may add registers, stack and shared memory of\n"
            "functions in other translation units; open the linked program for the final figures"
        )
    if rec.embedded:
        notes.append("From a fatbin the library loads itself at run time (not registered with the runtime)")
    if rec.copies > 1:
        notes.append(f"{rec.copies} identical copies in this file")
    if rec.cluster_dims:
        notes.append(cluster_note(rec.cluster_dims))
    if rec.source:
        notes.append(f"From {rec.source}")
    return notes


def cluster_note(dims: tuple[int, int, int]) -> str:
    """What a thread-block cluster shape (``__cluster_dims__``, Triton's ``num_ctas``) means for the figures.

    ``cuda_occupancy.h`` models one SM; how many clusters run at once also depends on how the GPU's SMs
    are grouped (GPCs), which only ``cudaOccupancyMaxActiveClusters`` on the device answers."""
    x, y, z = dims
    return (
        f"Thread-block cluster {x}×{y}×{z} ({x * y * z} blocks): occupancy here is per SM; how many clusters "
        "fit the GPU at once depends on its GPCs (cudaOccupancyMaxActiveClusters)"
    )
