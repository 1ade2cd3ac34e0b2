"""The "Source and register caps" view: a PTX or CUDA file compiled for a chosen arch, and its cap sweep.

Compiling and sweeping run on a :class:`TaskRunner` pool thread (``occupancy_gui.compile`` does the
work, Qt-free); Cancel kills the compiler.  The file is watched: saving it in an editor recompiles, and
re-sweeps when a sweep is shown.  The plot has the occupancy steps (left axis) and the spill bytes per
thread (right axis) over one cap axis, with the sweet spot marked and named below.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...compile import CompileCancelled, CompileError, CompilerNotFound, DeviceCompile, compile_for_device, make_source
from ...compile.regcap import ResultCache, Sweep, sweep
from ...fields import NVIDIA, VENDOR_NAMES
from ...importers import KernelRecord
from ...record_launch import record_inputs
from ...session import Session
from ..calculator.plots.plot_style import plot_style
from ..support.file_watch import FileWatch, file_stamp
from ..support.qt_utils import signals_blocked
from ..support.tasks import TaskOutcome, TaskRunner

SOURCE_FILTER = "PTX or CUDA source (*.ptx *.cu);;All files (*)"


@dataclass
class CompileFailure:
    """A compile that failed: the compiler's lines as it wrote them, and a summary line."""

    summary: str
    lines: list[str]


def _compile_task(path: str, arch: str, cuda_bin: str | None) -> Any:
    def run(cancelled: Any, _progress: Any) -> DeviceCompile | CompileFailure:
        try:
            return compile_for_device(make_source(path, arch, cuda_bin), cancel=cancelled)
        except CompileError as exc:
            return CompileFailure(str(exc), exc.lines)

    return run


def _sweep_task(path: str, arch: str, cuda_bin: str | None, kernel: str, session: Session, cache: ResultCache) -> Any:
    device, threads, dynamic = session.device, session.inputs.threads, session.inputs.dynamic_smem

    def run(cancelled: Any, progress: Any) -> Sweep | CompileFailure:
        try:
            return sweep(
                make_source(path, arch, cuda_bin),
                device,
                kernel=kernel,
                threads=threads,
                dynamic_smem=dynamic,
                cache=cache,
                progress=progress,
                cancel=cancelled,
            )
        except CompileError as exc:
            return CompileFailure(str(exc), exc.lines)

    return run


def arch_choices(session: Session) -> list[str]:
    """``sm_XY`` of every profile in the catalog, lowest first."""
    ccs = {p.device_properties().compute_capability for p in session.catalog.profiles}
    return [f"sm_{major}{minor}" for major, minor in sorted(ccs) if major >= 5]


def device_arch(session: Session) -> str:
    """The selected device's architecture, ``sm_90`` for CC 9.0."""
    major, minor = session.device.compute_capability
    return f"sm_{major}{minor}"


OriginNote = Callable[[str | None, tuple[int, int] | None], None]
"""Shows a note beside the inputs while they hold the given (registers, static shared memory): the kernel
panel's ``set_origin_note``."""


