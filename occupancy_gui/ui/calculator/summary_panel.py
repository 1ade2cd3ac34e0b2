"""The answer at a glance: resident blocks, warps, threads, occupancy, the binding limit(s), the
first-pass estimate, and a red banner with every reason when no block fits.

The panel keeps one fixed height whatever it shows (details or banner), so that scrubbing an input
never re-lays out the window: the table and plots below stay put and only repaint their contents.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from ... import units
from ...engine import Limit, launch_bound_reason
from ...fields import NVIDIA
from ...session import Session
from ..support.qt_utils import banner_colors
from ..support.terms import tip

LIMIT_NAMES = {
    Limit.WARPS: "warps / threads per SM",
    Limit.BLOCKS: "blocks per SM",
    Limit.REGISTERS: "registers",
    Limit.SHARED_MEMORY: "shared memory",
    Limit.BARRIERS: "block barriers",
    Limit.VIRTUAL_RESOURCES: "virtual resources",
}
_TAG = re.compile(r"<[^>]+>")
BANNER_LINES = 4
"""Lines the banner has room for: its title and three reasons (more reasons share lines)."""


def _bold_count(value: int, word: str) -> str:
    """``"<b>1</b> block"``, ``"<b>1,024</b> threads"``: the summary's counts, grouped and with their plural."""
    number, _, noun = units.count(value, word).partition(" ")
    return f"<b>{number}</b> {noun}"


def limits_text(limits: tuple[Limit, ...]) -> str:
    return " + ".join(LIMIT_NAMES[limit] for limit in limits) or "nothing"


def _steady(label: QLabel) -> QLabel:
    """A label whose text changes never change the window's size constraints."""
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    label.setMinimumWidth(40)
    return label


class SummaryLine(QLabel):
    """One line of the summary: it never widens the window, and when a narrow window (or an open
    dock) cuts it short its tooltip shows it whole, before the line's own explanation ``tip``."""

    def __init__(self, parent: QWidget, tip: str = "") -> None:
        super().__init__(parent)
        self.tip = tip
        _steady(self)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setToolTip(tip)

    @property
    def cut_short(self) -> bool:
        return self.sizeHint().width() > self.width()

    def event(self, event: QEvent) -> bool:
        # Decided when the tooltip is asked for: measuring rich text on every edit costs 50 µs a line.
        if event.type() == QEvent.Type.ToolTip:
            whole = _TAG.sub("", self.text()) if self.cut_short else ""
            self.setToolTip("\n\n".join(part for part in (whole, self.tip) if part))
        return super().event(event)


