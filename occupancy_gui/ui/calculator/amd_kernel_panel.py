"""The AMD kernel and launch inputs: the field table's AMD rows, shown as the selected target takes them.

AGPRs only where they are a separate file (gfx908), the wave size and WGP / CU mode only where there is a choice
(gfx10 and later).  Writes the session (a refused value is explained under its field and the widgets show what the
session keeps); mirrors it with signals blocked.  Built the first time an AMD device is selected.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QSlider, QVBoxLayout, QWidget

from ... import fields
from ...amd_question import AMD_NAMES, applies
from ...session import InputRefused, Session
from ..support.min_max_edit import MinMaxEdit
from ..support.qt_utils import signals_blocked
from ..support.quantity import ErrorLabel, QuantityField, QuantitySpinBox

PANEL_FIELDS = (
    "threads",
    "vgprs",
    "agprs",
    "sgprs",
    "lds",
    "dynamic_smem",
    "wave_size",
    "wgp_mode",
    "max_flat_workgroup_size",
    "waves_per_eu",
    "allocated_vgprs",
)
"""The field table's AMD inputs, in the panel's order (every AMD row: a test holds them equal)."""
AMD_WORDS = {
    "threads": (
        "&Threads / block:",
        "Threads per block (blockDim.x × y × z). Arrows and the slider step by one wave;\n"
        "type any value and press Enter.",
    ),
    "dynamic_smem": (
        "D&ynamic LDS:",
        "Dynamic LDS per block: hipLaunchKernelGGL's sharedMemBytes (extern __shared__).\n"
        "The HIP runtime counts it; the compiler model cannot see it. Type bytes or KiB.",
    ),
}
"""Label and tooltip of the rows both vendors share, in AMD's words (the table's are NVIDIA's)."""
SPECIAL = {"max_flat_workgroup_size": "none", "allocated_vgprs": "as VGPRs"}
"""Spin boxes whose lowest value reads as words (``None`` / 0 in the session)."""


def _label(name: str) -> tuple[str, str]:
    f = fields.FIELD[name]
    return AMD_WORDS.get(name, (f.form_label, f.tip))


