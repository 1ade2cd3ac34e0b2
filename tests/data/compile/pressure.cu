// Register pressure on purpose: N independent accumulators live across the loop, so a register cap
// below their count makes ptxas spill.  Used by the PTX/CUDA compile and register-cap sweep tests.
#define N 48

extern "C" __global__ void pressure(const float *in, float *out, int steps) {
    float acc[N];
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = in[threadIdx.x + i * blockDim.x];
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int i = 0; i < N; ++i) acc[i] = acc[i] * acc[(i + 7) % N] + in[s * N + i];
    }
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < N; ++i) sum += acc[i] * (float)(i + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

extern "C" __global__ void light(float *out) { out[threadIdx.x] = 1.0f; }
