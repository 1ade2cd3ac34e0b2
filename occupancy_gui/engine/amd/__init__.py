"""The AMD engine: the HIP runtime's occupancy answer and LLVM's, side by side.

Two rules answer "how many blocks / waves fit" on an AMD GPU, and they disagree:

* ``hip_runtime``: ``hipOccupancyMaxActiveBlocksPerMultiprocessor`` as ROCm 7.x computes it (pools a CU's
  waves, caps them at 8 or 16 per SIMD, ignores the LDS granule), with ``hipOccupancyMaxPotentialBlockSize``
  and, in ``hip_search``, the header template that searches block sizes;
* ``compiler``: LLVM's AMDGPU model, the ``; Occupancy: N`` waves per SIMD the compiler prints.

``explain`` says in one line why they differ; ``sweeps`` and ``advisor`` draw step curves, ``grids`` heat maps, and find the VGPR
counts where waves per SIMD change; ``rows`` turns either answer into vendor-neutral limit rows.  Pure Python:
no Qt, no I/O; targets come from ``profiles.amd_catalog``.
"""

from .advisor import VgprStep, vgpr_hint, vgpr_steps
from .compiler import COMPILER_LIMITS, CompilerBudget, CompilerResult, compiler_occupancy
from .compiler_grids import compiler_grid_lds, compiler_grid_vgprs
from .errors import AmdInputError
from .explain import explain_difference
from .grids import FAILS, NO_BLOCK_FITS, AmdGrid, hip_grid_lds, hip_grid_vgprs
from .hip_runtime import (
    HIP_LIMITS,
    HipBudget,
    HipRuntimeResult,
    hip_occupancy,
    hip_potential_block_size,
    max_active_blocks,
)
from .hip_search import HipBlockSizeSearch, hip_block_size_search
from .rows import AmdLimitRow, compiler_rows, hip_rows
from .sweeps import AmdSweep, sweep_block_size, sweep_lds, sweep_vgprs
from .types import AGPR_FILES, AmdDevice, AmdKernel, AmdLaunch, AmdTarget, gfx_version
from .utilization import hip_utilization

__all__ = [
    "AGPR_FILES",
    "AmdDevice",
    "AmdGrid",
    "AmdInputError",
    "AmdKernel",
    "AmdLaunch",
    "AmdLimitRow",
    "AmdSweep",
    "AmdTarget",
    "COMPILER_LIMITS",
    "CompilerBudget",
    "CompilerResult",
    "FAILS",
    "HIP_LIMITS",
    "HipBlockSizeSearch",
    "HipBudget",
    "HipRuntimeResult",
    "NO_BLOCK_FITS",
    "VgprStep",
    "compiler_grid_lds",
    "compiler_grid_vgprs",
    "compiler_occupancy",
    "compiler_rows",
    "explain_difference",
    "gfx_version",
    "hip_block_size_search",
    "hip_grid_lds",
    "hip_grid_vgprs",
    "hip_occupancy",
    "hip_potential_block_size",
    "hip_rows",
    "hip_utilization",
    "max_active_blocks",
    "sweep_block_size",
    "sweep_lds",
    "sweep_vgprs",
    "vgpr_hint",
    "vgpr_steps",
]
