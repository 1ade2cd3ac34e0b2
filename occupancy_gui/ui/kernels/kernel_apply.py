"""A kernel table row loaded into the calculator, and every row's occupancy as choosing it would give.

Nothing here makes a widget: ``import_panel`` calls :func:`apply_row` when a row is chosen (its status bar's
``showMessage`` passed as ``say``) and :func:`launch_fn` for the table's threads and occupancy columns — on
the GUI thread, or on an import's pool thread for its previews (the function it returns reads no session) —
and :func:`unavailable` for why they have none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ...fields import AMD, NVIDIA
from ...kernel_table import KernelTable, RowLaunch, amd_occupancy_column, occupancy_column, with_amd
from ...record_launch import threads_reason
from ...session import DEFAULT_DEVICE, InputRefused
from .kernel_inputs import kernel_changes

if TYPE_CHECKING:
    from ...profiles import AmdProfile
    from ...session import Session

Say = Callable[[str, int], None]
"""The status bar's ``showMessage(text, milliseconds)``."""


def amd_selected(s: Session) -> AmdProfile | None:
    """The AMD device chosen in the calculator, if one is."""
    return s.amd_profile if s.vendor == AMD else None


def apply_row(
    s: Session, t: KernelTable, i: int, say: Say, match_device: bool = False, overrides: dict[str, Any] | None = None
) -> None:
    """Load row ``i`` of ``t`` into the session (one step of the history); an impossible row is not loaded."""
    reason = t.impossible.get(i)
    if reason is not None:  # listed and flagged, never loaded: the inputs keep what they hold
        say(f"{t.names[i]}: {reason}; not loaded into the inputs", 10000)
        return
    if t.is_amd(i):
        _apply_amd(s, t, i, say, overrides)
        return
    if s.vendor != NVIDIA:  # an NVIDIA kernel on an AMD device: its architecture's device, else the default
        fallback = s.catalog.get(DEFAULT_DEVICE) if DEFAULT_DEVICE in s.catalog.names() else s.catalog.profiles[0]
        changes = {
            "device": fallback.name,
            **kernel_changes(t, i, s.catalog, fallback.device_properties(), s.inputs.threads, True),
        }
    else:
        changes = kernel_changes(t, i, s.catalog, s.device, s.inputs.threads, match_device)
    moved = threads_reason(t.nvidia_record(i), s.inputs.threads)
    try:
        with s.batch():
            s.replace(**{**changes, **(overrides or {})})
    except InputRefused as exc:  # an explicit --threads above this kernel's bound
        with s.batch():
            s.replace(**changes)
        say(f"{exc}; the kernel's limit is kept", 8000)
    else:
        if moved is not None and "threads" not in (overrides or {}):
            say(f"{t.names[i]}: {moved}", 8000)


def _apply_amd(s: Session, t: KernelTable, i: int, say: Say, overrides: dict[str, Any] | None) -> None:
    """Load AMD row ``i``: its inputs (``amd_record.record_inputs``, the one rule) and its target's device,
    unless the selected device already is that target; one step of the history."""
    from ...amd_record import processor_of, record_inputs, record_profile  # noqa: PLC0415 - lazy: an AMD row
    from ...amd_record import threads_reason as amd_threads_reason  # noqa: PLC0415 - lazy: as above

    rec = t.amd_record(i)
    profile = record_profile(rec, s.amd_catalog, amd_selected(s))
    if profile is None:
        say(
            f"{rec.name}: no device profile of {processor_of(rec.target or rec.arch)}; not loaded into the inputs",
            10000,
        )
        return
    changes = {"device": profile.name, **record_inputs(rec, profile.target, s.inputs.threads)}
    moved = amd_threads_reason(rec, s.inputs.threads)
    try:
        with s.batch():
            s.replace(**{**changes, **(overrides or {})})
    except InputRefused as exc:
        try:
            with s.batch():
                s.replace(**changes)
        except InputRefused as refused:  # figures this target cannot take (a launch bound above its limit)
            say(f"{rec.name}: {refused}; not loaded into the inputs", 10000)
        else:
            say(f"{exc}; the kernel's own figures are kept", 8000)
    else:
        if moved is not None and "threads" not in (overrides or {}):
            say(f"{rec.name}: {moved}", 8000)


def launch_fn(s: Session) -> Callable[[KernelTable], RowLaunch]:
    """Every row's threads and occupancy as the calculator will give them once the row is chosen, with its inputs
    of now: callable on a pool thread (it reads no widget and no session: an import's previews are made there)."""
    i = s.inputs
    vendor, selected, catalog = s.vendor, amd_selected(s), s.amd_catalog
    device, state = (s.device, s.device_state) if vendor == NVIDIA else (None, None)

    def launch_of(table: KernelTable) -> RowLaunch:
        if device is None or state is None or not table.nvidia_rows:
            launch = RowLaunch(np.zeros(len(table), np.int64), np.full(len(table), np.nan))
        else:
            launch = occupancy_column(table, device, state, i.threads, i.dynamic_smem, i.max_dynamic_smem)
        if table.amd is None:
            return launch
        from ...amd_record import processor_profile  # noqa: PLC0415 - lazy: a table with AMD rows

        figures = amd_occupancy_column(
            table, lambda p: processor_profile(p, catalog, selected), i.threads, i.dynamic_smem
        )
        return with_amd(launch, table, figures)

    return launch_of


def unavailable(s: Session) -> str | None:
    """Why the NVIDIA rows have no threads and occupancy now (an AMD device is selected), or ``None``."""
    if s.vendor == NVIDIA:
        return None
    return (
        f"{s.inputs.device} is an AMD device: these NVIDIA kernels have no occupancy on it. "
        "Choosing one selects the device of its architecture."
    )