class SourceView(QWidget):
    """Compile a source, pick its kernel (its registers and shared memory go to the inputs), sweep caps.

    The architecture follows the selected device unless the user chose one: a compile for another device's
    architecture gives other registers (sm_100's 32 against sm_90's 34 for one kernel), so a choice other
    than the device's is said beside the figures it produced (``origin_note``)."""

    compiled = Signal()
    """A compile or a sweep finished (shown, failed or cancelled): tests wait on it."""

    def __init__(self, session: Session, origin_note: OriginNote | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.origin_note = origin_note
        self.compiled_arch: str | None = None  # the arch of the records shown
        self.compile_note: str | None = None
        self.path: str | None = None
        self.cuda_bin: str | None = None  # --cuda-bin; None: CUDA_HOME, PATH, the pip wheel
        self.records: list[KernelRecord] = []
        self.result: Sweep | None = None
        self.cache = ResultCache.default()
        self.step = 8  # registers per thread in one allocation step (256 per warp on every CUDA GPU)
        self._task: str | None = None  # "compile" or "sweep" while one runs
        self._request: tuple[str, int, int] | None = None  # the (device, threads, dynamic smem) a sweep ran with
        self._scored_for: tuple[str, int, int] | None = None  # ... and the one the shown result is scored for
        self._resweep = False  # a saved file: sweep again once it has compiled
        self.runner = TaskRunner(
            self, expected=(ValueError, OSError, CompilerNotFound), cancel_types=(CompileCancelled,)
        )
        self.runner.finished.connect(self._on_runner_finished)
        self.runner.progressed.connect(self._on_runner_progressed)
        self.watch = FileWatch(self)
        self.watch.fileRewritten.connect(self._on_file_rewritten)
        self._build()

    # ----------------------------------------------------------------------------- layout
    def _build(self) -> None:
        self.file_label = QLabel("No source: File → Open PTX / CUDA source…")
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("&Open…")
        self.arch_combo = QComboBox()
        self.arch_combo.setEditable(True)
        self.arch_combo.addItem(self._follow_text())
        self.arch_combo.addItems(arch_choices(self.session))
        self.arch_combo.setToolTip(
            "The architecture to compile for (ptxas -arch / nvcc -arch): the selected\n"
            "device's by default; another choice is named beside the inputs it sets."
        )
        self.compile_button = QPushButton("&Compile")
        self.kernel_combo = QComboBox()
        self.kernel_combo.setToolTip("The kernel whose registers and shared memory go to the inputs")
        self.sweep_button = QPushButton("Sweep register &caps")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setMaximumBlockCount(2000)
        self.output.setPlaceholderText("Compiler output")
        self.output.setVisible(False)
        self.plot = self._build_plot()
        self.plot.setMinimumHeight(220)
        self.plot.hide()  # until a sweep: an empty plot says nothing
        self.empty_hint = QLabel(
            "No sweep yet. Open a .ptx or .cu file (Open… or File → Open PTX / CUDA source…): its "
            "kernels are compiled for the selected device's architecture and the chosen kernel's "
            "registers and shared memory go to the inputs. Then Sweep register caps: each "
            "-maxrregcount is compiled, and its occupancy and spill bytes per thread are "
            "plotted here, with the sweet spot marked."
        )
        self.empty_hint.setObjectName("source_empty_hint")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty_hint.setEnabled(False)
        self.sweet_label = QLabel("")
        self.sweet_label.setWordWrap(True)
        self.sweet_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        row = QHBoxLayout()
        for w in (
            self.open_button,
            QLabel("Arch:"),
            self.arch_combo,
            self.compile_button,
            QLabel("Kernel:"),
            self.kernel_combo,
            self.sweep_button,
            self.cancel_button,
        ):
            row.addWidget(w)
        row.addStretch(1)
        grid = QGridLayout()
        grid.addWidget(self.progress, 0, 0)
        grid.addWidget(self.status, 1, 0)
        layout = QVBoxLayout(self)
        layout.addWidget(self.file_label)
        layout.addLayout(row)
        layout.addLayout(grid)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.empty_hint, 1)
        layout.addWidget(self.sweet_label)
        layout.addWidget(self.output)
        self.open_button.clicked.connect(self.open_dialog)
        self.compile_button.clicked.connect(self._on_compile_clicked)
        self.sweep_button.clicked.connect(self._on_sweep_clicked)
        self.cancel_button.clicked.connect(self.cancel)
        self.kernel_combo.currentIndexChanged.connect(self._on_kernel_chosen)
        self.arch_combo.activated.connect(self._on_arch_chosen)
        self._update_buttons()

    def _build_plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget()
        plot.setBackground(plot_style().background)
        item = plot.getPlotItem()
        item.setLabel("bottom", "-maxrregcount (registers per thread)")
        item.setLabel("left", "occupancy", units="%")
        item.showAxis("right")
        item.setLabel("right", "spill stores + loads", units="B/thread")
        item.setYRange(0, 100)
        self.spill_box = pg.ViewBox()
        item.scene().addItem(self.spill_box)
        item.getAxis("right").linkToView(self.spill_box)
        self.spill_box.setXLink(item)
        item.vb.sigResized.connect(self._sync_spill_box)
        self.occ_curve = item.plot([], [], pen=pg.mkPen("#1f77b4", width=2), name="occupancy")
        self.spill_curve = pg.PlotDataItem(
            [], [], pen=pg.mkPen("#d62728", width=2, style=Qt.PenStyle.DashLine), symbol="s", symbolSize=5
        )
        self.spill_box.addItem(self.spill_curve)
        self.sweet_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#2ca02c", width=2))
        self.sweet_line.setVisible(False)
        item.addItem(self.sweet_line)
        return plot

    def _sync_spill_box(self) -> None:
        self.spill_box.setGeometry(self.plot.getPlotItem().vb.sceneBoundingRect())
        self.spill_box.linkedViewChanged(self.plot.getPlotItem().vb, self.spill_box.XAxis)

    # ----------------------------------------------------------------------------- actions
    def open_dialog(self) -> None:
        start = os.path.dirname(self.path) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open PTX / CUDA source", start, SOURCE_FILTER)
        if path:
            self.open(path)

    # ----------------------------------------------------------------------------- the arch
    def _follow_text(self) -> str:
        return f"Device's ({device_arch(self.session)})"

    @property
    def follows_device(self) -> bool:
        """Whether the compile's arch is the selected device's (the first entry, the default)."""
        return self.arch_combo.currentIndex() == 0 and self.arch_combo.currentText() == self.arch_combo.itemText(0)

    def arch(self) -> str:
        """The arch the next compile is for."""
        return device_arch(self.session) if self.follows_device else self.arch_combo.currentText().strip()

    def choose_arch(self, arch: str | None) -> None:
        """Compile for ``arch`` from now on (``None``: follow the device)."""
        with signals_blocked(self.arch_combo):
            if arch is None:
                self.arch_combo.setCurrentIndex(0)
            else:
                self.arch_combo.setCurrentText(arch)

    def open(self, path: str, arch: str | None = None) -> None:
        """Show ``path`` (compiled now, for ``arch`` or the chosen one) and watch it for saves."""
        self.path = os.path.abspath(path)
        if arch:
            self.choose_arch(arch)
        self.file_label.setText(self.path)
        self.result = None
        self._show_sweep()
        self.watch.watch(self.path, file_stamp(self.path))
        self.compile()

    def compile(self) -> None:
        if self.path is None:
            return
        if self.session.vendor != NVIDIA:  # a file saved while an AMD device is selected: no NVIDIA compile
            self.status.setText(
                f"Not compiled: {VENDOR_NAMES[self.session.vendor]} device selected; nvcc and ptxas "
                "compile for NVIDIA GPUs only."
            )
            return
        self._start("compile", _compile_task(self.path, self.arch(), self.cuda_bin))

    def start_sweep(self) -> None:
        kernel = self.kernel_combo.currentText()
        if self.path is None or not kernel or self.session.vendor != NVIDIA:
            return
        s = self.session
        self._request = (s.inputs.device, s.inputs.threads, s.inputs.dynamic_smem)
        self._start(
            "sweep",
            _sweep_task(self.path, self.compiled_arch or self.arch(), self.cuda_bin, kernel, self.session, self.cache),
        )

    def cancel(self) -> None:
        self.runner.cancel()

    def shutdown(self) -> None:
        self.watch.stop()
        self.runner.shutdown()

    def _start(self, kind: str, task: Any) -> None:
        self._task = kind
        self.status.setText("Compiling…" if kind == "compile" else "Sweeping register caps…")
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.runner.start(task)
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = self._task is not None
        self.cancel_button.setEnabled(busy)
        self.compile_button.setEnabled(self.path is not None and not busy)
        self.sweep_button.setEnabled(bool(self.records) and not busy)

    # ----------------------------------------------------------------------------- outcomes
    def _on_runner_progressed(self, _task_id: int, permille: int) -> None:
        self.progress.setValue(permille)

    def _on_runner_finished(self, outcome: TaskOutcome) -> None:
        if self.runner.busy:  # a newer task replaced this one
            return
        kind, self._task = self._task, None
        self.progress.setVisible(False)
        value = outcome.value
        if outcome.cancelled:
            self.status.setText("Cancelled.")
        elif outcome.error is not None:
            self._show_failure(CompileFailure(outcome.error, []))
        elif isinstance(value, CompileFailure):
            self._show_failure(value)
        elif kind == "compile":
            self._show_records(value)
            if self._resweep and self.records:
                self._resweep = False
                self.start_sweep()
                return
        else:
            self.result = value
            self._scored_for = self._request
            self._show_sweep()
            self.status.setText(
                f"{len(value.points)} compiles: {value.kernel} ({value.arch}), {value.threads} threads per block."
            )
        self._update_buttons()
        self.compiled.emit()

    def _show_failure(self, failure: CompileFailure) -> None:
        self.status.setText(failure.summary)
        self.output.setPlainText("\n".join(failure.lines))
        self.output.setVisible(bool(failure.lines))

    def _show_records(self, compiled: DeviceCompile) -> None:
        self.compiled_arch, self.compile_note = compiled.arch, compiled.note
        kernels = [r for r in compiled.records if r.is_kernel]
        self.records = kernels
        self.output.setVisible(False)
        current = self.kernel_combo.currentText()
        with signals_blocked(self.kernel_combo):
            self.kernel_combo.clear()
            self.kernel_combo.addItems([r.name for r in kernels])
            names = [r.name for r in kernels]
            # The kept choice, else the kernel with the most registers (the one a cap sweep is for).
            heaviest = max(range(len(kernels)), key=lambda i: kernels[i].registers, default=0)
            self.kernel_combo.setCurrentIndex(names.index(current) if current in names else heaviest)
        count = f"{len(kernels)} kernel{'s' if len(kernels) != 1 else ''}"
        status = f"{count} compiled for {compiled.arch}." if kernels else "No kernels in this file."
        self.status.setText(" ".join(filter(None, [status, compiled.note, self._choice_note()])))
        self._on_kernel_chosen(self.kernel_combo.currentIndex())

    def _choice_note(self) -> str | None:
        """The arch of the figures shown, where it is not the selected device's own."""
        arch, device = self.compiled_arch, device_arch(self.session)
        if arch is None or arch.rstrip("af") == device:
            return None
        name = self.session.profile.name
        shown = device if name == device else f"{name} ({device})"
        return (
            f"Registers and shared memory compiled for {arch}; the selected device is {shown}: they may differ on it."
        )

    def _on_kernel_chosen(self, index: int) -> None:
        if 0 <= index < len(self.records):
            rec = self.records[index]
            with self.session.batch():
                self.session.replace(**record_inputs(rec, self.session.device, self.session.inputs.threads))
            self._show_origin(rec)

    def _show_origin(self, rec: KernelRecord) -> None:
        if self.origin_note is None:
            return
        note = " ".join(filter(None, [self.compile_note, self._choice_note()]))
        self.origin_note(note or None, (rec.registers, rec.static_smem or 0))

    def _on_arch_chosen(self, _index: int) -> None:
        self.result = None  # a sweep for another arch no longer applies
        self._show_sweep()
        self.compile()

    def _on_compile_clicked(self) -> None:
        self.compile()

    def _on_sweep_clicked(self) -> None:
        self.start_sweep()

    def _on_file_rewritten(self, path: str, stamp: tuple[int, int] | None) -> None:
        if path != self.path:
            return
        self.watch.watch(path, stamp)
        self._resweep = self.result is not None  # the kernel list first (a kernel may be renamed), then the sweep
        self.compile()

    def on_session_changed(self, changed: frozenset[str] = frozenset()) -> None:
        """A new block size or device: the same compiles, rescored (the analysis dock calls this); a new device's
        arch compiled anew where the arch follows the device."""
        if "device" in changed:
            with signals_blocked(self.arch_combo):
                self.arch_combo.setItemText(0, self._follow_text())
            if (
                self.follows_device
                and self.path is not None
                and self.compiled_arch is not None
                and self.compiled_arch.rstrip("af") != device_arch(self.session)
            ):
                self.result = None
                self._show_sweep()
                self.compile()
                return
            if self.records and 0 <= self.kernel_combo.currentIndex() < len(self.records):
                self._show_origin(self.records[self.kernel_combo.currentIndex()])
        s = self.session
        wanted = (s.inputs.device, s.inputs.threads, s.inputs.dynamic_smem)
        if self.result is not None and wanted != self._scored_for:
            self.result = self.result.rescored(s.device, s.inputs.threads, s.inputs.dynamic_smem)
            self._scored_for = wanted
            self._show_sweep()

    # ----------------------------------------------------------------------------- the plot
    def _show_sweep(self) -> None:
        result = self.result
        self.plot.setVisible(result is not None)
        self.empty_hint.setVisible(result is None)
        if result is None:
            self.occ_curve.setData([], [])
            self.spill_curve.setData([], [])
            self.sweet_line.setVisible(False)
            self.sweet_label.setText("")
            return
        xs = [p.cap if p.cap is not None else p.registers for p in result.points]
        self.occ_curve.setData(*occupancy_steps(result, self.step))
        self.spill_curve.setData(xs, [p.spill_bytes for p in result.points])
        self.spill_box.setYRange(0, max([p.spill_bytes for p in result.points] + [1]) * 1.1)
        best = result.sweet_spot
        self.sweet_line.setValue(best.cap if best.cap is not None else best.registers)
        self.sweet_line.setVisible(True)
        self.sweet_label.setText(sweet_spot_text(result))


def occupancy_steps(result: Sweep, step: int) -> tuple[list[float], list[float]]:
    """The occupancy as steps over the cap axis: a cap ``c`` holds for every cap in ``(c - step, c]``
    (they leave the kernel in the same register-allocation step); caps ascending."""
    xs: list[float] = []
    ys: list[float] = []
    for p in sorted(result.points, key=lambda p: p.registers if p.cap is None else p.cap):
        top = p.registers if p.cap is None else p.cap
        xs += [max(top - step, 0), top]
        ys += [100 * p.occupancy] * 2
    return xs, ys


def sweet_spot_text(result: Sweep) -> str:
    """The sweet spot and the spill price of each further occupancy step, in words."""
    best = result.sweet_spot
    cap = "no cap" if best.cap is None else f"-maxrregcount={best.cap}"
    parts = [f"Sweet spot: {cap} ({best.registers} registers), {best.occupancy:.1%} occupancy without spills."]
    for p in result.further_steps():
        parts.append(f"{p.occupancy:.1%} needs -maxrregcount={p.cap}: {p.spill_bytes} B of spills per thread.")
    return " ".join(parts)
