"""Small Qt helpers shared by the panels: signal blocking, icons and palette-derived colours."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject, QSignalBlocker
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette

from ...paths import data_dir

ICON_NAMES = ("app", "copy", "percent", "warps", "quit", "about")


@contextmanager
def signals_blocked(*objects: QObject) -> Iterator[None]:
    """Block the signals of ``objects`` for the duration: model-driven updates must not re-enter."""
    blockers = [QSignalBlocker(obj) for obj in objects]
    try:
        yield
    finally:
        for blocker in blockers:
            blocker.unblock()


def icon_path(name: str) -> str:
    """Path of ``resources/icons/<name>.svg``; unknown names raise with the known ones."""
    if name not in ICON_NAMES:
        raise KeyError(f"unknown icon {name!r}; known: {', '.join(ICON_NAMES)}")
    path = data_dir("resources") / "icons" / f"{name}.svg"
    if not path.is_file():
        raise FileNotFoundError(f"icon {name!r} missing at {path}")
    return str(path)


def icon(name: str) -> QIcon:
    """The bundled icon ``name`` (see :data:`ICON_NAMES`)."""
    return QIcon(icon_path(name))


def app_icon() -> QIcon:
    """The application icon: the SVG plus pre-rendered PNGs for platforms that want bitmaps."""
    result = QIcon(icon_path("app"))
    icons = data_dir("resources") / "icons"
    for png in sorted(icons.glob("app-*.png")):
        result.addFile(str(png))
    return result


def palette() -> QPalette:
    return QGuiApplication.palette()


def is_dark() -> bool:
    """Whether the system palette is a dark one (window text lighter than the window)."""
    pal = palette()
    return pal.color(QPalette.ColorRole.WindowText).lightness() > pal.color(QPalette.ColorRole.Window).lightness()


def error_color() -> QColor:
    """A red that reads on the current palette's background."""
    return QColor("#ff7b72") if is_dark() else QColor("#b3261e")


def disabled_text_color() -> QColor:
    """The palette's text colour for what does not apply (a kernel that cannot launch at a block size)."""
    return palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


def banner_colors() -> tuple[QColor, QColor]:
    """(background, text) of the red "launch would fail" banner, for light and dark palettes."""
    return (QColor("#5c1a1a"), QColor("#ffdcd8")) if is_dark() else (QColor("#fde7e5"), QColor("#8c1d18"))


def blend(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` toward ``b``."""
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
    )


BINDING_ACCENT_LIGHT, BINDING_ACCENT_DARK = "#f59f00", "#fcc419"
"""The binding limit's accent (amber, as Nsight Compute's and the spreadsheet's users know a limiter marked): never
the palette's highlight, which is what a selected row looks like."""


def binding_accent() -> QColor:
    """The binding limit's accent colour for the current palette."""
    return QColor(BINDING_ACCENT_DARK if is_dark() else BINDING_ACCENT_LIGHT)


def binding_row_color() -> QColor:
    """Background of binding rows: the amber accent softened toward the base colour (text stays readable)."""
    return blend(palette().color(QPalette.ColorRole.Base), binding_accent(), 0.3)
