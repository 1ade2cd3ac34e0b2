// Asks the CUDA runtime the occupancy questions our engine answers, for a set of real kernels.
// Built and run by tests/gpu/check_runtime.py on a machine with an NVIDIA GPU; prints one JSON document.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); return 3; } } while (0)

__global__ void k_plain(float *out) { out[threadIdx.x] = threadIdx.x; }

__global__ void __launch_bounds__(256, 4) k_bounded(float *out, const float *in, int n) {
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += in[i] * in[(i * 7) % n];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Many live values: the register count is set per build with -maxrregcount or stays high.
__global__ void k_heavy(float *out, const float *in) {
    float v[48];
#pragma unroll
    for (int i = 0; i < 48; ++i) v[i] = in[threadIdx.x + i * 32];
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 48; ++i) s += v[i] * v[(i * 5) % 48];
    out[threadIdx.x] = s;
}

__global__ void k_static_smem(float *out) {
    __shared__ float tile[6144];  // 24 KiB
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x * 3) % blockDim.x];
}

__global__ void k_dynamic_smem(float *out) {
    extern __shared__ float dyn[];
    dyn[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}

__global__ void k_barriers(float *out) {
    __shared__ float t[1024];
    t[threadIdx.x] = threadIdx.x;
    asm volatile("bar.sync 1, %0;" :: "r"(blockDim.x));
    t[threadIdx.x] += 1.f;
    asm volatile("bar.sync 2, %0;" :: "r"(blockDim.x));
    t[threadIdx.x] *= 2.f;
    asm volatile("bar.sync 3, %0;" :: "r"(blockDim.x));
    out[threadIdx.x] = t[(threadIdx.x + 1) % blockDim.x];
}

struct Kernel { const char *name; const void *fn; bool optin; };

static int probe(const Kernel &k, int carveout, bool first) {
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, k.fn));
    int dev; cudaDeviceProp p;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    if (k.optin) {
        int maxdyn = (int)p.sharedMemPerBlockOptin - (int)a.sharedSizeBytes;
        CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, maxdyn));
        CHECK(cudaFuncGetAttributes(&a, k.fn));
    }
    CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    std::printf("%s{\"kernel\":\"%s\",\"carveout\":%d,\"attributes\":{\"numRegs\":%d,\"sharedSizeBytes\":%zu,"
                "\"maxThreadsPerBlock\":%d,\"maxDynamicSharedSizeBytes\":%d,\"localSizeBytes\":%zu,\"constSizeBytes\":%zu},",
                first ? "" : ",", k.name, carveout, a.numRegs, a.sharedSizeBytes, a.maxThreadsPerBlock,
                a.maxDynamicSharedSizeBytes, a.localSizeBytes, a.constSizeBytes);
    std::printf("\"occupancy\":[");
    const int blocks[] = {1, 32, 33, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1000, 1024};
    const int dyns[] = {0, 1, 4096, 12288, 40000, 49152, 65536, 100000, 160000, 200000, 230000};
    bool firstq = true;
    for (int b : blocks) for (int d : dyns) {
        if (b > a.maxThreadsPerBlock || d > a.maxDynamicSharedSizeBytes) continue;
        int n = -1;
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k.fn, b, (size_t)d);
        std::printf("%s[%d,%d,%d,%d]", firstq ? "" : ",", b, d, (int)e, n);
        firstq = false;
    }
    std::printf("],\"potential\":[");
    const int smems[] = {0, 8192, 40000};
    for (int i = 0; i < 3; ++i) {
        int grid = -1, block = -1;
        cudaError_t e = cudaOccupancyMaxPotentialBlockSize(&grid, &block, k.fn, (size_t)smems[i], 0);
        std::printf("%s[%d,%d,%d,%d]", i ? "," : "", smems[i], (int)e, grid, block);
    }
    std::printf("],\"available\":[");
    bool firsta = true;
    for (int b : {128, 256, 512}) for (int nb = 1; nb <= 4; ++nb) {
        size_t bytes = 0;
        cudaError_t e = cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, k.fn, nb, b);
        std::printf("%s[%d,%d,%d,%zu]", firsta ? "" : ",", b, nb, (int)e, bytes);
        firsta = false;
    }
    std::printf("]}");
    return 0;
}

int main() {
    int dev, driver, runtime;
    cudaDeviceProp p;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("{\"device\":{\"name\":\"%s\",\"major\":%d,\"minor\":%d,\"multiProcessorCount\":%d,\"warpSize\":%d,"
                "\"maxThreadsPerBlock\":%d,\"maxThreadsPerMultiProcessor\":%d,\"regsPerBlock\":%d,"
                "\"regsPerMultiprocessor\":%d,\"sharedMemPerBlock\":%zu,\"sharedMemPerMultiprocessor\":%zu,"
                "\"sharedMemPerBlockOptin\":%zu,\"reservedSharedMemPerBlock\":%zu,\"maxBlocksPerMultiProcessor\":%d,"
                "\"driver\":%d,\"runtime\":%d},\"kernels\":[",
                p.name, p.major, p.minor, p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock,
                p.maxThreadsPerMultiProcessor, p.regsPerBlock, p.regsPerMultiprocessor, p.sharedMemPerBlock,
                p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
                p.maxBlocksPerMultiProcessor, driver, runtime);
    const Kernel kernels[] = {
        {"k_plain", (const void *)k_plain, false},      {"k_bounded", (const void *)k_bounded, false},
        {"k_heavy", (const void *)k_heavy, false},      {"k_static_smem", (const void *)k_static_smem, false},
        {"k_dynamic_smem", (const void *)k_dynamic_smem, true}, {"k_barriers", (const void *)k_barriers, false},
    };
    bool first = true;
    for (int carveout : {-1, 0, 50, 100})
        for (const Kernel &k : kernels) {
            if (probe(k, carveout, first)) return 3;
            first = false;
        }
    std::printf("]}\n");
    return 0;
}
