"""Autosave of the window's session, and its restore after a run that did not exit cleanly.

Every window (every running instance) keeps its own recovery file: every change (inputs or pinned A)
restarts a one-second single-shot timer, and when it fires the session is written atomically to
``autosave-<pid>-<id>.occsession`` in the application data directory
(``QStandardPaths.AppDataLocation``), next to a ``.lock`` (a ``QLockFile`` held for as long as the
window lives) and a ``.of`` file naming the session file it stands for.  A clean close removes all
three.  A crash leaves the file with a lock whose process is gone: that is a recovery file to
restore.  On the next start, ``app.py`` calls :meth:`SessionIO.restore_autosave`, which takes over
the newest such file (its lock, and from then on its writing and removal) and says so in the status
bar; a file whose lock is still held belongs to a window that is running and is never touched, so two
windows at once keep each other's crash recovery.  A diagnostic run (``--print-state``) reads a
recovery file but never takes it over or removes it.  The single ``autosave.occsession`` of earlier
versions matches the same pattern and is restored the same way.

Autosave and restore run only for a window with settings (the real application), never for test
windows built with ``settings=None`` nor for ``--screenshot``.

Test hook (documented, tiny): ``OCCUPANCY_GUI_TEST_EDIT="threads=384,registers=40"`` applies those
integer inputs once the event loop runs, as if the user had typed them; the autosave-after-kill test
uses it to make a real edit in a real process.
"""

from __future__ import annotations

import os
import uuid
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QLockFile, QObject, QSettings, QStandardPaths, QTimer

from ...session import file as sf

if TYPE_CHECKING:
    from ...session import Session

AUTOSAVE_PATTERN = "autosave*.occsession"
"""Recovery files, this version's (``autosave-<pid>-<id>.occsession``) and the earlier single one."""
AUTOSAVE_DELAY_MS = 1000
PENDING_KEY = "session/autosave_pending"
"""QSettings key of earlier versions (one pending flag for all instances); removed at a clean exit."""
AUTOSAVE_OF_KEY = "session/autosave_of"
TEST_EDIT_ENV = "OCCUPANCY_GUI_TEST_EDIT"


def autosave_dir() -> Path:
    """The application's data directory, where the recovery files live."""
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))


def new_autosave_path(directory: Path) -> Path:
    """A recovery file name no other instance uses: the process id and a random part."""
    return directory / f"autosave-{os.getpid()}-{uuid.uuid4().hex[:12]}.occsession"


def _lock_of(path: Path) -> QLockFile:
    lock = QLockFile(str(path) + ".lock")
    lock.setStaleLockTime(0)  # stale only when its process is gone: a window may run for weeks
    return lock


