"""The AMD fixture matrix, compiled at test time with Debian 12's clang-19 (and hipcc 5.2's clang-15).

Targets x code object versions x wave32/wave64 x WGP/CU x pressure (LDS, scratch, AGPRs, spills, a dynamic
stack, a descriptor padded by ``amdgpu_waves_per_eu``) x plain/compressed bundles x object / static library
/ shared library.  Device code compiles without headers (``-nogpulib -nogpuinc``); host objects need the
launch and registration functions declared, which :data:`PRELUDE` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .reference import BUNDLER, CLANG, bundler_list, bundler_unbundle, extract_bundle

PRELUDE = """\
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, unsigned long shmem, hipStream_t s);
typedef float v16f __attribute__((ext_vector_type(16)));
"""

KERNELS = """\
extern "C" __global__ void PFX_add(float *a, const float *b, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;
  if (i < n) a[i] += b[i];
}
template <int N> __global__ void PFX_lds(float *a) {
  __shared__ float buf[N];
  int t = __builtin_amdgcn_workitem_id_x();
  buf[t] = a[t];
  __builtin_amdgcn_s_barrier();
  a[t] = buf[(t + 1) % N];
}
template __global__ void PFX_lds<1024>(float *);
template __global__ void PFX_lds<12288>(float *);
__global__ void __attribute__((amdgpu_flat_work_group_size(1, 128))) PFX_scratch(float *a, int k) {
  volatile float arr[200];
  for (int i = 0; i < 200; ++i) arr[i] = a[i];
  a[0] = arr[k];
}
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__)
extern "C" __global__ void PFX_mfma(const float *a, v16f *out, int n) {
  v16f acc0 = {0}, acc1 = {0}, acc2 = {0}, acc3 = {0};
  for (int i = 0; i < n; ++i) {
    float x = a[i], y = a[i + 1];
    acc0 = __builtin_amdgcn_mfma_f32_32x32x2f32(x, y, acc0, 0, 0, 0);
    acc1 = __builtin_amdgcn_mfma_f32_32x32x2f32(y, x, acc1, 0, 0, 0);
    acc2 = __builtin_amdgcn_mfma_f32_32x32x2f32(x, x, acc2, 0, 0, 0);
    acc3 = __builtin_amdgcn_mfma_f32_32x32x2f32(y, y, acc3, 0, 0, 0);
  }
  out[0] = acc0; out[1] = acc1; out[2] = acc2; out[3] = acc3;
}
#endif
extern "C" __global__ void __attribute__((amdgpu_waves_per_eu(4, 4))) PFX_padded(float *a) {
  a[__builtin_amdgcn_workitem_id_x()] *= 2.0f;
}
extern "C" __global__ void __attribute__((amdgpu_num_vgpr(24))) PFX_spill(float *a, int n) {
  float v[64];
  for (int i = 0; i < 64; ++i) v[i] = a[i * n];
  float s = 0;
  for (int j = 0; j < n; ++j) for (int i = 0; i < 64; ++i) s += v[i] * v[(i + j) & 63];
  a[0] = s;
}
__device__ int PFX_fact(int x) { return x <= 1 ? 1 : x * PFX_fact(x - 1); }
__device__ __attribute__((noinline)) int PFX_sq(int x) { return x * x + PFX_fact(x); }
__device__ __attribute__((noinline)) int PFX_cube(int x) { return x * x * x; }
typedef int (*PFX_fn)(int);
extern "C" __global__ void PFX_indirect(int *a, int k) { PFX_fn f = k ? PFX_sq : PFX_cube; a[0] = f(a[1]); }
"""

GFX9 = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942"]
RDNA = ["gfx1010", "gfx1030", "gfx1100", "gfx1200"]
DEVICE_CONFIGS: dict[str, tuple[list[str], list[str]]] = {
    "v4": (GFX9 + RDNA, ["-mcode-object-version=4"]),
    "v5": (GFX9 + RDNA, ["-mcode-object-version=5"]),
    "v6": (
        [
            "gfx942",
            "gfx1101",
            "gfx1151",
            "gfx1201",
            "gfx9-generic",
            "gfx10-1-generic",
            "gfx10-3-generic",
            "gfx11-generic",
        ],
        ["-mcode-object-version=6"],
    ),
    "wave64-cu": (["gfx1030", "gfx1100", "gfx1201"], ["-mwavefrontsize64", "-mcumode"]),
    "wave32-wgp": (["gfx1031", "gfx1102"], ["-mno-wavefrontsize64", "-mno-cumode"]),
    "features": (["gfx906:sramecc-:xnack+", "gfx90a:xnack+", "gfx942:sramecc+:xnack-", "gfx908:xnack-"], []),
}
"""Device-only bundles: config -> (--offload-arch values, extra flags)."""


@dataclass
class Bundle:
    """A bundle file and the code objects the reference bundler unpacked from it (entry id -> path)."""

    path: Path
    entries: dict[str, Path] = field(default_factory=dict)


def source(directory: Path, prefix: str) -> Path:
    path = directory / f"{prefix}.hip"
    path.write_text(PRELUDE + KERNELS.replace("PFX", prefix))
    return path


def compile_device_bundle(src: Path, out: Path, archs: list[str], flags: list[str]) -> None:
    cmd = [
        CLANG,
        "-x",
        "hip",
        *(f"--offload-arch={a}" for a in archs),
        "--cuda-device-only",
        "-nogpulib",
        "-nogpuinc",
        "-O3",
        "-c",
        str(src),
        "-o",
        str(out),
        "-Wno-unused-command-line-argument",
        *flags,
    ]
    _run(cmd, out.parent)


def compile_host(src: Path, out: Path, archs: list[str], flags: list[str] = ()) -> None:
    cmd = [
        CLANG,
        "-x",
        "hip",
        *(f"--offload-arch={a}" for a in archs),
        "-nogpulib",
        "-nogpuinc",
        "-O3",
        "-fPIC",
        "-c",
        str(src),
        "-o",
        str(out),
        *flags,
    ]
    _run(cmd, out.parent)


def unbundled(bundle: Path) -> Bundle:
    """The bundle's code objects, unpacked by the test's own reading of the documented layout and, for every
    entry ``clang-offload-bundler-19`` can unbundle, checked to be the bytes the bundler unpacks.  (For a
    generic target, ``gfx9-generic``, the bundler of LLVM 19 hands out the first generic entry whatever was
    asked: it does not know the names.)"""
    result = Bundle(bundle)
    data = bundle.read_bytes()
    listed = set(bundler_list(bundle))
    for entry, body in extract_bundle(data):
        if entry.startswith("host"):
            continue
        assert entry in listed, (entry, listed)
        target = bundle.parent / f"{bundle.stem}.{entry.rsplit('--', 1)[-1].replace(':', '_')}.co"
        target.write_bytes(body)
        if "generic" not in entry and (data[:4] != b"CCOB" or data[4:6] == b"\2\0"):
            check = bundler_unbundle(bundle, entry, target.with_suffix(".bundler.co"))
            assert check.read_bytes() == body, entry
        result.entries[entry] = target
    return result


def device_bundles(directory: Path) -> dict[str, Bundle]:
    """One device-only bundle per :data:`DEVICE_CONFIGS` entry, unbundled."""
    src = source(directory, "m")
    out = {}
    for name, (archs, flags) in DEVICE_CONFIGS.items():
        bundle = directory / f"{name}.hipfb"
        compile_device_bundle(src, bundle, archs, flags)
        out[name] = unbundled(bundle)
    return out


@dataclass
class HostSet:
    """Host objects (plain and compressed bundles), a static library and a shared library of them."""

    objects: dict[str, Path]
    archive: Path
    shared: Path


def host_set(directory: Path) -> HostSet:
    archs = ["gfx90a", "gfx942", "gfx1100"]
    objects = {}
    for prefix, flags in (("plain", []), ("packed", ["--offload-compress"])):
        src = source(directory, prefix)
        objects[prefix] = directory / f"{prefix}.o"
        compile_host(src, objects[prefix], archs, flags)
    archive = directory / "libboth.a"
    _run([shutil.which("llvm-ar-19") or "ar", "rcs", str(archive), *map(str, objects.values())], directory)
    shared = directory / "libboth.so"
    _run([CLANG, "-shared", "-fuse-ld=lld", "-o", str(shared), *map(str, objects.values())], directory)
    return HostSet(objects, archive, shared)


def _run(cmd: list[str], cwd: Path) -> None:
    env = dict(os.environ, HIP_PLATFORM="amd")
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")


__all__ = ["BUNDLER", "Bundle", "HostSet", "device_bundles", "host_set", "source"]
