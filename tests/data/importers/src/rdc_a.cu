// -rdc fixture, unit A: a kernel calling a device function of unit B, file-scope shared variables.
extern __device__ float far_work(const float* v, int k);
__shared__ float tile_a[128];
__shared__ int counts_a[256];

__global__ void rdc_caller(const float* v, float* out, int k)
{
    tile_a[threadIdx.x & 127] = v[threadIdx.x];
    counts_a[threadIdx.x & 255] = k;
    __syncthreads();
    out[threadIdx.x] = far_work(v + threadIdx.x, k) + tile_a[(threadIdx.x + 1) & 127] + counts_a[k & 255];
}

__global__ void rdc_local(float* out)
{
    __shared__ float mine[64];
    mine[threadIdx.x & 63] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = mine[(threadIdx.x + 5) & 63] + tile_a[threadIdx.x & 127];
}
