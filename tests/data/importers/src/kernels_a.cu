// Fixture source for the importer tests: launch bounds, static shared memory, barriers.
#include <cuda_runtime.h>

namespace occ {

template <int N>
__global__ void __launch_bounds__(256, 2) tiled_sum(const float* __restrict__ in, float* out, int n)
{
    __shared__ float tile[N];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x % N] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = N / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

template __global__ void tiled_sum<128>(const float*, float*, int);
template __global__ void tiled_sum<512>(const float*, float*, int);

}  // namespace occ

__constant__ float coeffs[64];

// Named barriers: bar.sync with ids 1 and 2 on top of barrier 0.
__global__ void named_barriers(float* data)
{
    __shared__ double buf[64];
    buf[threadIdx.x & 63] = data[threadIdx.x] * coeffs[threadIdx.x & 63];
    asm volatile("bar.sync 1, 64;");
    if (threadIdx.x < 64) buf[threadIdx.x] += 1.0;
    asm volatile("bar.sync 2, 64;");
    __syncthreads();
    data[threadIdx.x] = (float)buf[(threadIdx.x + 1) & 63];
}

extern "C" __global__ void plain_c_kernel(int* p) { p[threadIdx.x] = threadIdx.x; }
