"""File menu for sessions: New / Open… / Save / Save As… / Open Recent / Export…, autosave and drops.

Built by the main window (its ``session_io``), which hands it the compare view (pinned A is saved with
the session) and the import panel (the kernel a session names is reopened there).  Its autosave is an
:class:`~.autosave.Autosave` (``autosave.py``, which also documents it); the Export… action's work is
in ``export_actions.py``; which drop is a session file, in ``file_drop.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QEvent, QObject, QSettings, QStandardPaths, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from ...session import DEFAULT_INPUTS, Inputs
from ...session import file as sf
from ..support.file_drop import DROP_EVENTS, accept_drop, dropped_session
from ..support.settings import WINDOW_OPTIONS
from .autosave import Autosave

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from ...importers import KernelRecord
    from ..support.window_api import WindowApi

MAX_RECENT = 8
RECENT_KEY = "session/recent"
SESSION_FILTER = "Occupancy sessions (*.occsession *.yaml *.yml);;All files (*)"
UNTITLED = "untitled"


def read_recent(settings: QSettings | None) -> list[str]:
    """The recent-file list; a missing or damaged value is an empty list (user data is tolerant)."""
    if settings is None:
        return []
    raw = settings.value(RECENT_KEY)
    if isinstance(raw, str):
        raw = [raw] if raw else []
    if not isinstance(raw, list):
        return []
    return [str(p) for p in raw if isinstance(p, str) and p][:MAX_RECENT]


class KernelSource(Protocol):
    """What a session file needs of the kernel table: the chosen kernel and its file, reopening one, clearing it."""

    def current_source(self) -> tuple[str, str] | None: ...

    def current_record(self) -> KernelRecord | None: ...

    def open_source(self, path: str, name: str = "") -> None: ...

    def clear_selection(self) -> None: ...


class Comparison(Protocol):
    """What a session file needs of Compare A / B: the pinned configuration."""

    @property
    def pinnedChanged(self) -> SignalInstance: ...  # noqa: N802 (a Qt signal)

    @property
    def pinned_inputs(self) -> Inputs | None: ...

    @property
    def pinned_vendor(self) -> str:
        """Whose device the pinned configuration is on (``"nvidia"`` when nothing is pinned)."""
        ...

    def pin(self, inputs: Inputs | None = None) -> None: ...

    def clear(self) -> None: ...


class SessionIO(QObject):
    """The window's current session file, its modified flag, the recent list and the autosave."""

    def __init__(self, window: WindowApi, compare: Comparison, sources: KernelSource, plots: QWidget) -> None:
        super().__init__(window.frame)
        self.window, self.session = window, window.session
        self._frame = window.frame
        self.compare, self.sources, self.plots = compare, sources, plots
        self.settings: QSettings | None = window.settings
        self.path: Path | None = None
        self.modified = False
        self.last_error = ""
        self.error_box: QMessageBox | None = None
        self.show_error_dialogs = True
        self.confirm_unsaved = True
        """Ask "Save changes?" before New, Open and Quit lose a modified session (off for --screenshot)."""
        self.discarded_at_quit = False
        """The user chose Discard when quitting: the window then remembers no inputs for the next start."""
        self._source: tuple[str, str] | None = None
        self._loading = False
        self.recent = read_recent(self.settings)
        self.autosave = Autosave(self, self)
        self._timer = self.autosave.timer  # the autosave delay (tests shorten it)
        self._build_actions()
        window.bridge.resultChanged.connect(self._on_bridge_result_changed)
        compare.pinnedChanged.connect(self._on_compare_pinned_changed)
        self._frame.setAcceptDrops(True)
        self._frame.installEventFilter(self)
        self._update_title()
        self.autosave.schedule_test_edit()

    # ----------------------------------------------------------------------------- build
    def _action(self, text: str, shortcut: QKeySequence.StandardKey | str | None, slot: Any) -> QAction:
        action = QAction(text, self._frame)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        keys = QKeySequence.StandardKey
        self.new_action = self._action("&New session", keys.New, self.new_session)
        self.open_action = self._action("&Open session…", keys.Open, self._on_open_triggered)
        self.save_action = self._action("&Save session", keys.Save, self._on_save_triggered)
        self.save_as_action = self._action("Save session &as…", keys.SaveAs, self._on_save_as_triggered)
        self.export_action = self._action("&Export…", "Ctrl+E", self._on_export_triggered)
        self.export_action.setToolTip("Export a report (HTML, Markdown), the table (CSV) or the plots (PNG, SVG)")
        menu = self.window.file_menu
        before = self.window.file_quit_separator
        for action in (self.new_action, self.open_action):
            menu.insertAction(before, action)
        self.recent_menu = QMenu("Open &recent", self._frame)
        menu.insertMenu(before, self.recent_menu)
        for action in (self.save_action, self.save_as_action):
            menu.insertAction(before, action)
        menu.insertSeparator(before)
        menu.insertAction(before, self.export_action)
        self._rebuild_recent_menu()

    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        for i, path in enumerate(self.recent):
            action = self.recent_menu.addAction(f"&{i + 1} {Path(path).name}")
            action.setToolTip(path)
            action.setData(path)
            action.triggered.connect(self._on_recent_triggered)
        self.recent_menu.setEnabled(bool(self.recent))

    # ----------------------------------------------------------------------------- state
    def current_source(self) -> tuple[str, str] | None:
        """(file, kernel) the import panel shows, else the one last opened."""
        try:
            found = self.sources.current_source()
        except Exception:  # noqa: BLE001 - another view's failure must not stop a save
            found = None
        if found:
            return (str(found[0]), str(found[1]))
        return self._source

    def state(self) -> sf.SessionState:
        return sf.state_of(self.session, self.current_source(), self.compare.pinned_inputs, self.compare.pinned_vendor)

    def set_modified(self, modified: bool) -> None:
        if modified != self.modified:
            self.modified = modified
            self._update_title()

    def _update_title(self) -> None:
        self.window.set_document(self.path.name if self.path is not None else UNTITLED, self.modified)

    def show_status(self, message: str, timeout_ms: int) -> None:
        """A message in the window's status bar."""
        self._frame.statusBar().showMessage(message, timeout_ms)

    # ----------------------------------------------------------------------------- changes, autosave
    def _on_bridge_result_changed(self, changed: frozenset[str]) -> None:
        self._changed()

    def _on_compare_pinned_changed(self) -> None:
        self._changed()

    def _changed(self) -> None:
        if self._loading:
            return
        self.set_modified(True)
        self.autosave.schedule()

    @property
    def autosave_enabled(self) -> bool:
        """Whether edits are autosaved (a window with settings: the real application)."""
        return self.autosave.enabled

    @autosave_enabled.setter
    def autosave_enabled(self, enabled: bool) -> None:
        self.autosave.enabled = enabled

    @property
    def autosave_file(self) -> Path:
        """This window's recovery file (``autosave-<pid>-<id>.occsession`` in the application data directory)."""
        return self.autosave.file

    @autosave_file.setter
    def autosave_file(self, path: Path) -> None:
        self.autosave.file = path

    def autosave_now(self) -> bool:
        """Write the autosave file now (the timer calls it); ``False`` if it could not be written."""
        return self.autosave.write()

    def discard_autosave(self) -> None:
        """A clean exit: nothing to restore next time."""
        self.autosave.discard()

    def restore_autosave(self) -> bool:
        """Restore a pending autosave (a previous run that did not exit cleanly); says so in the status bar."""
        return self.autosave.restore()

    # ----------------------------------------------------------------------------- open / save
    def adopt(self, state: sf.SessionState, path: Path | None, *, modified: bool = False) -> None:
        """Make ``state`` the window's session (one recompute), as read from ``path``."""
        self._loading = True
        try:
            sf.apply_inputs(self.session, state.inputs, state.vendor)
            if state.pinned is not None:
                self.compare.pin(state.pinned)
            else:
                self.compare.clear()
            self._source = state.source
            self._restore_source(state.source)
            self.window.bridge.flush()  # deliver the change now, while it counts as loading
        finally:
            self._loading = False
        self.path = path
        self.modified = modified
        self._update_title()
        if modified:
            self.autosave.schedule()

    def _restore_source(self, source: tuple[str, str] | None) -> None:
        if source is not None:
            try:
                self.sources.open_source(*source)
            except Exception as exc:  # noqa: BLE001 - the inputs are restored even if the log is gone
                self.show_status(f"Could not reopen {source[0]}: {exc}", 8000)

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Open a session file; on error say so (status bar + message box) and change nothing."""
        path = Path(path)
        try:
            state = sf.load(path, self.session.catalog)
        except sf.SessionFileError as exc:
            self.report_error("Cannot open session", str(exc))
            return False
        self.adopt(state, path)
        self.session.clear_history()
        self.add_recent(path)
        self.show_status(f"Opened {path}", 5000)
        return True

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        path = Path(path)
        try:
            sf.save(path, self.state())
        except OSError as exc:
            self.report_error("Cannot save session", f"{path}: {exc.strerror or exc}")
            return False
        self.path = path
        self.set_modified(False)
        self._update_title()
        self.add_recent(path)
        self.show_status(f"Saved {path}", 5000)
        return True

    def new_session(self) -> None:
        """Default inputs on the current device, nothing pinned, no file (after "Save changes?")."""
        if not self.confirm_discard("starting a new session"):
            return
        fresh = Inputs(device=self.session.inputs.device, **DEFAULT_INPUTS)
        self.adopt(sf.SessionState(fresh, vendor=self.session.vendor), None)
        self.sources.clear_selection()  # the table stays to choose from; no row stands for the default inputs
        self.session.clear_history()

    # ----------------------------------------------------------------------------- unsaved changes
    def ask_save_changes(self, doing: str) -> str:
        """The "Save changes?" question: ``"save"``, ``"discard"`` or ``"cancel"`` (tests replace it)."""
        buttons = QMessageBox.StandardButton
        name = self.path.name if self.path is not None else UNTITLED
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Save changes?",
            f"Save the changes to {name} before {doing}?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            self._frame,
        )
        box.setDefaultButton(buttons.Save)
        answer = box.exec()
        return {buttons.Save: "save", buttons.Discard: "discard"}.get(buttons(answer), "cancel")

    def confirm_discard(self, doing: str) -> bool:
        """``True`` when the current session may be replaced: unmodified, saved now, or discarded by choice."""
        if not self.modified or not self.confirm_unsaved:
            return True
        answer = self.ask_save_changes(doing)
        if answer == "save":
            self._on_save_triggered()
            return not self.modified  # a cancelled or failed save keeps the session
        return answer == "discard"

    def add_recent(self, path: Path) -> None:
        text = str(path.resolve())
        self.recent = [text] + [p for p in self.recent if p != text][: MAX_RECENT - 1]
        if self.settings is not None:
            self.settings.setValue(RECENT_KEY, self.recent)
        self._rebuild_recent_menu()

    def report_error(self, title: str, message: str) -> None:
        """One line in the status bar and, in the real app, a (non-blocking) message box."""
        self.last_error = message
        self.show_status(message, 15000)
        if self.show_error_dialogs:
            box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self._frame)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
            box.open()
            self.error_box = box

    # ----------------------------------------------------------------------------- export
    def export_to(self, path: str | os.PathLike[str]) -> Path:
        """Write a report (.html/.md), the table (.csv) or the plots (.png/.svg) by extension."""
        from . import export_actions  # noqa: PLC0415 - lazy: the exporters load with the first export

        written = export_actions.export_to(
            path, self.session, self.current_source(), self.plots, self.sources.current_record()
        )
        self.show_status(f"Exported {written}", 5000)
        return written

    def plot_image_bytes(self, suffix: str) -> bytes:
        """The plot grid as PNG or SVG bytes, at the screen's pixel ratio (logical size × DPR)."""
        from . import export_actions  # noqa: PLC0415 - lazy: as above

        return export_actions.plot_image_bytes(self.plots, suffix)

    # ----------------------------------------------------------------------------- dialogs (real app)
    def _on_open_triggered(self) -> None:
        if not self.confirm_discard("opening another session"):
            return
        path, _ = QFileDialog.getOpenFileName(self._frame, "Open session", self.dialog_dir(), SESSION_FILTER)
        if path:
            self.open_path(path)

    def _on_save_triggered(self) -> None:
        if self.path is None:
            self._on_save_as_triggered()
        else:
            self.save_to(self.path)

    def _on_save_as_triggered(self) -> None:
        start = str(self.path) if self.path is not None else os.path.join(self.dialog_dir(), UNTITLED + sf.SUFFIX)
        path, _ = QFileDialog.getSaveFileName(self._frame, "Save session as", start, SESSION_FILTER)
        if path:
            if not Path(path).suffix:
                path += sf.SUFFIX
            self.save_to(path)

    def _on_export_triggered(self) -> None:
        from . import export_actions  # noqa: PLC0415 - lazy: as in export_to

        start = os.path.join(self.dialog_dir(), (self.path.stem if self.path else "occupancy") + ".html")
        export_actions.export_dialog(self._frame, start, self.export_to, self.report_error)

    def _on_recent_triggered(self) -> None:
        action = self.sender()
        if isinstance(action, QAction) and action.data() and self.confirm_discard("opening another session"):
            self.open_path(str(action.data()))

    def dialog_dir(self) -> str:
        """Where the file dialogs start: the session file's folder, else Documents."""
        if self.path is not None:
            return str(self.path.parent)
        return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)

    # ----------------------------------------------------------------------------- window events
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is not getattr(self, "_frame", None):  # also while Python tears this object down
            return False
        kind = event.type()
        if kind in DROP_EVENTS:  # not ours (compiler outputs, other drops) falls through
            return accept_drop(event, dropped_session, self.open_path)
        if kind == QEvent.Type.Close:
            asked = self.modified and self.confirm_unsaved
            if not self.confirm_discard("quitting"):
                event.ignore()
                return True  # the window stays open with its work
            self.discarded_at_quit = asked and self.modified  # still modified after the question: discarded
            self.discard_autosave()
        return False


