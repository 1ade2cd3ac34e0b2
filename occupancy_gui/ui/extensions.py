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

EXTENSIONS: list[Callable[[MainWindow], None]] = []


def install_extensions(window: MainWindow) -> None:
    """Install every registered view into ``window``, in registration order."""
    for install in EXTENSIONS:
        install(window)