class AmdKernelPanel(QGroupBox):
    """Writes the AMD inputs of the session; mirrors them with signals blocked."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__("&Kernel and launch", parent)
        self.setObjectName("amd_kernel_panel")
        self.session = session
        self.spins: dict[str, QuantitySpinBox] = {}
        self.labels: dict[str, QLabel] = {}
        self.editors: dict[str, QWidget] = {}
        self.errors: dict[str, ErrorLabel] = {}
        self.form = form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.threads_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.threads_slider.setToolTip("Threads per block in whole waves (drag, or use arrows / Page Up / Page Down)")
        self.threads_slider.setPageStep(4)
        self.threads_slider.setMinimumWidth(80)
        self.threads_slider.valueChanged.connect(self._on_threads_slider_changed)
        for name in PANEL_FIELDS:
            self._add_row(name)
        self.setTabOrder(self.threads_slider, self.spins["threads"])
        self.sync_from_session()

    # ----------------------------------------------------------------------------- build
    def _add_row(self, name: str) -> None:
        f = fields.FIELD[name]
        text, tip = _label(name)
        if name == "wave_size":
            editor: QWidget = self._combo(name, (("", None), ("32", 32), ("64", 64)))
            field: QWidget = editor
        elif name == "wgp_mode":
            editor = field = self._combo(name, (("", None), ("WGP mode", True), ("CU mode", False)))
        elif f.kind == fields.MIN_MAX:
            edit = MinMaxEdit(f.low, f.high, self)
            edit.committed.connect(self._on_waves_per_eu_committed)
            editor = field = edit
        else:
            low = f.low - 1 if name in SPECIAL and f.low > 0 else f.low
            spin = QuantitySpinBox(f.kind, low, f.high, f.step, self)
            if name in SPECIAL:
                spin.setSpecialValueText(SPECIAL[name])
            spin.valueChanged.connect(self._on_spin_changed)
            spin.setProperty("field", name)
            self.spins[name] = spin
            beside = (self.threads_slider,) if name == "threads" else ()
            quantity = QuantityField(spin, *beside, parent=self)
            editor, field = spin, quantity
            self.errors[name] = quantity.error
        editor.setObjectName(f"amd_{name}")
        editor.setToolTip(tip)
        label = QLabel(text, self)
        label.setBuddy(editor)
        label.setToolTip(tip)
        if name not in self.errors:  # a combo box or a text field: its error label under it
            error = ErrorLabel(self)
            self.errors[name] = error
            holder = QWidget(self)
            column = QVBoxLayout(holder)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(2)
            column.addWidget(field)
            column.addWidget(error)
            field = holder
            if isinstance(editor, MinMaxEdit):
                editor.problemChanged.connect(error.show_message)
        self.form.addRow(label, field)
        self.labels[name], self.editors[name] = label, editor

    def _combo(self, name: str, choices: tuple[tuple[str, Any], ...]) -> QComboBox:
        combo = QComboBox(self)
        for text, value in choices:
            combo.addItem(text, value)
        combo.setProperty("field", name)
        combo.activated.connect(self._on_combo_activated)
        return combo

    # ----------------------------------------------------------------------------- widget -> session
    def _apply(self, name: str, value: Any) -> None:
        """Write to the session; a refused value is explained under the field and the widgets revert."""
        try:
            self.session.replace(**{name: value})
        except InputRefused as exc:
            self.sync_from_session()
            kept = getattr(self.session.inputs, name)
            self.errors[name].show_message(f"{exc}; kept {'none' if kept is None else kept}")
        else:
            self.errors[name].clear_message()

    def _on_spin_changed(self, value: int) -> None:
        spin = self.sender()
        name = str(spin.property("field"))
        self._apply(name, None if name == "max_flat_workgroup_size" and value == 0 else value)

    def _on_threads_slider_changed(self, waves: int) -> None:
        self._apply("threads", waves * self._wave_size())

    def _on_combo_activated(self, index: int) -> None:
        combo = self.sender()
        assert isinstance(combo, QComboBox)
        self._apply(str(combo.property("field")), combo.itemData(index))

    def _on_waves_per_eu_committed(self, value: object) -> None:
        self._apply("waves_per_eu", value)

    # ----------------------------------------------------------------------------- session -> widgets
    def _wave_size(self) -> int:
        s = self.session
        answer = s.amd.answer if s.amd is not None else None
        return answer.hip.budget.wave_size if answer is not None else s.amd_profile.target.default_wave_size

    def on_session_changed(self, changed: frozenset[str]) -> None:
        self.sync_from_session()

    def sync_from_session(self) -> None:
        s = self.session
        if s.vendor != fields.AMD:
            return  # hidden: an NVIDIA device is selected
        inputs, target = s.inputs, s.amd_profile.target
        wave = self._wave_size()
        editors = list(self.editors.values())
        with signals_blocked(self.threads_slider, *editors):
            for name, spin in self.spins.items():
                value = getattr(inputs, name) or 0
                if spin.value() != value:
                    spin.setValue(value)
            slots = max(1, target.max_workgroup_size // wave)
            if self.threads_slider.maximum() != slots:
                self.threads_slider.setRange(1, slots)
            if self.threads_slider.value() != -(-inputs.threads // wave):
                self.threads_slider.setValue(-(-inputs.threads // wave))
            self._sync_combo("wave_size", inputs.wave_size, f"Target's ({target.default_wave_size})")
            device_mode = "WGP" if s.amd_profile.device().runtime_wgp_mode else "CU"
            self._sync_combo("wgp_mode", inputs.wgp_mode, f"Device's ({device_mode} mode)")
            edit = self.editors["waves_per_eu"]
            assert isinstance(edit, MinMaxEdit)
            if not edit.hasFocus() or not edit.flagged:
                edit.set_value(inputs.waves_per_eu)
        for name in PANEL_FIELDS:
            shown = applies(name, target)
            if self.form.isRowVisible(self.labels[name]) != shown:
                self.form.setRowVisible(self.labels[name], shown)

    def _sync_combo(self, name: str, value: object, default_text: str) -> None:
        combo = self.editors[name]
        assert isinstance(combo, QComboBox)
        if combo.itemText(0) != default_text:
            combo.setItemText(0, default_text)
        index = combo.findData(value) if value is not None else 0
        if combo.currentIndex() != index:
            combo.setCurrentIndex(index)


assert set(PANEL_FIELDS) == set(AMD_NAMES), "the panel edits every AMD input of the field table"
