"""File → Export…: a report (HTML, Markdown), the constraint table (CSV) or the plots (PNG, SVG).

The format follows the file's extension; ``window.session_io.export_to(path)`` is the entry point
without a dialog.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtWidgets import QFileDialog

from .. import report
from .. import session_file as sf

if TYPE_CHECKING:
    from .session_io import SessionIO

EXPORT_FILTERS = ("HTML report (*.html)", "Markdown report (*.md)", "Constraint table as CSV (*.csv)",
                  "Plots as PNG image (*.png)", "Plots as SVG image (*.svg)")  # fmt: skip


def export_to(io: SessionIO, path: str | os.PathLike[str]) -> Path:
    """Write a report (.html/.md), the table (.csv) or the plots (.png/.svg) of ``io``'s window by extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".png", ".svg"):
        sf.atomic_write_bytes(path, plot_image_bytes(io.window.plots, suffix))
    else:
        panel = getattr(io.window, "import_panel", None)
        record = panel.current_record() if panel is not None else None
        source = io.current_source()
        kernel = None
        if record is not None and source is not None:
            kernel = f"{source[0]}:{record.demangled or record.name}"
        elif source is not None and source[1]:
            kernel = f"{source[0]}:{source[1]}"
        data = report.report_data(io.session, kernel_source=kernel, record=record)
        sf.atomic_write_text(path, report.render(data, path))
    io.window.statusBar().showMessage(f"Exported {path}", 5000)
    return path


def plot_image_bytes(plots: Any, suffix: str) -> bytes:
    """The plot grid as PNG or SVG bytes, at the screen's pixel ratio (logical size × DPR)."""
    from pyqtgraph.exporters import ImageExporter, SVGExporter

    dpr = plots.devicePixelRatioF()
    width, height = round(plots.width() * dpr), round(plots.height() * dpr)
    if suffix == ".svg":
        svg = SVGExporter(plots.scene())
        return bytes(svg.export(toBytes=True))
    exporter = ImageExporter(plots.scene())
    exporter.params.param("width").setValue(width, blockSignal=exporter.widthChanged)
    exporter.params.param("height").setValue(height, blockSignal=exporter.heightChanged)
    image = exporter.export(toBytes=True)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def export_dialog(io: SessionIO) -> None:
    """Ask for a file and a format, then export; an error goes to ``io.report_error``."""
    start = os.path.join(io.dialog_dir(), (io.path.stem if io.path else "occupancy") + ".html")
    path, chosen = QFileDialog.getSaveFileName(io.window, "Export", start, ";;".join(EXPORT_FILTERS))
    if not path:
        return
    if not Path(path).suffix and chosen:
        path += chosen[chosen.index("*") + 1 : -1]
    try:
        io.export_to(path)
    except (OSError, ValueError) as exc:
        io.report_error("Cannot export", str(exc))
