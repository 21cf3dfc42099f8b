// Error checks, device buffers and event timing shared by the calibrator's benchmarks.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

namespace iterscope::cuda {

// A failed CUDA, cuDNN, cuBLAS or NCCL call. Not an InputError: the user did nothing
// wrong; the calibrator reports it on one line and exits 1.
class CudaError : public std::runtime_error {
  public:
    explicit CudaError(const std::string& what)
        : std::runtime_error(what) {}
};

// Out of device memory for one benchmark: the caller skips that layer and goes on.
class DeviceOutOfMemory : public CudaError {
  public:
    using CudaError::CudaError;
};

void checkCuda(cudaError_t status, const char* call, const char* file, int line);

#define ITERSCOPE_CUDA(call) ::iterscope::cuda::checkCuda((call), #call, __FILE__, __LINE__)

// Device memory that frees itself; grow() keeps the larger of old and requested size, so
// one buffer serves a whole network's layers without reallocating each time.
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes) { grow(bytes); }
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

    void* grow(std::size_t bytes);
    void* get() const { return m_data; }
    std::size_t size() const { return m_bytes; }

  private:
    void release();
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
};

// Times one launch sequence with CUDA events: `warmup` untimed runs, then the median of
// `repetitions` timed ones, in milliseconds.
double timeMedianMs(const std::function<void()>& launch, cudaStream_t stream, int warmup,
                    int repetitions);

} // namespace iterscope::cuda
