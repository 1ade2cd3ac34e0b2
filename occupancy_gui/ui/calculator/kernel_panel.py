"""Kernel and launch inputs: threads per block, registers, shared memory and block barriers."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLabel, QSlider, QWidget

from ... import fields
from ...fields import NVIDIA
from ...session import InputRefused, Session
from ..support import terms
from ..support.qt_utils import signals_blocked
from ..support.quantity import ErrorLabel, QuantityField, QuantitySpinBox

KIB = 1024
MAX_THREADS = fields.FIELD["threads"].high
OPTIONAL_COUNTS = fields.KERNEL_LIMITS
TERM_OF = {
    "barriers": "barriers",
    "max_threads_per_block": "launch_bounds",
    "required_block_size": "launch_bounds",
    "min_blocks_per_sm": "launch_bounds",
}
"""Fields whose tooltip ends with the plain-words explanation of a term (Help → Occupancy terms)."""
"""Fields whose 0 reads "none": the session holds ``None`` for them."""

PANEL_FIELDS = (
    "threads",
    "registers",
    "static_smem",
    "dynamic_smem",
    "max_dynamic_smem",
    "barriers",
    "max_threads_per_block",
    "required_block_size",
    "min_blocks_per_sm",
)
"""The field table's inputs this panel edits, in order (the device panel edits carveout and cache config)."""
FIELDS = tuple(
    (f.name, f.form_label, f.kind, 0 if f.optional and f.kind == "count" else f.low, f.high, f.step, f.tip)
    for f in (fields.FIELD[name] for name in PANEL_FIELDS)
)
"""(session field, label with mnemonic, kind, minimum, maximum, step, tooltip) from ``fields``: an optional
count's 0 reads "none"."""


