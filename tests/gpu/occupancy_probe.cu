// Asks the CUDA runtime the occupancy questions our engine answers, for a set of real kernels.
// Built and run by tests/gpu/check_runtime.py on a machine with an NVIDIA GPU; prints one JSON document.
#include <cstdio>
#include <cstring>
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

// Thread block clusters (sm_90+): fixed at compile time, or chosen at launch.  check_runtime.py builds
// with -DNO_CLUSTERS for an older GPU, whose compiler refuses __cluster_dims__.
#ifndef NO_CLUSTERS
__global__ void __cluster_dims__(2, 1, 1) k_cluster2(float *out) {
    __shared__ float tile[4096];  // 16 KiB
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 5) % blockDim.x];
}

__global__ void k_cluster_at_launch(float *out) {
    extern __shared__ float dyn[];
    dyn[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = dyn[(threadIdx.x * 3) % blockDim.x];
}
#endif

// optin: raise the kernel's dynamic shared memory limit to the device's opt-in maximum first.
// clusters: also ask cudaOccupancyMaxActiveClusters (its compile-time cluster, or 2, 4 and 8 at launch).
// launch: the block size and dynamic shared memory the kernel's launcher uses (Triton's), asked too.
struct Kernel { const char *name; const void *fn; bool optin; bool clusters; int launch[2]; };

static void probe_clusters(const Kernel &k, const cudaFuncAttributes &a) {
    std::printf(",\"clusters\":[");
    bool first = true;
    const int fixed = a.requiredClusterWidth * a.requiredClusterHeight * a.requiredClusterDepth;
    for (int b : {64, 128, 256, 512, 1024}) for (int d : {0, 40000}) for (int cx : {2, 4, 8}) {
        if (b > a.maxThreadsPerBlock || d > a.maxDynamicSharedSizeBytes) continue;
        if (fixed > 0 && cx != 2) continue;  // a compile-time cluster takes no launch attribute
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        cfg.gridDim = dim3(8 * (fixed > 0 ? a.requiredClusterWidth : cx), 1, 1);
        cfg.blockDim = dim3(b, 1, 1);
        cfg.dynamicSmemBytes = (size_t)d;
        if (fixed == 0) {
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim.x = cx; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
            cfg.attrs = attr; cfg.numAttrs = 1;
        }
        int n = -1;
        cudaError_t e = cudaOccupancyMaxActiveClusters(&n, k.fn, &cfg);
        std::printf("%s[%d,%d,%d,%d,%d]", first ? "" : ",", b, d, fixed > 0 ? fixed : cx, (int)e, n);
        first = false;
    }
    std::printf("]");
    cudaGetLastError();  // a refused cluster query must not fail the next call
}

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
                "\"maxThreadsPerBlock\":%d,\"maxDynamicSharedSizeBytes\":%d,\"localSizeBytes\":%zu,\"constSizeBytes\":%zu,"
                "\"requiredClusterWidth\":%d,\"requiredClusterHeight\":%d,\"requiredClusterDepth\":%d,"
                "\"clusterDimMustBeSet\":%d,\"nonPortableClusterSizeAllowed\":%d},",
                first ? "" : ",", k.name, carveout, a.numRegs, a.sharedSizeBytes, a.maxThreadsPerBlock,
                a.maxDynamicSharedSizeBytes, a.localSizeBytes, a.constSizeBytes, a.requiredClusterWidth,
                a.requiredClusterHeight, a.requiredClusterDepth, a.clusterDimMustBeSet, a.nonPortableClusterSizeAllowed);
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
    if (k.launch[0] > 0) {
        int n = -1;
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k.fn, k.launch[0], (size_t)k.launch[1]);
        std::printf("%s[%d,%d,%d,%d]", firstq ? "" : ",", k.launch[0], k.launch[1], (int)e, n);
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
    std::printf("]");
    if (k.clusters && p.major >= 9) probe_clusters(k, a);
    std::printf("}");
    return 0;
}

