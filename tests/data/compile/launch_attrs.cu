// Kernels whose launch attributes ptxas -v does not print: the compile path reads them from the cubin.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256) paired(float *x) { x[threadIdx.x] += 1.0f; }
__global__ void __launch_bounds__(128, 4) bounded(float *x) { x[threadIdx.x] *= 2.0f; }
__global__ void __maxnreg__(32) capped(float *x) { x[threadIdx.x] -= 3.0f; }
__global__ void plain(float *x) {
  __shared__ float tile[64];
  tile[threadIdx.x % 64] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}