class KernelPanel(QGroupBox):
    """Writes the kernel and launch inputs of the session; mirrors them with signals blocked."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__("&Kernel and launch", parent)
        self.session = session
        self.spins: dict[str, QuantitySpinBox] = {}
        self.fields: dict[str, QuantityField] = {}
        self.labels: dict[str, QLabel] = {}
        self._build_extras()
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for name, label, kind, low, high, step, tip in FIELDS:
            term = TERM_OF.get(name)
            tip = f"{tip}\n\n{terms.tip(term)}" if term else tip
            spin = QuantitySpinBox(kind, low, high, step, self)
            spin.setToolTip(tip)
            spin.setObjectName(f"{name}_spin")
            beside = {"threads": (self.threads_slider,), "max_dynamic_smem": (self.runtime_default,)}.get(name, ())
            field = QuantityField(spin, *beside, parent=self)
            label_widget = QLabel(label, self)
            label_widget.setBuddy(spin)
            label_widget.setToolTip(tip)
            form.addRow(label_widget, field)
            self.spins[name], self.fields[name], self.labels[name] = spin, field, label_widget
            spin.valueChanged.connect(getattr(self, f"_on_{name}_changed"))
        self.barrier_note = QLabel(self)
        self.barrier_note.setWordWrap(True)
        self.barrier_note.setEnabled(False)
        form.addRow("", self.barrier_note)
        self.spill_note = ErrorLabel(self)  # an imported kernel's spills, under its register count
        self.spill_note.setObjectName("spill_note")
        registers_row = self.fields["registers"].layout()
        assert registers_row is not None  # a QuantityField lays out its box and unit
        registers_row.addWidget(self.spill_note)
        self.arch_note = QLabel(self)  # an imported kernel built for another architecture
        self.arch_note.setObjectName("arch_note")
        self.arch_note.setWordWrap(True)
        self.arch_note.hide()
        form.addRow(self.arch_note)
        self.origin_note = QLabel(self)  # figures from a compile for another arch than the device's
        self.origin_note.setObjectName("origin_note")
        self.origin_note.setWordWrap(True)
        self.origin_note.hide()
        self._origin_figures: tuple[int, int] | None = None
        form.addRow(self.origin_note)
        for name in OPTIONAL_COUNTS:
            self.spins[name].setSpecialValueText("none")
        self.setTabOrder(self.threads_slider, self.spins["threads"])
        self.setTabOrder(self.runtime_default, self.spins["max_dynamic_smem"])
        self.sync_from_session()

    def _build_extras(self) -> None:
        self.threads_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.threads_slider.setToolTip("Threads per block in whole warps (drag, or use arrows / Page Up / Page Down)")
        self.threads_slider.setPageStep(4)
        self.threads_slider.setMinimumWidth(80)
        self.threads_slider.valueChanged.connect(self._on_threads_slider_changed)
        self.runtime_default = QCheckBox("R&untime default", self)
        self.runtime_default.setToolTip(
            "Leave cudaFuncAttributeMaxDynamicSharedMemorySize at the runtime's default\n"
            "(shared memory per block − static shared memory); untick to opt in."
        )
        self.runtime_default.toggled.connect(self._on_runtime_default_toggled)

    # ----------------------------------------------------------------------------- widget -> session
    def _apply(self, name: str, **changes: object) -> None:
        """Write to the session; a refused combination is explained under the field and the widgets revert."""
        try:
            self.session.replace(**changes)
        except InputRefused as exc:
            self.sync_from_session()
            self.fields[name].error.show_message(f"{exc}; kept {getattr(self.session.inputs, name) or 'none'}")

    def _on_threads_changed(self, value: int) -> None:
        self._apply("threads", threads=value)

    def _on_threads_slider_changed(self, warps: int) -> None:
        self._apply("threads", threads=warps * self.session.device.warp_size)

    def _on_max_threads_per_block_changed(self, value: int) -> None:
        self._apply("max_threads_per_block", max_threads_per_block=value or None)

    def _on_required_block_size_changed(self, value: int) -> None:
        self._apply("required_block_size", required_block_size=value or None, **({"threads": value} if value else {}))

    def _on_min_blocks_per_sm_changed(self, value: int) -> None:
        self._apply("min_blocks_per_sm", min_blocks_per_sm=value or None)

    def _on_registers_changed(self, value: int) -> None:
        self.session.replace(registers=value)

    def _on_static_smem_changed(self, value: int) -> None:
        self.session.replace(static_smem=value)

    def _on_dynamic_smem_changed(self, value: int) -> None:
        self.session.replace(dynamic_smem=value)

    def _on_max_dynamic_smem_changed(self, value: int) -> None:
        if not self.runtime_default.isChecked():
            self.session.replace(max_dynamic_smem=value)

    def _on_runtime_default_toggled(self, checked: bool) -> None:
        self.session.replace(max_dynamic_smem=None if checked else self.spins["max_dynamic_smem"].value())

    def _on_barriers_changed(self, value: int) -> None:
        self._apply("barriers", barriers=value)

    def set_import_notes(self, spills: str | None, arch_note: str | None) -> None:
        """Notes on the kernel loaded from compiler output (the import panel sets them; ``None`` hides)."""
        self.spill_note.show_message(spills or "")
        if self.arch_note.text() != (arch_note or ""):
            self.arch_note.setText(arch_note or "")
        self.arch_note.setVisible(bool(arch_note))

    def set_origin_note(self, note: str | None, figures: tuple[int, int] | None) -> None:
        """Say where the registers and static shared memory came from (a compile for an arch other than the
        device's), for as long as the inputs hold ``figures`` (registers, static shared memory)."""
        self._origin_figures = figures if note else None
        if self.origin_note.text() != (note or ""):
            self.origin_note.setText(note or "")
        self._update_origin_note()

    def _update_origin_note(self) -> None:
        i = self.session.inputs
        shown = self._origin_figures is not None and (i.registers, i.static_smem) == self._origin_figures
        if self.origin_note.isHidden() == shown:
            self.origin_note.setVisible(shown)

    # ----------------------------------------------------------------------------- session -> widgets
    def on_session_changed(self, changed: frozenset[str]) -> None:
        self.sync_from_session()
        self._update_origin_note()

    def sync_from_session(self) -> None:
        s = self.session
        if s.vendor != NVIDIA:
            return  # hidden: an AMD device is selected (the AMD kernel panel shows its inputs)
        inputs, device = s.inputs, s.device
        warp = device.warp_size
        spins = self.spins
        # Set only what differs: an unchanged setValue still repaints the widget.
        with signals_blocked(self.threads_slider, self.runtime_default, *spins.values()):
            for name in ("threads", "registers", "static_smem", "dynamic_smem", "barriers"):
                if spins[name].value() != getattr(inputs, name):
                    spins[name].setValue(getattr(inputs, name))
            for name in OPTIONAL_COUNTS:
                if spins[name].value() != (getattr(inputs, name) or 0):
                    spins[name].setValue(getattr(inputs, name) or 0)
            slots = max(1, device.max_threads_per_block // warp)
            if self.threads_slider.maximum() != slots:
                self.threads_slider.setRange(1, slots)
            if self.threads_slider.value() != -(-inputs.threads // warp):
                self.threads_slider.setValue(-(-inputs.threads // warp))
            self.runtime_default.setChecked(inputs.max_dynamic_smem is None)
            if spins["max_dynamic_smem"].value() != s.resolved_max_dynamic_smem:
                spins["max_dynamic_smem"].setValue(s.resolved_max_dynamic_smem)
        spins["max_dynamic_smem"].setEnabled(inputs.max_dynamic_smem is not None)
        applies = s.barriers_apply
        if self.barrier_note.isHidden() != applies:
            self.barrier_note.setText(
                "" if applies else "Block barriers limit residency only from CC 9.0; this device ignores them."
            )
            self.barrier_note.setVisible(not applies)
