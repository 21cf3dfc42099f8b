#include "cuda/kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace iterscope::cuda {
namespace {

__device__ float hashToUnit(uint32_t x) {
    // One round of a 32-bit integer hash (lowbias32); plenty for benchmark data.
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return static_cast<float>(x) * (2.0f / 4294967296.0f) - 1.0f;
}

__global__ void fillKernel(void* data, std::size_t count, int type, uint32_t seed) {
    const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += stride) {
        const float v = hashToUnit(static_cast<uint32_t>(i) * 2654435761U + seed);
        if (type == 0)
            static_cast<float*>(data)[i] = v;
        else if (type == 1)
            static_cast<__half*>(data)[i] = __float2half(v);
        else
            static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16(v);
    }
}

__global__ void copyKernel(int4* __restrict__ out, const int4* __restrict__ in, std::size_t count) {
    const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += stride)
        out[i] = in[i];
}

__global__ void emptyKernel() {}

} // namespace

void launchFill(void* data, std::size_t count, FillType type, uint32_t seed, void* stream) {
    if (count == 0)
        return;
    const int threads = 256;
    const std::size_t wanted = (count + threads - 1) / threads;
    const int blocks = static_cast<int>(wanted < 65536 ? wanted : 65536);
    fillKernel<<<blocks, threads, 0, static_cast<cudaStream_t>(stream)>>>(
        data, count, static_cast<int>(type), seed);
}

void launchCopy(void* out, const void* in, std::size_t count16, int blocks, int threads,
                void* stream) {
    copyKernel<<<blocks, threads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<int4*>(out), static_cast<const int4*>(in), count16);
}

void launchEmpty(void* stream) {
    emptyKernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>();
}

} // namespace iterscope::cuda
