"""The Help menu's teaching entries: Take the tour, Occupancy terms, and the tour offered once.

The tour and the terms page load when first asked for.  The offer on first launch is made by the
application's interactive start (``app.main`` calls :meth:`HelpActions.offer_tour_once`), so windows
built by tests, screenshots and the self-test never show it unless they ask; once made, QSettings
remembers it and it is not made again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRect, QTimer
from PySide6.QtGui import QAction, QKeySequence

from ...fields import AMD

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu, QWidget

    from ..support.window_api import WindowApi
    from .help_terms_dialog import TermsDialog
    from .help_tour import Target, Tour, TourStep

TOUR_OFFERED_KEY = "help/tour_offered"


@dataclass(frozen=True)
class TourTargets:
    """The widgets the tour points at, handed over by the window (which alone knows its parts).

    ``answer`` and ``table`` give the selected vendor's answer card and limits table when the tour starts (an AMD
    device has its own: both rules' answers and limits)."""

    inputs: QWidget
    answer: Callable[[], QWidget]
    table: Callable[[], QWidget]
    plots: QWidget


NVIDIA_TEXTS = {
    "inputs": "Pick a GPU (or a compute capability such as <i>sm_90</i>), then type the launch and what the "
    "compiler gave the kernel: threads per block, registers per thread, shared memory, barriers, "
    "launch bounds. Every change is computed at once; Edit → Undo takes it back.",
    "answer": "Theoretical occupancy, the blocks and warps that fit on one SM, the limit that binds, and the "
    "first-pass estimate beside the exact figure. When no block fits, a red box lists every reason.",
    "table": "Each resource allows some number of whole blocks; the smallest wins and is marked ★. "
    "<i>Calculation</i> shows the arithmetic with the rounded allocations; <i>≠ estimate</i> marks a "
    "row where rounding moved the ceiling.",
}
AMD_TEXTS = {
    "inputs": "Pick a GPU (or a target such as <i>gfx942</i>), then type the launch and what the compiler gave "
    "the kernel: threads per block, VGPRs, SGPRs, LDS, wave size, WGP or CU mode, launch bound. Every "
    "change is computed at once; Edit → Undo takes it back.",
    "answer": "Two answers: the HIP runtime's (hipOccupancyMaxActiveBlocksPerMultiprocessor: blocks and waves per "
    "CU, or per WGP in WGP mode) and the compiler model's (LLVM's waves per SIMD, for the kernel's launch "
    "bound). Where they differ, one line says why.",
    "table": "Both rules' limits: the blocks each resource allows the runtime, the waves per SIMD it allows LLVM; "
    "the smallest of each rule binds and is marked ★, with the arithmetic beside it.",
}
"""The first three steps' words for each vendor's inputs, answer card and limits table."""


def menu_title(window: WindowApi, menu: QMenu) -> Target:
    """A target that is ``menu``'s title in the menu bar."""
    bar = window.frame.menuBar()

    def rect() -> QRect | None:
        geometry = bar.actionGeometry(menu.menuAction())
        return None if geometry.isEmpty() else geometry.translated(bar.mapTo(window.frame, bar.rect().topLeft()))

    return rect


def tour_steps(window: WindowApi, help_menu: QMenu, targets: TourTargets) -> list[TourStep]:
    """The tour, in the order a newcomer meets the window."""
    from .help_tour import TourStep, widget_rect  # noqa: PLC0415 - lazy: with the tour

    frame = window.frame
    texts = AMD_TEXTS if window.session.vendor == AMD else NVIDIA_TEXTS
    return [
        TourStep("inputs", "1. Describe the kernel and the GPU", texts["inputs"], widget_rect(targets.inputs, frame)),
        TourStep("answer", "2. The answer", texts["answer"], widget_rect(targets.answer(), frame)),
        TourStep("table", "3. Why: one row per limit", texts["table"], widget_rect(targets.table(), frame)),
        TourStep(
            "plots",
            "4. What if",
            "How occupancy moves as one input changes, the others held. The dot is your launch; the labels "
            "name the nearest value that gains or loses a block.",
            widget_rect(targets.plots, frame),
        ),
        TourStep(
            "docks",
            "5. More views",
            "This menu opens docks below the results: the Advisor (what to change), heat maps, grid and "
            "waves, Utilization (what each resource of an SM is used for) and GPU data (every profile's "
            "limits, with sources). They follow every change.",
            menu_title(window, window.analysis_menu),
        ),
        TourStep(
            "import",
            "6. Your own kernels",
            "<i>Import compiler output…</i> (Ctrl+I) reads a ptxas&nbsp;-v log, cuobjdump output, a cubin, "
            "fatbin, object file or a Triton cache and lists its kernels; <i>Open PTX / CUDA source…</i> "
            "compiles one. Dropping a file on the window works too.",
            menu_title(window, window.file_menu),
        ),
        TourStep(
            "help",
            "7. Words explained",
            "<i>Occupancy terms</i> explains binding limits, the carveout, block barriers, the reserved 1 KiB, "
            "launch bounds and waves in plain words; hovering over a figure gives the short form. "
            "<i>Take the tour</i> shows this again.",
            menu_title(window, help_menu),
        ),
    ]