// Arguments LABEL=CUBIN:KERNEL[@BLOCK,DYN] add kernels the runtime loads from cubin files (a Triton
// cache's, say), with the launch their launcher uses: cudaLibraryGetKernel's handle stands in for a
// kernel's address in every occupancy call.
static int load_library_kernels(int argc, char **argv, Kernel *out, int *count, bool *failed) {
    for (int i = 1; i < argc; ++i) {
        char *arg = argv[i], *eq = std::strchr(arg, '='), *colon = eq ? std::strrchr(eq, ':') : nullptr;
        if (!eq || !colon) { std::fprintf(stderr, "bad argument %s (LABEL=CUBIN:KERNEL[@BLOCK,DYN])\n", arg); return 2; }
        *eq = '\0'; *colon = '\0';
        int launch[2] = {0, 0};
        if (char *at = std::strchr(colon + 1, '@')) {
            *at = '\0';
            if (std::sscanf(at + 1, "%d,%d", &launch[0], &launch[1]) != 2) {
                std::fprintf(stderr, "bad launch in %s (@BLOCK,DYN)\n", arg); return 2;
            }
        }
        cudaLibrary_t lib; cudaKernel_t kern;
        cudaError_t e = cudaLibraryLoadFromFile(&lib, eq + 1, nullptr, nullptr, 0, nullptr, nullptr, 0);
        if (e == cudaSuccess) e = cudaLibraryGetKernel(&kern, lib, colon + 1);
        if (e != cudaSuccess) {  // reported, and the other kernels still probed
            std::fprintf(stderr, "%s: %s: %s\n", arg, eq + 1, cudaGetErrorString(e));
            cudaGetLastError();
            *failed = true;
            continue;
        }
        out[(*count)++] = {arg, (const void *)kern, true, true, {launch[0], launch[1]}};
    }
    return 0;
}

int main(int argc, char **argv) {
    int dev, driver, runtime;
    cudaDeviceProp p;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    Kernel kernels[64] = {
        {"k_plain", (const void *)k_plain, false, false, {0, 0}},      {"k_bounded", (const void *)k_bounded, false, false, {0, 0}},
        {"k_heavy", (const void *)k_heavy, false, false, {0, 0}},      {"k_static_smem", (const void *)k_static_smem, false, false, {0, 0}},
        {"k_dynamic_smem", (const void *)k_dynamic_smem, true, false, {0, 0}}, {"k_barriers", (const void *)k_barriers, false, false, {0, 0}},
    };
    int count = 6;
#ifndef NO_CLUSTERS
    kernels[count++] = {"k_cluster2", (const void *)k_cluster2, false, true, {0, 0}};
    kernels[count++] = {"k_cluster_at_launch", (const void *)k_cluster_at_launch, true, true, {0, 0}};
#endif
    bool failed = false;
    if (argc - 1 > 64 - count) { std::fprintf(stderr, "at most %d cubin kernels\n", 64 - count); return 2; }
    if (int rc = load_library_kernels(argc, argv, kernels + count, &count, &failed)) return rc;
    std::printf("{\"device\":{\"name\":\"%s\",\"major\":%d,\"minor\":%d,\"multiProcessorCount\":%d,\"warpSize\":%d,"
                "\"maxThreadsPerBlock\":%d,\"maxThreadsPerMultiProcessor\":%d,\"regsPerBlock\":%d,"
                "\"regsPerMultiprocessor\":%d,\"sharedMemPerBlock\":%zu,\"sharedMemPerMultiprocessor\":%zu,"
                "\"sharedMemPerBlockOptin\":%zu,\"reservedSharedMemPerBlock\":%zu,\"maxBlocksPerMultiProcessor\":%d,"
                "\"driver\":%d,\"runtime\":%d},\"kernels\":[",
                p.name, p.major, p.minor, p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock,
                p.maxThreadsPerMultiProcessor, p.regsPerBlock, p.regsPerMultiprocessor, p.sharedMemPerBlock,
                p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
                p.maxBlocksPerMultiProcessor, driver, runtime);
    bool first = true;
    for (int carveout : {-1, 0, 50, 100})
        for (int i = 0; i < count; ++i) {
            if (probe(kernels[i], carveout, first)) return 3;
            first = false;
        }
    std::printf("]}\n");
    return failed ? 4 : 0;
}
