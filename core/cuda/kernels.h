// The few kernels the calibrator writes itself; everything else is cuDNN, cuBLAS or NCCL.
// Declared without CUDA headers so that plain C++ files can call them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iterscope::cuda {

enum class FillType { Float32, Float16, BFloat16 };

// Pseudo-random values in [-1, 1): zeros would understate tensor-core power draw and
// clock throttling, and NaNs could take slow paths.
void launchFill(void* data, std::size_t count, FillType type, uint32_t seed, void* stream);

// out[i] = in[i] over 16-byte vectors: the memory-bandwidth probe. count16 is the number
// of 16-byte elements.
void launchCopy(void* out, const void* in, std::size_t count16, int blocks, int threads,
                void* stream);

// An empty kernel: back-to-back launches measure the launch overhead.
void launchEmpty(void* stream);

} // namespace iterscope::cuda
