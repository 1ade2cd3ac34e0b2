"""The calculator's AMD widgets, made together the first time an AMD device is selected: the kernel panel of the
AMD inputs, the answer card with both answers, and the constraint table of both rules' limits.

The window shows them in place of the NVIDIA ones while an AMD device is selected (and the NVIDIA ones, which
read NVIDIA figures only, are neither shown nor updated meanwhile).
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from ...session import Session
from .amd_constraint_model import AmdConstraintModel
from .amd_kernel_panel import AmdKernelPanel
from .amd_summary import AmdSummaryPanel
from .constraint_view import ConstraintTableView


class AmdCalculator:
    """The AMD kernel panel, answer card and constraint table over one session."""

    def __init__(self, session: Session, parent: QWidget) -> None:
        self.session = session
        self.panel = AmdKernelPanel(session, parent)
        self.summary = AmdSummaryPanel(session, parent)
        self.table_model = AmdConstraintModel(parent)
        self.table = ConstraintTableView(self.table_model, parent)
        self.table.setObjectName("amd_constraint_table")
        self.table.setToolTip(
            "Each row is one limit of both AMD rules: blocks per CU or WGP the HIP runtime allows,\n"
            "waves per SIMD LLVM allows; ★ marks the binding ones. Edit → Copy table copies it."
        )
        self.sync()
        self.table.setFixedHeight(self.table.fitting_height())

    def widgets(self) -> tuple[QWidget, ...]:
        return self.panel, self.summary, self.table

    def sync(self, changed: frozenset[str] = frozenset()) -> None:
        """Follow the session (an AMD device is selected)."""
        state = self.session.amd
        self.panel.on_session_changed(changed)
        self.summary.on_session_changed(changed)
        self.table_model.set_answer(state.answer if state is not None else None)
