"""Structure-aware fuzzing of the text importers, profiles and session files (a short, deterministic run).

``structured.py`` generates valid files with hostile figures of every length and script, deep and
aliased YAML, duplicate keys and huge rows; each input must end in records / a state or the module's
own one-line error naming the file, within 10 s of CPU time and 1 GiB of resident memory.
``FUZZ_STRUCTURED`` (default 300) inputs per target; the long run is
``python tests/fuzz/long_run.py --targets ptxas_gen cuobjdump_gen ncu_gen profile_gen session cli``.

The ``cli`` target runs here too now that the calc/suggest overflows (issue 15 item 10) and the
uncut error lines are fixed.
"""

from __future__ import annotations

import os
import random

import pytest

from .harness import Crash
from .structured import generate, run_structured

EXAMPLES = int(os.environ.get("FUZZ_STRUCTURED", "300"))
TARGETS = ("ptxas_gen", "cuobjdump_gen", "ncu_gen", "profile_gen", "session", "cli")


@pytest.mark.parametrize("target", TARGETS)
def test_generated_inputs(target, tmp_path):
    rng = random.Random(f"structured:{target}")
    outcomes: dict[str, int] = {}
    failures: list[str] = []
    for _ in range(EXAMPLES):
        data = generate(target, rng, str(tmp_path))
        try:
            outcome = run_structured(target, data, str(tmp_path))
        except Crash as exc:
            failures.append(str(exc)[:300])
            continue
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert failures == []
    assert len(outcomes) == 2, outcomes  # both ends are reached: the generators make valid files too
