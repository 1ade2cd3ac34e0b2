"""A bottom-area dock whose view is built the first time it is shown (every analysis, the source dock).

A closed dock costs nothing: neither at start-up (its widgets, plots and models do not exist yet)
nor on an edit.  Once built, a view follows the session a moment after the main results (see
``deferred.py``) and recomputes only while it is visible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeAlias

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractScrollArea, QDockWidget, QFrame, QScrollArea, QWidget

from .deferred import DeferredUpdate

if TYPE_CHECKING:
    from ...session import Session
    from .window_api import WindowApi


class AnalysisView(Protocol):
    def on_session_changed(self, changed: frozenset[str]) -> None: ...


ViewFactory: TypeAlias = "Callable[[Session], QWidget]"


class AnalysisDock(QDockWidget):
    """A dock whose view is made by ``factory`` on first show, then follows the session a moment late."""

    def __init__(self, window: WindowApi, factory: ViewFactory, name: str, title: str) -> None:
        super().__init__(title, window.frame)
        self.setObjectName(name)  # QSettings restores docks by object name
        self._window, self._factory = window, factory
        self._view: QWidget | None = None
        self.follow: DeferredUpdate | None = None
        self.setWidget(QWidget())  # a placeholder until the dock is first shown
        self.visibilityChanged.connect(self._on_visibility_changed)

    @property
    def built_view(self) -> QWidget | None:
        """The dock's view if it has been built (first shown), else ``None``."""
        return self._view

    def view(self) -> QWidget:
        """The dock's view, built now if it does not exist yet."""
        if self._view is not None:
            return self._view
        view = self._view = self._factory(self._window.session)
        follows: AnalysisView = view  # type: ignore[assignment]  # every factory's view has on_session_changed
        self.follow = DeferredUpdate(follows.on_session_changed, view)
        self._window.bridge.resultChanged.connect(self.follow.schedule)
        if isinstance(view, QAbstractScrollArea):  # a graphics or item view shrinks (and scrolls) by itself
            self.setWidget(view)
            return view
        # A form is scrolled, not squeezed: its minimum size must never set the window's (1024×700 with docks).
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(view)
        self.setWidget(scroll)
        return view

    def _on_visibility_changed(self, visible: bool) -> None:
        if visible:
            self.view()


def add_analysis_dock(window: WindowApi, factory: ViewFactory, name: str, title: str) -> AnalysisDock:
    """Add a closed analysis dock, tabbed with the others in the bottom area, with a menu toggle."""
    dock = AnalysisDock(window, factory, name, title)
    frame = window.frame
    others = [d for d in frame.findChildren(QDockWidget)
              if d is not dock and frame.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea]  # fmt: skip
    frame.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    if others:
        frame.tabifyDockWidget(others[0], dock)
        front = next((d for d in others if d.objectName() == "advisor_dock"), others[0])
        front.raise_()  # the first analysis tab stays in front
    dock.hide()  # opened from the Analysis menu (or by a restored layout): the main view stays uncluttered
    window.analysis_menu.addAction(dock.toggleViewAction())
    return dock
