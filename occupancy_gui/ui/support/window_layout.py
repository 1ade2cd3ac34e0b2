"""The window's arrangement: docks by name, a newly opened dock in front, any arrangement on demand.

Docks are named by their object name without ``_dock`` (``advisor``, ``heatmap``, ``waves``,
``kernel_table``, ``compare``, ``every_gpu``, and any an extension adds), which is what
``occupancy-gui --screenshot OUT.png --docks NAME,...`` and the tests use.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

ALL, NONE = "all", "none"


def dock_name(dock: QDockWidget) -> str:
    name = dock.objectName()
    return name[: -len("_dock")] if name.endswith("_dock") else name


def docks_by_name(window: QMainWindow) -> dict[str, QDockWidget]:
    """Every dock of the window, by its short name, in creation order."""
    return {dock_name(d): d for d in window.findChildren(QDockWidget) if d.objectName()}


def parse_docks(spec: str, window: QMainWindow) -> list[QDockWidget]:
    """``all``, ``none`` or comma-separated names; an unknown name is a ``ValueError`` listing the known ones."""
    docks = docks_by_name(window)
    spec = spec.strip()
    if spec == ALL:
        return list(docks.values())
    if spec == NONE:
        return []
    chosen = []
    for name in (part.strip() for part in spec.split(",") if part.strip()):
        if name not in docks:
            raise ValueError(f"--docks: unknown dock {name!r}; expected all, none or some of: {', '.join(docks)}")
        chosen.append(docks[name])
    return chosen


def show_docks(window: QMainWindow, docks: list[QDockWidget]) -> None:
    """Open exactly ``docks`` (closing the others); within a tab group the first named is in front."""
    for dock in docks_by_name(window).values():
        dock.setVisible(dock in docks)
    for dock in reversed(docks):
        dock.raise_()


def raise_when_opened(dock: QDockWidget) -> None:
    """A dock opened from a menu comes to the front of its tab group instead of opening hidden behind."""

    def on_toggled(checked: bool) -> None:
        if checked:
            QTimer.singleShot(0, dock.raise_)  # after Qt has put it back into its tab group

    dock.toggleViewAction().toggled.connect(on_toggled)


DOCK_ORDER = (
    "kernel_table",
    "source",
    "advisor",
    "heatmap",
    "waves",
    "utilization",
    "compare",
    "every_gpu",
    "gpu_data",
)
"""The docks' order in the one menu that opens them all: the inputs' sources, then the analyses, then the
comparisons and the data sheet; any other dock after these."""


def gather_dock_toggles(window: QMainWindow, menu: QMenu) -> None:
    """Every dock's toggle in ``menu`` and nowhere else (they were split between View and Analysis, one in
    both), in :data:`DOCK_ORDER`, above the menu's other actions."""
    docks = docks_by_name(window)
    ordered = [docks[n] for n in DOCK_ORDER if n in docks] + [d for n, d in docks.items() if n not in DOCK_ORDER]
    toggles = [dock.toggleViewAction() for dock in ordered]
    for other in window.findChildren(QMenu):
        for action in toggles:
            other.removeAction(action)
    rest = list(menu.actions())
    for action in rest:
        menu.removeAction(action)
    menu.addSection("Docks")
    menu.addActions(toggles)
    if rest:
        menu.addSeparator()
        menu.addActions(rest)


def install_window_layout(window: QMainWindow, dock_menu: QMenu | None = None) -> None:
    """Extension entry point (installed last, so it sees every dock): each dock comes to the front when opened,
    and ``dock_menu`` holds every dock's toggle."""
    for dock in docks_by_name(window).values():
        raise_when_opened(dock)
    if dock_menu is not None:
        gather_dock_toggles(window, dock_menu)
