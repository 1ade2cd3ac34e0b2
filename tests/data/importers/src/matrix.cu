// Fixture source of the toolkit matrix (tests/importers/test_toolkit_matrix.py): kernels whose
// figures differ in every way the binary reader reads, compiled at test time by every ptxas.
#include <cuda_runtime.h>

__global__ void empty_kernel() {}

__global__ void smem_256(float* out)
{
    __shared__ float buf[64];
    buf[threadIdx.x & 63] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x + 1) & 63];
}

__global__ void smem_1024(float* out)
{
    __shared__ float buf[256];
    buf[threadIdx.x & 255] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[255 - (threadIdx.x & 255)];
}

__global__ void __launch_bounds__(256, 2) smem_6000(double* out)
{
    __shared__ double a[500];
    __shared__ int b[500];
    a[threadIdx.x % 500] = threadIdx.x;
    b[(threadIdx.x * 7) % 500] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = a[(threadIdx.x + 3) % 500] + b[threadIdx.x % 500];
}

__global__ void named_barriers(float* out)
{
    asm volatile("bar.sync 3, 64;");
    out[threadIdx.x] = threadIdx.x;
}

__global__ void stack_frame(float* out, int idx)
{
    float local[48];  // indexed at run time: it lives in the stack frame
    for (int j = 0; j < 48; ++j) local[j] = out[j * idx];
    local[(idx * 5) % 48] += 1.0f;
    out[threadIdx.x] = local[idx % 48];
}

__device__ __noinline__ unsigned long long divide(unsigned long long a, unsigned long long b) { return a / b; }

__global__ void __launch_bounds__(128) calls_device_function(unsigned long long* v)
{
    v[threadIdx.x] = divide(v[0], v[threadIdx.x + 1]);
}

__global__ void many_registers(const double* in, double* out, int n)
{
    double acc[24];
#pragma unroll
    for (int j = 0; j < 24; ++j) acc[j] = in[j * n + threadIdx.x];
    double s = 0;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int j = 0; j < 24; ++j) s += acc[j] * acc[(j + r + 1) % 24];
    }
    out[threadIdx.x] = s;
}

// A register cap of its own (__maxnreg__, PTX .maxnreg): the image records it (EIATTR_MAXREG_COUNT).
__global__ void __maxnreg__(40) capped_registers(const double* in, double* out, int n)
{
    double acc[24];
#pragma unroll
    for (int j = 0; j < 24; ++j) acc[j] = in[j * n + threadIdx.x];
    double s = 0;
#pragma unroll
    for (int j = 0; j < 24; ++j) s += acc[j] * acc[(j + 5) % 24];
    out[threadIdx.x] = s;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// A compile-time thread block cluster (sm_90+; PTX .reqnctapercluster): EIATTR_CTA_PER_CLUSTER.
__global__ void __cluster_dims__(2, 1, 1) cluster_pair(float* out)
{
    __shared__ float tile[128];
    tile[threadIdx.x & 127] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) & 127];
}
#endif
