"""Spin boxes for counts and byte sizes that refuse out-of-range entries out loud.

Qt's spin boxes silently clamp or revert what the user typed.  Here a typed value outside the range
is kept as *intermediate* text, and on Enter / focus-out the box emits ``rejected`` with a message
(shown under the field by :class:`QuantityField`) before reverting to the last valid value.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QPalette, QValidator
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from ... import units
from ..qt_utils import error_color


class QuantitySpinBox(QSpinBox):
    """A ``QSpinBox`` for ``"count"`` or ``"bytes"`` (typed as ``24576``, ``24576 B`` or ``24 KiB``)."""

    rejected = Signal(str)
    """A typed entry was refused; the argument says why, in one line."""
    accepted = Signal()
    """A value was committed (typed, stepped or set); any earlier refusal no longer applies."""

    def __init__(self, kind: str = "count", minimum: int = 0, maximum: int = 1 << 20, step: int = 1,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        if kind not in ("count", "bytes"):
            raise ValueError(f"unknown quantity kind {kind!r}")
        self.kind = kind
        self.setRange(minimum, maximum)
        self.setSingleStep(step)
        self.setKeyboardTracking(False)  # commit typed text on Enter / focus-out, not per keystroke
        self.setAccelerated(True)
        self.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.setCorrectionMode(QSpinBox.CorrectionMode.CorrectToPreviousValue)
        self.valueChanged.connect(self._on_value_changed)

    # -- text <-> value
    def parse(self, text: str) -> int | None:
        return units.parse_bytes(text) if self.kind == "bytes" else units.parse_count(text)

    def textFromValue(self, value: int) -> str:  # noqa: N802 (Qt override)
        return units.format_bytes(value) if self.kind == "bytes" else str(value)

    def valueFromText(self, text: str) -> int:  # noqa: N802 (Qt override)
        value = self.parse(text)
        return self.value() if value is None else value

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        value = self.parse(text)
        if value is None:
            partial = units.is_partial_bytes(text) if self.kind == "bytes" else text.strip() == ""
            state = QValidator.State.Intermediate if partial else QValidator.State.Invalid
        elif self.minimum() <= value <= self.maximum():
            state = QValidator.State.Acceptable
        else:
            state = QValidator.State.Intermediate  # keep it visible so the refusal can be explained
        return state, text, pos

    def range_text(self) -> str:
        return f"{self.textFromValue(self.minimum())} to {self.textFromValue(self.maximum())}"

    def refusal(self, text: str) -> str | None:
        """Why ``text`` cannot be committed, or ``None`` if it can."""
        value = self.parse(text)
        if value is None:
            hint = " (bytes, or KiB such as '24 KiB')" if self.kind == "bytes" else ""
            return f"'{text.strip()}' is not a whole number{hint}; kept {self.textFromValue(self.value())}"
        if not self.minimum() <= value <= self.maximum():
            return f"{self.textFromValue(value)} is out of range ({self.range_text()}); kept {self.textFromValue(self.value())}"
        return None

    # -- commit points
    def _check_commit(self) -> None:
        message = self.refusal(self.lineEdit().text())
        if message is None:
            self.accepted.emit()
        else:
            self.rejected.emit(message)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._check_commit()
        super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 (Qt override)
        self._check_commit()
        super().focusOutEvent(event)

    def _on_value_changed(self, _value: int) -> None:
        self.accepted.emit()


class ErrorLabel(QLabel):
    """The red one-line message under a field; hidden while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.apply_palette()
        self.hide()

    def apply_palette(self) -> None:
        """Red for the current (light or dark) palette."""
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.WindowText, error_color())
        self.setPalette(pal)

    def show_message(self, message: str) -> None:
        if message != self.text():
            self.setText(message)
        self.setVisible(bool(message))

    def clear_message(self) -> None:
        # Called on every committed value: touch the label only when it shows something, since a
        # text change re-lays out the form (and would repaint far more than the label).
        if self.text() or self.isVisible():
            self.clear()
            self.hide()


class QuantityField(QWidget):
    """A :class:`QuantitySpinBox` (plus optional extra widgets beside it) with its error label under it."""

    def __init__(self, spin: QuantitySpinBox, *beside: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spin = spin
        self.error = ErrorLabel(self)
        row = QHBoxLayout()
        row.setSpacing(6)
        for widget in beside:
            row.addWidget(widget)
        row.addWidget(spin, 1 if not beside else 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.error)
        spin.rejected.connect(self.error.show_message)
        spin.accepted.connect(self.error.clear_message)
        self.setFocusProxy(spin)
