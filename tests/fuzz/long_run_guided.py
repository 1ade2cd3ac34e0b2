"""The long coverage-guided run, for whoever has cores: atheris on every reader, its finds kept.

    python tests/fuzz/long_run_guided.py [--targets cubin fatbin ...] [--seconds 3600] [--jobs N]

For each target, libFuzzer runs ``--seconds`` on ``--jobs`` processes (its ``-fork`` mode) from the committed
corpus and our fixtures (``coverage_guided.py``).  Then:

* every crash, time-out or out-of-memory input it wrote is minimised (``-minimize_crash``) and reported; fix
  the reader, then add the minimised input to ``corpus/TARGET`` (CI replays it ever after) and, where it
  says something new, a test to ``test_regressions.py``;
* the inputs that reached new code are merged into ``corpus/TARGET.tar.zst`` (``-merge=1``: only those that
  add coverage to what the corpus already reaches), so the next CI run starts from them.

Commit the corpus it grows (each file is small; the merge keeps the set minimal).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz.coverage_guided import TARGETS, pack_corpus, seed_inputs, unpack_corpus  # noqa: E402


def _fuzz(target: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.fuzz.coverage_guided", target, *args], cwd=ROOT, capture_output=True, text=True
    )


def run_target(target: str, seconds: int, jobs: int, out: Path) -> list[Path]:
    """One target's run; returns the minimised inputs that failed."""
    work = Path(tempfile.mkdtemp(prefix=f"guided-{target}-"))
    found = work / "found"
    found.mkdir()
    corpus = unpack_corpus(target, work / "corpus")
    fork = [f"-fork={jobs}", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"] if jobs > 1 else []
    proc = _fuzz(
        target, [f"-max_total_time={seconds}", f"-artifact_prefix={out}/{target}-", *fork, str(found), str(corpus)]
    )
    tail = [line for line in proc.stderr.splitlines() if "DONE" in line or "cov:" in line][-1:]
    print(f"{target}: exit {proc.returncode}; {' '.join(tail)}", flush=True)
    merged = _fuzz(target, ["-merge=1", str(corpus), str(found)])
    print(f"{target}: {merged.stderr.strip().splitlines()[-1] if merged.stderr.strip() else 'merged'}", flush=True)
    seeds = {bytes(data) for data in seed_inputs(target)}
    for path in corpus.iterdir():  # the merge takes the fixtures in too: they are seeds, not corpus
        if path.read_bytes() in seeds:
            path.unlink()
    print(f"{target}: corpus {pack_corpus(target, corpus)} bytes packed", flush=True)
    failures = []
    for artifact in sorted(out.glob(f"{target}-*")):
        if artifact.name.startswith(f"{target}-minimized-"):
            continue
        minimised = out / f"{target}-minimized-{artifact.name.split('-', 1)[1]}"
        _fuzz(target, ["-minimize_crash=1", "-runs=20000", f"-exact_artifact_path={minimised}", str(artifact)])
        failures.append(minimised if minimised.exists() else artifact)
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", nargs="+", choices=TARGETS, default=list(TARGETS))
    parser.add_argument("--seconds", type=int, default=3600, help="per target")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=Path("fuzz-crashes"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    failures = [f for target in args.targets for f in run_target(target, args.seconds, args.jobs, args.out.resolve())]
    for path in failures:
        print(f"FAILED INPUT: {path}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
