"""The calculator's view-model: current inputs, the last result, and change notification.

Pure Python (no Qt): the GUI binds widgets to a :class:`Session`, and the tests drive it headless.
The session decides *when* to recompute — once per real change, once per :meth:`Session.batch` —
and the engine decides *what* the numbers are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .engine import (
    CARVEOUT_DEFAULT,
    CacheConfig,
    DeviceProperties,
    DeviceState,
    FunctionAttributes,
    Launch,
    OccupancyError,
    OccupancyResult,
    StepCurve,
    compute_occupancy,
    sweep_barriers,
    sweep_block_size,
    sweep_registers,
    sweep_shared_memory,
)
from .engine import architecture as arch

if TYPE_CHECKING:
    from .profiles import Catalog, DeviceProfile

CURVE_NAMES: tuple[str, ...] = ("threads", "registers", "shared_memory", "barriers")
"""Keys of :attr:`Session.curves`, in display order."""

BARRIER_SWEEP = 32
"""Block barriers swept by default (``sweep_barriers``'s ``upto``)."""

Listener = Callable[[frozenset[str]], None]
"""A subscriber: called with the names of the inputs that changed (``"device"``, ``"threads"``, ...)."""


@dataclass(frozen=True)
class Inputs:
    """Everything the user chooses: device, kernel resources, launch and device state.

    Sizes are bytes.  ``max_dynamic_smem`` of ``None`` is the runtime's default attribute value;
    ``carveout`` is -1 (no preference) or a percentage of shared memory; ``cache_config`` only
    matters on compute capability 3.x.
    """

    device: str
    threads: int = 256
    registers: int = 32
    static_smem: int = 0
    dynamic_smem: int = 0
    max_dynamic_smem: int | None = None
    barriers: int = 1
    carveout: int = CARVEOUT_DEFAULT
    cache_config: CacheConfig = CacheConfig.PREFER_NONE


INPUT_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Inputs))

KIB = 1024
INPUT_RANGES: dict[str, tuple[int, int]] = {
    "threads": (1, 16384),  # beyond any device's limit, so that an oversized block is explained, not refused
    "registers": (0, 1024),
    "static_smem": (0, 4 * KIB * KIB),
    "dynamic_smem": (0, 4 * KIB * KIB),
    "max_dynamic_smem": (0, 4 * KIB * KIB),
    "barriers": (0, 32),
}
"""The values a user may enter for each numeric input (window fields and command-line options)."""

DEFAULT_DEVICE = "sm_100"
"""The device a fresh start shows, where the catalog has it (else its first profile)."""
DEFAULT_INPUTS: dict[str, Any] = {"threads": 256, "registers": 64, "static_smem": 24 * KIB}
"""The Programming Guide's worked example: 4 blocks of 256 threads, 50 %, limited by registers."""


