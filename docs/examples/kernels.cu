// The quick start's kernels (README.md): a tiled transpose and a register-blocked matrix multiply.
#define TILE 32

__global__ void __launch_bounds__(256) transpose(float *out, const float *in, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// C = A * B (n x n, n a multiple of 128): a 128 x 128 tile per block of 256 threads, 8 x 8 per thread.
__global__ void sgemm(int n, const float *A, const float *B, float *C)
{
    __shared__ float As[8][128], Bs[8][128];
    float acc[8][8] = {};
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int k0 = 0; k0 < n; k0 += 8) {
        for (int i = threadIdx.x; i < 8 * 128; i += 256) {
            int r = i / 128, c = i % 128;
            As[r][c] = A[(blockIdx.y * 128 + c) * n + k0 + r];
            Bs[r][c] = B[(k0 + r) * n + blockIdx.x * 128 + c];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            float a[8], b[8];
#pragma unroll
            for (int i = 0; i < 8; ++i) { a[i] = As[k][ty * 8 + i]; b[i] = Bs[k][tx * 8 + i]; }
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            C[(blockIdx.y * 128 + ty * 8 + i) * n + blockIdx.x * 128 + tx * 8 + j] = acc[i][j];
}
