#!/usr/bin/env bash
# Rebuilds the compiler-made importer fixtures from src/*.cu.
#
# Needs nvcc, ptxas, fatbinary and cuobjdump; the pinned pip wheels provide them without a GPU:
#   pip install nvidia-cuda-nvcc==13.5.37 nvidia-cuda-cuobjdump==13.5.37
# NVCC_BIN may point at a bin/ folder holding them; by default the wheels' folder of the running
# Python is used, then PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
py="${PYTHON:-python3}"
if [[ -z "${NVCC_BIN:-}" ]]; then
    NVCC_BIN="$("$py" -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "bin"))' 2>/dev/null || true)"
fi
if [[ -n "${NVCC_BIN}" && -x "${NVCC_BIN}/nvcc" ]]; then export PATH="${NVCC_BIN}:${PATH}"; fi
command -v nvcc >/dev/null || { echo "regenerate.sh: nvcc not found" >&2; exit 1; }
nvcc --version | tail -2

out=gen
rm -rf "$out" && mkdir -p "$out"
gencode() { for a in "$@"; do printf -- '-gencode arch=compute_%s,code=sm_%s ' "$a" "$a"; done; }
ARCHS_A="75 80 90 100 120"
ARCHS_B="75 90 120"

# 1. ptxas -v and --resource-usage logs (stderr of the real compiler).
nvcc -c -Xptxas -v $(gencode $ARCHS_A) -o /dev/null src/kernels_a.cu 2> "$out/a_ptxas_v.log"
nvcc -c --resource-usage -maxrregcount=32 $(gencode $ARCHS_B) -o /dev/null src/kernels_b.cu 2> "$out/b_resource_usage.log"
# -rdc build: ptxas per arch, then nvlink's final figures at device-link time.
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
{
    nvcc -c -rdc=true -Xptxas -v $(gencode 80 90) -o "$tmp/b_rdc.o" src/kernels_b.cu
    nvcc -dlink -Xnvlink -v $(gencode 80 90) -o "$tmp/dlink.o" "$tmp/b_rdc.o"
} 2> "$out/b_rdc_nvlink.log"

# 2. Binaries: one cubin per arch, a fatbin with SASS and PTX, a host object.
for a in 80 120; do nvcc -cubin -arch=sm_$a -o "$out/a_sm$a.cubin" src/kernels_a.cu; done
for a in 90; do nvcc -cubin -maxrregcount=32 -arch=sm_$a -o "$out/b_sm$a.cubin" src/kernels_b.cu; done
nvcc -fatbin $(gencode 80 90) -gencode arch=compute_90,code=compute_90 -o "$out/a.fatbin" src/kernels_a.cu
# zstd (the default -compress-all mode since CUDA 12.8) and LZ4 (CUDA 11.x-12.x, -compress-mode=speed).
nvcc -fatbin -Xfatbin -compress-all $(gencode 80 120) -o "$out/a_zstd.fatbin" src/kernels_a.cu
nvcc -fatbin -Xfatbin -compress-all -Xfatbin -compress-mode=speed $(gencode 80 90) -o "$out/a_lz4.fatbin" src/kernels_a.cu
nvcc -c -maxrregcount=32 $(gencode 75 120) -o "$out/b_host.o" src/kernels_b.cu

# 3. cuobjdump's view of the same binaries, for the cross-checks.
for f in "$out"/*.cubin "$out"/*.fatbin "$out"/*.o; do
    cuobjdump --dump-resource-usage "$f" > "$f.cuobjdump.txt"
done
ls -l "$out"
du -sh "$out"
