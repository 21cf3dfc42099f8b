// NCCL all-reduce over the visible GPUs of this process (one communicator per GPU,
// ncclCommInitAll), across message sizes, reported with nccl-tests' algbw and busbw.
#pragma once

#include "calibration/measurement.h"
#include "cuda/peaks.h"

#include <cstdint>

namespace iterscope::cuda {

struct AllreduceOptions {
    int gpus = 0;                           // 0: all visible
    int64_t min_bytes = 8;                  // rounded to whole floats
    int64_t max_bytes = int64_t{256} << 20; // doubled from min to max
    int warmup = 5;
    int repetitions = 20;
};

AllreduceRun measureAllreduce(const AllreduceOptions& options, const Progress& progress);

} // namespace iterscope::cuda
