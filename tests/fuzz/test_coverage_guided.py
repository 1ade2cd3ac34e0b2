"""The coverage-guided fuzzing of CI (see ``coverage_guided.py``): the committed corpus replayed, then each
target fuzzed by atheris for a fixed number of inputs with a fixed seed.

The replay needs nothing beyond the suite; the seeded run needs atheris, whose wheels cover CPython 3.11-3.13
on Linux x86_64 (the ``test`` extra installs it there): elsewhere it is skipped, saying so.  ``FUZZ_RUNS``
(default :data:`RUNS`) sets the inputs per target; the whole file takes about three minutes on CI's machine.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from .coverage_guided import ROOT, TARGETS, corpus_inputs, unpack_corpus
from .harness import run_one

RUNS = {
    "ptxas_log": 3000,
    "cuobjdump_text": 3000,
    "ncu_csv": 2000,
    "cubin": 3000,
    "fatbin": 1500,
    "host_binary": 1000,
    "ar_archive": 1000,
    "offload_binary": 1500,
    "profile": 1000,
}
"""Inputs per target in CI, sized to about 15 s each on a busy 2-core machine."""
_EXTENSIONS = {
    "ptxas_log": ".log",
    "cuobjdump_text": ".txt",
    "ncu_csv": ".csv",
    "cubin": ".cubin",
    "fatbin": ".fatbin",
    "host_binary": ".o",
    "ar_archive": ".a",
    "offload_binary": ".bin",
    "profile": ".yaml",
}


@pytest.mark.parametrize("target", TARGETS)
def test_the_committed_corpus_replays(target, tmp_path):
    """Every input the fuzzers kept (new coverage) or found (a crash, fixed since) ends in records or the
    reader's one-line error."""
    inputs = corpus_inputs(target)
    assert inputs, f"no corpus for {target}: run tests/fuzz/long_run_guided.py"
    path = str(tmp_path / ("input" + _EXTENSIONS[target]))
    outcomes = {run_one(target, data, path) for _name, data in inputs}
    assert outcomes <= {"records", "error"}


needs_atheris = pytest.mark.skipif(
    importlib.util.find_spec("atheris") is None,
    reason="atheris has no wheel for this platform or Python (the replay above runs)",
)


@pytest.mark.slow  # atheris for a fixed count of inputs per target: ~1.5 min in all
@needs_atheris
@pytest.mark.parametrize("target", TARGETS)
def test_a_seeded_run_finds_no_crash(target, tmp_path):
    """libFuzzer exits 0 after its inputs; a crash, a time-out or an input over the memory limit exits
    non-zero and leaves the input (``crash-*``, ``timeout-*``, ``oom-*``) in the working folder."""
    corpus = unpack_corpus(target, tmp_path / "corpus")
    runs = int(os.environ.get("FUZZ_RUNS", RUNS[target]))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.fuzz.coverage_guided",
            target,
            f"-runs={runs}",
            "-seed=1",
            f"-artifact_prefix={tmp_path}/",
            str(corpus),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("crash-", "timeout-", "oom-")))
    assert proc.returncode == 0 and not found, (found, proc.stderr[-3000:])
    assert "DONE" in proc.stderr, proc.stderr[-2000:]
