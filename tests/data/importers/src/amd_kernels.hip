// The AMD fuzz seeds' kernels (tests/data/importers/regenerate_amd.sh): a plain one, one with static LDS,
// one with scratch and a launch bound.  Compiled with -nogpuinc: the prelude declares what clang needs.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, unsigned long shmem, hipStream_t s);

extern "C" __global__ void add(float *a, const float *b, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;
  if (i < n) a[i] += b[i];
}
template <int N> __global__ void lds(float *a) {
  __shared__ float buf[N];
  int t = __builtin_amdgcn_workitem_id_x();
  buf[t] = a[t];
  __builtin_amdgcn_s_barrier();
  a[t] = buf[(t + 1) % N];
}
template __global__ void lds<1024>(float *);
__global__ void __attribute__((amdgpu_flat_work_group_size(1, 128))) scratch(float *a, int k) {
  volatile float arr[64];
  for (int i = 0; i < 64; ++i) arr[i] = a[i];
  a[0] = arr[k];
}
