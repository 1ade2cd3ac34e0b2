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
    """A dock whose view is made by ``factory`` on first show, then follows the session a moment late.

    ``others`` are the factories of views for other vendors' devices (``{"amd": ...}``); the dock shows the view of
    the selected device's vendor, each made the first time it is needed, and the one-line note for a vendor that
    has none.
    """

    def __init__(
        self,
        window: WindowApi,
        factory: ViewFactory,
        name: str,
        title: str,
        others: dict[str, ViewFactory] | None = None,
        notes: dict[str, str] | None = None,
    ) -> None:
        super().__init__(title, window.frame)
        self._notes = notes or {}
        """The one line for a vendor the dock has no view for, where it says more than "not available yet"."""
        self.setObjectName(name)  # QSettings restores docks by object name
        self._window = window
        self._factories: dict[str, ViewFactory] = {NVIDIA: factory, **(others or {})}
        self._views: dict[str, QWidget] = {}
        self._pages: dict[str, QWidget] = {}
        self.follow: DeferredUpdate | None = None
        self.note = QLabel(self)
        """What the dock shows for a device whose vendor the dock has no view for."""
        self.note.setObjectName(f"{name}_vendor_note")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setWordWrap(True)
        self.note.hide()
        self.setWidget(QWidget())  # a placeholder until the dock is first shown
        self.visibilityChanged.connect(self._on_visibility_changed)

    @property
    def vendors(self) -> frozenset[str]:
        return frozenset(self._factories)

    @property
    def built_view(self) -> QWidget | None:
        """The dock's (NVIDIA) view if it has been built (first shown), else ``None``."""
        return self._views.get(NVIDIA)

    @property
    def available(self) -> bool:
        """Whether the dock has a view for the selected device's vendor."""
        return self._window.session.vendor in self._factories

    def view(self) -> QWidget:
        """The view for the selected device's vendor, built now if it does not exist yet; the one-line note
        instead for a vendor the dock has no view for."""
        if self.follow is None:
            self.follow = DeferredUpdate(self._on_follow, self)
            self._window.bridge.resultChanged.connect(self._on_bridge_result_changed)
            self._window.bridge.resultChanged.connect(self.follow.schedule)
        vendor = self._window.session.vendor
        if vendor not in self._factories:
            self._show_note()
            return self.note
        view = self._views.get(vendor)
        if view is not None:
            if self.widget() is not self._pages[vendor]:  # back from another vendor's device: shown, caught up
                self._show(self._pages[vendor])
                self._follows(view).on_session_changed(frozenset({"device"}))
            return view
        view = self._views[vendor] = self._factories[vendor](self._window.session)
        if isinstance(view, QAbstractScrollArea):  # a graphics or item view shrinks (and scrolls) by itself
            page: QWidget = view
        else:  # a form is scrolled, not squeezed: its minimum size must never set the window's (1024×700 with docks)
            scroll = QScrollArea(self)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(view)
            page = scroll
        self._pages[vendor] = page
        self._show(page)
        return view

    def _show(self, widget: QWidget) -> None:
        old = self.widget()
        if old is widget:
            return
        self.setWidget(widget)
        widget.show()
        if old is not None and old is not self.note and old not in self._pages.values():
            old.deleteLater()  # the first placeholder
        elif old is not None:
            old.hide()

    @staticmethod
    def _follows(view: QWidget) -> AnalysisView:
        follows: AnalysisView = view  # type: ignore[assignment]  # every factory's view has on_session_changed
        return follows

    def _show_note(self) -> None:
        vendor = self._window.session.vendor
        words = f"{self.windowTitle()}: " + self._notes.get(
            vendor, f"not available for {VENDOR_NAMES[vendor]} devices yet."
        )
        if self.note.text() != words:
            self.note.setText(words)
        self._show(self.note)

    def _on_bridge_result_changed(self, changed: frozenset[str]) -> None:
        """At once, in the main results' turn: a device of another vendor hides the view before it could show a
        figure of the device before (the right view follows a moment later)."""
        if "device" not in changed:
            return
        vendor = self._window.session.vendor
        page = self._pages.get(vendor)
        if page is None:
            self._show_note()
        elif self.widget() is not page:
            self._show(page)
            self._follows(self._views[vendor]).on_session_changed(frozenset({"device"}))

    def _on_follow(self, changed: frozenset[str]) -> None:
        vendor = self._window.session.vendor
        if vendor not in self._factories:
            self._show_note()
            return
        view = self._views.get(vendor)
        current = view is not None and self.widget() is self._pages[vendor]
        shown = self.view()  # builds it, or shows it again caught up, where the note or another view stood
        if current:
            self._follows(shown).on_session_changed(changed)

    def _on_visibility_changed(self, visible: bool) -> None:
        if visible:
            self.view()


def add_analysis_dock(
    window: WindowApi,
    factory: ViewFactory,
    name: str,
    title: str,
    others: dict[str, ViewFactory] | None = None,
    notes: dict[str, str] | None = None,
) -> AnalysisDock:
    """Add a closed analysis dock, tabbed with the others in the bottom area, with a menu toggle; ``factory`` makes
    its view for NVIDIA devices, ``others`` for other vendors' (the dock says it is not available for the rest, or
    what ``notes`` says for that vendor)."""
    dock = AnalysisDock(window, factory, name, title, others, notes)
    frame = window.frame
    tabbed = [
        d
        for d in frame.findChildren(QDockWidget)
        if d is not dock and frame.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea
    ]
    frame.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    if tabbed:
        frame.tabifyDockWidget(tabbed[0], dock)
        front = next((d for d in tabbed if d.objectName() == "advisor_dock"), tabbed[0])
        front.raise_()  # the first analysis tab stays in front
    dock.hide()  # opened from the Analysis menu (or by a restored layout): the main view stays uncluttered
    window.analysis_menu.addAction(dock.toggleViewAction())
    return dock