INPUT_OPTIONS = ("device", *WINDOW_OPTIONS)
"""``occupancy-gui`` options that set inputs: with any of them, an autosave is not restored over them."""


def start_session(io: SessionIO, args: Any, state: sf.SessionState | None) -> None:
    """At start-up: adopt the session file FILE named, or restore an autosave a crashed run left.

    ``args.session_file`` is the path of ``state``; the window's inputs already hold the file's
    inputs with explicit options applied over them (the file is then marked modified).
    """
    io.autosave.read_only = bool(getattr(args, "print_state", False))  # a diagnostic run leaves recovery files be
    if state is not None:
        inputs = io.session.inputs
        io.adopt(
            dataclasses.replace(state, inputs=inputs, vendor=io.session.vendor),
            args.session_file,
            modified=inputs != state.inputs,
        )
        io.add_recent(args.session_file)
    elif not args.file and all(getattr(args, n, None) is None for n in INPUT_OPTIONS):
        io.restore_autosave()


def print_state(io: SessionIO) -> None:
    """``--print-state``: the window's session as JSON on stdout (the autosave-restore test reads it)."""
    data = sf.state_to_dict(io.state())
    frame = io.window.frame
    data["window"] = {
        "file": str(io.path) if io.path else None,
        "modified": io.modified,
        "title": frame.windowTitle(),
        "status": frame.statusBar().currentMessage(),
    }
    print(json.dumps(data, indent=1))
