"""Compiling PTX and CUDA sources for their resource usage (``ptxas -v``, ``nvcc --resource-usage``),
and the register-cap sweep.  No Qt: the window runs these on a worker thread."""

from .build import (
    CompileCancelled,
    CompileError,
    DeviceCompile,
    Source,
    arch_refusal,
    compile_for_device,
    compile_resources,
    make_source,
    source_kind,
)
from .toolchain import CompilerNotFound, find_tool

__all__ = [
    "CompileCancelled",
    "CompileError",
    "CompilerNotFound",
    "DeviceCompile",
    "Source",
    "arch_refusal",
    "compile_for_device",
    "compile_resources",
    "find_tool",
    "make_source",
    "source_kind",
]
