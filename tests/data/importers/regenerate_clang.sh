#!/usr/bin/env bash
# Rebuilds the clang-made importer fixtures (clang/) from src/clang_kernels.cu.
#
# Needs clang 18+ (Debian 12: apt-get install clang-22) and a CUDA toolkit folder with ptxas and
# fatbinary (the pinned nvidia-cuda-nvcc==13.5.37 wheel's nvidia/cu13), plus cuobjdump
# (nvidia-cuda-cuobjdump==13.5.37) and llvm-offload-binary for the cross-checks.
#   CLANG=clang++-22 CUDA_PATH=.../nvidia/cu13 CUOBJDUMP=.../cuobjdump OFFLOAD_BINARY=llvm-offload-binary-22
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
clang="${CLANG:-clang++-22}"
offload="${OFFLOAD_BINARY:-llvm-offload-binary-22}"
: "${CUDA_PATH:?CUDA_PATH must name a CUDA folder with bin/ptxas and bin/fatbinary}"
cuobjdump="${CUOBJDUMP:-cuobjdump}"
"$clang" --version | head -1
out=clang
rm -rf "$out" && mkdir -p "$out"
flags=(-x cuda --cuda-path="$CUDA_PATH" -nocudainc -nocudalib -Wno-unknown-cuda-version -O2
       --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90a)

# 1. Whole-program object: clang wraps the cubins with fatbinary into .nv_fatbin, as nvcc does.
"$clang" "${flags[@]}" -c src/clang_kernels.cu -o "$out/whole.o" -Xcuda-ptxas -v 2> "$out/whole.ptxas.log"
"$cuobjdump" --dump-resource-usage "$out/whole.o" > "$out/whole.o.cuobjdump.txt"
# 2. Relocatable (-fgpu-rdc, clang's offload driver): relocatable cubins in an LLVM offload binary
#    in .llvm.offloading, which cuobjdump does not read; the images LLVM's own tool extracts are kept
#    beside it, with cuobjdump's dump of each.
"$clang" "${flags[@]}" -fgpu-rdc -c src/clang_kernels.cu -o "$out/rdc.o" -Xcuda-ptxas -v 2> "$out/rdc.ptxas.log"
ar rcs "$out/librdc.a" "$out/rdc.o"
for arch in sm_80 sm_90a; do
    "$offload" "$out/rdc.o" --image=file="$out/rdc.o.$arch.cubin",triple=nvptx64-nvidia-cuda,arch=$arch
    "$cuobjdump" --dump-resource-usage "$out/rdc.o.$arch.cubin" > "$out/rdc.o.$arch.cuobjdump.txt"
done
# 2b. The -fgpu-rdc object linked into a program: clang's linker wrapper runs nvlink (the toolkit's, first
#     on PATH) and wraps the linked images with fatbinary into an ordinary .nv_fatbin.
PATH="$CUDA_PATH/bin:$PATH" "$clang" --cuda-path="$CUDA_PATH" -fgpu-rdc --offload-link -Wno-unknown-cuda-version \
    "$out/rdc.o" src/clang_main.cpp -o "$out/rdc_program" -L"$CUDA_PATH/lib" -l:libcudart.so.13
"$cuobjdump" --dump-resource-usage "$out/rdc_program" > "$out/rdc_program.cuobjdump.txt"
# 3. Link-time optimisation: LLVM bitcode, whose figures exist only after the device link.
"$clang" "${flags[@]}" -fgpu-rdc -foffload-lto -c src/clang_kernels.cu -o "$out/lto.o"
# 4. OpenMP target offload: the same offload binary, producer "openmp".
"${clang}" -fopenmp --offload-arch=sm_80 --cuda-path="$CUDA_PATH" -nogpulib -O2 -c src/clang_omp.cpp -o "$out/omp.o"
"$offload" "$out/omp.o" --image=file="$out/omp.o.sm_80.cubin",triple=nvptx64-nvidia-cuda,arch=sm_80
ls -l "$out"
