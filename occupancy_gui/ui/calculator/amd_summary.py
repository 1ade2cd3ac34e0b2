"""The AMD answer card: the HIP runtime's answer and the compiler's (LLVM's model), each named for what it is,
and one line of plain words on why they differ.

The card keeps one fixed height whatever it shows, as the NVIDIA summary does, so that an edit never re-lays out
the window.  The texts are pure functions of the session's :class:`~occupancy_gui.amd_question.AmdAnswer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from ... import units
from ...session import Session
from .summary_panel import SummaryLine

if TYPE_CHECKING:
    from ...amd_question import AmdAnswer

HIP_TITLE = "HIP runtime"
COMPILER_TITLE = "Compiler model (LLVM)"
HIP_WORDS = {"workgroup_size": "block size", "waves": "the wave cap", "vgprs": "VGPRs", "sgprs": "SGPRs", "lds": "LDS"}
COMPILER_WORDS = {
    "waves": "wave cap",
    "workgroup_size": "workgroups",
    "lds": "LDS",
    "vgprs": "VGPRs",
    "sgprs": "SGPRs",
    "waves_per_eu": "waves/EU",
}
SHOWN_BINDING = 2
"""Binding limits named on the card's line (the table stars every one; more are counted: "+1")."""
HIP_TIP = (
    "hipOccupancyMaxActiveBlocksPerMultiprocessor as ROCm 7 computes it (hip_platform.cpp): blocks per\n"
    "multiprocessor as HIP counts it (a WGP in WGP mode, else a CU), its waves pooled over the SIMDs, capped at\n"
    "the runtime's waves per SIMD; occupancy = active waves ÷ (SIMDs × cap). The grid is CUs × blocks for\n"
    "this launch; the best block is hipOccupancyMaxPotentialBlockSize's (no search)."
)
COMPILER_TIP = (
    "LLVM's AMDGPU model, the '; Occupancy: N' the compiler prints: waves per SIMD for the kernel's\n"
    "launch bound (max flat workgroup size), not the block launched, with static LDS only: it leaves out\n"
    "dynamic LDS, which the compiler cannot see. LLVM's own granules, LDS pool and wave cap."
)
EXPLANATION_LINES = 2


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.4g} %"


def _bold(value: int, word: str) -> str:
    number, _, noun = units.count(value, word).partition(" ")
    return f"<b>{number}</b> {noun}"


def binding_words(names: tuple[str, ...], words: dict[str, str]) -> str:
    """The binding limits in words, at most :data:`SHOWN_BINDING` of them, the rest counted."""
    shown = " + ".join(words[k] for k in names[:SHOWN_BINDING]) or "nothing"
    return shown + (f" +{len(names) - SHOWN_BINDING}" if len(names) > SHOWN_BINDING else "")


def hip_texts(answer: AmdAnswer) -> tuple[str, str, str]:
    """(occupancy, line 1, line 2) of the runtime's answer."""
    hip, where = answer.hip, answer.multiprocessor
    if hip.error is not None:
        return "—", f"<b>{HIP_TITLE}</b> — the call returns an error, no block count:", f"<b>{hip.error}</b>"
    waves = (
        f"<b>{HIP_TITLE}</b> — {_bold(hip.active_blocks, 'block')} · <b>{hip.active_waves}</b> of {hip.max_waves} "
        f"waves per {where}"
    )
    binding = binding_words(hip.binding, HIP_WORDS)
    if hip.limits.get("workgroup_size") == 0:
        binding = f"block size ({answer.launch.threads_per_block} > {answer.device.target.max_workgroup_size})"
    grid = "—" if hip.grid_blocks is None else units.group(hip.grid_blocks)
    return (
        _percent(hip.occupancy),
        waves,
        f"Limited by <b>{binding}</b> · grid {grid} · best block {hip.best_block_size}",
    )


def compiler_texts(answer: AmdAnswer) -> tuple[str, str, str]:
    """(occupancy, line 1, line 2) of LLVM's answer."""
    c = answer.compiler
    binding = binding_words(c.binding, COMPILER_WORDS)
    line1 = f"<b>{COMPILER_TITLE}</b> — <b>{c.waves_per_simd}</b> of {c.max_waves_per_simd} waves per SIMD"
    bound = c.budget.flat_workgroup_sizes[1]
    return _percent(c.occupancy), line1, f"Limited by <b>{binding}</b> · launch bound {bound} · no dynamic LDS"


class AmdSummaryPanel(QWidget):
    """Reads the session's AMD answer; writes nothing."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("amd_summary")
        self.session = session
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(0)
        big = QFont(self.font())
        big.setPointSizeF(big.pointSizeF() * 1.6)
        big.setBold(True)
        self.percents: list[QLabel] = []
        self.lines: list[SummaryLine] = []
        for row, tip in enumerate((HIP_TIP, COMPILER_TIP)):
            percent = QLabel(self)
            percent.setFont(big)
            percent.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            percent.setFixedWidth(percent.fontMetrics().horizontalAdvance("100.0 %") + 4)
            percent.setToolTip(tip)
            grid.addWidget(percent, 2 * row, 0, 2, 1)
            for i in range(2):
                line = SummaryLine(self, tip)
                grid.addWidget(line, 2 * row + i, 1)
                self.lines.append(line)
            self.percents.append(percent)
        self.explanation = QLabel(self)
        self.explanation.setObjectName("amd_explanation")
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)
        self.explanation.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.explanation.setFixedHeight(EXPLANATION_LINES * self.fontMetrics().lineSpacing() + 2)
        self.explanation.setToolTip("Why the two answers differ, in plain words (both agree when they do).")
        grid.addWidget(self.explanation, 4, 0, 1, 2)
        grid.setColumnStretch(1, 1)
        spacing = self.fontMetrics().lineSpacing()
        self.setFixedHeight(
            4 * max(spacing, self.percents[0].fontMetrics().height() // 2) + 6 + self.explanation.height()
        )
        self.sync_from_session()

    def on_session_changed(self, changed: frozenset[str]) -> None:
        self.sync_from_session()

    def sync_from_session(self) -> None:
        state = self.session.amd
        if state is None:
            return  # hidden: an NVIDIA device is selected
        answer = state.answer
        if answer is None:
            texts = [
                ("—", f"<b>{HIP_TITLE}</b> — <b>{state.error}</b>", ""),
                ("—", f"<b>{COMPILER_TITLE}</b> — no answer", ""),
            ]
            explanation = state.error or ""
        else:
            texts = [hip_texts(answer), compiler_texts(answer)]
            explanation = answer.explanation
        for i, (percent, first, second) in enumerate(texts):
            _set(self.percents[i], percent)
            _set(self.lines[2 * i], first)
            _set(self.lines[2 * i + 1], second)
        _set(self.explanation, explanation)


def _set(label: QLabel, text: str) -> None:
    if label.text() != text:
        label.setText(text)
