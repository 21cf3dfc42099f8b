// Memory per GPU (DESIGN.md "The model" 7): weights, gradients, optimizer state,
// activations kept for backward, cuDNN workspace and what the framework reserves.
#pragma once

#include "model/scenario.h"

#include <cstdint>

namespace iterscope {

struct MemoryEstimate {
    int64_t weights_bytes = 0;
    int64_t gradients_bytes = 0;
    int64_t optimizer_bytes = 0;
    int64_t activations_bytes = 0;
    int64_t workspace_bytes = 0;
    int64_t reserved_bytes = 0;
    int64_t total_bytes = 0;
    bool fits = true;
    int64_t max_batch_that_fits = 0; // 0 when not even one sample fits
};

MemoryEstimate estimateMemory(const Scenario& s);

} // namespace iterscope
