// Memory per GPU (DESIGN.md "The model" 7): weights, gradients, optimizer state,
// activations kept for backward, cuDNN workspace and what the framework reserves.
#pragma once

#include "model/scenario.h"

#include <cstdint>
#include <vector>

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

// Memory per GPU under the scenario's parallel strategy: for a pipeline, of the stage that
// needs the most (docs/model.md "Parallel strategies").
MemoryEstimate estimateMemory(const Scenario& s);

// What the memory model reads of a network whatever the scenario, in elements per sample:
// worked out once with a layer-pass table rather than on every prediction.
struct NetworkMemoryFacts {
    double saved = 0;          // what forward keeps for backward, each tensor once
    double largest_output = 0; // the largest single output
    double workspace = 0;      // the largest convolution's im2col buffer
};
NetworkMemoryFacts networkMemoryFacts(const Network& net, const NetworkAnalysis& analysis);
// estimateMemory with the network's facts already at hand (a layer-pass table keeps them).
MemoryEstimate estimateMemory(const Scenario& s, const NetworkMemoryFacts& facts);

// What one GPU holds, as estimateMemory's strategies see it: model state in bytes (fixed),
// and bytes per sample of batch_per_gpu (activations kept for backward, the convolution
// workspace before the software's cap).
struct MemoryInputs {
    double weights = 0, gradients = 0, optimizer = 0;
    double transient = 0; // fixed buffers of a strategy: gathered parameters, buckets
    double activations_per_sample = 0;
    double workspace_per_sample = 0;
};
// The estimate from those inputs: totals, whether the batch fits, the largest that does.
MemoryEstimate memoryFor(const Scenario& s, const MemoryInputs& in);
// Data parallelism: every GPU holds the whole model and its own samples' activations.
MemoryInputs dataMemoryInputs(const Scenario& s, const NetworkMemoryFacts& facts);
// Elements per sample that forward keeps for backward, by the layer that keeps them (the
// first layer that saves a tensor, for a tensor several save): a pipeline stage holds the
// sum over its layers.
std::vector<double> savedElementsByLayer(const Network& net, const NetworkAnalysis& analysis);

} // namespace iterscope
