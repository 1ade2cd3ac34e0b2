"""The calculator's view-model: current inputs, the last result, and change notification.

Pure Python (no Qt): the GUI binds widgets to a :class:`Session`, and the tests drive it headless.
The session decides *when* to recompute — once per real change, once per :meth:`Session.batch` —
and the engine decides *what* the numbers are.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..device_choice import DeviceChoice, NotForVendor, amd_of
from ..engine import (
    CARVEOUT_DEFAULT,
    CacheConfig,
    DeviceProperties,
    DeviceState,
    FunctionAttributes,
    Launch,
    OccupancyError,
    OccupancyResult,
    StepCurve,
    applies_barrier_limit,
    compute_occupancy,
    min_blocks_shortfall,
    supports_cache_config,
    supports_carveout,
    sweep_barriers,
    sweep_block_size,
    sweep_registers,
    sweep_shared_memory,
)
from .history import HISTORY_LIMIT, History
from .inputs import (
    AMD_ONLY_FIELDS,
    DEFAULT_DEVICE,
    DEFAULT_INPUTS,
    INPUT_FIELDS,
    INPUT_RANGES,
    KIB,
    MAX_BLOCK_BARRIERS,
    OPTIONAL_FIELDS,
    InputRefused,
    Inputs,
    amd_value,
    function_attributes,
    input_problem,
    meet_kernel_limits,
)

if TYPE_CHECKING:
    from ..amd_question import AmdState
    from ..profiles import AmdCatalog, AmdProfile, Catalog, DeviceProfile

# Re-exported: callers of the session catch NotForVendor from here, and read the inputs' record, ranges and defaults
# and the history's limit from here as they did before those moved into their own modules.
__all__ = [
    "AMD_ONLY_FIELDS",
    "DEFAULT_DEVICE",
    "DEFAULT_INPUTS",
    "HISTORY_LIMIT",
    "INPUT_FIELDS",
    "INPUT_RANGES",
    "KIB",
    "MAX_BLOCK_BARRIERS",
    "OPTIONAL_FIELDS",
    "InputRefused",
    "Inputs",
    "NotForVendor",
    "Session",
    "function_attributes",
    "input_problem",
    "meet_kernel_limits",
]

CURVE_NAMES: tuple[str, ...] = ("threads", "registers", "shared_memory", "barriers")
"""Keys of :attr:`Session.curves`, in display order."""

BARRIER_SWEEP = MAX_BLOCK_BARRIERS
"""Block barriers swept by default (``sweep_barriers``'s ``upto``): every count a block can use."""

Listener = Callable[[frozenset[str]], None]
"""A subscriber: called with the names of the inputs that changed (``"device"``, ``"threads"``, ...)."""


class Session:
    """The current occupancy question and its answer.

    Parameters
    ----------
    catalog
        NVIDIA device profiles to choose from; ``device`` names are resolved through ``catalog.get`` first.
    device
        Initial profile (any spelling the catalog accepts, or an AMD profile's); the catalog's first by default.
    amd_catalog
        AMD device profiles, looked up when a name is not NVIDIA's; the bundled ones (read on first need) by default.
    **inputs
        Initial values of the other :class:`Inputs` fields.
    """

    def __init__(
        self, catalog: Catalog, device: str | None = None, *, amd_catalog: AmdCatalog | None = None, **inputs: Any
    ) -> None:
        if not catalog.profiles:
            raise ValueError("the device catalog is empty: no profile to compute occupancy for")
        self._choice = DeviceChoice(catalog, amd_catalog)
        self._choice.select(self.find(device) if device is not None else catalog.profiles[0])
        self.amd: AmdState | None = None
        """Both AMD answers and their curves while an AMD device is selected; ``None`` while an NVIDIA one is."""
        self._inputs = self._validated(Inputs(device=self._choice.name), inputs)
        self._listeners: list[Listener] = []
        self._batch_depth = 0
        self.recompute_count = 0
        self.result: OccupancyResult | None = None
        self.error: str | None = None
        self.curves: dict[str, StepCurve] = {}
        self._computed = self._inputs
        self._history: History[Inputs] = History()
        self._recording = True
        self._recompute()

    # ----------------------------------------------------------------------------- inputs
    @property
    def inputs(self) -> Inputs:
        return self._inputs

    @property
    def catalog(self) -> Catalog:
        """The NVIDIA profiles."""
        return self._choice.catalog

    @property
    def vendor(self) -> str:
        """``"nvidia"`` or ``"amd"``: whose device is selected, and so which inputs and answers apply."""
        return self._choice.vendor

    @property
    def profile(self) -> DeviceProfile:
        """The selected NVIDIA profile; :class:`NotForVendor` while an AMD device is selected."""
        return self._choice.profile

    @property
    def device(self) -> DeviceProperties:
        """The selected NVIDIA device's properties; :class:`NotForVendor` while an AMD device is selected."""
        return self._choice.device

    @property
    def amd_profile(self) -> AmdProfile:
        """The selected AMD profile; :class:`NotForVendor` while an NVIDIA device is selected."""
        return self._choice.amd_profile

    @property
    def amd_catalog(self) -> AmdCatalog:
        """The AMD profiles (the bundled ones are read on first need)."""
        return self._choice.amd_catalog

    def find(self, name: str) -> DeviceProfile | AmdProfile:
        """The profile called ``name``: NVIDIA's first, then AMD's; ``KeyError`` (one line) if neither has it."""
        return self._choice.find(name)

    def _validated(self, base: Inputs, changes: dict[str, Any]) -> Inputs:
        unknown = set(changes) - set(INPUT_FIELDS)
        if unknown:
            raise TypeError(f"unknown session inputs: {', '.join(sorted(unknown))}")
        profile: DeviceProfile | AmdProfile | None = None
        if "device" in changes:
            profile = self.find(changes["device"])
            changes = {**changes, "device": profile.name}
        if "cache_config" in changes:
            changes = {**changes, "cache_config": CacheConfig(changes["cache_config"])}
        for name, value in changes.items():
            if name in ("device", "cache_config") or (name in OPTIONAL_FIELDS and value is None):
                continue
            if name in AMD_ONLY_FIELDS:
                changes = {**changes, name: amd_value(name, value)}
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {value!r}")
        new = dataclasses.replace(base, **changes)
        amd = self._choice.amd_or_none() if profile is None else amd_of(profile)
        if amd is not None:
            from ..amd_question import inputs_problem  # noqa: PLC0415 - lazy: as Session.amd_catalog

            problem = inputs_problem(new, amd)
        else:
            if profile is not None and self._choice.is_amd and "threads" not in changes:
                new = meet_kernel_limits(new)  # back from an AMD device: the NVIDIA kernel's limits hold again
            problem = input_problem(new)
        if problem is not None:
            raise InputRefused(problem)
        return new

    def replace(self, **changes: Any) -> bool:
        """Set inputs; recompute and notify once if anything really changed.

        Returns ``True`` when at least one value differed.  Unknown names raise ``TypeError``, an
        unknown device raises ``KeyError``, a refused combination (threads above the launch bound)
        raises :class:`InputRefused`; nothing changes in any case.  Each real change is one undo
        step (or part of the open :meth:`gesture`'s step).
        """
        new = self._validated(self._inputs, changes)
        if new == self._inputs:
            return False
        if new.device != self._inputs.device:
            self._choice.select(self.find(new.device))
        self._inputs = new
        if self._batch_depth == 0:
            self._flush()
        return True

    def set_catalog(self, catalog: Catalog) -> None:
        """Swap in a reloaded catalog (a detected GPU, an edited user profile).

        The current device is looked up again by name, since its values may have changed; if it is
        gone, the catalog's first profile takes its place.  Listeners hear ``device`` once.
        """
        if not catalog.profiles:
            raise ValueError("the device catalog is empty: no profile to compute occupancy for")
        self._choice.catalog = catalog
        if not self._choice.is_amd:  # an AMD device stays: the NVIDIA catalog does not hold it
            try:
                profile = catalog.get(self._inputs.device)
            except KeyError:
                profile = catalog.profiles[0]
            self._choice.select(profile)
            self._inputs = dataclasses.replace(self._inputs, device=profile.name)
        self._computed = dataclasses.replace(self._computed, device="")  # force a recompute and a notice
        if self._batch_depth == 0:
            self._recording = False  # a reloaded catalog is not the user's edit
            try:
                self._flush()
            finally:
                self._recording = True

    @contextmanager
    def batch(self) -> Iterator[Session]:
        """Group several ``replace`` calls into one recompute and one notification."""
        self._batch_depth += 1
        try:
            yield self
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0:
                self._flush()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(changed_names)`` after each recompute; returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _flush(self) -> None:
        # Compare with the inputs of the last recompute, so a batch that ends where it began is silent.
        changed = frozenset(n for n in INPUT_FIELDS if getattr(self._inputs, n) != getattr(self._computed, n))
        if not changed:
            return
        if self._recording:
            self._history.record(self._computed)
        self._computed = self._inputs
        self._recompute(changed)
        for listener in list(self._listeners):
            listener(changed)

    # ----------------------------------------------------------------------------- history
    @contextmanager
    def gesture(self) -> Iterator[Session]:
        """Make every change until the block ends one undo step (a slider drag, a wheel burst).

        Unlike :meth:`batch`, each change still recomputes and notifies at once; only the history
        merges them.  Gestures nest; the outermost one closes the step.
        """
        self.begin_gesture()
        try:
            yield self
        finally:
            self.end_gesture()

    def begin_gesture(self) -> None:
        """Open a gesture (see :meth:`gesture`), for callers whose start and end are separate events."""
        self._history.begin_gesture()

    def end_gesture(self) -> None:
        self._history.end_gesture()

    @property
    def can_undo(self) -> bool:
        return self._history.can_undo

    @property
    def can_redo(self) -> bool:
        return self._history.can_redo

    def undo(self) -> bool:
        """Go back one step of input edits; ``False`` if there is none."""
        return self._go_to(self._history.undo(self._inputs))

    def redo(self) -> bool:
        """Re-apply the last undone step; ``False`` if there is none."""
        return self._go_to(self._history.redo(self._inputs))

    def clear_history(self) -> None:
        """Forget every step (a new or opened session starts its own history)."""
        self._history.clear()

    def _go_to(self, inputs: Inputs | None) -> bool:
        """Show ``inputs`` from the history (not itself a step); ``False`` for ``None`` (no step to go to)."""
        if inputs is None:
            return False
        if inputs.device != self._inputs.device and not self._choice.knows(inputs.device):
            inputs = dataclasses.replace(inputs, device=self._inputs.device)  # a profile since removed: keep the device
        self._recording = False
        try:
            if inputs.device != self._inputs.device:
                self._choice.select(self.find(inputs.device))
            self._inputs = inputs
            self._flush()
        finally:
            self._recording = True
        return True

    # ----------------------------------------------------------------------------- engine
    @property
    def function_attributes(self) -> FunctionAttributes:
        return function_attributes(self._inputs)

    @property
    def launch(self) -> Launch:
        return Launch(block_size=self._inputs.threads, dynamic_smem=self._inputs.dynamic_smem)

    @property
    def device_state(self) -> DeviceState:
        cc = self.device.compute_capability
        carveout = self._inputs.carveout if supports_carveout(cc) else CARVEOUT_DEFAULT
        cache = self._inputs.cache_config if supports_cache_config(cc) else CacheConfig.PREFER_NONE
        return DeviceState(cache_config=cache, carveout_config=carveout)

    @property
    def barriers_apply(self) -> bool:
        """Whether the block-barrier limit exists on this device (compute capability 9.0 and later)."""
        return applies_barrier_limit(self.device.compute_capability)

    @property
    def resolved_max_dynamic_smem(self) -> int:
        """The max dynamic shared memory attribute in force (the runtime default where unset)."""
        return self.function_attributes.resolved_max_dynamic_smem(self.device)

    @property
    def min_blocks_shortfall(self) -> str | None:
        """Why the launch defeats the kernel's ``__launch_bounds__`` minimum blocks per SM, or ``None``."""
        if self.result is None:
            return None
        return min_blocks_shortfall(self.result.active_blocks, self._inputs.min_blocks_per_sm)

    def _recompute(self, changed: frozenset[str] = frozenset(INPUT_FIELDS)) -> None:
        self.recompute_count += 1
        amd = self._choice.amd_or_none()
        if amd is not None:
            from ..amd_question import compute  # noqa: PLC0415 - lazy: as Session.amd_catalog

            self.result, self.error, self.curves = None, None, {}
            self.amd = compute(amd, self._inputs, changed, self.amd)
            return
        self.amd = None
        device, func, launch, state = self.device, self.function_attributes, self.launch, self.device_state
        try:
            self.result, self.error = compute_occupancy(device, func, launch, state), None
        except OccupancyError as exc:
            self.result, self.error = None, str(exc)
        sweeps = {"threads": sweep_block_size, "registers": sweep_registers, "shared_memory": sweep_shared_memory}
        if self.barriers_apply:
            sweeps["barriers"] = functools.partial(sweep_barriers, upto=BARRIER_SWEEP)
        curves: dict[str, StepCurve] = {}
        for name, sweep in sweeps.items():
            reused = self._reusable_curve(name, changed)
            if reused is not None:
                curves[name] = reused
                continue
            try:
                curves[name] = sweep(device, func, launch, state)
            except (OccupancyError, ValueError, OverflowError):
                continue  # an input the sweep cannot take; the error above already says why
        self.curves = curves

    def _reusable_curve(self, name: str, changed: frozenset[str]) -> StepCurve | None:
        """The previous curve with a new marker, where only the swept input itself changed.

        A sweep over threads per block does not depend on the current threads per block (nor the
        register sweep on the current register count, the shared memory sweep on the dynamic size),
        so scrubbing one input recomputes three curves, not four.
        """
        old = self.curves.get(name)
        if old is None or len(changed) != 1:
            return None
        (field,) = changed
        if field == "min_blocks_per_sm":
            return old  # a compiler hint: no occupancy figure depends on it
        i = self._inputs
        current = {
            "threads": ("threads", i.threads),
            "registers": ("registers", i.registers),
            "shared_memory": ("dynamic_smem", i.static_smem + i.dynamic_smem),
            "barriers": ("barriers", i.barriers),
        }[name]
        # The barrier sweep runs to max(32, barriers): its span changes above 32.
        if field != current[0] or (name == "barriers" and len(old.x) != max(BARRIER_SWEEP, i.barriers) + 1):
            return None
        return dataclasses.replace(old, current_x=current[1])
