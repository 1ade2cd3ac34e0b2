"""Watch the imported file: when a build rewrites it, say so once the writes have settled.

Editors and compilers often write a new file and rename it over the old one, which ends a plain
file watch; the file's directory is watched too, and a change there counts only when the file's
(size, mtime) stamp differs from the one last read.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

RELOAD_DEBOUNCE_MS = 300


class FileWatch(QObject):
    """The watched file, its stamp when last read, and the debounce before ``fileRewritten``."""

    fileRewritten = Signal(str, object)
    """The watched file changed and settled (arguments: its path, its new (size, mtime) stamp)."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.path: str | None = None
        self.stamp: tuple[int, int] | None = None
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_watcher_file_changed)
        self.watcher.directoryChanged.connect(self._on_watcher_directory_changed)
        self.reload_timer = QTimer(self)
        self.reload_timer.setSingleShot(True)
        self.reload_timer.setInterval(RELOAD_DEBOUNCE_MS)
        self.reload_timer.timeout.connect(self._on_reload_timer_timeout)

    def watch(self, path: str, stamp: tuple[int, int] | None) -> None:
        """Watch ``path`` (instead of the previous file), as read when its stamp was ``stamp``."""
        if path != self.path:
            old = self.watcher.files() + self.watcher.directories()
            if old:
                self.watcher.removePaths(old)
            self.watcher.addPaths([path, os.path.dirname(path) or "."])
        self.path, self.stamp = path, stamp

    def stop(self) -> None:
        """No reload from a change already seen (the window is closing)."""
        self.reload_timer.stop()

    def _on_watcher_file_changed(self, _path: str) -> None:
        self.reload_timer.start()

    def _on_watcher_directory_changed(self, _path: str) -> None:
        # The stamp check skips unrelated files' changes in the same directory.
        if self.path is not None and file_stamp(self.path) != self.stamp:
            self.reload_timer.start()

    def _on_reload_timer_timeout(self) -> None:
        path = self.path
        if path is None or not os.path.exists(path):
            return  # removed, or between delete and rename: the directory watch brings us back
        if path not in self.watcher.files():
            self.watcher.addPath(path)
        stamp = file_stamp(path)
        if stamp == self.stamp:
            return
        self.fileRewritten.emit(path, stamp)


def file_stamp(path: str) -> tuple[int, int] | None:
    """(size, modification time in ns) of ``path``; ``None`` if it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)
