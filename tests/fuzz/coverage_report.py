"""Line coverage of each reader by this suite's fuzzing: the property tests alone, then with the corpus that
coverage-guided fuzzing (atheris) kept.

    python tests/fuzz/coverage_report.py [--examples 500]

``property``: the hypothesis runs of ``test_fuzz.py`` and ``test_fuzz_structured.py`` (mutated fixtures and
generated text: the fuzzing before the coverage-guided one).  ``+ corpus``: the same and the replay of
``corpus/`` (``test_coverage_guided.py::test_the_committed_corpus_replays``), the inputs atheris kept because
they reached code nothing before them did.  Prints, per module of the readers, its statements and the share
each run executed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READERS = ("occupancy_gui/importers/", "occupancy_gui/profiles/")
PROPERTY = ["tests/fuzz/test_fuzz.py", "tests/fuzz/test_fuzz_structured.py"]
REPLAY = "tests/fuzz/test_coverage_guided.py::test_the_committed_corpus_replays"


def measure(tests: list[str], examples: int) -> dict[str, tuple[int, int]]:
    """file -> (statements, executed) of the readers over a pytest run of ``tests``."""
    with tempfile.TemporaryDirectory() as work:
        data, out = os.path.join(work, ".coverage"), os.path.join(work, "cov.json")
        env = {**os.environ, "FUZZ_EXAMPLES": str(examples)}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "coverage",
                "run",
                f"--data-file={data}",
                "--source=occupancy_gui",
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                *tests,
            ],
            cwd=ROOT,
            env=env,
            check=False,
            stdout=subprocess.DEVNULL,
        )
        subprocess.run(
            [sys.executable, "-m", "coverage", "json", f"--data-file={data}", "-o", out],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        files = json.loads(Path(out).read_text())["files"]
    return {
        name: (f["summary"]["num_statements"], f["summary"]["covered_lines"])
        for name, f in files.items()
        if name.startswith(READERS)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500, help="hypothesis examples per property test")
    args = parser.parse_args()
    before = measure(PROPERTY, args.examples)
    after = measure([*PROPERTY, REPLAY], args.examples)
    print(f"{'module':48} {'stmts':>6} {'property':>9} {'+ corpus':>9}")
    for name in sorted(after):
        stmts, hit = after[name]
        old = before.get(name, (stmts, 0))[1]
        print(f"{name:48} {stmts:6} {old / max(stmts, 1):9.1%} {hit / max(stmts, 1):9.1%}")
    total = sum(s for s, _ in after.values())
    print(
        f"{'all readers':48} {total:6} {sum(h for _, h in before.values()) / total:9.1%} "
        f"{sum(h for _, h in after.values()) / total:9.1%}"
    )


if __name__ == "__main__":
    main()