class Session:
    """The current occupancy question and its answer.

    Parameters
    ----------
    catalog
        Device profiles to choose from; ``device`` names are resolved through ``catalog.get``.
    device
        Initial profile (any spelling the catalog accepts); the catalog's first profile by default.
    **inputs
        Initial values of the other :class:`Inputs` fields.
    """

    def __init__(self, catalog: Catalog, device: str | None = None, **inputs: Any) -> None:
        if not catalog.profiles:
            raise ValueError("the device catalog is empty: no profile to compute occupancy for")
        self.catalog = catalog
        profile = catalog.get(device) if device is not None else catalog.profiles[0]
        self._inputs = self._validated(Inputs(device=profile.name), inputs)
        self._profile: DeviceProfile = profile
        self._device: DeviceProperties = profile.device_properties()
        self._listeners: list[Listener] = []
        self._batch_depth = 0
        self.recompute_count = 0
        self.result: OccupancyResult | None = None
        self.error: str | None = None
        self.curves: dict[str, StepCurve] = {}
        self._computed = self._inputs
        self._recompute()

    # ----------------------------------------------------------------------------- inputs
    @property
    def inputs(self) -> Inputs:
        return self._inputs

    @property
    def profile(self) -> DeviceProfile:
        return self._profile

    @property
    def device(self) -> DeviceProperties:
        return self._device

    def _validated(self, base: Inputs, changes: dict[str, Any]) -> Inputs:
        unknown = set(changes) - set(INPUT_FIELDS)
        if unknown:
            raise TypeError(f"unknown session inputs: {', '.join(sorted(unknown))}")
        if "device" in changes:
            changes = {**changes, "device": self.catalog.get(changes["device"]).name}
        if "cache_config" in changes:
            changes = {**changes, "cache_config": CacheConfig(changes["cache_config"])}
        for name, value in changes.items():
            if name in ("device", "cache_config") or (name == "max_dynamic_smem" and value is None):
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {value!r}")
        return dataclasses.replace(base, **changes)

    def replace(self, **changes: Any) -> bool:
        """Set inputs; recompute and notify once if anything really changed.

        Returns ``True`` when at least one value differed.  Unknown names raise ``TypeError``, an
        unknown device raises ``KeyError``; nothing changes in either case.
        """
        new = self._validated(self._inputs, changes)
        if new == self._inputs:
            return False
        if new.device != self._inputs.device:
            self._profile = self.catalog.get(new.device)
            self._device = self._profile.device_properties()
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
        self.catalog = catalog
        try:
            profile = catalog.get(self._inputs.device)
        except KeyError:
            profile = catalog.profiles[0]
        self._profile, self._device = profile, profile.device_properties()
        self._inputs = dataclasses.replace(self._inputs, device=profile.name)
        self._computed = dataclasses.replace(self._computed, device="")  # force a recompute and a notice
        if self._batch_depth == 0:
            self._flush()

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
        self._computed = self._inputs
        self._recompute(changed)
        for listener in list(self._listeners):
            listener(changed)

    # ----------------------------------------------------------------------------- engine
    @property
    def function_attributes(self) -> FunctionAttributes:
        i = self._inputs
        return FunctionAttributes(num_regs=i.registers, shared_size_bytes=i.static_smem,
                                  max_dynamic_shared_size_bytes=i.max_dynamic_smem,
                                  num_block_barriers=i.barriers)  # fmt: skip

    @property
    def launch(self) -> Launch:
        return Launch(block_size=self._inputs.threads, dynamic_smem=self._inputs.dynamic_smem)

    @property
    def device_state(self) -> DeviceState:
        cc = self._device.compute_capability
        carveout = self._inputs.carveout if arch.supports_carveout(cc) else CARVEOUT_DEFAULT
        cache = self._inputs.cache_config if arch.supports_cache_config(cc) else CacheConfig.PREFER_NONE
        return DeviceState(cache_config=cache, carveout_config=carveout)

    @property
    def barriers_apply(self) -> bool:
        """Whether the block-barrier limit exists on this device (compute capability 9.0 and later)."""
        return arch.applies_barrier_limit(self._device.compute_capability)

    @property
    def resolved_max_dynamic_smem(self) -> int:
        """The max dynamic shared memory attribute in force (the runtime default where unset)."""
        return self.function_attributes.resolved_max_dynamic_smem(self._device)

    def _recompute(self, changed: frozenset[str] = frozenset(INPUT_FIELDS)) -> None:
        self.recompute_count += 1
        device, func, launch, state = self._device, self.function_attributes, self.launch, self.device_state
        try:
            self.result, self.error = compute_occupancy(device, func, launch, state), None
        except OccupancyError as exc:
            self.result, self.error = None, str(exc)
        sweeps = {"threads": sweep_block_size, "registers": sweep_registers, "shared_memory": sweep_shared_memory}
        if self.barriers_apply:
            sweeps["barriers"] = sweep_barriers
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
        i = self._inputs
        current = {"threads": ("threads", i.threads), "registers": ("registers", i.registers),
                   "shared_memory": ("dynamic_smem", i.static_smem + i.dynamic_smem),
                   "barriers": ("barriers", i.barriers)}[name]  # fmt: skip
        # The barrier sweep runs to max(32, barriers): its span changes above 32.
        if field != current[0] or (name == "barriers" and len(old.x) != max(BARRIER_SWEEP, i.barriers) + 1):
            return None
        return dataclasses.replace(old, current_x=current[1])
