"""What an AMDGPU code object's ELF header says of its target: processor, features, code object version.

The ``e_flags`` layout is LLVM's (``llvm/BinaryFormat/ELF.h``; the AMDGPUUsage "AMDGPU ELF Header"
tables): bits 0-7 name the processor (``EF_AMDGPU_MACH``); the features are encoded two ways:

* code object v2 and v3 (``EI_ABIVERSION`` 0 and 1): one bit each, ``0x100`` XNACK and ``0x200`` SRAMECC,
  set where the feature was on *or any* (LLVM wrote no third state then);
* v4 and later (``EI_ABIVERSION`` 2, 3, 4 = v4, v5, v6): two bits each, ``0x300`` XNACK and ``0xc00``
  SRAMECC, 0 unsupported, 1 any, 2 off, 3 on; v6 adds the generic version in bits 24-31.

The version comes from ``EI_ABIVERSION``, never from the metadata's ``amdhsa.version`` (real files leave it
at [1, 0] or [1, 2] whatever the version).  The target id is written as LLVM writes ``amdhsa.target``'s
processor part: ``gfx942``, ``gfx942:sramecc+:xnack-`` (features in that order, "any" left out).
"""

from __future__ import annotations

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64
ELFOSABI_AMDGPU_PAL = 65
ELFOSABI_AMDGPU_MESA3D = 66
CODE_OBJECT_VERSIONS = {0: 2, 1: 3, 2: 4, 3: 5, 4: 6}
"""``EI_ABIVERSION`` of an ``ELFOSABI_AMDGPU_HSA`` file -> code object version."""

EF_AMDGPU_MACH = 0xFF
_XNACK_V3, _SRAMECC_V3 = 0x100, 0x200
_XNACK_V4, _SRAMECC_V4 = 0x300, 0xC00
_GENERIC_VERSION_SHIFT = 24

MACHS = {
    0x20: "gfx600",
    0x21: "gfx601",
    0x22: "gfx700",
    0x23: "gfx701",
    0x24: "gfx702",
    0x25: "gfx703",
    0x26: "gfx704",
    0x28: "gfx801",
    0x29: "gfx802",
    0x2A: "gfx803",
    0x2B: "gfx810",
    0x2C: "gfx900",
    0x2D: "gfx902",
    0x2E: "gfx904",
    0x2F: "gfx906",
    0x30: "gfx908",
    0x31: "gfx909",
    0x32: "gfx90c",
    0x33: "gfx1010",
    0x34: "gfx1011",
    0x35: "gfx1012",
    0x36: "gfx1030",
    0x37: "gfx1031",
    0x38: "gfx1032",
    0x39: "gfx1033",
    0x3A: "gfx602",
    0x3B: "gfx705",
    0x3C: "gfx805",
    0x3D: "gfx1035",
    0x3E: "gfx1034",
    0x3F: "gfx90a",
    0x40: "gfx940",
    0x41: "gfx1100",
    0x42: "gfx1013",
    0x43: "gfx1150",
    0x44: "gfx1103",
    0x45: "gfx1036",
    0x46: "gfx1101",
    0x47: "gfx1102",
    0x48: "gfx1200",
    0x49: "gfx1250",
    0x4A: "gfx1151",
    0x4B: "gfx941",
    0x4C: "gfx942",
    0x4E: "gfx1201",
    0x4F: "gfx950",
    0x50: "gfx1310",
    0x51: "gfx9-generic",
    0x52: "gfx10-1-generic",
    0x53: "gfx10-3-generic",
    0x54: "gfx11-generic",
    0x55: "gfx1152",
    0x58: "gfx1153",
    0x59: "gfx12-generic",
    0x5A: "gfx1251",
    0x5B: "gfx12-5-generic",
    0x5C: "gfx1172",
    0x5D: "gfx1170",
    0x5E: "gfx1171",
    0x5F: "gfx9-4-generic",
}
"""``EF_AMDGPU_MACH`` -> processor, as LLVM's ``AMDGPU_MACH_LIST`` (0x40 gfx940 and 0x4b gfx941 as LLVM 19
still names them; later LLVM dropped both processors)."""

