"""What the window's session holds for an AMD device: both answers for its inputs and the step curves.

The session keeps every vendor's inputs in one ``Inputs``; here the AMD ones are read as the selected target takes
them (``values.target_values``) and answered.  A curve is reused, with its marker moved, when only the input it
sweeps changed: a sweep over block size does not depend on the block launched, the VGPR sweep not on the VGPRs,
the LDS sweep not on the dynamic LDS while the total stays within the runtime's per-workgroup LDS.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine.amd import AmdInputError, AmdSweep
from .answer import CURVE_NAMES, AmdAnswer, answer, curve
from .values import kernel_and_launch, target_problem, target_values

if TYPE_CHECKING:
    from ..profiles import AmdProfile


@dataclass(frozen=True)
class AmdState:
    """Both answers (or the engine's one-line refusal) and the curves, for one AMD question."""

    answer: AmdAnswer | None
    error: str | None
    curves: dict[str, AmdSweep] = field(default_factory=dict, hash=False)


def inputs_problem(inputs: object, profile: AmdProfile) -> str | None:
    """Why the session's AMD inputs cannot be asked on ``profile``'s target (one line naming the field), or None."""
    target = profile.target
    return target_problem(target_values(inputs, target), target)


def compute(
    profile: AmdProfile, inputs: object, changed: frozenset[str] = frozenset(), previous: AmdState | None = None
) -> AmdState:
    """Both answers and the three curves for ``inputs`` on ``profile``; ``previous`` curves are reused where only
    their own swept input ``changed``."""
    kernel, launch = kernel_and_launch(target_values(inputs, profile.target))
    try:
        result = answer(profile, kernel, launch)
    except AmdInputError as exc:
        return AmdState(None, str(exc))
    curves: dict[str, AmdSweep] = {}
    for name in CURVE_NAMES:
        reused = _reusable(name, changed, previous, result)
        try:
            curves[name] = reused if reused is not None else curve(name, result)
        except AmdInputError:
            continue  # an input the sweep cannot take; the answer above says what is wrong
    return AmdState(result, None, curves)


def _current(name: str, result: AmdAnswer) -> int:
    if name == "threads":
        return result.launch.threads_per_block
    if name == "vgprs":
        return result.kernel.vgprs
    return result.kernel.static_lds + result.launch.dynamic_lds


_SWEPT = {"threads": "threads", "vgprs": "vgprs", "lds": "dynamic_smem"}


def _reusable(name: str, changed: frozenset[str], previous: AmdState | None, result: AmdAnswer) -> AmdSweep | None:
    old = previous.curves.get(name) if previous is not None else None
    if old is None or previous is None or previous.answer is None or changed != {_SWEPT[name]}:
        return None
    if previous.answer.profile != result.profile:
        return None
    now = _current(name, result)
    if name == "lds":  # the sweep runs to max(pool, total LDS): its span changes above the pool
        pool = result.device.target.lds_per_workgroup
        if max(pool, now) != max(pool, _current(name, previous.answer)):
            return None
    return AmdSweep(dataclasses.replace(old.runtime, current_x=now), dataclasses.replace(old.compiler, current_x=now))
