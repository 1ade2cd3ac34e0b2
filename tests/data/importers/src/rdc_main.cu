// -rdc fixture, host side: launches the kernel of unit A so that the device link keeps it.
__global__ void rdc_caller(const float* v, float* out, int k);
__global__ void rdc_local(float* out);
__global__ void rdc_b_kernel(float* out);

int main()
{
    rdc_caller<<<1, 128>>>(nullptr, nullptr, 1);
    rdc_local<<<1, 128>>>(nullptr);
    rdc_b_kernel<<<1, 256>>>(nullptr);
    return 0;
}
