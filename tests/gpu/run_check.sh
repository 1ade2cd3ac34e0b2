#!/usr/bin/env bash
# Runs check_runtime.py on a GPU machine that cannot reach a package registry, in one go.
#
#   tests/gpu/run_check.sh fetch          # here, where pip works: wheels of the app's compiled
#                                         # dependencies for the GPU machine's Python into .whl/
#   tests/gpu/run_check.sh run [OUTDIR]   # there, from the checkout (with .whl/ beside it): install
#                                         # the wheels under /tmp/site, run check_runtime.py --save
#                                         # --triton --all, copy the log and the fixture to OUTDIR
#
# The GPU machine's python3 must already have numpy, pyyaml and (for --triton) triton; nvcc on PATH.
# Commit the fixture it writes under tests/data/gpu/: the suite replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY_VERSION="${PY_VERSION:-3.12}"
WHEELS=(platformdirs==4.3.8 zstandard==0.25.0 lz4==4.4.5 msgspec==0.22.0)  # pyproject.toml's pins

case "${1:-}" in
fetch)
    mkdir -p .whl
    for spec in "${WHEELS[@]}"; do
        python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PY_VERSION" --implementation cp \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
            -d .whl "$spec"
    done
    ls .whl
    ;;
run)
    out="${2:-${OUT:-/tmp/check_runtime}}"
    mkdir -p "$out"
    if compgen -G ".whl/*.whl" >/dev/null; then
        python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
        export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
    fi
    export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
    nvidia-smi -L || true
    status=0
    python3 tests/gpu/check_runtime.py --save --triton --all >"$out/check_runtime.txt" 2>&1 || status=$?
    grep -E "MISMATCH|comparisons|saved|check_runtime:" "$out/check_runtime.txt" | head -50 || true
    cp tests/data/gpu/*.json "$out/" 2>/dev/null || true
    echo "check_runtime exit status $status; log and fixture in $out"
    exit "$status"
    ;;
*)
    sed -n '2,10p' "$0"
    exit 2
    ;;
esac
