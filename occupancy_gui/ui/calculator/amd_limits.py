"""An AMD device's key limits in the device panel: its target, CUs as the hardware has them and as HIP counts
them, and what the HIP runtime and LLVM each take as its wave, register and LDS limits, every value with its
source in the tooltip (the profile's ``source:`` lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from ... import units

if TYPE_CHECKING:
    from ...profiles import AmdProfile

ROWS = (
    "Target",
    "CUs",
    "HIP multiprocessors",
    "SIMDs / CU",
    "Wave size",
    "Waves / SIMD",
    "VGPRs / SIMD",
    "VGPR granule",
    "SGPRs / SIMD",
    "LDS / workgroup",
    "LDS / CU (LLVM)",
    "Threads / block",
    "WGP mode",
    "AGPRs",
)
AGPR_WORDS = {"none": "none (no MFMA)", "separate": "separate file", "unified": "counted in the VGPRs"}


def limit_rows(profile: AmdProfile) -> dict[str, tuple[str, str]]:
    """Each row's value and its source, for ``profile`` (a product or a bare target)."""
    t, src = profile.target, profile.sources
    kib = units.kib
    product = profile.compute_units is not None
    waves64 = "32 (wave64 too)" if t.wave32 else "64 (wave32: gfx10 and later)"
    mp = "WGPs" if t.has_wgp else "CUs"
    return {
        "Target": (f"{t.name} ({profile.architecture})", profile.title),
        "CUs": (
            str(profile.compute_units) if product else "—",
            src.get("compute_units", "A bare target has no CU count; per-CU figures do not need one."),
        ),
        "HIP multiprocessors": (
            f"{profile.hip_multiprocessor_count} {mp}" if product else "—",
            src.get(
                "hip_multiprocessor_count", "hipDeviceProp_t::multiProcessorCount: WGPs in WGP mode (CUs / 2), else CUs"
            ),
        ),
        "SIMDs / CU": (str(t.simds_per_cu), src.get("simds_per_cu", "")),
        "Wave size": (waves64 if t.wave32 else "64", src.get("default_wave_size", "")),
        "Waves / SIMD": (
            f"{t.runtime_max_waves_per_simd} (HIP) · {t.llvm_max_waves_per_eu} (LLVM)",
            f"HIP: {src.get('runtime_max_waves_per_simd', '')}\nLLVM: {src.get('llvm_max_waves_per_eu', '')}",
        ),
        "VGPRs / SIMD": (
            units.group(t.runtime_vgprs_per_simd) + (" (wave32)" if t.wave32 else ""),
            src.get("runtime_vgprs_per_simd", ""),
        ),
        "VGPR granule": (
            f"{t.runtime_vgpr_granule} (HIP) · {t.llvm_vgpr_granule(t.default_wave_size)} (LLVM)",
            f"HIP: {src.get('runtime_vgpr_granule', '')}\nLLVM: {src.get('llvm_vgpr_granule_wave64', '')}",
        ),
        "SGPRs / SIMD": (
            str(t.runtime_sgprs_per_simd) if t.runtime_sgprs_per_simd else "no limit (gfx10+)",
            src.get("runtime_sgprs_per_simd", ""),
        ),
        "LDS / workgroup": (kib(t.lds_per_workgroup), src.get("lds_per_workgroup", "")),
        "LDS / CU (LLVM)": (
            f"{kib(t.llvm_lds_per_cu)}, granule {t.llvm_lds_granule} B",
            f"{src.get('llvm_lds_per_cu', '')}\n{src.get('llvm_lds_granule', '')}",
        ),
        "Threads / block": (str(t.max_workgroup_size), src.get("max_workgroup_size", "")),
        "WGP mode": ("on (default)" if t.has_wgp else "no WGPs (gfx9)", src.get("has_wgp", "")),
        "AGPRs": (AGPR_WORDS[t.agpr_file], src.get("agpr_file", "")),
    }


class AmdLimits(QWidget):
    """The rows of :data:`ROWS` for the selected AMD profile."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(2)
        self.labels: dict[str, tuple[QLabel, QLabel]] = {}
        for i, name in enumerate(ROWS):
            key, value = QLabel(name + ":", self), QLabel(self)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(key, i, 0)
            grid.addWidget(value, i, 1)
            self.labels[name] = (key, value)
        grid.setColumnStretch(1, 1)
        self._shown: str | None = None

    def show_profile(self, profile: AmdProfile) -> None:
        if profile.name == self._shown:
            return
        self._shown = profile.name
        for name, (value, source) in limit_rows(profile).items():
            key_label, value_label = self.labels[name]
            value_label.setText(value)
            tip = f"{name}: {value}\nSource: {source or 'not recorded'}"
            key_label.setToolTip(tip)
            value_label.setToolTip(tip)