def welcome_step(window: WindowApi) -> TourStep:
    from .help_tour import TourStep  # noqa: PLC0415 - lazy: with the tour

    return TourStep(
        "welcome",
        "New here?",
        "A seven-step tour shows where to type a kernel's figures, where the answer appears and how "
        "to read it. It takes a minute, and Help → Take the tour starts it again at any time.",
        lambda: None,
        next_label="Start the tour",
        close_label="Not now",
        counted=False,
    )


class HelpActions(QObject):
    """Help → Take the tour and Help → Occupancy terms, added above the menu's other entries."""

    def __init__(self, window: WindowApi, help_menu: QMenu, targets: TourTargets) -> None:
        super().__init__(window.frame)
        self.window, self.help_menu, self.targets = window, help_menu, targets
        self.tour: Tour | None = None
        self.terms_dialog: TermsDialog | None = None
        self.tour_action = QAction("Take the &tour", window.frame)
        self.tour_action.setToolTip("A short tour of the window: where to type, where the answer is, how to read it")
        self.tour_action.triggered.connect(self._on_tour_triggered)
        self.terms_action = QAction("Occupancy &terms", window.frame)
        self.terms_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.terms_action.setToolTip(
            "Binding limit, first-pass estimate, carveout, barriers, launch bounds, waves… in plain words (F1)"
        )
        self.terms_action.triggered.connect(self._on_terms_triggered)
        existing = help_menu.actions()
        if existing:  # above About: what a newcomer looks for first
            help_menu.insertActions(existing[0], [self.tour_action, self.terms_action])
            help_menu.insertSeparator(existing[0])
        else:
            help_menu.addActions([self.tour_action, self.terms_action])

    def start_tour(self, step: int = 0, *, welcome: bool = False) -> Tour:
        """Show the tour at ``step`` (0-based), after a welcome step when ``welcome``."""
        from .help_tour import Tour  # noqa: PLC0415 - lazy: built when first asked for

        if self.tour is not None:
            self.tour.close_tour()
            self.tour.deleteLater()
        steps = tour_steps(self.window, self.help_menu, self.targets)
        self.tour = Tour(self.window.frame, [welcome_step(self.window), *steps] if welcome else steps)
        self.tour.start(step)
        return self.tour

    def offer_tour_once(self) -> bool:
        """On the first interactive launch (settings remember it), offer the tour; whether it was offered."""
        settings = self.window.settings
        if settings is None or settings.value(TOUR_OFFERED_KEY, False) in (True, "true"):
            return False
        settings.setValue(TOUR_OFFERED_KEY, True)
        settings.sync()
        QTimer.singleShot(0, self._on_offer_timeout)  # after the window's first paint
        return True

    def show_terms(self, key: str | None = None) -> TermsDialog:
        """Open (or raise) Help → Occupancy terms, at term ``key`` if given."""
        from .help_terms_dialog import TermsDialog  # noqa: PLC0415 - lazy: built when first asked for

        if self.terms_dialog is None:
            self.terms_dialog = TermsDialog(self.window.frame)
        self.terms_dialog.show()
        self.terms_dialog.raise_()
        if key is not None:
            self.terms_dialog.show_term(key)
        return self.terms_dialog

    def _on_tour_triggered(self) -> None:
        self.start_tour()

    def _on_terms_triggered(self) -> None:
        self.show_terms()

    def _on_offer_timeout(self) -> None:
        self.start_tour(welcome=True)


def install_help(window: WindowApi, help_menu: QMenu, targets: TourTargets) -> HelpActions:
    """Add the tour and the terms page to ``help_menu`` (the window's Help menu)."""
    return HelpActions(window, help_menu, targets)
