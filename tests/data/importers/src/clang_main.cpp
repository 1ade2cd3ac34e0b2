// The host side of the clang -fgpu-rdc program (the kernels are in clang_kernels.cu).
int main() { return 0; }
