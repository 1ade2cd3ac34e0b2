"""YAML reading of the bundled profiles: the hardened reader on libyaml's events against the pure-Python
parser (what it used before), and the catalog cache of ``ui/catalog_cache.py`` against no cache.

    python tests/benchmarks/bench_yaml.py [--repeat 7] [--starts 5]

Prints medians and ratios measured in the same run:

* composing every bundled profile (the hardened checks on each event either way);
* ``Catalog.load`` of the bundled profiles (compose, validate, resolve inheritance);
* the catalog in a fresh process as the window's start-up gets it (Qt imported first, as in the app),
  from a warm cache file and from the YAML files: what the cache saves on every cold start.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from occupancy_gui.paths import data_dir  # noqa: E402
from occupancy_gui.profiles import Catalog, safe_yaml  # noqa: E402
from tests.benchmarks import publish  # noqa: E402

FRESH = """
import sys, time
sys.path.insert(0, {root!r})
start = time.perf_counter()
import occupancy_gui.ui  # Qt and pyqtgraph, as the window imports them before the catalog
from pathlib import Path
from occupancy_gui.paths import data_dir
from occupancy_gui.ui.support.catalog_cache import load_catalog
qt = time.perf_counter()
catalog = load_catalog(data_dir("device_profiles"), Path({user!r}), {cache})
done = time.perf_counter()
assert len(catalog.profiles) > 80 and not catalog.errors
print(qt - start, done - qt)
"""


def median_seconds(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def compose_all(texts: list[str], loader: type) -> None:
    for text in texts:
        safe_yaml.compose(text, loader)


def fresh_process(cache: Path | None, user: Path, starts: int) -> tuple[float, float]:
    """Median seconds to import Qt, and then to get the catalog, in new processes."""
    code = FRESH.format(root=str(ROOT), user=str(user), cache=f"Path({str(cache)!r})" if cache else "None")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)  # warm: bytecode, cache file
    qt, catalog = [], []
    for _ in range(starts):
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
        a, b = map(float, out.split())
        qt.append(a)
        catalog.append(b)
    return statistics.median(qt), statistics.median(catalog)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--starts", type=int, default=5)
    publish.add_flag(ap)
    args = ap.parse_args()
    bundled = data_dir("device_profiles")
    texts = [p.read_text(encoding="utf-8") for p in sorted(bundled.glob("*.yaml"))]
    print(
        f"{len(texts)} bundled profiles, libyaml {'present' if safe_yaml.HAVE_LIBYAML else 'ABSENT'}; "
        f"medians of {args.repeat} (in process) and {args.starts} (fresh processes); a noisy machine"
    )

    pure = median_seconds(lambda: compose_all(texts, safe_yaml.PurePythonLoader), args.repeat)
    fast = median_seconds(lambda: compose_all(texts, None), args.repeat)
    print(
        f"compose, pure-Python parser (before) {pure * 1000:7.1f} ms   libyaml events (now) {fast * 1000:7.1f} ms"
        f"   ratio {pure / fast:5.1f}x"
    )

    load_fast = median_seconds(lambda: Catalog.load([bundled]), args.repeat)
    original = safe_yaml._HardenedLoader
    safe_yaml._HardenedLoader = safe_yaml.PurePythonLoader  # type: ignore[misc]  # swapped for the measurement
    try:
        load_pure = median_seconds(lambda: Catalog.load([bundled]), args.repeat)
    finally:
        safe_yaml._HardenedLoader = original  # type: ignore[misc]  # and back
    print(
        f"Catalog.load, pure-Python (before)   {load_pure * 1000:7.1f} ms   libyaml events (now) "
        f"{load_fast * 1000:7.1f} ms   ratio {load_pure / load_fast:5.1f}x"
    )

    with tempfile.TemporaryDirectory() as tmp:
        user = Path(tmp) / "profiles"
        qt_a, cached = fresh_process(Path(tmp) / "device-catalog.json", user, args.starts)
        qt_b, uncached = fresh_process(None, user, args.starts)
    print(
        f"fresh process: Qt import {statistics.median([qt_a, qt_b]) * 1000:.0f} ms, then the catalog from the "
        f"cache {cached * 1000:.1f} ms, from YAML {uncached * 1000:.1f} ms: the cache saves "
        f"{(uncached - cached) * 1000:.1f} ms per cold start"
    )
    return 0


if __name__ == "__main__":
    sys.exit(publish.run(main, __file__))
