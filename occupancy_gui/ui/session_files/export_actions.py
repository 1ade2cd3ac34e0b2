"""File → Export…: a report (HTML, Markdown), the constraint table (CSV) or the plots (PNG, SVG).

The format follows the file's extension; ``SessionIO.export_to(path)`` is the entry point without a
dialog.  Loaded with the first export (pyqtgraph's exporters and the report templates are not needed
before).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtWidgets import QFileDialog, QWidget

from ... import report
from ...fields import AMD
from ...session import file as sf

if TYPE_CHECKING:
    from ...importers import KernelRecord
    from ...session import Session

EXPORT_FILTERS = (
    "HTML report (*.html)",
    "Markdown report (*.md)",
    "Constraint table as CSV (*.csv)",
    "Plots as PNG image (*.png)",
    "Plots as SVG image (*.svg)",
)


def export_to(
    path: str | os.PathLike[str],
    session: Session,
    source: tuple[str, str] | None,
    plots: QWidget,
    record: KernelRecord | None = None,
) -> Path:
    """Write a report (.html/.md), the table (.csv) or the ``plots`` (.png/.svg) by extension.

    ``source``: the (file, kernel) the inputs came from, named in reports; ``record``: that kernel's
    imported record (its demangled name, local memory and spills go into the report).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".png", ".svg"):
        sf.atomic_write_bytes(path, plot_image_bytes(plots, suffix))
    else:
        kernel = None
        if record is not None and source is not None:
            kernel = f"{source[0]}:{record.demangled or record.name}"
        elif source is not None and source[1]:
            kernel = f"{source[0]}:{source[1]}"
        if session.vendor == AMD:  # both AMD answers; the kernel table's records are NVIDIA's
            sf.atomic_write_text(path, report.render_amd(report.amd_report_data(session, kernel), path))
            return path
        data = report.report_data(session, kernel_source=kernel, record=record)
        sf.atomic_write_text(path, report.render(data, path))
    return path


def plot_image_bytes(plots: QWidget, suffix: str) -> bytes:
    """The plot grid as PNG or SVG bytes, at the screen's pixel ratio (logical size × DPR)."""
    from pyqtgraph.exporters import ImageExporter, SVGExporter  # noqa: PLC0415 - lazy: with the first export

    scene = plots.scene()  # type: ignore[attr-defined]  # a pyqtgraph GraphicsLayoutWidget's

    dpr = plots.devicePixelRatioF()
    width, height = round(plots.width() * dpr), round(plots.height() * dpr)
    if suffix == ".svg":
        svg = SVGExporter(scene)
        return bytes(svg.export(toBytes=True))
    exporter = ImageExporter(scene)
    exporter.params.param("width").setValue(width, blockSignal=exporter.widthChanged)
    exporter.params.param("height").setValue(height, blockSignal=exporter.heightChanged)
    image = exporter.export(toBytes=True)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def export_dialog(
    parent: QWidget, start: str, export: Callable[[str], object], report_error: Callable[[str, str], None]
) -> None:
    """Ask for a file (from ``start``) and a format, then ``export`` it; an error goes to ``report_error``."""
    path, chosen = QFileDialog.getSaveFileName(parent, "Export", start, ";;".join(EXPORT_FILTERS))
    if not path:
        return
    if not Path(path).suffix and chosen:
        path += chosen[chosen.index("*") + 1 : -1]
    try:
        export(path)
    except (OSError, ValueError) as exc:
        report_error("Cannot export", str(exc))
