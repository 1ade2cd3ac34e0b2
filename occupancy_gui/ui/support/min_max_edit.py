"""A text field for a minimum, or a minimum and a maximum (``N`` or ``N,M``), that refuses what is not one out loud.

As the quantity spin boxes do: the text is kept as typed, shown in the error colour with the reason under the field
while it cannot become a value, and on Enter / focus-out either committed (``committed``) or refused with the value
the results keep; nothing typed is ever applied as another value.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Signal
from PySide6.QtGui import QFocusEvent, QPalette
from PySide6.QtWidgets import QLineEdit, QWidget

from .qt_utils import error_color

MinMax = tuple[int, int | None]
_PAIR = re.compile(r"^\s*(\d{1,6})\s*(?:[,;]\s*(\d{1,6})\s*)?$")
NONE_WORDS = ("", "none")


def format_min_max(value: MinMax | None) -> str:
    if value is None:
        return "none"
    low, high = value
    return str(low) if high is None else f"{low}, {high}"


class MinMaxEdit(QLineEdit):
    """``none``, ``N`` or ``N, M`` with both in ``low..high`` and N ≤ M."""

    committed = Signal(object)
    """A valid entry was committed: ``None`` or ``(N, M or None)``."""
    problemChanged = Signal(str)
    """Why the text is not a value (empty: it is, or could still become one)."""

    def __init__(self, low: int, high: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.low, self.high = low, high
        self._value: MinMax | None = None
        self._flagged = False
        self._text_color = self.palette().color(QPalette.ColorRole.Text)
        self.setPlaceholderText("none")
        self.setText("none")
        self.textEdited.connect(self._on_text_edited)
        self.returnPressed.connect(self._commit)

    def parse(self, text: str) -> MinMax | None:
        """The value ``text`` stands for; ``ValueError`` with the reason where it stands for none."""
        if text.strip().casefold() in NONE_WORDS:
            return None
        match = _PAIR.match(text)
        if match is None:
            raise ValueError(
                f"'{text.strip()[:40]}' is not N or N, M: type the minimum waves per SIMD, or the "
                f"minimum and maximum ({self.low} to {self.high}), or none"
            )
        low, high = int(match.group(1)), int(match.group(2)) if match.group(2) else None
        for part in (low, high):
            if part is not None and not self.low <= part <= self.high:
                raise ValueError(f"{part} is out of range ({self.low} to {self.high})")
        if high is not None and low > high:
            raise ValueError(f"the minimum {low} is above the maximum {high}")
        return low, high

    def problem(self, text: str) -> str:
        if text.strip() == "" or "none".startswith(text.strip().casefold()) or text.rstrip().endswith(","):
            return ""  # still being typed
        try:
            self.parse(text)
        except ValueError as exc:
            return str(exc)
        return ""

    def set_value(self, value: MinMax | None) -> None:
        """Show ``value`` (the caller blocks signals)."""
        self._value = value
        text = format_min_max(value)
        if self.text() != text:
            self.setText(text)
        self._mark(False)

    @property
    def flagged(self) -> bool:
        return self._flagged

    def _on_text_edited(self, text: str) -> None:
        problem = self.problem(text)
        self._mark(bool(problem))
        self.problemChanged.emit(problem)

    def _mark(self, invalid: bool) -> None:
        if invalid == self._flagged:
            return
        self._flagged = invalid
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.Text, error_color() if invalid else self._text_color)
        self.setPalette(pal)

    def _commit(self) -> None:
        try:
            value = self.parse(self.text())
        except ValueError as exc:
            self.problemChanged.emit(f"{exc}; the results keep {format_min_max(self._value)}")
            self.set_value(self._value)
            return
        self.problemChanged.emit("")
        self.set_value(value)
        self.committed.emit(value)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 (Qt override)
        if self.text() != format_min_max(self._value):
            self._commit()
        super().focusOutEvent(event)
