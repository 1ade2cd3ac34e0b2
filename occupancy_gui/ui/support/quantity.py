"""Spin boxes for counts and byte sizes that refuse what is not a valid value out loud.

Qt's spin boxes silently drop keystrokes their validator calls invalid ("-5" becomes "5", "abc" in a byte
field leaves "b") and clamp or revert what the user typed.  Here every text is kept as typed: while it
cannot become a valid value it is shown in the error colour with the reason under the field
(``typedInvalid``), and on Enter / focus-out the box emits ``rejected`` with the reason and the value
the results still hold, then shows that value again.  Nothing typed is ever applied as another number.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QPalette, QValidator
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from ... import units
from .qt_utils import error_color


class QuantitySpinBox(QSpinBox):
    """A ``QSpinBox`` for ``"count"`` or ``"bytes"`` (typed as ``24576``, ``24576 B`` or ``24 KiB``)."""

    rejected = Signal(str)
    """A typed entry was refused; the argument says why, in one line."""
    typedInvalid = Signal(str)
    """The text being typed is not a valid value (the argument says why), or is again ("")."""
    accepted = Signal()
    """A value was committed (typed, stepped or set); any earlier refusal no longer applies."""

    def __init__(
        self,
        kind: str = "count",
        minimum: int = 0,
        maximum: int = 1 << 20,
        step: int = 1,
        parent: QWidget | None = None,
    ) -> None:
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
        self.lineEdit().textEdited.connect(self._on_text_edited)
        self._flagged = False

    # -- text <-> value
    def parse(self, text: str) -> int | None:
        special = self.specialValueText()
        if special and text.strip().casefold() == special.casefold():
            return self.minimum()  # Qt's special value text ("none") stands for the minimum
        return units.parse_bytes(text) if self.kind == "bytes" else units.parse_count(text)

    def textFromValue(self, value: int) -> str:  # noqa: N802 (Qt override)
        return units.format_bytes(value) if self.kind == "bytes" else str(value)

    def valueFromText(self, text: str) -> int:  # noqa: N802 (Qt override)
        value = self.parse(text)
        return self.value() if value is None else value

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        value = self.parse(text)
        if value is not None and self.minimum() <= value <= self.maximum():
            return QValidator.State.Acceptable, text, pos
        # Never Invalid: Qt would drop the keystroke and show something else than what was typed.
        return QValidator.State.Intermediate, text, pos

    def range_text(self) -> str:
        """``1 to 16384``; ``0 B to 4 MiB``; ``none, or 1 to 16384`` where the minimum reads "none"."""
        special = self.specialValueText()
        low = self.minimum() + 1 if special else self.minimum()
        span = f"{self.textFromValue(low)} to {self.textFromValue(self.maximum())}"
        return f"{special}, or {span}" if special else span

    def problem(self, text: str) -> str | None:
        """Why ``text`` is not a valid value, or ``None`` if it is (or could still become one by typing on)."""
        value = self.parse(text)
        if value is None:
            partial = units.is_partial_bytes(text) if self.kind == "bytes" else text.strip() == ""
            special = self.specialValueText().casefold()
            if partial or (special and special.startswith(text.strip().casefold())):
                return None
            if self.kind == "bytes":
                return f"'{text.strip()}' is not a byte size: type bytes (24576) or KiB (24 KiB), {self.range_text()}"
            return f"'{text.strip()}' is not a whole number: type {self.range_text()}"
        if not self.minimum() <= value <= self.maximum():
            return f"{self.textFromValue(value)} is out of range ({self.range_text()})"
        return None

    def refusal(self, text: str) -> str | None:
        """Why ``text`` cannot be committed (with the value the results keep), or ``None`` if it can."""
        value = self.parse(text)
        if value is not None and self.minimum() <= value <= self.maximum():
            return None
        why = self.problem(text) or f"'{text.strip()}' is not a value yet: type {self.range_text()}"
        return f"{why}; the results keep {self.textFromValue(self.value())}"

    # -- live marking
    def _on_text_edited(self, text: str) -> None:
        problem = self.problem(text)
        self._mark(problem is not None)
        self.typedInvalid.emit(problem or "")

    def _mark(self, invalid: bool) -> None:
        """The typed text in the error colour while it is not a valid value."""
        if invalid == self._flagged:
            return
        self._flagged = invalid
        edit = self.lineEdit()
        pal = edit.palette()
        pal.setColor(
            QPalette.ColorRole.Text, error_color() if invalid else self.palette().color(QPalette.ColorRole.Text)
        )
        edit.setPalette(pal)

    @property
    def flagged(self) -> bool:
        """Whether the text shown is marked as not a valid value."""
        return self._flagged

    # -- commit points
    def _check_commit(self) -> None:
        message = self.refusal(self.lineEdit().text())
        self._mark(False)  # the box shows its value again
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
        self._mark(False)
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
        spin.typedInvalid.connect(self.error.show_message)
        spin.accepted.connect(self.error.clear_message)
        self.setFocusProxy(spin)
