// Kernels for clang's CUDA mode without the CUDA headers (-nocudainc): the attributes and builtins
// clang itself provides, so any clang that targets NVPTX builds this with only ptxas and fatbinary.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
typedef unsigned long size_t;
struct dim3 { unsigned x, y, z; };
extern "C" int cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, void *);
extern "C" unsigned __cudaPushCallConfiguration(dim3, dim3, size_t = 0, void * = 0);

static __device__ int lane() { return __nvvm_read_ptx_sreg_tid_x(); }

__device__ __attribute__((noinline)) float mix(float a, float b) { return a * 0.75f + b * 0.25f; }

__global__ void tiled(float *out, const float *in, int n) {
  __shared__ float tile[512];
  int i = lane();
  tile[i] = in[i];
  __nvvm_bar_sync(0);
  if (i < n) out[i] = mix(tile[i], tile[511 - i]);
}

__global__ void __launch_bounds__(128, 4) bounded(double *x) { x[lane()] *= 2.0; }

__global__ void spread(float *x, int n) {
  float acc[24];
  for (int k = 0; k < 24; ++k) acc[k] = x[lane() + k * n];
  float s = 0.0f;
  for (int k = 0; k < 24; ++k) s += acc[k] * acc[(k + 5) % 24];
  x[lane()] = s;
}
