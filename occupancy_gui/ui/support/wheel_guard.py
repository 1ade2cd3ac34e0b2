"""The mouse wheel changes a value only in the field that has the focus.

Qt's spin boxes, combo boxes and sliders take a wheel event wherever the pointer happens to be, so scrolling
the inputs panel over them changed values nobody meant to change (dynamic shared memory went 0 → 3 KiB).
One application-wide filter sends such an event on to the scrolling parent instead, unless the widget has
the keyboard focus (clicked or tabbed into): then the wheel steps its value, as before.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QWidget

_VALUE_WIDGETS = (QAbstractSpinBox, QComboBox, QAbstractSlider)


class WheelGuard(QObject):
    """Installed once on the application (:func:`install_wheel_guard`)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, _VALUE_WIDGETS):
            return False
        widget: QWidget = watched
        if widget.hasFocus() or (isinstance(widget, QComboBox) and widget.view().isVisible()):
            return False
        # Ignored and consumed: the widget never sees it, and Qt passes it on to the parent (the scroll area).
        event.ignore()
        return True


def install_wheel_guard(app: QApplication) -> WheelGuard:
    """Guard every value widget of ``app`` (idempotent: the guard is the application's child)."""
    guard = app.findChild(WheelGuard)
    if guard is None:
        guard = WheelGuard(app)
        app.installEventFilter(guard)
    return guard
