#include "cuda/cuda_util.h"

#include "calibration/measurement.h"

#include <utility>
#include <vector>

namespace iterscope::cuda {

void checkCuda(cudaError_t status, const char* call, const char* file, int line) {
    if (status == cudaSuccess)
        return;
    std::string what = std::string(call) + " failed: " + cudaGetErrorString(status) + " (" + file +
                       ":" + std::to_string(line) + ")";
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError(); // an allocation failure is not sticky; clear it and go on
        throw DeviceOutOfMemory(what);
    }
    throw CudaError(what);
}

DeviceBuffer::~DeviceBuffer() {
    release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_bytes(std::exchange(other.m_bytes, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
    }
    return *this;
}

void DeviceBuffer::release() {
    if (m_data)
        cudaFree(m_data);
    m_data = nullptr;
    m_bytes = 0;
}

void* DeviceBuffer::grow(std::size_t bytes) {
    if (bytes <= m_bytes && m_data)
        return m_data;
    release();
    // Round up so that a sequence of slightly growing requests does not reallocate often.
    const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + (1u << 20) - 1) & ~((1u << 20) - 1);
    ITERSCOPE_CUDA(cudaMalloc(&m_data, rounded));
    m_bytes = rounded;
    return m_data;
}

double timeMedianMs(const std::function<void()>& launch, cudaStream_t stream, int warmup,
                    int repetitions) {
    for (int i = 0; i < warmup; ++i)
        launch();
    cudaEvent_t start = nullptr, stop = nullptr;
    ITERSCOPE_CUDA(cudaEventCreate(&start));
    ITERSCOPE_CUDA(cudaEventCreate(&stop));
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(repetitions));
    try {
        for (int i = 0; i < repetitions; ++i) {
            ITERSCOPE_CUDA(cudaEventRecord(start, stream));
            launch();
            ITERSCOPE_CUDA(cudaEventRecord(stop, stream));
            ITERSCOPE_CUDA(cudaEventSynchronize(stop));
            float ms = 0;
            ITERSCOPE_CUDA(cudaEventElapsedTime(&ms, start, stop));
            times.push_back(ms);
        }
    } catch (...) {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        throw;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return medianOf(std::move(times));
}

} // namespace iterscope::cuda
