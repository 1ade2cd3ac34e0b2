"""Device selection (searchable, both vendors), its key limits with their sources, and the device-state preferences.

AMD's devices join the list when the selector is first used (focused or opened) or when an AMD device is selected:
reading their profiles costs start-up nothing while the window opens on an NVIDIA device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, QSortFilterProxyModel, Qt, QTimer
from PySide6.QtGui import QFocusEvent, QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QVBoxLayout,
    QWidget,
)

from ... import units
from ...engine import (
    CARVEOUT_DEFAULT,
    CacheConfig,
    max_blocks_per_multiprocessor,
    reg_allocation_granularity,
    smem_allocation_granularity,
    supports_cache_config,
    supports_carveout,
)
from ...fields import AMD
from ...session import Session
from ..support.qt_utils import signals_blocked
from ..support.quantity import ErrorLabel
from ..support.terms import tip
from .amd_limits import AmdLimits

if TYPE_CHECKING:
    from ...profiles import AmdCatalog, AmdProfile, Catalog, DeviceProfile

NAME_ROLE = Qt.ItemDataRole.UserRole + 1
GROUPS = (("Compute capabilities", "cc"), ("Named GPUs", "gpu"), ("User profiles", "user"))
AMD_GROUPS = (("AMD GPUs", "amd_gpu"), ("AMD targets", "amd_target"))

CARVEOUT_CHOICES = (
    ("Default", CARVEOUT_DEFAULT),
    ("Max shared memory", 100),
    ("Max L1 cache", 0),
    ("Percentage…", None),
)
CACHE_CHOICES = (
    ("Prefer none", CacheConfig.PREFER_NONE),
    ("Prefer shared memory", CacheConfig.PREFER_SHARED),
    ("Prefer L1", CacheConfig.PREFER_L1),
    ("Prefer equal", CacheConfig.PREFER_EQUAL),
)


def _group(profile: DeviceProfile) -> str:
    if profile.user:
        return "user"
    return "cc" if profile.kind == "compute_capability" else "gpu"


def shown_label(profile: DeviceProfile) -> str:
    """What the closed selector shows: a GPU's name, a compute capability's name, architecture and CC (the panel's
    rows below give the rest; the list and the search keep the whole :func:`profile_label`)."""
    if profile.kind == "compute_capability":
        major, minor = profile.compute_capability
        return f"{profile.name} — {profile.architecture}, CC {major}.{minor}"
    return profile.name


def profile_label(profile: DeviceProfile) -> str:
    """One line per profile, searchable by name, alias, architecture and compute capability.

    The aliases are part of the label because the completer matches what it shows: "Jetson" finds
    the profile named "NVIDIA Thor", "H100 SXM" the one named "NVIDIA H100 80GB HBM3".
    """
    major, minor = profile.compute_capability
    aliases = [a for a in profile.aliases if a.casefold() not in profile.name.casefold()]
    name = (
        f"{profile.name} ({', '.join(aliases)})" if aliases and profile.kind != "compute_capability" else profile.name
    )
    if profile.kind == "compute_capability":
        return f"{name} — {profile.architecture}, CC {major}.{minor}"
    return f"{name} — {profile.architecture}, CC {major}.{minor}, {units.count(profile.sm_count or 0, 'SM')}"


def amd_shown_label(profile: AmdProfile) -> str:
    """What the closed selector shows for an AMD profile: a product's name as AMD writes it, a target's name."""
    return profile.name if profile.kind == "amd_gpu" else f"{profile.name} — {profile.architecture}"


def amd_label(profile: AmdProfile) -> str:
    """One line per AMD profile, searchable by product name, short form, target and architecture (a target's
    title names its products: "MI300X" finds gfx942 too)."""
    if profile.kind == "amd_target":
        return profile.title
    aliases = [a for a in profile.aliases if a.casefold() not in profile.name.casefold()]
    name = f"{profile.name} ({', '.join(aliases)})" if aliases else profile.name
    return f"{name} — {profile.target.name}, {profile.architecture}, {units.count(profile.compute_units or 0, 'CU')}"


SELECTOR_TIP = (
    "Device profile: a compute capability (sm_90), a named GPU, an AMD GPU (MI300X, RX 7900 XTX) or\n"
    'an AMD target (gfx942). Type any part of a name, alias, architecture, "CC 9.0" or gfx target.'
)

SMEM_ROWS = {
    "Shared mem / SM": lambda d: d.shared_mem_per_multiprocessor,
    "Shared mem / block": lambda d: d.shared_mem_per_block,
    "Opt-in / block": lambda d: d.shared_mem_per_block_optin,
    "Reserved / block": lambda d: d.reserved_shared_mem_per_block,
}
"""Rows shown in KiB, and the exact bytes their tooltips give."""


class DeviceSelector(QComboBox):
    """An editable combo over every profile, grouped, with a substring-filtering completer."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(24)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(14)
        self.session = session
        self.amd: AmdCatalog | None = session.amd_catalog if session.vendor == AMD else None
        self.populate(session.catalog)
        # The completer searches only real profiles (no group headers), by any substring.
        self.choices = choices = QSortFilterProxyModel(self)
        choices.setSourceModel(self.model())
        choices.setFilterRole(NAME_ROLE)
        choices.setFilterRegularExpression(".+")
        completer = QCompleter(choices, self)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setMaxVisibleItems(16)
        self.setCompleter(completer)
        self.search = completer
        editor = self.lineEdit()
        assert editor is not None  # setEditable(True) above made it
        self.editor = editor

    def ensure_amd(self) -> None:
        """List AMD's devices too (their profiles are read now, the first time)."""
        if self.amd is None:
            self.amd = self.session.amd_catalog
            with signals_blocked(self):
                text = self.currentText()
                self.populate(self.session.catalog)
                self.setCurrentIndex(self.index_of_name(self.session.inputs.device))
                self.setEditText(text)

    def showPopup(self) -> None:  # noqa: N802 (Qt override)
        self.ensure_amd()
        super().showPopup()

    def focusInEvent(self, event: QFocusEvent) -> None:  # noqa: N802 (Qt override)
        # Focusing the selector (click, Tab, Alt+D) selects its text, so typing starts a new search.
        self.ensure_amd()
        super().focusInEvent(event)
        line = self.lineEdit()
        if line is not None:
            QTimer.singleShot(0, line.selectAll)  # after a click has placed the cursor

    def populate(self, catalog: Catalog) -> None:
        """(Re)fill the list from ``catalog``, grouped; the caller blocks signals if it must."""
        self.labels: dict[str, str] = {}
        self.shown: dict[str, str] = {}
        """Profile name -> what the closed selector shows (:func:`shown_label`)."""
        self.by_label: dict[str, str] = {}
        model = QStandardItemModel(self)
        header_font = QFont(self.font())
        header_font.setBold(True)
        for title, key in GROUPS:
            members = [p for p in catalog.profiles if _group(p) == key]
            if not members:
                continue
            header = QStandardItem(title)
            header.setFlags(Qt.ItemFlag.NoItemFlags)
            header.setFont(header_font)
            model.appendRow(header)
            for profile in members:
                label = profile_label(profile)
                item = QStandardItem(label)
                item.setData(profile.name, NAME_ROLE)
                item.setToolTip(profile.title)
                model.appendRow(item)
                self.labels[profile.name] = label
                self.shown[profile.name] = shown_label(profile)
                self.by_label[label.casefold()] = profile.name
                self.by_label.setdefault(self.shown[profile.name].casefold(), profile.name)
        for title, kind in AMD_GROUPS if self.amd is not None else ():
            amd_members = [p for p in self.amd or () if p.kind == kind]
            header = QStandardItem(title)
            header.setFlags(Qt.ItemFlag.NoItemFlags)
            header.setFont(header_font)
            model.appendRow(header)
            for amd in amd_members:
                label = amd_label(amd)
                item = QStandardItem(label)
                item.setData(amd.name, NAME_ROLE)
                item.setToolTip(amd.title if amd.kind == "amd_gpu" else amd.notes or amd.title)
                model.appendRow(item)
                self.labels[amd.name] = label
                self.shown[amd.name] = amd_shown_label(amd)
                self.by_label[label.casefold()] = amd.name
                self.by_label.setdefault(self.shown[amd.name].casefold(), amd.name)
        self.setModel(model)  # QComboBox deletes the model it replaces when it owned it
        self._fit_width()
        if getattr(self, "choices", None) is not None:
            self.choices.setSourceModel(model)

    def _fit_width(self) -> None:
        """Wide enough for the longest name it can show closed (the panel widens with it, never cuts it)."""
        longest = max((self.fontMetrics().horizontalAdvance(text) for text in self.shown.values()), default=0)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        size = self.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option, QSize(longest + 8, 0), self)
        if self.minimumWidth() != size.width():
            self.setMinimumWidth(size.width())

    def index_of_name(self, name: str) -> int:
        return self.findData(name, NAME_ROLE)


