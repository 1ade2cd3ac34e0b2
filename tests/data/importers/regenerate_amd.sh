#!/usr/bin/env bash
# Rebuilds the AMD fuzz seeds (amd/) from src/amd_kernels.hip with Debian 12's clang-19 and lld-19
# (apt-get install clang-19 lld-19 llvm-19).  The AMD readers' exactness tests compile their own fixtures at
# test time (tests/importers/amd/build.py); these few KB only seed the fuzz targets (tests/fuzz), which run
# without a compiler.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
clang="${CLANG:-clang-19}"
out=amd
rm -rf "$out" && mkdir -p "$out"
flags=(-x hip -nogpulib -nogpuinc -O3 -c src/amd_kernels.hip)
# A code object v5 for gfx942 (wave64, AGPR count in its metadata) and a v6 one for gfx1100 (wave32, WGP).
"$clang" "${flags[@]}" --offload-arch=gfx942 --cuda-device-only --no-gpu-bundle-output -o "$out/gfx942.co"
"$clang" "${flags[@]}" --offload-arch=gfx1100 --cuda-device-only --no-gpu-bundle-output -mcode-object-version=6 \
    -o "$out/gfx1100.co"
# A host object whose .hip_fatbin holds a plain bundle of both targets.
"$clang" "${flags[@]}" --offload-arch=gfx942 --offload-arch=gfx1100 -fPIC -o "$out/host.o"
# The remarks of a two-target build and the gfx942 assembly (--save-temps), for the text targets.
"$clang" "${flags[@]}" --offload-arch=gfx942 --offload-arch=gfx1100 --cuda-device-only -o /dev/null \
    -Rpass-analysis=kernel-resource-usage 2> "$out/remarks.log"
tmp="$(mktemp -d)"
(cd "$tmp" && "$clang" "${flags[@]/src\/amd_kernels.hip/$here/src/amd_kernels.hip}" --offload-arch=gfx942 \
    --cuda-device-only --no-gpu-bundle-output --save-temps -o k.co)
cp "$tmp/amd_kernels-hip-amdgcn-amd-amdhsa-gfx942.s" "$out/gfx942.s"
rm -rf "$tmp"
ls -l "$out"