def _of_file(path: Path) -> Path:
    return path.with_name(path.name + ".of")


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
    """The recovery file of one window's session: its timer, lock, writing, removal and restoring.

    ``io.autosave_enabled``, ``io.autosave_file`` and ``io.autosave_now()`` are this object's
    :attr:`enabled`, :attr:`file` and :meth:`write`.  Setting :attr:`file` (tests do) also moves the
    directory searched for recovery files to its folder.
    """

    def __init__(self, io: AutosaveHost, parent: QObject) -> None:
        super().__init__(parent)
        self.io = io
        self.enabled = io.settings is not None
        self.read_only = False
        """A diagnostic run: restore reads a recovery file but never takes it over or removes it."""
        self._file = new_autosave_path(autosave_dir())
        self._lock: QLockFile | None = None
        self._written_of: str | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(AUTOSAVE_DELAY_MS)
        self.timer.timeout.connect(self.write)

    @property
    def file(self) -> Path:
        """This window's recovery file (it exists once the first change has been written)."""
        return self._file

    @file.setter
    def file(self, path: Path) -> None:
        self._release()
        self._file = Path(path)

    @property
    def directory(self) -> Path:
        return self._file.parent

    def schedule(self) -> None:
        """(Re)start the timer: one write a second after the last of a burst of edits."""
        if self.enabled and not self.read_only:
            self.timer.start()

    def _claim(self) -> bool:
        """Hold this window's lock (first write): a recovery file is never written unlocked."""
        if self._lock is not None:
            return True
        self.directory.mkdir(parents=True, exist_ok=True)
        lock = _lock_of(self._file)
        if not lock.tryLock(0):
            self._file = new_autosave_path(self.directory)  # taken (cannot happen by the name's design)
            lock = _lock_of(self._file)
            if not lock.tryLock(0):
                return False
        self._lock = lock
        return True

    def write(self) -> bool:
        """Write the recovery file now (the timer calls it); ``False`` if it could not be written."""
        self.timer.stop()
        if not self.enabled or self.read_only:
            return False
        of = str(self.io.path) if self.io.path is not None else ""
        try:
            if not self._claim():
                raise OSError(f"{self._file}.lock is held by another process")
            if of != self._written_of:  # recorded before the session, so a kill right after still knows it
                sf.atomic_write_text(_of_file(self._file), of)
                self._written_of = of
            sf.save(self._file, self.io.state())
        except OSError as exc:
            self.io.show_status(f"Autosave failed: {self._file}: {exc.strerror or exc}", 5000)
            return False
        return True

    def discard(self) -> None:
        """A clean exit: remove this window's recovery file (never another's) and its lock."""
        self.timer.stop()
        if not self.enabled or self.read_only:
            return
        if self._lock is not None:
            for path in (self._file, _of_file(self._file)):
                try:
                    path.unlink()
                except FileNotFoundError:
                    pass
                except OSError:
                    return  # keep the lock too: the file stays this window's until it can go
        self._release()
        settings = self.io.settings
        if settings is not None and settings.contains(PENDING_KEY):
            settings.remove(PENDING_KEY)  # earlier versions' record
            settings.remove(AUTOSAVE_OF_KEY)

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None
        self._written_of = None

    def abandon(self) -> None:
        """Let go of the lock and leave the file, as a crash would (tests simulate a kill with it)."""
        self.timer.stop()
        self._release()
        self.enabled = False

    def orphans(self) -> list[Path]:
        """Recovery files no running window holds, newest first (this window's own excluded)."""
        try:
            found = [p for p in self.directory.glob(AUTOSAVE_PATTERN) if p != self._file and p.is_file()]
        except OSError:
            return []
        found.sort(key=_mtime, reverse=True)
        return found

    def restore(self) -> bool:
        """Restore the newest recovery file a run that did not exit cleanly left; says so in the status bar.

        The file's lock is taken first, so a file of a running window is never read.  A normal window
        then makes it its own recovery file; a read-only (diagnostic) one lets it go untouched.
        """
        if self.io.settings is None:
            return False
        for path in self.orphans():
            lock = _lock_of(path)
            if not lock.tryLock(0):
                continue  # a running window's
            try:
                state = sf.load(path, self.io.session.catalog)
            except sf.SessionFileError as exc:
                lock.unlock()
                self.io.show_status(f"Could not restore the autosaved session: {exc}", 10000)
                return False
            was = _read_of(path)
            when = datetime.fromtimestamp(_mtime(path)).strftime("%H:%M:%S")
            if self.read_only:
                lock.unlock()
            else:
                self._release()
                self._file, self._lock, self._written_of = path, lock, was
            self.io.adopt(state, Path(was) if was else None, modified=True)
            self.io.show_status(
                f"Restored the session autosaved at {when}: the previous run did not exit cleanly", 15000
            )
            return True
        return False

    def schedule_test_edit(self) -> None:
        """Apply ``OCCUPANCY_GUI_TEST_EDIT`` once the event loop runs (autosaving windows only)."""
        edit = os.environ.get(TEST_EDIT_ENV, "")
        if edit and self.enabled:
            QTimer.singleShot(0, self._on_test_edit_timeout)

    def _on_test_edit_timeout(self) -> None:
        changes = parse_test_edit(os.environ.get(TEST_EDIT_ENV, ""))
        if changes:
            self.io.session.replace(**changes)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _read_of(path: Path) -> str:
    """The session file a recovery file stands for ("" for none, or for an earlier version's file)."""
    try:
        return _of_file(path).read_text(encoding="utf-8").strip()[:4096]
    except (OSError, UnicodeDecodeError):
        return ""