class DevicePanel(QGroupBox):
    """Writes ``device``, ``carveout`` and ``cache_config``; shows the selected device's limits."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__("&Device", parent)
        self.session = session
        self._build_selector()
        self._build_limits()
        self._build_state()
        layout = QVBoxLayout(self)
        layout.addWidget(self.selector)
        layout.addWidget(self.selector_error)
        layout.addLayout(self.limits_grid)
        self.amd_limits = AmdLimits(self)
        layout.addWidget(self.amd_limits)
        self._shown_vendor_amd: bool | None = None
        layout.addLayout(self.state_form)
        self.sync_from_session()

    def set_catalog(self, catalog: Catalog) -> None:
        """Show a reloaded catalog (the session already holds it)."""
        with signals_blocked(self.selector):
            self.selector.populate(catalog)
        self.sync_from_session()

    # ----------------------------------------------------------------------------- build
    def _build_selector(self) -> None:
        self.selector = DeviceSelector(self.session, self)
        self.selector.setToolTip(SELECTOR_TIP)
        self.selector_error = ErrorLabel(self)
        self.selector.activated.connect(self._on_selector_activated)
        # PySide6's stubs do not model a signal overloaded by argument type (QString / QModelIndex).
        self.selector.search.activated[str].connect(self._on_completer_activated)  # type: ignore[index]
        self.selector.editor.editingFinished.connect(self._on_selector_edited)
        self.selector.editor.setPlaceholderText("Search devices…")

    def _build_limits(self) -> None:
        self.limits_grid = QGridLayout()
        self.limits_grid.setHorizontalSpacing(10)
        self.limits_grid.setVerticalSpacing(2)
        self.limit_labels: dict[str, tuple[QLabel, QLabel]] = {}
        names = (
            "Compute capability",
            "SMs",
            "Threads / SM",
            "Warps / SM",
            "Blocks / SM",
            "Threads / block",
            "Registers / SM",
            "Registers / block",
            "Register unit",
            "Shared mem / SM",
            "Shared mem / block",
            "Opt-in / block",
            "Reserved / block",
            "Shared mem unit",
        )
        for i, name in enumerate(names):
            key = QLabel(name + ":", self)
            value = QLabel(self)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.limits_grid.addWidget(key, i, 0)
            self.limits_grid.addWidget(value, i, 1)
            self.limit_labels[name] = (key, value)
        self.limits_grid.setColumnStretch(1, 1)

    def _build_state(self) -> None:
        self.state_form = QFormLayout()
        self.carveout = QComboBox(self)
        for text, value in CARVEOUT_CHOICES:
            self.carveout.addItem(text, value)
        self.carveout_percent = QSpinBox(self)
        self.carveout_percent.setRange(0, 100)
        self.carveout_percent.setSuffix(" %")
        self.carveout_percent.setKeyboardTracking(False)
        self.carveout_percent.setToolTip("Carveout as a percentage of the SM's maximum shared memory (0..100)")
        self.carveout.setToolTip(
            "Shared memory carveout preference (cudaFuncAttributePreferredSharedMemoryCarveout);\n"
            "applies from compute capability 7.0 (Volta).\n\n" + tip("carveout")
        )
        row = QHBoxLayout()
        row.addWidget(self.carveout, 1)
        row.addWidget(self.carveout_percent)
        carveout_label = QLabel("C&arveout:", self)
        carveout_label.setBuddy(self.carveout)
        self.state_form.addRow(carveout_label, row)
        self.cache_config = QComboBox(self)
        for text, value in CACHE_CHOICES:
            self.cache_config.addItem(text, int(value))
        self.cache_config.setToolTip(
            "Cache configuration preference (cudaFuncSetCacheConfig);\n"
            "sizes shared memory only on compute capability 3.x (Kepler)."
        )
        cache_label = QLabel("Cache confi&g:", self)
        cache_label.setBuddy(self.cache_config)
        self.state_form.addRow(cache_label, self.cache_config)
        self.carveout.activated.connect(self._on_carveout_activated)
        self.carveout_percent.valueChanged.connect(self._on_carveout_percent_changed)
        self.cache_config.activated.connect(self._on_cache_config_activated)

    # ----------------------------------------------------------------------------- widget -> session
    def _select(self, name: str) -> None:
        self.selector_error.clear_message()
        self.session.replace(device=name)
        self.sync_from_session()  # the text may be a search term; show the canonical label

    def _on_selector_activated(self, index: int) -> None:
        name = self.selector.itemData(index, NAME_ROLE)
        if name:
            self._select(name)

    def _on_completer_activated(self, text: str) -> None:
        name = self.selector.by_label.get(text.casefold())
        if name:
            self._select(name)

    def _on_selector_edited(self) -> None:
        text = self.selector.currentText().strip()
        device = self.session.inputs.device
        if text.casefold() in (
            self.selector.labels.get(device, "").casefold(),
            self.selector.shown.get(device, "").casefold(),
        ):
            return
        name = self.selector.by_label.get(text.casefold())
        try:
            name = name or self.session.find(text).name
        except KeyError as exc:
            self.selector_error.show_message(str(exc.args[0]) if exc.args else str(exc))
            return
        self._select(name)

    def _on_carveout_activated(self, index: int) -> None:
        value = self.carveout.itemData(index)
        self.carveout_percent.setEnabled(value is None and self.carveout.isEnabled())
        self.session.replace(carveout=self.carveout_percent.value() if value is None else int(value))

    def _on_carveout_percent_changed(self, value: int) -> None:
        self.session.replace(carveout=value)

    def _on_cache_config_activated(self, index: int) -> None:
        self.session.replace(cache_config=CacheConfig(self.cache_config.itemData(index)))

    # ----------------------------------------------------------------------------- session -> widgets
    def on_session_changed(self, changed: frozenset[str]) -> None:
        if changed & {"device", "carveout", "cache_config"}:
            self.sync_from_session()

    def sync_from_session(self) -> None:
        s = self.session
        amd = s.vendor == AMD
        if amd:
            self.selector.ensure_amd()
        self._show_vendor(amd)
        inputs = s.inputs
        if amd:
            with signals_blocked(self.selector):
                self._show_selected(inputs.device)
            self.amd_limits.show_profile(s.amd_profile)
            return
        cc = s.device.compute_capability
        with signals_blocked(self.selector, self.carveout, self.carveout_percent, self.cache_config):
            self._show_selected(inputs.device)
            preset = next((i for i, (_t, v) in enumerate(CARVEOUT_CHOICES) if v == inputs.carveout), None)
            self.carveout.setCurrentIndex(len(CARVEOUT_CHOICES) - 1 if preset is None else preset)
            if preset is None:
                self.carveout_percent.setValue(inputs.carveout)
            self.cache_config.setCurrentIndex(self.cache_config.findData(int(inputs.cache_config)))
        carveout_ok, cache_ok = supports_carveout(cc), supports_cache_config(cc)
        self.carveout.setEnabled(carveout_ok)
        self.carveout_percent.setEnabled(carveout_ok and preset is None)
        self.cache_config.setEnabled(cache_ok)
        self._show_limits()

    def _show_selected(self, device: str) -> None:
        self.selector.setCurrentIndex(self.selector.index_of_name(device))
        self.selector.setEditText(self.selector.shown.get(device, device))
        self.selector.setToolTip(f"{self.selector.labels.get(device, device)}\n\n{SELECTOR_TIP}")
        self.selector.editor.setCursorPosition(0)

    def _show_vendor(self, amd: bool) -> None:
        """AMD's limits, or NVIDIA's limits and device-state preferences (a carveout is NVIDIA's alone).

        The vendor shown is kept, not read back from a widget: before the panel is first shown no child reports
        itself hidden, so a panel made on an AMD device would have kept NVIDIA's rows, blank, beside AMD's."""
        if self._shown_vendor_amd == amd:
            return
        self._shown_vendor_amd = amd
        self.amd_limits.setVisible(amd)
        for key, value in self.limit_labels.values():
            key.setVisible(not amd)
            value.setVisible(not amd)
        for row in range(self.state_form.rowCount()):
            self.state_form.setRowVisible(row, not amd)

    def _show_limits(self) -> None:
        profile, device = self.session.profile, self.session.device
        cc = device.compute_capability
        src = profile.sources
        kib = units.kib
        count = units.group
        rows = {
            "Compute capability": (f"{cc[0]}.{cc[1]} ({profile.architecture})", profile.title),
            "SMs": (
                str(profile.sm_count) if profile.sm_count else "—",
                src.get("sm_count", "A compute capability has no SM count; per-SM figures do not need one."),
            ),
            "Threads / SM": (count(device.max_threads_per_multiprocessor), src.get("max_threads_per_multiprocessor")),
            "Warps / SM": (
                str(device.max_warps_per_multiprocessor),
                f"Threads per SM ÷ warp size ({device.warp_size}); warp size: {src.get('warp_size', '')}",
            ),
            "Blocks / SM": (
                str(max_blocks_per_multiprocessor(cc)),
                "cudaOccMaxBlocksPerMultiprocessor: the architecture table of cuda_occupancy.h",
            ),
            "Threads / block": (str(device.max_threads_per_block), src.get("max_threads_per_block")),
            "Registers / SM": (count(device.regs_per_multiprocessor), src.get("regs_per_multiprocessor")),
            "Registers / block": (count(device.regs_per_block), src.get("regs_per_block")),
            "Register unit": (
                f"{reg_allocation_granularity(cc)} / warp",
                "cudaOccRegAllocationGranularity: registers are allocated per warp in these units",
            ),
            "Shared mem / SM": (kib(device.shared_mem_per_multiprocessor), src.get("shared_mem_per_multiprocessor")),
            "Shared mem / block": (kib(device.shared_mem_per_block), src.get("shared_mem_per_block")),
            "Opt-in / block": (kib(device.shared_mem_per_block_optin), src.get("shared_mem_per_block_optin")),
            "Reserved / block": (kib(device.reserved_shared_mem_per_block), src.get("reserved_shared_mem_per_block")),
            "Shared mem unit": (
                f"{smem_allocation_granularity(cc)} B",
                "cudaOccSMemAllocationGranularity: shared memory is allocated in these units",
            ),
        }
        for name, (value, source) in rows.items():
            key_label, value_label = self.limit_labels[name]
            value_label.setText(value)
            exact = value
            if name in SMEM_ROWS:
                exact = units.bytes_tooltip(SMEM_ROWS[name](device))
            tip = f"{name}: {exact}\nSource: {source or 'not recorded'}"
            key_label.setToolTip(tip)
            value_label.setToolTip(tip)