_XNACK_TARGETS = frozenset(
    (
        "gfx801",
        "gfx810",
        "gfx900",
        "gfx902",
        "gfx904",
        "gfx906",
        "gfx908",
        "gfx909",
        "gfx90a",
        "gfx90c",
        "gfx940",
        "gfx941",
        "gfx942",
        "gfx950",
        "gfx1010",
        "gfx1011",
        "gfx1012",
        "gfx1013",
        "gfx9-generic",
        "gfx9-4-generic",
        "gfx10-1-generic",
    )
)
_SRAMECC_TARGETS = frozenset(("gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950", "gfx9-4-generic"))
"""Processors with the XNACK / SRAMECC target features (AMDGPUUsage's processor table): a v2/v3 code object
whose bit is clear was compiled with the feature off, where the processor has it."""

_UNIFIED_VGPR_FILE = frozenset(("gfx90a", "gfx940", "gfx941", "gfx942", "gfx950", "gfx9-4-generic"))
"""gfx90a and later CDNA: one register file for VGPRs and AGPRs (``FeatureGFX90AInsts``)."""
_VGPR_GRANULE_16 = frozenset(("gfx1250", "gfx1251", "gfx12-5-generic"))


def processor(e_flags: int) -> str | None:
    """The processor ``e_flags`` names (``gfx942``), ``None`` for a value this table does not know."""
    return MACHS.get(e_flags & EF_AMDGPU_MACH)


def target_id(e_flags: int, version: int) -> str:
    """The target id (``gfx942:sramecc+:xnack-``) of a code object of ``version`` (2-6) with ``e_flags``."""
    name = processor(e_flags) or f"mach 0x{e_flags & EF_AMDGPU_MACH:02x}"
    features = []
    if version <= 3:
        if name in _SRAMECC_TARGETS:
            features.append("sramecc+" if e_flags & _SRAMECC_V3 else "sramecc-")
        if name in _XNACK_TARGETS:
            features.append("xnack+" if e_flags & _XNACK_V3 else "xnack-")
    else:
        sramecc = (e_flags & _SRAMECC_V4) >> 10
        xnack = (e_flags & _XNACK_V4) >> 8
        if sramecc >= 2:
            features.append("sramecc+" if sramecc == 3 else "sramecc-")
        if xnack >= 2:
            features.append("xnack+" if xnack == 3 else "xnack-")
    return ":".join([name, *features])


def generic_version(e_flags: int) -> int:
    """The generic target version a v6 code object for a ``gfx*-generic`` processor carries (0: none)."""
    return (e_flags >> _GENERIC_VERSION_SHIFT) & 0xFF


def has_unified_vgprs(arch: str) -> bool:
    """Whether ``arch`` allocates VGPRs and AGPRs from one file (gfx90a and later CDNA)."""
    return arch in _UNIFIED_VGPR_FILE


def vgpr_encoding_granule(arch: str, wave32: bool) -> int:
    """VGPRs per unit of a kernel descriptor's ``GRANULATED_WORKITEM_VGPR_COUNT``, as LLVM's
    ``AMDGPU::IsaInfo::getVGPREncodingGranule`` decides it (and ``llvm-objdump`` decodes
    ``.amdhsa_next_free_vgpr`` with): 8 on gfx90a and later CDNA, 16/8 (wave32/wave64) on gfx125x,
    else 8 for a wave32 kernel and 4 for wave64."""
    if arch in _UNIFIED_VGPR_FILE:
        return 8
    if arch in _VGPR_GRANULE_16:
        return 16 if wave32 else 8
    return 8 if wave32 else 4


def generation(arch: str) -> int:
    """The GFX major version of a processor (``gfx942`` -> 9, ``gfx1100`` -> 11, ``gfx10-3-generic`` -> 10);
    0 for a name that is none."""
    if not arch.startswith("gfx"):
        return 0
    digits = arch[3:].split("-")[0]
    if "-generic" in arch:
        return int(digits) if digits.isdigit() else 0
    if len(digits) >= 4 and digits[:2].isdigit():
        return int(digits[:2])
    return int(digits[0]) if digits[:1].isdigit() else 0


def split_target(target: str) -> tuple[str, str]:
    """``"gfx942:sramecc+:xnack-"`` -> ``("gfx942", ":sramecc+:xnack-")``."""
    name, colon, rest = target.partition(":")
    return name, colon + rest
