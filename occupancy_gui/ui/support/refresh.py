"""Analysis views recompute only while they are shown; a hidden one catches up when shown."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QShowEvent

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
        if self.isVisible():  # type: ignore[attr-defined]  # a mixin: the QWidget comes second in the bases
            self.refresh()
        else:
            self._dirty = True  # a hidden tab computes when shown

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return DOCK_SIZE

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        if self._dirty:
            self.refresh()
        super().showEvent(event)  # type: ignore[misc]  # as above
