"""The binding pin and the session bridge's coalescing."""

from __future__ import annotations

from occupancy_gui.ui.support.session_bridge import SessionBridge


def test_pyqtgraph_uses_pyside6():
    import pyqtgraph.Qt

    import occupancy_gui.ui  # noqa: F401  (pins the binding)

    assert pyqtgraph.Qt.QT_LIB == "PySide6"


def test_one_change_one_emission(qtbot, session):
    bridge = SessionBridge(session)
    received = []
    bridge.resultChanged.connect(received.append)
    with qtbot.waitSignal(bridge.resultChanged, timeout=1000):
        session.replace(threads=128)
    qtbot.wait(10)
    assert received == [frozenset({"threads"})]
    bridge.detach()


def test_burst_is_coalesced(qtbot, session):
    bridge = SessionBridge(session)
    received = []
    bridge.resultChanged.connect(received.append)
    with qtbot.waitSignal(bridge.resultChanged, timeout=1000):
        for threads in (64, 96, 128):  # e.g. three wheel steps within one event-loop turn
            session.replace(threads=threads)
        session.replace(registers=40)
    qtbot.wait(10)
    assert received == [frozenset({"threads", "registers"})]
    bridge.detach()


def test_no_change_no_emission(qtbot, session):
    bridge = SessionBridge(session)
    with qtbot.assertNotEmitted(bridge.resultChanged, wait=20):
        session.replace(threads=session.inputs.threads)
    bridge.detach()
