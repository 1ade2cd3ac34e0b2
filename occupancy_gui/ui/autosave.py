"""Autosave of the window's session, and its restore after a run that did not exit cleanly.

Every change (inputs or pinned A) restarts a one-second single-shot timer; when it fires the session
is written atomically to ``autosave.occsession`` in the application data directory
(``QStandardPaths.AppDataLocation``), and QSettings records that an autosave is pending.  A clean close
removes the file and the record.  On the next start, ``app.py`` calls :meth:`SessionIO.restore_autosave`,
which restores a pending autosave silently and says so in the status bar.  Autosave and restore run
only for a window with settings (the real application), never for test windows built with
``settings=None`` nor for ``--screenshot``.

Test hook (documented, tiny): ``OCCUPANCY_GUI_TEST_EDIT="threads=384,registers=40"`` applies those
integer inputs once the event loop runs, as if the user had typed them; the autosave-after-kill test
uses it to make a real edit in a real process.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QSettings, QStandardPaths, QTimer

from .. import session_file as sf

if TYPE_CHECKING:
    from ..session import Session

AUTOSAVE_NAME = "autosave.occsession"
AUTOSAVE_DELAY_MS = 1000
PENDING_KEY = "session/autosave_pending"
AUTOSAVE_OF_KEY = "session/autosave_of"
TEST_EDIT_ENV = "OCCUPANCY_GUI_TEST_EDIT"


def autosave_path() -> Path:
    """``autosave.occsession`` in the application's data directory."""
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)) / AUTOSAVE_NAME


def parse_test_edit(text: str) -> dict[str, int]:
    """``"threads=384,registers=40"`` → ``{"threads": 384, "registers": 40}`` (malformed parts skipped)."""
    out: dict[str, int] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name.strip() and value.strip().lstrip("-").isdigit():
            out[name.strip()] = int(value)
    return out


class AutosaveHost(Protocol):
    """What the autosave needs of the window's session file handling (``SessionIO``)."""

    @property
    def session(self) -> Session: ...

    @property
    def settings(self) -> QSettings | None: ...

    @property
    def path(self) -> Path | None: ...

    def state(self) -> sf.SessionState: ...

    def adopt(self, state: sf.SessionState, path: Path | None, *, modified: bool = False) -> None: ...

    def show_status(self, message: str, timeout_ms: int) -> None: ...


class Autosave(QObject):
    """The autosave file of one window's session: its timer, its writing, discarding and restoring.

    ``io.autosave_enabled``, ``io.autosave_file`` and ``io.autosave_now()`` are this object's
    :attr:`enabled`, :attr:`file` and :meth:`write`.
    """

    def __init__(self, io: AutosaveHost, parent: QObject) -> None:
        super().__init__(parent)
        self.io = io
        self.enabled = io.settings is not None
        self.file = autosave_path()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(AUTOSAVE_DELAY_MS)
        self.timer.timeout.connect(self.write)

    def schedule(self) -> None:
        """(Re)start the timer: one write a second after the last of a burst of edits."""
        if self.enabled:
            self.timer.start()

    def write(self) -> bool:
        """Write the autosave file now (the timer calls it); ``False`` if it could not be written."""
        self.timer.stop()
        if not self.enabled:
            return False
        settings = self.io.settings
        if settings is not None:
            settings.setValue(PENDING_KEY, True)
            settings.setValue(AUTOSAVE_OF_KEY, str(self.io.path) if self.io.path is not None else "")
            settings.sync()  # recorded before the file exists, so a kill right after still restores
        try:
            sf.save(self.file, self.io.state())
        except OSError as exc:
            self.io.show_status(f"Autosave failed: {self.file}: {exc.strerror or exc}", 5000)
            return False
        return True

    def discard(self) -> None:
        """A clean exit: nothing to restore next time."""
        self.timer.stop()
        if not self.enabled:
            return
        try:
            self.file.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            return
        settings = self.io.settings
        if settings is not None:
            settings.remove(PENDING_KEY)
            settings.remove(AUTOSAVE_OF_KEY)
            settings.sync()

    def restore(self) -> bool:
        """Restore a pending autosave (a previous run that did not exit cleanly); says so in the status bar."""
        settings = self.io.settings
        if settings is None or str(settings.value(PENDING_KEY, "")).lower() not in ("true", "1"):
            return False
        if not self.file.is_file():
            return False
        try:
            state = sf.load(self.file, self.io.session.catalog)
        except sf.SessionFileError as exc:
            self.io.show_status(f"Could not restore the autosaved session: {exc}", 10000)
            return False
        was = str(settings.value(AUTOSAVE_OF_KEY, "") or "")
        self.io.adopt(state, Path(was) if was else None, modified=True)
        when = datetime.fromtimestamp(self.file.stat().st_mtime).strftime("%H:%M:%S")
        self.io.show_status(f"Restored the session autosaved at {when}: the previous run did not exit cleanly", 15000)
        return True

    def schedule_test_edit(self) -> None:
        """Apply ``OCCUPANCY_GUI_TEST_EDIT`` once the event loop runs (autosaving windows only)."""
        edit = os.environ.get(TEST_EDIT_ENV, "")
        if edit and self.enabled:
            QTimer.singleShot(0, self._on_test_edit_timeout)

    def _on_test_edit_timeout(self) -> None:
        changes = parse_test_edit(os.environ.get(TEST_EDIT_ENV, ""))
        if changes:
            self.io.session.replace(**changes)
