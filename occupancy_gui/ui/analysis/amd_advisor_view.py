"""The advisor dock on an AMD device: the VGPR counts at which waves per SIMD change (the HIP runtime's and LLVM's),
and what to write in the source to move the compiler's answer, with the runtime's own block-size suggestions.

Every figure comes from ``amd_question.advice`` (the AMD engine's); the view lays it out.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from ...amd_question.advice import launch_bound_hint, runtime_hints, vgpr_table, waves_per_eu_hint
from ...session import Session
from ..support.refresh import RefreshWhenVisible
from .advisor_view import RowsModel

VGPR_HEADERS = ("Waves / SIMD", "HIP: VGPRs ≤", "LLVM: VGPRs ≤")


class AmdAdvisorView(RefreshWhenVisible, QWidget):
    """VGPR steps and source hints for the session's AMD question."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("amd_advisor")
        self.session = session
        self.steps = RowsModel(VGPR_HEADERS, self)
        self.table = QTableView(self)
        self.table.setModel(self.steps)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setToolTip(
            "For each waves-per-SIMD level, the most VGPRs that still reach it: the HIP runtime's\n"
            "rule (comgr's granule, its VGPRs per SIMD) and LLVM's; the kernel's level is bold."
        )
        steps = QGroupBox("VGPRs and waves per SIMD", self)
        column = QVBoxLayout(steps)
        column.addWidget(self.table)
        hints = QGroupBox("What to write in the source", self)
        lines = QVBoxLayout(hints)
        self.labels: dict[str, QLabel] = {}
        for key, tip in (
            ("waves_per_eu", "amdgpu_waves_per_eu: the waves per SIMD LLVM budgets registers for"),
            ("launch_bound", "__launch_bounds__ / amdgpu_flat_work_group_size: the block LLVM sizes for"),
            ("runtime", "The HIP runtime's block-size suggestions for this kernel and dynamic LDS"),
        ):
            label = QLabel(self)
            label.setObjectName(f"amd_hint_{key}")
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setToolTip(tip)
            lines.addWidget(label)
            self.labels[key] = label
        lines.addStretch(1)
        row = QHBoxLayout(self)
        row.addWidget(steps, 2)
        row.addWidget(hints, 3)

    def refresh(self) -> None:
        self._dirty = False
        state = self.session.amd
        result = state.answer if state is not None else None
        if result is None:
            self.steps.set_rows([])
            for label in self.labels.values():
                label.setText(state.error if state is not None and state.error else "")
            return
        rows = vgpr_table(result)
        now = result.compiler.waves_per_simd
        texts = [
            (str(w), "—" if hip is None else str(hip), "—" if llvm is None else str(llvm)) for w, hip, llvm in rows
        ]
        self.steps.set_rows(texts, bold={i for i, (w, _h, _l) in enumerate(rows) if w == now})
        self.labels["waves_per_eu"].setText(waves_per_eu_hint(result))
        self.labels["launch_bound"].setText(launch_bound_hint(result))
        self.labels["runtime"].setText("\n".join(runtime_hints(result)))