class Banner(QFrame):
    """A red box explaining why the launch would fail."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.apply_palette()
        self.title = _steady(QLabel(self))
        font = QFont(self.font())
        font.setBold(True)
        self.title.setFont(font)
        self.body = QLabel(self)
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 4, 10, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.body, 1)

    def apply_palette(self) -> None:
        """Banner colours for the current (light or dark) palette."""
        background, text = banner_colors()
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.Window, background)
        pal.setColor(QPalette.ColorRole.WindowText, text)
        self.setPalette(pal)

    def show_reasons(self, title: str, reasons: list[str]) -> None:
        self.title.setText(title)
        bullets = [f"• {reason}" for reason in reasons]
        self.body.setText("\n".join(bullets) if len(bullets) < BANNER_LINES else "   ".join(bullets))
        self.setToolTip(title + "\n" + "\n".join(bullets))


class SummaryPanel(QWidget):
    """Reads the session's result; writes nothing."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.occupancy = QLabel(self)
        big = QFont(self.font())
        big.setPointSizeF(big.pointSizeF() * 2.2)
        big.setBold(True)
        self.occupancy.setFont(big)
        self.occupancy.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.occupancy.setToolTip(
            "Theoretical occupancy: resident warps ÷ the SM's maximum resident warps\n\n" + tip("occupancy")
        )
        self.occupancy.setFixedWidth(self.occupancy.fontMetrics().horizontalAdvance("100.0 %") + 8)
        self.caption = QLabel("theoretical\noccupancy", self)
        self.counts = SummaryLine(self)
        self.limited_by = SummaryLine(self, tip("binding"))
        self.estimate = SummaryLine(
            self,
            "First-pass estimate: min(B_max, ⌊T_SM/T⌋, ⌊W_SM/W_B⌋, ⌊R_SM/(T·R)⌋, "
            "⌊S_SM/S⌋)\nwith no allocation rounding; the exact figure is the one on "
            "the left.\n\n" + tip("estimate"),
        )
        self.hint = SummaryLine(self)  # its tip: the engine's sentence on __launch_bounds__' min blocks
        self.hint.setObjectName("min_blocks_hint")
        details = QWidget(self)
        column = QVBoxLayout(details)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addStretch(1)
        for label in (self.counts, self.limited_by, self.estimate, self.hint):
            column.addWidget(label)
        column.addStretch(1)
        self.banner = Banner(self)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(details)
        self.stack.addWidget(self.banner)
        line = self.fontMetrics().lineSpacing()
        self.stack.setFixedHeight(BANNER_LINES * line + 8)
        top = QHBoxLayout(self)
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.occupancy)
        top.addWidget(self.caption)
        top.addSpacing(12)
        top.addWidget(self.stack, 1)
        self.sync_from_session()

    def on_session_changed(self, changed: frozenset[str]) -> None:
        self.sync_from_session()

    def sync_from_session(self) -> None:
        if self.session.vendor != NVIDIA:
            return  # hidden: an AMD device is selected (the AMD answer card shows both answers)
        result, error = self.session.result, self.session.error
        if result is None:
            self.occupancy.setText("—")
            self.banner.show_reasons("The occupancy query fails:", [error or "unknown error"])
            self.stack.setCurrentWidget(self.banner)
            return
        self.occupancy.setText(f"{result.occupancy * 100:.4g} %")
        self.counts.setText(
            f"{_bold_count(result.active_blocks, 'block')} · {_bold_count(result.active_warps, 'warp')} · "
            f"{_bold_count(result.active_threads, 'thread')} per SM "
            f"(of {units.count(result.max_warps_per_multiprocessor, 'warp')})"
        )
        self.limited_by.setText(f"Limited by <b>{limits_text(result.binding)}</b>")
        est = result.estimate
        differs = est.active_blocks != result.active_blocks
        self.estimate.setText(
            f"First-pass estimate: {units.count(est.active_blocks, 'block')}, {est.occupancy * 100:.4g} %"
            + (" <b>≠ exact</b> (allocation rounding)" if differs else " (agrees)")
        )
        shortfall = self.session.min_blocks_shortfall
        wanted = self.session.inputs.min_blocks_per_sm
        # Short enough for a 1024-wide window; the engine's whole sentence (why it matters) is the tooltip.
        hint = (
            ""
            if shortfall is None
            else (
                f"⚠ Fewer blocks than __launch_bounds__ asks for: "
                f"<b>{result.active_blocks}</b> &lt; <b>{wanted}</b> per SM"
            )
        )
        if self.hint.text() != hint:
            self.hint.setText(hint)
            self.hint.tip = f"{shortfall}." if shortfall is not None else ""
        if result.active_blocks == 0:
            s = self.session
            cannot = (
                launch_bound_reason(
                    s.device,
                    s.function_attributes.max_threads_per_block,
                    s.inputs.threads,
                    s.function_attributes.reqntid,
                )
                is not None
            )
            title = "This block size cannot launch:" if cannot else "No block fits on an SM — this launch would fail:"
            self.banner.show_reasons(title, list(result.reasons))
            self.stack.setCurrentWidget(self.banner)
        else:
            self.stack.setCurrentIndex(0)

    @property
    def banner_shown(self) -> bool:
        return self.stack.currentWidget() is self.banner
