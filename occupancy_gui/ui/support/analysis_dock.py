"""A bottom-area dock whose view is built the first time it is shown (every analysis, the source dock).

A closed dock costs nothing: neither at start-up (its widgets, plots and models do not exist yet)
nor on an edit.  Once built, a view follows the session a moment after the main results (see
``deferred.py``) and recomputes only while it is visible.

A view answers for the vendors it is made for (``vendors``; NVIDIA's alone by default).  While a device of
another vendor is selected the dock shows one line saying the view is not available for that vendor's devices yet,
in place of the view, at once (in the same turn as the main results, never a figure of the other vendor's device);
a view that does not exist yet is built only when its vendor's device is selected again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeAlias

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractScrollArea, QDockWidget, QFrame, QLabel, QScrollArea, QWidget

from ...fields import NVIDIA, VENDOR_NAMES
from .deferred import DeferredUpdate

if TYPE_CHECKING:
    from ...session import Session
    from .window_api import WindowApi


class AnalysisView(Protocol):
    def on_session_changed(self, changed: frozenset[str]) -> None: ...


ViewFactory: TypeAlias = "Callable[[Session], QWidget]"


class AnalysisDock(QDockWidget):
    """A dock whose view is made by ``factory`` on first show, then follows the session a moment late."""

    def __init__(self, window: WindowApi, factory: ViewFactory, name: str, title: str,
                 vendors: frozenset[str] = frozenset({NVIDIA})) -> None:  # fmt: skip
        super().__init__(title, window.frame)
        self.setObjectName(name)  # QSettings restores docks by object name
        self._window, self._factory, self.vendors = window, factory, vendors
        self._view: QWidget | None = None
        self.follow: DeferredUpdate | None = None
        self.note = QLabel(self)
        """What the dock shows for a device whose vendor the view is not made for."""
        self.note.setObjectName(f"{name}_vendor_note")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setWordWrap(True)
        self.note.hide()
        self.setWidget(QWidget())  # a placeholder until the dock is first shown
        self.visibilityChanged.connect(self._on_visibility_changed)

    @property
    def built_view(self) -> QWidget | None:
        """The dock's view if it has been built (first shown), else ``None``."""
        return self._view

    @property
    def available(self) -> bool:
        """Whether the view answers for the selected device's vendor."""
        return self._window.session.vendor in self.vendors

    def view(self) -> QWidget:
        """The dock's view, built now if it does not exist yet; the one-line note instead while the selected
        device's vendor is not one the view is made for."""
        if self.follow is None:
            self.follow = DeferredUpdate(self._on_follow, self)
            self._window.bridge.resultChanged.connect(self._on_bridge_result_changed)
            self._window.bridge.resultChanged.connect(self.follow.schedule)
        if not self.available:
            self._show_note()
            return self.note
        if self._view is not None:
            if self.widget() is self.note:  # back from another vendor's device: the view again, caught up
                self._show(self._page)
                self._follows().on_session_changed(frozenset({"device"}))
            return self._view
        view = self._view = self._factory(self._window.session)
        if isinstance(view, QAbstractScrollArea):  # a graphics or item view shrinks (and scrolls) by itself
            self._page: QWidget = view
        else:  # a form is scrolled, not squeezed: its minimum size must never set the window's (1024×700 with docks)
            scroll = QScrollArea(self)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(view)
            self._page = scroll
        self._show(self._page)
        return view

    def _show(self, widget: QWidget) -> None:
        if self.widget() is not widget:
            old = self.widget()
            self.setWidget(widget)
            widget.show()
            if old is not None and old is not self.note and old is not getattr(self, "_page", None):
                old.deleteLater()  # the first placeholder
            elif old is not None:
                old.hide()

    def _follows(self) -> AnalysisView:
        follows: AnalysisView = self._view  # type: ignore[assignment]  # every factory's view has on_session_changed
        return follows

    def _show_note(self) -> None:
        words = f"{self.windowTitle()}: not available for {VENDOR_NAMES[self._window.session.vendor]} devices yet."
        if self.note.text() != words:
            self.note.setText(words)
        self._show(self.note)

    def _on_bridge_result_changed(self, changed: frozenset[str]) -> None:
        """At once, in the main results' turn: a device of another vendor hides the view before it could show a
        figure of the device before (the view itself follows a moment later)."""
        if "device" in changed and not self.available:
            self._show_note()

    def _on_follow(self, changed: frozenset[str]) -> None:
        if not self.available:
            self._show_note()
            return
        current = self._view is not None and self.widget() is not self.note
        self.view()  # builds it, or shows it again caught up, where the note stood
        if current:
            self._follows().on_session_changed(changed)

    def _on_visibility_changed(self, visible: bool) -> None:
        if visible:
            self.view()


def add_analysis_dock(window: WindowApi, factory: ViewFactory, name: str, title: str,
                      vendors: frozenset[str] = frozenset({NVIDIA})) -> AnalysisDock:  # fmt: skip
    """Add a closed analysis dock, tabbed with the others in the bottom area, with a menu toggle; its view answers
    for ``vendors``' devices (the dock says it is not available for the others')."""
    dock = AnalysisDock(window, factory, name, title, vendors)
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
