"""Grid and waves on an AMD device: a grid runs in waves of ``blocks per multiprocessor × multiprocessors``, as the
HIP runtime counts both (a WGP in WGP mode, else a CU; a kernel compiled in the other mode than the device's runs on
twice or half as many, as HIP's own grid size says).  The same view as NVIDIA's, fed with the HIP runtime's answer.
"""

from __future__ import annotations

from ...engine import OccupancyError, analyse_waves
from ..support.qt_utils import signals_blocked
from .waves_view import WavesView

AMD_ASSUMED = 304
"""The multiprocessor count shown for a bare gfx target until the user enters one (an MI300X's CUs), always
labelled as an assumption wherever a figure depends on it."""


class AmdWavesView(WavesView):
    """The waves of a grid on the selected AMD device, from the HIP runtime's blocks per CU or WGP."""

    @property
    def assumed(self) -> bool:
        return self.session.amd_profile.compute_units is None and self.entered_sms is None

    def _count(self) -> tuple[int | None, str]:
        """(multiprocessors HIP runs this kernel on, their name); ``None`` for a bare target."""
        state = self.session.amd
        answer = state.answer if state is not None else None
        where = answer.multiprocessor if answer is not None else "CU"
        if self.session.amd_profile.compute_units is None:
            return None, where
        if answer is not None and answer.hip.active_blocks > 0 and answer.hip.grid_blocks is not None:
            return answer.hip.grid_blocks // answer.hip.active_blocks, where
        return self.session.amd_profile.hip_multiprocessor_count, where

    def refresh(self) -> None:
        self._dirty = False
        profile = self.session.amd_profile
        known, where = self._count()
        count = known if known is not None else self.entered_sms or AMD_ASSUMED
        with signals_blocked(self.sm_count):
            if self.sm_count.value() != count:
                self.sm_count.setValue(count)
            self.sm_count.setEnabled(known is None)
        label = (
            f"{where}s:" if known is not None else f"{where}s (assumed):" if self.assumed else f"{where}s (entered):"
        )
        if self.sm_label.text() != label:
            self.sm_label.setText(label)
        self.sm_count.setToolTip(
            f"HIP runs this kernel on {known} {where}s of {profile.name}"
            if known is not None
            else "A gfx target has no CU count: enter your GPU's (or choose its profile)"
        )
        state = self.session.amd
        per_mp = state.answer.hip.active_blocks if state is not None and state.answer is not None else 0
        try:
            self.analysis = analyse_waves(self.grid(), per_mp, self.sm_count.value())
        except OccupancyError as exc:
            self.analysis = None
            self.summary.setText(f"<b>No waves:</b> {str(exc).replace('an SM', f'a {where}')}")
            self.bars.setOpts(x=[1], height=[0])
            return
        text = self.describe(self.analysis, where)
        if self.assumed:
            text = (
                f"<b>⚠ Assumes {AMD_ASSUMED} {where}s</b>: {profile.name} is a gfx target, which has no CU count. "
                f"Enter your GPU's, or choose its profile.<br>" + text
            )
        self.summary.setText(text)
        self._show_bars(self.analysis)
