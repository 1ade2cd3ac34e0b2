"""What a feature of the window (a dock, a menu's actions, a background job) may use of the window.

Features are built by :class:`~.main_window.MainWindow`, the composition root, and hold it only as this
protocol: they import neither the window class nor each other, so the window's module is the one place
that says which features exist and in which order they are installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

    from ...session import Session
    from .session_bridge import SessionBridge


class WindowApi(Protocol):
    """The session, its coalesced change signal, the menus, the saved settings and the Qt window itself."""

    @property
    def session(self) -> Session: ...

    @property
    def bridge(self) -> SessionBridge:
        """``resultChanged(frozenset[str])``, once per event-loop turn of changes."""
        ...

    @property
    def settings(self) -> QSettings | None:
        """The application's settings; ``None`` for a window that saves nothing (tests, screenshots)."""
        ...

    @property
    def file_menu(self) -> QMenu:
        """Entries go before :attr:`file_quit_separator`."""
        ...

    @property
    def file_quit_separator(self) -> QAction: ...

    @property
    def edit_menu(self) -> QMenu: ...

    @property
    def view_menu(self) -> QMenu: ...

    @property
    def analysis_menu(self) -> QMenu: ...

    @property
    def toolbar(self) -> QToolBar: ...

    @property
    def frame(self) -> QMainWindow:
        """The window as a Qt widget: parent of docks and dialogs, its status bar, its drops."""
        ...

    def set_document(self, name: str, modified: bool) -> None:
        """The session file's part of the window title (the window writes the title)."""
        ...
