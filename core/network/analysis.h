// Network analysis: shape inference and per-layer cost counts.
//
// Counts are per sample so that one analysis serves every batch size; statsAt() scales
// them to a batch and an element size with overflow checks. The model reads the per-sample
// counts directly on its hot path.
#pragma once

#include "network/network.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iterscope {

struct LayerCost {
    Dims output;                  // per-sample output dims
    int64_t params = 0;           // trainable parameters (BN running statistics excluded)
    int64_t macs = 0;             // forward multiply-accumulates per sample, conv and fc only
    int64_t fwd_flops = 0;        // forward FLOPs per sample, every layer kind
    int64_t bwd_data_flops = 0;   // data-gradient FLOPs per sample; 0 when not needed
    int64_t bwd_weight_flops = 0; // weight-gradient FLOPs per sample
    int64_t input_elems = 0;      // per sample, summed over inputs
    int64_t output_elems = 0;     // per sample
    int64_t saved_elems = 0;      // per sample, kept from forward for backward
    // False when nothing trainable lies upstream (the first convolution, say): backward
    // then skips the data gradient.
    bool needs_data_grad = true;
};

struct NetworkAnalysis {
    std::vector<LayerCost> layers; // parallel to Network::layers
    int64_t total_params = 0;
    int64_t total_macs = 0; // per sample
    int64_t total_fwd_flops = 0;
    int64_t total_bwd_flops = 0;
};

// Infers shapes and counts costs. Throws InputError naming the layer on a shape that
// does not fit (channel mismatch, kernel larger than its input, a dimension reaching
// zero), on a bad topology and on 64-bit overflow.
NetworkAnalysis analyze(const Network& net);

// The per-sample output dims of one layer given its inputs' dims (none for a Constant), by
// the same rules as analyze(); importers infer shapes layer by layer with it. Throws
// InputError naming the layer when the inputs do not fit.
Dims layerOutputDims(const Layer& layer, const std::vector<const Dims*>& inputs);

// Per-layer figures at a batch and element size (4 for fp32, 2 for fp16).
struct LayerStats {
    int64_t params = 0;
    int64_t macs = 0;
    int64_t fwd_flops = 0;
    int64_t bwd_flops = 0;        // data + weight gradient
    int64_t activation_bytes = 0; // kept for backward
    int64_t gradient_bytes = 0;   // weight gradients produced by backward
    int64_t fwd_bytes_read = 0;
    int64_t fwd_bytes_written = 0;
    int64_t bwd_bytes_read = 0;
    int64_t bwd_bytes_written = 0;
};

// Throws InputError on overflow (batch 10^12, say).
LayerStats statsAt(const LayerCost& cost, int64_t batch, int64_t element_bytes);

// Sum of statsAt over all layers.
LayerStats totalsAt(const NetworkAnalysis& analysis, int64_t batch, int64_t element_bytes);

std::string formatDims(const Dims& dims); // "64x56x56"

} // namespace iterscope
