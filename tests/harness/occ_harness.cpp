// Differential-test harness: answers occupancy queries with NVIDIA's cuda_occupancy.h.
//
// The header is NOT part of this repository: tests/harness/build.py compiles this file against the
// copy inside the pinned nvidia-cuda-runtime wheel.  Queries and answers are raw little-endian
// int64 records so that millions of them cost milliseconds to exchange.
//
//   occ_harness occ       DEVICE QUERIES OUT   records of 12 query fields -> 12 result fields
//   occ_harness potential DEVICE QUERIES OUT   cudaOccMaxPotentialOccupancyBlockSize
//   occ_harness avail     DEVICE QUERIES OUT   cudaOccAvailableDynamicSMemPerBlock
//
// DEVICE holds the 12 cudaOccDeviceProp fields in declaration order.  The elapsed time of the query
// loop alone is printed to stderr as "loop_ns N" (used by the benchmark).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_occupancy.h"

namespace {

std::vector<int64_t> read_all(const char *path) {
    std::vector<int64_t> data;
    FILE *f = std::fopen(path, "rb");
    if (!f) { std::perror(path); std::exit(3); }
    int64_t buf[4096];
    size_t n;
    while ((n = std::fread(buf, sizeof(int64_t), 4096, f)) > 0) data.insert(data.end(), buf, buf + n);
    std::fclose(f);
    return data;
}

void write_all(const char *path, const std::vector<int64_t> &data) {
    FILE *f = std::fopen(path, "wb");
    if (!f) { std::perror(path); std::exit(3); }
    std::fwrite(data.data(), sizeof(int64_t), data.size(), f);
    std::fclose(f);
}

cudaOccDeviceProp device_from(const std::vector<int64_t> &d) {
    if (d.size() != 12) { std::fprintf(stderr, "device file must hold 12 int64\n"); std::exit(3); }
    cudaOccDeviceProp p;
    p.computeMajor = (int)d[0];
    p.computeMinor = (int)d[1];
    p.maxThreadsPerBlock = (int)d[2];
    p.maxThreadsPerMultiprocessor = (int)d[3];
    p.regsPerBlock = (int)d[4];
    p.regsPerMultiprocessor = (int)d[5];
    p.warpSize = (int)d[6];
    p.sharedMemPerBlock = (size_t)d[7];
    p.sharedMemPerMultiprocessor = (size_t)d[8];
    p.numSms = (int)d[9];
    p.sharedMemPerBlockOptin = (size_t)d[10];
    p.reservedSharedMemPerBlock = (size_t)d[11];
    return p;
}

// Kernel-side fields shared by every mode: numRegs, sharedSizeBytes, maxThreadsPerBlock,
// partitionedGCConfig, shmemLimitConfig, maxDynamicSharedSizeBytes, numBlockBarriers,
// virtualResourceCount, cacheConfig, carveoutConfig.
constexpr int kKernelFields = 10;

void kernel_from(const int64_t *q, cudaOccFuncAttributes *a, cudaOccDeviceState *s) {
    a->numRegs = (int)q[0];
    a->sharedSizeBytes = (size_t)q[1];
    a->maxThreadsPerBlock = (int)q[2];
    a->partitionedGCConfig = (cudaOccPartitionedGCConfig)q[3];
    a->shmemLimitConfig = (cudaOccFuncShmemConfig)q[4];
    a->maxDynamicSharedSizeBytes = (size_t)q[5];
    a->numBlockBarriers = (int)q[6];
    a->virtualResourceCount = (int)q[7];
    s->cacheConfig = (cudaOccCacheConfig)q[8];
    s->carveoutConfig = (int)q[9];
}

// Dynamic shared memory as a function of block size, for the potential-block-size mode.
int64_t g_smem_const = 0, g_smem_per_thread = 0, g_smem_per_warp = 0;
size_t block_to_smem(int block) {
    return (size_t)(g_smem_const + g_smem_per_thread * block + g_smem_per_warp * ((block + 31) / 32));
}

long long elapsed_ns(std::chrono::steady_clock::time_point t0) {
    return (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 5) { std::fprintf(stderr, "usage: %s occ|potential|avail DEVICE QUERIES OUT\n", argv[0]); return 3; }
    const std::string mode = argv[1];
    cudaOccDeviceProp prop = device_from(read_all(argv[2]));
    std::vector<int64_t> q = read_all(argv[3]);
    std::vector<int64_t> out;
    cudaOccFuncAttributes attr;
    cudaOccDeviceState state;
    auto t0 = std::chrono::steady_clock::now();
    if (mode == "occ") {  // kernel fields, blockSize, dynamicSmem -> 12 result fields
        const size_t width = kKernelFields + 2, n = q.size() / width;
        out.resize(n * 12);
        for (size_t i = 0; i < n; ++i) {
            const int64_t *r = &q[i * width];
            kernel_from(r, &attr, &state);
            cudaOccResult res;
            std::memset(&res, 0, sizeof(res));
            int64_t *o = &out[i * 12];
            o[0] = cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, (int)r[10], (size_t)r[11]);
            o[1] = res.activeBlocksPerMultiprocessor;
            o[2] = res.limitingFactors;
            o[3] = res.blockLimitRegs;
            o[4] = res.blockLimitSharedMem;
            o[5] = res.blockLimitWarps;
            o[6] = res.blockLimitBlocks;
            o[7] = res.blockLimitBarriers;
            o[8] = res.blockLimitVirtual;
            o[9] = res.allocatedRegistersPerBlock;
            o[10] = (int64_t)res.allocatedSharedMemPerBlock;
            o[11] = res.partitionedGCConfig;
        }
    } else if (mode == "potential") {  // kernel fields, smem const, per thread, per warp -> status, minGrid, block
        const size_t width = kKernelFields + 3, n = q.size() / width;
        out.resize(n * 3);
        for (size_t i = 0; i < n; ++i) {
            const int64_t *r = &q[i * width];
            kernel_from(r, &attr, &state);
            g_smem_const = r[10];
            g_smem_per_thread = r[11];
            g_smem_per_warp = r[12];
            int min_grid = 0, block = 0;
            out[i * 3] = cudaOccMaxPotentialOccupancyBlockSize(&min_grid, &block, &prop, &attr, &state, block_to_smem, 0);
            out[i * 3 + 1] = min_grid;
            out[i * 3 + 2] = block;
        }
    } else if (mode == "avail") {  // kernel fields, numBlocks, blockSize -> status, bytes
        const size_t width = kKernelFields + 2, n = q.size() / width;
        out.resize(n * 2);
        for (size_t i = 0; i < n; ++i) {
            const int64_t *r = &q[i * width];
            kernel_from(r, &attr, &state);
            size_t bytes = 0;
            out[i * 2] = cudaOccAvailableDynamicSMemPerBlock(&bytes, &prop, &attr, &state, (int)r[10], (int)r[11]);
            out[i * 2 + 1] = (int64_t)bytes;
        }
    } else {
        std::fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 3;
    }
    std::fprintf(stderr, "loop_ns %lld\n", elapsed_ns(t0));
    write_all(argv[4], out);
    return 0;
}
