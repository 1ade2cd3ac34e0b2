"""Kernel descriptors: the 64-byte ``NAME.kd`` of code objects v3+ and the 256-byte ``amd_kernel_code_t``
of code object v2 (AMDGPUUsage, "Kernel Descriptor"; LLVM's ``AMDHSAKernelDescriptor.h`` and
``AMDKernelCodeT.h``).

The fields read (little-endian)::

    kd (v3+)   u32 group_segment_fixed_size @0, u32 private_segment_fixed_size @4, u32 kernarg_size @8,
               u32 compute_pgm_rsrc3 @44, u32 compute_pgm_rsrc1 @48, u32 compute_pgm_rsrc2 @52,
               u16 kernel_code_properties @56
    code_t (v2) u64 compute_pgm_resource_registers @48 (rsrc1 low, rsrc2 high),
               u32 workitem_private_segment_byte_size @60, u32 workgroup_group_segment_byte_size @64,
               u8 wavefront_size @103 (log2)

``compute_pgm_rsrc1``: ``GRANULATED_WORKITEM_VGPR_COUNT`` bits 0-5, ``GRANULATED_WAVEFRONT_SGPR_COUNT``
bits 6-9, ``WGP_MODE`` bit 29 (gfx10+).  ``compute_pgm_rsrc3`` on gfx90a+: ``ACCUM_OFFSET`` bits 0-5
((value + 1) x 4).  ``kernel_code_properties``: ``ENABLE_WAVEFRONT_SIZE32`` bit 10,
``USES_DYNAMIC_STACK`` bit 11.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass

from .target import has_unified_vgprs, vgpr_encoding_granule

Buffer = bytes | bytearray | memoryview | mmap.mmap
KD_SIZE = 64
CODE_T_SIZE = 256
_KD = struct.Struct("<III32xIIIH6x")
_CODE_T = struct.Struct("<48xQ4xII35xB")
_WAVE32 = 1 << 10
_DYNAMIC_STACK = 1 << 11
_WGP_MODE = 1 << 29


@dataclass(frozen=True, slots=True)
class Descriptor:
    """The figures of one kernel descriptor that the records use or check against the metadata."""

    group_segment_fixed_size: int
    private_segment_fixed_size: int
    granulated_vgprs: int
    wave32: bool
    wgp_mode: bool
    dynamic_stack: bool
    accum_offset: int | None  # gfx90a+ only

    def allocated_vgprs(self, arch: str) -> int:
        """VGPRs the descriptor allocates: ``(granulated count + 1)`` x the target's encoding granule, as
        ``llvm-objdump`` prints ``.amdhsa_next_free_vgpr``."""
        return (self.granulated_vgprs + 1) * vgpr_encoding_granule(arch, self.wave32)


def decode_kd(data: Buffer, at: int, arch: str) -> Descriptor:
    """The 64-byte descriptor at ``at`` of ``data`` (the caller has checked the bounds)."""
    group, private, _kernarg, rsrc3, rsrc1, _rsrc2, properties = _KD.unpack_from(data, at)
    return Descriptor(
        group,
        private,
        rsrc1 & 0x3F,
        bool(properties & _WAVE32),
        bool(rsrc1 & _WGP_MODE),
        bool(properties & _DYNAMIC_STACK),
        ((rsrc3 & 0x3F) + 1) * 4 if has_unified_vgprs(arch) else None,
    )


def decode_code_t(data: Buffer, at: int) -> Descriptor:
    """The figures of a v2 ``amd_kernel_code_t`` at ``at`` (bounds checked by the caller)."""
    registers, private, group, wave_log2 = _CODE_T.unpack_from(data, at)
    rsrc1 = registers & 0xFFFFFFFF
    return Descriptor(group, private, rsrc1 & 0x3F, wave_log2 == 5, bool(rsrc1 & _WGP_MODE), False, None)
