"""Qt fixtures: isolated settings and standard paths, sessions and windows on the test catalog."""

from __future__ import annotations

import gc

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QStandardPaths

OFFSCREEN_NOISE = r"^This plugin does not support (propagateSizeHints|raise|grabbing the keyboard)"
"""The offscreen platform plugin warns when a window gets size constraints or a popup (the device
completer) raises itself and grabs the keyboard; that is the plugin saying it has no window manager,
not a problem of the application.  Every other Qt warning fails the test."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/ui" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def collect_garbage(qapp):
    """Delete this test's Qt objects while the application is alive, and fail on windows left open.

    Collecting here, not in pytest's final collection after the last test, matters: wrappers of Qt
    objects collected that late can crash the interpreter on exit.
    """
    yield
    left_open = [w for w in qapp.topLevelWidgets() if w.isVisible() and not w.inherits("QMenu")]
    for widget in left_open:
        widget.close()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    assert not left_open, f"top-level widgets left open: {left_open}"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, monkeypatch):
    """Every test gets its own QSettings store and QStandardPaths test mode; nothing touches ~/.config."""
    QStandardPaths.setTestModeEnabled(True)
    QCoreApplication.setOrganizationName("occupancy_gui_tests")
    QCoreApplication.setApplicationName("occupancy-gui-tests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(tmp_path / "settings"))
    monkeypatch.setenv("OCCUPANCY_GUI_PROFILE_DIR", str(tmp_path / "user_profiles"))
    yield tmp_path / "settings"


@pytest.fixture
def window(qtbot, session):
    from occupancy_gui.ui.main_window import MainWindow

    win = MainWindow(session, settings=None)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


@pytest.fixture
def results(window, qtbot):
    """Emissions of ``window.bridge.resultChanged``, as a list of changed-name sets."""
    received: list[frozenset[str]] = []
    window.bridge.resultChanged.connect(received.append)
    return received


@pytest.fixture(autouse=True)
def unsaved_changes_discarded(monkeypatch):
    """ "Save changes?" answers Discard unless a test says otherwise: a modal dialog would wait forever here.

    ``answers`` records each question (what was being done) so tests can assert that it was asked.
    """
    from occupancy_gui.ui.session_files.session_io import SessionIO

    asked: list[str] = []

    def answer(self, doing: str) -> str:
        asked.append(doing)
        return "discard"

    monkeypatch.setattr(SessionIO, "ask_save_changes", answer)
    return asked
