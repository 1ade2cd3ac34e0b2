"""A short guided tour of the window: a few steps, each pointing at the real widget it explains.

The tour is an overlay over the main window: it dims everything but the step's target, outlines the
target, and places a bubble (title, a few plain sentences, Back / Next / Close) beside it.  Steps name
their targets as functions that return a rectangle in the window's coordinates, so a target is measured
when its step is shown (after docks open, the window is resized, or a splitter moves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

Target = Callable[[], QRect | None]
"""Where a step points, in the main window's coordinates; ``None``: nowhere (a centred bubble)."""

BUBBLE_WIDTH = 360
GAP = 12
DIM = QColor(0, 0, 0, 120)


@dataclass(frozen=True)
class TourStep:
    key: str
    title: str
    text: str
    target: Target
    next_label: str = ""
    """The Next button's words on this step (default: Next, or Done on the last step)."""
    close_label: str = "Close"
    counted: bool = True
    """Whether the step has a number ("2 of 7"); a welcome before the tour has none."""


def widget_rect(widget: QWidget, frame: QWidget) -> Target:
    """A target that is ``widget``'s rectangle, mapped into ``frame`` (``None`` while it is hidden)."""

    def rect() -> QRect | None:
        if not widget.isVisible():
            return None
        return QRect(widget.mapTo(frame, QPoint(0, 0)), widget.size())

    return rect


class TourBubble(QFrame):
    """The step's words and the buttons; a plain framed widget in the window's palette."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("tour_bubble")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.title = QLabel(self)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.counter = QLabel(self)
        self.back = QPushButton("Back", self)
        self.next = QPushButton("Next", self)
        self.close_button = QPushButton("Close", self)
        self.next.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.counter)
        buttons.addStretch(1)
        for button in (self.back, self.next, self.close_button):
            buttons.addWidget(button)
        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.addWidget(self.title)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        self.setFixedWidth(BUBBLE_WIDTH)

    def fitted_size(self) -> QSize:
        """The bubble's size for its current words: its fixed width and the height they need there."""
        self._layout.activate()
        return QSize(BUBBLE_WIDTH, self.heightForWidth(BUBBLE_WIDTH))


class Tour(QWidget):
    """The overlay: covers ``frame``, dims all but the target, and shows the bubble beside it."""

    finished = Signal()

    def __init__(self, frame: QWidget, steps: Sequence[TourStep]) -> None:
        super().__init__(frame)
        self.setObjectName("help_tour")
        self.frame, self.steps = frame, tuple(steps)
        self.index = 0
        self.target: QRect | None = None
        self.bubble = TourBubble(self)
        self.bubble.back.clicked.connect(self._on_back_clicked)
        self.bubble.next.clicked.connect(self._on_next_clicked)
        self.bubble.close_button.clicked.connect(self._on_close_clicked)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        frame.installEventFilter(self)
        self.hide()

    # ----------------------------------------------------------------------------- steps
    def start(self, index: int = 0) -> None:
        """Show step ``index`` (clamped to the steps there are)."""
        self.show_step(index)
        self.show()
        self.raise_()
        self.setFocus()

    def show_step(self, index: int) -> None:
        self.index = max(0, min(index, len(self.steps) - 1))
        step = self.steps[self.index]
        self.bubble.title.setText(step.title)
        self.bubble.text.setText(step.text)
        counted = [s for s in self.steps if s.counted]
        self.bubble.counter.setText(f"{counted.index(step) + 1} of {len(counted)}" if step.counted else "")
        self.bubble.back.setEnabled(self.index > 0)
        last = self.index == len(self.steps) - 1
        self.bubble.next.setText(step.next_label or ("Done" if last else "Next"))
        self.bubble.close_button.setText(step.close_label)
        self.place()

    def place(self) -> None:
        """Cover the window, measure the target again and put the bubble beside it, inside the window."""
        self.setGeometry(self.frame.rect())
        target = self.steps[self.index].target()
        self.target = target.intersected(self.rect()) if target is not None else None
        size = self.bubble.fitted_size()
        self.bubble.setGeometry(QRect(self._bubble_position(size), size))
        self.update()

    def _bubble_position(self, size: QSize) -> QPoint:
        area, t = self.rect(), self.target
        if t is None or t.isEmpty():
            return area.center() - QPoint(size.width() // 2, size.height() // 2)
        candidates = (
            QPoint(t.right() + GAP, t.top()),  # right of the target
            QPoint(t.left() - GAP - size.width(), t.top()),  # left
            QPoint(t.left(), t.bottom() + GAP),  # below
            QPoint(t.left(), t.top() - GAP - size.height()),  # above
        )
        for point in candidates:
            if area.contains(QRect(point, size)):
                return point
        # No side has room (the target fills the window): inside it, at its top right.
        return QPoint(
            max(area.left(), min(t.right() - size.width() - GAP, area.right() - size.width())),
            max(area.top(), min(t.top() + GAP, area.bottom() - size.height())),
        )

    def next_step(self) -> None:
        if self.index >= len(self.steps) - 1:
            self.close_tour()
        else:
            self.show_step(self.index + 1)

    def previous_step(self) -> None:
        if self.index > 0:
            self.show_step(self.index - 1)

    def close_tour(self) -> None:
        self.hide()
        self.finished.emit()

    # ----------------------------------------------------------------------------- Qt
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        painter = QPainter(self)
        shade = QPainterPath()
        shade.addRect(self.rect())
        if self.target is not None:
            hole = QPainterPath()
            hole.addRoundedRect(self.target.adjusted(-4, -4, 4, 4), 6, 6)
            shade = shade.subtracted(hole)
        painter.fillPath(shade, DIM)
        if self.target is not None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 3))
            painter.drawRoundedRect(self.target.adjusted(-4, -4, 4, 4), 6, 6)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.close_tour()
        elif key in (Qt.Key.Key_Right, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.next_step()
        elif key == Qt.Key.Key_Left:
            self.previous_step()
        else:
            super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if (
            watched is self.frame
            and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest)
            and self.isVisible()
        ):
            self.place()
        return False

    def _on_back_clicked(self) -> None:
        self.previous_step()

    def _on_next_clicked(self) -> None:
        self.next_step()

    def _on_close_clicked(self) -> None:
        self.close_tour()
