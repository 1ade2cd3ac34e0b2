"""Reports of one launch: the figures (``data``), rendered as HTML, Markdown or CSV (``formats``), with the step
curves drawn as inline SVG (``svg``).  Qt-free: ``occupancy report`` and the window's export share them."""

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

__all__ = ["BINDING_MARK", "INPUT_LABELS", "LIMIT_TITLES", "Figure", "GpuRow", "ReportData", "describe", "every_gpu",
           "format_input", "provenance", "record_inputs", "render", "report_data", "to_csv", "to_html",
           "to_markdown"]
