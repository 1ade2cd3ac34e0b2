"""The occupancy engine: NVIDIA's ``cuda_occupancy.h`` model in pure Python + numpy.

Matches the header shipped in ``nvidia-cuda-runtime`` 13.5.37 (CUDA 13.5) bit for bit; the test
suite proves it against that header on every run.  No Qt, no file I/O.
"""

from typing import TYPE_CHECKING

from .architecture import (
    KNOWN_COMPUTE_CAPABILITIES,
    KNOWN_MAJORS,
    applies_barrier_limit,
    max_blocks_per_multiprocessor,
    reg_allocation_granularity,
    reg_allocation_max_per_thread,
    smem_allocation_granularity,
    sub_partitions_per_multiprocessor,
    supports_cache_config,
    supports_carveout,
)
from .block_size import BlockSizeSuggestion, DynamicSmem, max_potential_block_size
from .columns import occupancy_columns
from .compute import compute_occupancy, status_error
from .domain import DomainInputs, first_violation, violation_message
from .dynamic_smem import (
    DynamicSmemHeadroom,
    available_dynamic_smem_per_block,
    dynamic_smem_headroom,
    exact_dynamic_smem_for_blocks,
)
from .errors import OccupancyError
from .facts import FACT_SPECS, DeviceFact, device_facts
from .launch import Launch, build_query
from .min_blocks import min_blocks_shortfall
from .occupancy import Query, ResultArrays, device_is_valid, max_active_blocks, sm_model
from .resource_use import ResourceUtilization, split_usage, utilization
from .rows import ReasonInputs, launch_bound_reason, zero_block_reasons_many
from .sweeps import (
    Cliff,
    OccupancyGrid,
    StepCurve,
    sweep_barriers,
    sweep_block_size,
    sweep_block_size_registers,
    sweep_registers,
    sweep_shared_memory,
)
from .types import (
    CARVEOUT_DEFAULT,
    INT_MAX,
    LIMIT_FLAGS,
    CacheConfig,
    DeviceProperties,
    DeviceState,
    FirstPassEstimate,
    FuncShmemConfig,
    FunctionAttributes,
    Limit,
    LimitRow,
    LimitUsage,
    OccError,
    OccupancyResult,
    PartitionedGCConfig,
    default_max_dynamic_smem,
)

__all__ = [
    "KNOWN_MAJORS",
    "LIMIT_FLAGS",
    "DomainInputs",
    "ReasonInputs",
    "applies_barrier_limit",
    "device_is_valid",
    "first_violation",
    "launch_bound_reason",
    "max_blocks_per_multiprocessor",
    "occupancy_columns",
    "reg_allocation_granularity",
    "reg_allocation_max_per_thread",
    "sm_model",
    "smem_allocation_granularity",
    "status_error",
    "sub_partitions_per_multiprocessor",
    "supports_carveout",
    "violation_message",
    "zero_block_reasons_many",
    "CARVEOUT_DEFAULT",
    "INT_MAX",
    "KNOWN_COMPUTE_CAPABILITIES",
    "BlockSizeSuggestion",
    "CacheConfig",
    "Cliff",
    "DeviceProperties",
    "DeviceState",
    "DynamicSmem",
    "DynamicSmemHeadroom",
    "FirstPassEstimate",
    "FuncShmemConfig",
    "FunctionAttributes",
    "Launch",
    "Limit",
    "LimitRow",
    "OccError",
    "OccupancyError",
    "OccupancyGrid",
    "OccupancyResult",
    "PartitionedGCConfig",
    "Query",
    "ResultArrays",
    "StepCurve",
    "available_dynamic_smem_per_block",
    "build_query",
    "compute_occupancy",
    "default_max_dynamic_smem",
    "dynamic_smem_headroom",
    "exact_dynamic_smem_for_blocks",
    "max_active_blocks",
    "max_potential_block_size",
    "min_blocks_shortfall",
    "supports_cache_config",
    "sweep_barriers",
    "sweep_block_size",
    "sweep_block_size_registers",
    "sweep_registers",
    "sweep_shared_memory",
]
__all__ += [
    "FACT_SPECS",
    "DeviceFact",
    "LimitUsage",
    "ResourceUtilization",
    "device_facts",
    "split_usage",
    "utilization",
]
# The analysis views' rules load with their first use (the window's start-up does not need them).
_LAZY = {
    **dict.fromkeys(
        (
            "BINDING_ORDER",
            "CANNOT_LAUNCH",
            "NO_BLOCK_FITS",
            "Advice",
            "HeadroomRow",
            "InputCliff",
            "LimitGrid",
            "RegisterTarget",
            "advise",
            "advise_block_size",
            "grid_block_size_registers",
            "grid_block_size_shared_memory",
            "input_cliffs",
            "register_targets",
            "smem_headroom",
            "suggest_launch_bounds",
        ),
        "advisor",
    ),
    **dict.fromkeys(("WaveAnalysis", "analyse_waves", "grid_blocks"), "waves"),
}
__all__ += sorted(_LAZY)

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors; a test keeps the two lists equal
    from .advisor import (
        BINDING_ORDER as BINDING_ORDER,
    )
    from .advisor import (
        CANNOT_LAUNCH as CANNOT_LAUNCH,
    )
    from .advisor import (
        NO_BLOCK_FITS as NO_BLOCK_FITS,
    )
    from .advisor import (
        Advice as Advice,
    )
    from .advisor import (
        HeadroomRow as HeadroomRow,
    )
    from .advisor import (
        InputCliff as InputCliff,
    )
    from .advisor import (
        LimitGrid as LimitGrid,
    )
    from .advisor import (
        RegisterTarget as RegisterTarget,
    )
    from .advisor import (
        advise as advise,
    )
    from .advisor import (
        advise_block_size as advise_block_size,
    )
    from .advisor import (
        grid_block_size_registers as grid_block_size_registers,
    )
    from .advisor import (
        grid_block_size_shared_memory as grid_block_size_shared_memory,
    )
    from .advisor import (
        input_cliffs as input_cliffs,
    )
    from .advisor import (
        register_targets as register_targets,
    )
    from .advisor import (
        smem_headroom as smem_headroom,
    )
    from .advisor import (
        suggest_launch_bounds as suggest_launch_bounds,
    )
    from .waves import WaveAnalysis as WaveAnalysis
    from .waves import analyse_waves as analyse_waves
    from .waves import grid_blocks as grid_blocks


def __getattr__(name: str) -> object:
    # Plain import statements, not importlib: a bundler (PyInstaller) finds modules by reading them.
    module = _LAZY.get(name)
    loaded: object
    if module == "advisor":
        from . import advisor as loaded  # noqa: PLC0415 - lazy: start-up needs no analysis rules
    elif module == "waves":
        from . import waves as loaded  # noqa: PLC0415 - lazy: as above
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(loaded, name)
    globals()[name] = value
    return value
