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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import fields
from .device_choice import DeviceChoice, NotForVendor, amd_of
from .engine import (
    CARVEOUT_DEFAULT,
    INT_MAX,
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
from .fields import AMD

if TYPE_CHECKING:
    from .amd_question import AmdState
    from .profiles import AmdCatalog, AmdProfile, Catalog, DeviceProfile

__all__ = ["NotForVendor"]  # re-exported: callers of the session catch it from here

CURVE_NAMES: tuple[str, ...] = ("threads", "registers", "shared_memory", "barriers")
"""Keys of :attr:`Session.curves`, in display order."""

MAX_BLOCK_BARRIERS = fields.FIELD["barriers"].high
"""PTX named barriers are numbered 0..15 (``bar.sync 0..15``): a block can use at most 16."""

BARRIER_SWEEP = MAX_BLOCK_BARRIERS
"""Block barriers swept by default (``sweep_barriers``'s ``upto``): every count a block can use."""

HISTORY_LIMIT = 500
"""Undo steps kept; the oldest go first (an input edit is a few hundred bytes)."""

Listener = Callable[[frozenset[str]], None]
"""A subscriber: called with the names of the inputs that changed (``"device"``, ``"threads"``, ...)."""


@dataclass(frozen=True)
class Inputs:
    """Everything the user chooses: device, kernel resources, launch and device state.

    Sizes are bytes.  ``max_dynamic_smem`` of ``None`` is the runtime's default attribute value;
    ``carveout`` is -1 (no preference) or a percentage of shared memory; ``cache_config`` only
    matters on compute capability 3.x.  ``threads`` above ``max_threads_per_block`` is refused by
    :meth:`Session.replace`, as the runtime refuses such a launch.
    """

    device: str
    threads: int = fields.default("threads")
    registers: int = fields.default("registers")
    static_smem: int = fields.default("static_smem")
    dynamic_smem: int = fields.default("dynamic_smem")
    max_dynamic_smem: int | None = None
    barriers: int = fields.default("barriers")
    carveout: int = fields.default("carveout")
    cache_config: CacheConfig = CacheConfig(fields.default("cache_config"))
    max_threads_per_block: int | None = None
    """The kernel's launch bound (``__launch_bounds__``, ``.maxntid``); ``None``: none."""
    required_block_size: int | None = None
    """The kernel's required block size (PTX ``.reqntid``, x·y·z threads); ``None``: none.  Any other
    ``threads`` is refused by :meth:`Session.replace`, as the runtime refuses such a launch."""
    min_blocks_per_sm: int | None = None
    """``__launch_bounds__``'s minimum blocks per SM (a compiler hint, not a launch rule); ``None``: none."""
    # AMD's inputs: they apply while an AMD device is selected and are kept as typed while an NVIDIA one is (and
    # NVIDIA's while an AMD one is); threads and dynamic shared memory (dynamic LDS) are both vendors'.
    vgprs: int = fields.default("vgprs")
    agprs: int = fields.default("agprs")
    sgprs: int = fields.default("sgprs")
    lds: int = fields.default("lds")
    """Static LDS per workgroup (bytes)."""
    wave_size: int | None = None
    """32 or 64; ``None``: the target's default."""
    wgp_mode: bool | None = None
    """Compiled in WGP mode (``True``) or CU mode (``False``); ``None``: the device's default."""
    max_flat_workgroup_size: int | None = None
    """The kernel's launch bound (``.max_flat_workgroup_size``); ``None``: the default, 1024."""
    waves_per_eu: tuple[int, int | None] | None = None
    """``amdgpu_waves_per_eu(min[, max])``; ``None``: not set."""
    allocated_vgprs: int = fields.default("allocated_vgprs")
    """VGPRs the kernel descriptor allocates where more than ``vgprs``; 0: as ``vgprs``."""


INPUT_FIELDS: tuple[str, ...] = ("device", *fields.SESSION_NAMES)
"""``device`` and every input of the field table, both vendors' (a test holds :class:`Inputs` to it, field for
field)."""
OPTIONAL_FIELDS = fields.SESSION_OPTIONAL
"""Inputs where ``None`` means "the runtime's default" / "no bound"."""
AMD_ONLY_FIELDS = frozenset(f.name for f in fields.only_for(AMD))
"""Inputs only AMD devices take: read by their row of the table (range, choices, mode, minimum-maximum)."""


def function_attributes(i: Inputs) -> FunctionAttributes:
    """The engine's ``cudaOccFuncAttributes`` for these inputs (no launch bound: the header's INT_MAX)."""
    return FunctionAttributes(num_regs=i.registers, shared_size_bytes=i.static_smem,
                              max_dynamic_shared_size_bytes=i.max_dynamic_smem, num_block_barriers=i.barriers,
                              max_threads_per_block=i.max_threads_per_block or INT_MAX,
                              reqntid=i.required_block_size or 0)  # fmt: skip


class InputRefused(ValueError):
    """A combination of inputs the session refuses; the message says why in one line."""


def meet_kernel_limits(inputs: Inputs) -> Inputs:
    """``inputs`` with threads per block moved to what the NVIDIA kernel's own limits allow: its required size, else
    at most its launch bound.  Used when an NVIDIA device is chosen after an AMD one: threads per block is both
    vendors' input and may have been typed past the NVIDIA kernel's limits meanwhile."""
    if inputs.required_block_size is not None and inputs.threads != inputs.required_block_size:
        return dataclasses.replace(inputs, threads=inputs.required_block_size)
    bound = inputs.max_threads_per_block
    if bound is not None and inputs.threads > bound:
        return dataclasses.replace(inputs, threads=bound)
    return inputs


def input_problem(inputs: Inputs) -> str | None:
    """Why these inputs cannot be a launch the user asks about, or ``None``.

    Only what no device can ever run is refused here; what one device cannot fit is the engine's
    answer (0 blocks, with the reasons).
    """
    bound = inputs.max_threads_per_block
    if bound is not None and bound < 1:
        return f"the kernel's launch bound must be at least 1 thread (got {bound})"
    required = inputs.required_block_size
    if required is not None and required < 1:
        return f"the kernel's required block size must be at least 1 thread (got {required})"
    if required is not None and bound is not None and required > bound:
        return (f"the kernel's required block size of {required} threads is above its launch bound of {bound}: "
                "no block could launch")  # fmt: skip
    if required is not None and inputs.threads != required:
        return (f"{inputs.threads} threads per block is not the kernel's required block size of {required} "
                "(.reqntid): the launch would fail")  # fmt: skip
    if bound is not None and inputs.threads > bound:
        return (f"{inputs.threads} threads per block is above the kernel's launch bound of {bound} "
                "(__launch_bounds__ / maxThreadsPerBlock): the launch would fail")  # fmt: skip
    if inputs.min_blocks_per_sm is not None and inputs.min_blocks_per_sm < 1:
        return f"the kernel's minimum blocks per SM must be at least 1 (got {inputs.min_blocks_per_sm})"
    if not 0 <= inputs.barriers <= MAX_BLOCK_BARRIERS:
        return f"block barriers must be 0..{MAX_BLOCK_BARRIERS} (PTX named barriers 0-15), got {inputs.barriers}"
    return None


KIB = 1024
INPUT_RANGES: dict[str, tuple[int, int]] = fields.SESSION_RANGES
"""The values each integer input can take in the window (its fields' ranges), on the command line and
in a session file: wider than any device allows, so that an oversized block is explained by the
engine rather than refused; a session file outside them is refused, never clamped or defaulted."""

DEFAULT_DEVICE = "sm_100"
"""The device a fresh start shows, where the catalog has it (else its first profile)."""
DEFAULT_INPUTS: dict[str, Any] = {"threads": 256, "registers": 64, "static_smem": 24 * KIB}
"""The Programming Guide's worked example: 4 blocks of 256 threads, 50 %, limited by registers."""


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

    def __init__(self, catalog: Catalog, device: str | None = None, *, amd_catalog: AmdCatalog | None = None,
                 **inputs: Any) -> None:  # fmt: skip
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
        self._undo: list[Inputs] = []
        self._redo: list[Inputs] = []
        self._gesture_depth = 0
        self._gesture_recorded = False
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
                changes = {**changes, name: _amd_value(name, value)}
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {value!r}")
        new = dataclasses.replace(base, **changes)
        amd = self._choice.amd_or_none() if profile is None else amd_of(profile)
        if amd is not None:
            from .amd_question import inputs_problem  # noqa: PLC0415 - lazy: as Session.amd_catalog

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
            self._record(self._computed)
        self._computed = self._inputs
        self._recompute(changed)
        for listener in list(self._listeners):
            listener(changed)

    # ----------------------------------------------------------------------------- history
    def _record(self, before: Inputs) -> None:
        if self._gesture_depth and self._gesture_recorded:
            return  # the open gesture's step already holds where it began
        self._gesture_recorded = self._gesture_depth > 0
        self._undo.append(before)
        del self._undo[:-HISTORY_LIMIT]
        self._redo.clear()

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
        if self._gesture_depth == 0:
            self._gesture_recorded = False
        self._gesture_depth += 1

    def end_gesture(self) -> None:
        self._gesture_depth = max(0, self._gesture_depth - 1)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self) -> bool:
        """Go back one step of input edits; ``False`` if there is none."""
        return self._step(self._undo, self._redo)

    def redo(self) -> bool:
        """Re-apply the last undone step; ``False`` if there is none."""
        return self._step(self._redo, self._undo)

    def clear_history(self) -> None:
        """Forget every step (a new or opened session starts its own history)."""
        self._undo.clear()
        self._redo.clear()

    def _step(self, source: list[Inputs], target: list[Inputs]) -> bool:
        if not source:
            return False
        inputs = source.pop()
        if inputs.device != self._inputs.device and not self._choice.knows(inputs.device):
            inputs = dataclasses.replace(inputs, device=self._inputs.device)  # a profile since removed: keep the device
        target.append(self._inputs)
        self._gesture_depth = 0
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
            from .amd_question import compute  # noqa: PLC0415 - lazy: as Session.amd_catalog

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
        current = {"threads": ("threads", i.threads), "registers": ("registers", i.registers),
                   "shared_memory": ("dynamic_smem", i.static_smem + i.dynamic_smem),
                   "barriers": ("barriers", i.barriers)}[name]  # fmt: skip
        # The barrier sweep runs to max(32, barriers): its span changes above 32.
        if field != current[0] or (name == "barriers" and len(old.x) != max(BARRIER_SWEEP, i.barriers) + 1):
            return None
        return dataclasses.replace(old, current_x=current[1])


def _amd_value(name: str, value: Any) -> Any:
    """An AMD input's value as its row of the table reads it; :class:`InputRefused` (one line) where it refuses."""
    from .amd_question import AmdFieldError, read_value  # noqa: PLC0415 - lazy: an NVIDIA session never reads AMD

    try:
        return read_value(fields.FIELD[name], value)
    except AmdFieldError as exc:
        raise InputRefused(str(exc)) from None
