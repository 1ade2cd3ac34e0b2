"""The AMD question, described once, below the command line and the window's session.

``values`` reads an AMD query's fields against the field table and turns them into the AMD engine's kernel and
launch; ``answer`` computes both answers (the HIP runtime's and LLVM's), their rows and curves; ``catalog`` finds a
device among both vendors' profiles.  Pure Python (no Qt).
"""

from ..field_values import AmdFieldError, WavesPerEu, read_value
from .answer import CURVE_NAMES, VENDOR, AmdAnswer, answer, curve
from .catalog import bundled_catalog, find_device
from .state import AmdState, compute, inputs_problem
from .values import (
    AMD_FIELDS,
    AMD_NAMES,
    applies,
    kernel_and_launch,
    read_values,
    target_problem,
    target_values,
)

__all__ = [
    "AMD_FIELDS",
    "AMD_NAMES",
    "CURVE_NAMES",
    "VENDOR",
    "AmdAnswer",
    "AmdFieldError",
    "AmdState",
    "WavesPerEu",
    "answer",
    "applies",
    "bundled_catalog",
    "compute",
    "curve",
    "find_device",
    "inputs_problem",
    "kernel_and_launch",
    "read_value",
    "read_values",
    "target_problem",
    "target_values",
]
