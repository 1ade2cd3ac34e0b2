"""Views that plug into the main window without the window knowing them.

Each entry is a function ``install(window)`` that builds its own docks, actions and menu entries
(``window.file_menu`` — insert before ``window.file_quit_separator`` —, ``edit_menu``, ``view_menu``,
``analysis_menu``, ``help_menu``, ``window.toolbar``) and connects to ``window.bridge.resultChanged``.
Keeping the list here lets the window stay a composition of a few fixed panels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .main_window import MainWindow

Install = Callable[["MainWindow"], None]


def registered() -> list[Install]:
    """Every view, in installation order (imported here, not at module load, to keep start-up lean
    and the window module free of import cycles)."""
    from .detect_action import install_detect_action
    from .session_io import install_compare_and_sessions
    from .views.analysis_dock import install_analysis_docks
    from .views.import_dock import install_import_panel
    from .views.source_dock import install_source_view

    return [install_compare_and_sessions, install_analysis_docks, install_import_panel, install_source_view,
            install_detect_action]


def install_extensions(window: MainWindow) -> None:
    """Install every registered view into ``window``, in registration order."""
    for install in registered():
        install(window)
