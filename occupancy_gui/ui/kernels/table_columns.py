"""The kernel table's columns: their order, headers and header tooltips, for both vendors' rows.

Most columns hold each vendor's own figure of the same meaning (registers: NVIDIA's registers per thread, AMD's
VGPRs per lane); a few are one vendor's alone (:data:`AMD_COLUMNS`, :data:`NVIDIA_COLUMNS`) and are shown only
where the table has that vendor's rows.
"""

from __future__ import annotations

NAME, ARCH, REGISTERS, AGPRS, SGPRS, WAVE, LOCAL, STATIC_SMEM, SPILLS, BARRIERS, LAUNCH_BOUND, THREADS, OCCUPANCY = (
    range(13)
)
HEADERS = (
    "Kernel",
    "Arch",
    "Registers",
    "AGPRs",
    "SGPRs",
    "Wave",
    "Local",
    "Static smem",
    "Spills (st / ld)",
    "Barriers",
    "Launch bound",
    "Threads",
    "Occupancy",
)
AMD_COLUMNS = frozenset({AGPRS, SGPRS, WAVE})
"""Columns only AMD rows fill: shown where the table has AMD rows."""
NVIDIA_COLUMNS = frozenset({BARRIERS})
"""Columns only NVIDIA rows fill: shown where the table has NVIDIA rows."""
HEADER_TIPS = (
    "Demangled kernel name; the mangled name and where it was read are in the tooltip.\n"
    "Italic: a device function (listed with All functions).",
    "The architecture the code was compiled for (AMD: the full target id, gfx942:sramecc+:xnack-).",
    "Registers per thread (NVIDIA); VGPRs per lane (AMD: .vgpr_count, which holds the AGPRs on gfx90a and\n"
    "later), with the kernel descriptor's allocation beside it where LLVM padded it past the count.",
    "AMD: AGPRs per lane (.agpr_count): a separate file on gfx908, part of the VGPRs on gfx90a and later.",
    "AMD: scalar registers per wave (.sgpr_count).",
    "AMD: the wave size the kernel is compiled for, and WGP or CU mode on gfx10 and later.",
    "Local memory per thread: the stack frame plus any spills (ptxas 'bytes stack frame',\n"
    "cuobjdump 'STACK', a cubin's EIATTR frame size; AMD: scratch per work-item, .private_segment_fixed_size);\n"
    "highlighted when above 0.",
    "Static shared memory per block (__shared__ variables; AMD: static LDS per workgroup, .group_segment_fixed_size).",
    "Bytes of spill stores / spill loads (only compiler logs report them); AMD: VGPRs / SGPRs spilled\n"
    "(.vgpr_spill_count / .sgpr_spill_count). Highlighted when above 0.",
    "Named block barriers; — where the source does not say (the runtime assumes 1).",
    "The kernel's own limit on threads per block: __launch_bounds__ / .maxntid (≤ N), or its required\n"
    "block size .reqntid (= N), where the source records it (binaries and sources do; ptxas logs do not).\n"
    "AMD: .max_flat_workgroup_size (≤ N) or .reqd_workgroup_size (= N).",
    "Threads per block the row's occupancy is for: the calculator's threads per block, or what the kernel\n"
    "allows instead (its required size, its launch bound, the launch a Triton cache records). Choosing the\n"
    "row puts exactly these inputs in the calculator.",
    "Theoretical occupancy at the row's threads per block: the calculator's answer once the row is chosen —\n"
    "NVIDIA rows on the selected device; AMD rows by the HIP runtime's rule on the selected AMD device where it\n"
    "is the row's target, else on the target's profile. 'cannot launch' where no block of that size can start\n"
    "(0 % where it could, but no block fits the multiprocessor's resources).",
)
AMD_HEADERS = tuple(
    {
        REGISTERS: "VGPRs",
        LOCAL: "Scratch",
        STATIC_SMEM: "Static LDS",
        SPILLS: "Spills (v / s)",
        LAUNCH_BOUND: "Max workgroup",
    }.get(c, h)
    for c, h in enumerate(HEADERS)
)
"""The headers of a table of AMD kernels alone, in AMD's words (a mixed table keeps the shared ones)."""
