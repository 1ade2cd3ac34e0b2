"""Reports of one launch: the figures (``data``), rendered as HTML, Markdown or CSV (``formats``), with the step
curves drawn as inline SVG (``svg``).  Qt-free: ``occupancy report`` and the window's export share them."""

from typing import TYPE_CHECKING

from .data import (
    BINDING_MARK,
    INPUT_LABELS,
    LIMIT_TITLES,
    Figure,
    GpuRow,
    ReportData,
    describe,
    every_gpu,
    format_input,
    provenance,
    record_inputs,
    report_data,
)
from .formats import render, to_csv, to_html, to_markdown

__all__ = [
    "AmdGpuRow",
    "AmdReportData",
    "amd_describe",
    "amd_report_data",
    "every_amd_gpu",
    "render_amd",
    "BINDING_MARK",
    "INPUT_LABELS",
    "LIMIT_TITLES",
    "Figure",
    "GpuRow",
    "ReportData",
    "describe",
    "every_gpu",
    "format_input",
    "provenance",
    "record_inputs",
    "render",
    "report_data",
    "to_csv",
    "to_html",
    "to_markdown",
]

_AMD_NAMES = ("AmdGpuRow", "AmdReportData", "amd_describe", "amd_report_data", "every_amd_gpu", "render_amd")

if TYPE_CHECKING:  # loaded lazily by __getattr__ below
    from .amd import AmdGpuRow, AmdReportData, amd_describe, amd_report_data, every_amd_gpu, render_amd


def __getattr__(name: str) -> object:
    """The AMD reports load with their first use: an NVIDIA report needs no AMD engine."""
    if name in _AMD_NAMES:
        from . import amd  # noqa: PLC0415 - lazy: see above

        return getattr(amd, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
