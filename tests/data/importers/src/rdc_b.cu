// -rdc fixture, unit B: the device function unit A calls (many registers, its own shared variable).
__shared__ float tile_b[256];

__device__ __noinline__ float far_work(const float* v, int k)
{
    float acc[24];
#pragma unroll
    for (int j = 0; j < 24; ++j) acc[j] = v[j * k] * (j + 1);
    float s = 0.0f;
    for (int r = 0; r < 3; ++r) {
#pragma unroll
        for (int j = 0; j < 24; ++j) s += acc[(j + r) % 24] * acc[j] * tile_b[(j + k) & 255];
    }
    tile_b[k & 255] = s;
    return s;
}

__global__ void rdc_b_kernel(float* out)
{
    tile_b[threadIdx.x & 255] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = tile_b[255 - (threadIdx.x & 255)];
}
