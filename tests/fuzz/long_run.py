"""Long fuzzing run of every importer and the profile loader: random mutations of the fixtures.

    python tests/fuzz/long_run.py --per-importer 1000000 [--targets ptxas_log cubin ...]
                                  [--workers N] [--seconds S] [--seed 1] [--out fuzz-crashes]

Each worker process fuzzes one target at a time under a memory limit (``RLIMIT_AS``, 2 GiB) and an
alarm that interrupts any input that runs longer than 10 s; every input must end in records or
the module's own one-line error (``harness.run_one``).  The structure-aware targets of
``structured.py`` (``ptxas_gen cuobjdump_gen ncu_gen profile_gen session cli``) generate their inputs
and also fail an input whose peak resident memory passes 1 GiB.  Crashing inputs are written to ``--out``
with the reason, and the run prints inputs/s per target.  ``--seconds`` caps each target's time.
(It needs nothing beyond the suite; the coverage-guided run, with atheris where it has a wheel, is
``long_run_guided.py``.)
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz import structured
from tests.fuzz.harness import BINARY_TARGETS, TARGETS, TEXT_TARGETS, Crash, mutate, run_one, seeds

MEMORY_LIMIT = 2 << 30


class _Hang(Exception):
    pass


def _alarm(_signum, _frame):
    raise _Hang("input ran longer than 10 s")


def fuzz(job: tuple[str, int, int, float, str, int]) -> tuple[str, int, float, list[str]]:
    target, count, seed, seconds, out, worker = job
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(f"{seed}:{target}:{worker}")
    if target in structured.STRUCTURED_TARGETS:
        return _fuzz_structured(target, count, rng, seconds, out, worker)
    corpus = seeds(target)
    others = [d for t in TARGETS for d in seeds(t)] if target in BINARY_TARGETS else corpus
    text = target in TEXT_TARGETS
    crashes: list[str] = []
    done = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"input_{target}")
        while done < count and time.perf_counter() - start < seconds:
            data = mutate(rng, rng.choice(corpus), others, text)
            if rng.random() < 0.2:  # stack mutations on a mutant now and then
                data = mutate(rng, data, others, text)
            done += 1
            signal.alarm(10)
            try:
                run_one(target, data, path)
            except (Crash, _Hang, MemoryError) as exc:
                reason = " ".join(str(exc).split())[:300]
                name = f"{target}-{worker}-{done}"
                Path(out).mkdir(parents=True, exist_ok=True)
                Path(out, name + ".bin").write_bytes(data)
                Path(out, name + ".txt").write_text(reason + "\n")
                crashes.append(f"{name}: {reason}")
            finally:
                signal.alarm(0)
    return target, done, time.perf_counter() - start, crashes


def _fuzz_structured(
    target: str, count: int, rng: random.Random, seconds: float, out: str, worker: int
) -> tuple[str, int, float, list[str]]:
    """A structure-aware target (``structured.py``): generated inputs, time and memory budgets per input."""
    crashes: list[str] = []
    done = 0
    start = time.perf_counter()
    # The alarm counts this process's CPU time (SIGPROF), not wall time: at nice 19 on a busy machine an
    # input may wait for a CPU far longer than it runs.
    signal.signal(signal.SIGPROF, _alarm)
    with tempfile.TemporaryDirectory() as tmp:
        while done < count and time.perf_counter() - start < seconds:
            data = structured.generate(target, rng, tmp)
            done += 1
            signal.setitimer(signal.ITIMER_PROF, structured.MAX_SECONDS + 1)
            try:
                structured.run_structured(target, data, tmp)
            except (Crash, _Hang, MemoryError) as exc:
                reason = " ".join(str(exc).split())[:300]
                name = f"{target}-{worker}-{done}"
                Path(out).mkdir(parents=True, exist_ok=True)
                Path(out, name + ".bin").write_bytes(structured.describe(data))
                Path(out, name + ".txt").write_text(reason + "\n")
                crashes.append(f"{name}: {reason}")
                if structured.max_rss() > structured.MEMORY_BUDGET:
                    break  # the peak stays: later inputs of this process could not be judged
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
    return target, done, time.perf_counter() - start, crashes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-importer", type=int, default=1_000_000)
    ap.add_argument("--targets", nargs="+", default=list(TARGETS), choices=TARGETS + structured.STRUCTURED_TARGETS)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seconds", type=float, default=float("inf"), help="time cap per target")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="fuzz-crashes")
    args = ap.parse_args()
    per_worker = -(-args.per_importer // args.workers)
    jobs = [(t, per_worker, args.seed, args.seconds, args.out, w) for t in args.targets for w in range(args.workers)]
    totals: dict[str, list[float]] = {t: [0, 0.0] for t in args.targets}
    crashes: list[str] = []
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for target, done, elapsed, found in pool.imap_unordered(fuzz, jobs):
            totals[target][0] += done
            totals[target][1] += elapsed
            crashes += found
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"{'target':16s} {'inputs':>10s} {'inputs/s':>10s}  (per worker process, wall clock; workers used "
        f"{cpu.ru_utime + cpu.ru_stime:.0f} s of CPU in all)"
    )
    for target, (done, elapsed) in totals.items():
        print(f"{target:16s} {int(done):10d} {done / max(elapsed, 1e-9):10.0f}")
    print(f"{len(crashes)} crashes" + (f" (inputs in {args.out}/)" if crashes else ""))
    for line in crashes[:50]:
        print("  " + line)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
