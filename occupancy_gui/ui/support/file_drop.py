"""Files dropped on the window: which drop is whose.

Two window event filters share drops: the session file menu opens a dropped session file, the
kernel table dock imports any other dropped file.  Each claims only its own kind and lets the other
kind fall through, so the filters can be installed in either order.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QEvent
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from ...session.file import is_session_file

DROP_EVENTS = (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop)


def dropped_path(event: QDragEnterEvent | QDropEvent) -> str | None:
    """The local path of the one file dragged or dropped; ``None`` for none, several, or remote URLs."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return None
    paths = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]
    return paths[0] if len(paths) == 1 else None


def dropped_session(event: QDragEnterEvent | QDropEvent) -> str | None:
    """The one session file dropped (opened by the File menu's session handling)."""
    path = dropped_path(event)
    return path if path is not None and is_session_file(path) else None


def dropped_compiler_output(event: QDragEnterEvent | QDropEvent) -> str | None:
    """The one existing file dropped, unless it is a session file (those are opened, not imported), or
    one folder (a Triton / torch inductor / CuPy kernel cache)."""
    path = dropped_path(event)
    if path is not None and os.path.isdir(path):
        return path
    if path is None or not os.path.isfile(path) or is_session_file(path):
        return None
    return path


def accept_drop(
    event: QEvent, pick: Callable[[QDragEnterEvent | QDropEvent], str | None], open_: Callable[[str], object]
) -> bool:
    """Accept a drag of the file ``pick`` claims and ``open_`` it on drop; ``False`` lets the event through."""
    path = pick(event)  # type: ignore[arg-type]  # the caller filtered on DROP_EVENTS: a drag or drop event
    if path is None:
        return False
    event.acceptProposedAction()  # type: ignore[attr-defined]  # as above
    if event.type() == QEvent.Type.Drop:
        open_(path)
    return True
