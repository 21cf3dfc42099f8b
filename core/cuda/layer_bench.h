// Per-layer measurement of a network at a batch: each layer's forward and backward
// kernels run in isolation with cuDNN (convolution, batch norm, activation, pooling, LRN,
// softmax, element-wise) and cuBLAS (fully connected), warm-up then median of N.
#pragma once

#include "calibration/measurement.h"
#include "cuda/peaks.h"
#include "model/scenario.h"
#include "util/precision.h"

#include <cstdint>
#include <string>

namespace iterscope::cuda {

enum class AlgorithmSearch {
    Find,      // cudnnFind*AlgorithmEx: cuDNN runs the candidates and picks the fastest
    Heuristic, // cudnnGet*Algorithm_v7: cuDNN's heuristics, no trial runs
};

struct LayerBenchOptions {
    Precision precision = Precision::FP32;
    int64_t batch = 64;
    int warmup = 5;
    int repetitions = 20;
    int64_t workspace_limit_bytes = int64_t{1} << 30;
    AlgorithmSearch search = AlgorithmSearch::Find;
};

// Layers that cannot be measured (too large, an unsupported kind) are kept with
// measured=false and a note; the run goes on. Throws CudaError on a broken device.
NetworkRun measureNetwork(const AnalyzedNetwork& network, const std::string& network_name,
                          const LayerBenchOptions& options, const Progress& progress);

} // namespace iterscope::cuda
