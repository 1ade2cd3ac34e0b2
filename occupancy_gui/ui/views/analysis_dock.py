"""The bottom-area docks of the Analysis menu, built the first time they are shown.

A closed dock costs nothing: neither at start-up (its widgets, plots and models do not exist yet)
nor on an edit.  Once built, a view follows the session a moment after the main results (see
``deferred.py``) and recomputes only while it is visible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QAbstractScrollArea, QDockWidget, QFrame, QScrollArea, QWidget

from ..deferred import DeferredUpdate

if TYPE_CHECKING:
    from ...session import Session
    from ..main_window import MainWindow

ViewFactory: TypeAlias = "Callable[[Session], QWidget]"

DOCK_SIZE = QSize(900, 210)
"""Size hint of every analysis view: the bottom dock area starts this tall (QSettings may restore another)."""


class RefreshWhenVisible:
    """Mixin for a dock's view: recompute only while shown; a hidden view catches up when shown.

    The view defines ``refresh()`` (which clears ``_dirty``) and sets ``_dirty = True`` initially.
    """

    _dirty = True

    def refresh(self) -> None:  # pragma: no cover - every view defines its own
        raise NotImplementedError

    def on_session_changed(self, changed: frozenset[str]) -> None:
        if self.isVisible():  # type: ignore[attr-defined]
            self.refresh()
        else:
            self._dirty = True  # a hidden tab computes when shown

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return DOCK_SIZE

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        if self._dirty:
            self.refresh()
        super().showEvent(event)  # type: ignore[misc]


class AnalysisDock(QDockWidget):
    """A dock whose view is made by ``factory`` on first show and stored as ``window.<attr>``."""

    def __init__(self, window: MainWindow, factory: ViewFactory, attr: str, name: str, title: str) -> None:
        super().__init__(title, window)
        self.setObjectName(name)  # QSettings restores docks by object name
        self._window, self._factory, self._attr = window, factory, attr
        self.setWidget(QWidget())  # a placeholder until the dock is first shown
        self.visibilityChanged.connect(self._on_visibility_changed)

    def view(self) -> QWidget:
        """The dock's view, built now if it does not exist yet."""
        existing = getattr(self._window, self._attr, None)
        if existing is not None:
            return existing
        view = self._factory(self._window.session)
        setattr(self._window, self._attr, view)
        view.follow = DeferredUpdate(view.on_session_changed, view)  # type: ignore[attr-defined]
        self._window.bridge.resultChanged.connect(view.follow.schedule)  # type: ignore[attr-defined]
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


def add_analysis_dock(window: MainWindow, factory: ViewFactory, attr: str, name: str, title: str) -> AnalysisDock:
    """Add a closed analysis dock, tabbed with the others in the bottom area, with a menu toggle."""
    dock = AnalysisDock(window, factory, attr, name, title)
    others = [d for d in window.findChildren(QDockWidget)
              if d is not dock and window.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea]  # fmt: skip
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    if others:
        window.tabifyDockWidget(others[0], dock)
        front = next((d for d in others if d.objectName() == "advisor_dock"), others[0])
        front.raise_()  # the first analysis tab stays in front
    dock.hide()  # opened from the Analysis menu (or by a restored layout): the main view stays uncluttered
    window.analysis_menu.addAction(dock.toggleViewAction())
    return dock


def _advisor(session: Session) -> QWidget:
    from .advisor_view import AdvisorView

    return AdvisorView(session)


def _heatmap(session: Session) -> QWidget:
    from .heatmap_view import HeatmapView

    return HeatmapView(session)


def _waves(session: Session) -> QWidget:
    from .waves_view import WavesView

    return WavesView(session)


def install_analysis_docks(window: MainWindow) -> None:
    """The Advisor, Heat maps and Grid-and-waves docks; their modules load when a dock is first shown."""
    window.advisor_dock = add_analysis_dock(window, _advisor, "advisor_view", "advisor_dock", "Advisor")  # type: ignore[attr-defined]
    window.heatmap_dock = add_analysis_dock(window, _heatmap, "heatmap_view", "heatmap_dock", "Heat maps")  # type: ignore[attr-defined]
    window.waves_dock = add_analysis_dock(window, _waves, "waves_view", "waves_dock", "Grid and waves")  # type: ignore[attr-defined]
