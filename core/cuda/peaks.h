// Device facts and measured peaks: memory bandwidth, GEMM throughput per precision,
// kernel launch overhead.
#pragma once

#include "calibration/measurement.h"

#include <cstdint>
#include <functional>
#include <string>

namespace iterscope::cuda {

using Progress = std::function<void(const std::string&)>;

// The number of visible GPUs. Throws CudaError with one clear sentence when there is no
// GPU or no driver, which the calibrator prints before exiting 1.
int visibleGpuCount();

// Also makes `device` current.
DeviceFacts queryDevice(int device);

struct PeakOptions {
    int warmup = 3;
    int repetitions = 10;
    int64_t bandwidth_bytes = int64_t{1} << 30; // per buffer; capped by free memory
    int64_t gemm_size = 8192;                   // square GEMMs of this size and half of it
};

MeasuredPeaks measurePeaks(const DeviceFacts& device, const PeakOptions& options,
                           const Progress& progress);

} // namespace iterscope::cuda
