// Fixture source: a device function with spills (built with -maxrregcount), a kernel with a
// required block size, and a cluster kernel for sm_90+.
#include <cuda_runtime.h>

struct Pair { int a; float b; };

__device__ __noinline__ float heavy(const float* v, int k)
{
    float acc[40];
#pragma unroll
    for (int j = 0; j < 40; ++j) acc[j] = v[j * k] * (j + 1);
    float s = 0.0f;
    for (int r = 0; r < 2; ++r) {
#pragma unroll
        for (int j = 0; j < 40; ++j) s += acc[(j + r) % 40] * acc[j];
    }
    return s;
}

__global__ void spill_kernel(const float* v, float* out, int k)
{
    out[threadIdx.x] = heavy(v + threadIdx.x, k);
}

__global__ void __launch_bounds__(128) local_array(Pair* p, int idx)
{
    int local[100];
    for (int j = 0; j < 100; ++j) local[j] = p[j].a * j;
    p[threadIdx.x].b = (float)local[idx % 100];
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CLUSTER __cluster_dims__(2, 1, 1)
#else
#define CLUSTER
#endif

__global__ void CLUSTER cluster_kernel(unsigned* out)
{
    __shared__ unsigned s[32];
    s[threadIdx.x & 31] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 3) & 31];
}
