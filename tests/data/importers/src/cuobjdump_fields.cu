// Kernels whose figures cuobjdump prints in each of its ways (tests/importers/test_cuobjdump_fields.py):
// a stack bounded only through calls (the kernel's own frame 0), a stack no bound exists for, ptxas's local
// copies of its division helpers, and device functions that keep a .text section of their own under -rdc.
#include <cstdio>

__device__ __noinline__ float wide(const float *p, int n) { float buf[16]; for (int i = 0; i < 16; i++) buf[i] = p[i] * i; return buf[n & 15]; }
__device__ __noinline__ float narrow(const float *p, int n) { float buf[4]; for (int i = 0; i < 4; i++) buf[i] = p[i] + i; return buf[n & 3]; }
typedef float (*pick_t)(const float *, int);
__device__ pick_t picks[2] = {wide, narrow};
__device__ __noinline__ int recurse(int n, const int *p) { return n <= 0 ? p[0] : recurse(n - 1, p) + p[n & 7]; }

// Indirect calls to known targets: the stack is the deepest target's (EIATTR_MIN_STACK_SIZE), the frame 0.
extern "C" __global__ void indirect_framed(float *p, int n) { p[0] = picks[n & 1](p, n); }
// Recursion: no bound (EIATTR_MIN_STACK_SIZE 0xffffffff, cuobjdump's STACK:UNKNOWN).
extern "C" __global__ void recursive(int *p, int n) { p[0] = recurse(n, p); }
// 64-bit division: ptxas's local copies of __cuda_sm20_div_u64 / rem_u64, which own no .text section.
extern "C" __global__ void u64_division(unsigned long long *p, unsigned long long d) { p[threadIdx.x] = p[threadIdx.x] % d + p[threadIdx.x + 1] / d; }
// A call to a function with a frame of its own.
extern "C" __global__ void calls_wide(float *p, int n) { p[1] = wide(p, n); }
extern "C" __global__ void prints(int *p) { printf("%d\n", p[0]); }
