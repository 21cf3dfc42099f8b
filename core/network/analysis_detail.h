// Internal to the analysis: the per-layer count record and the helpers that analysis.cpp
// (image layers) and analysis_tensor.cpp (layers on tensors of any rank) share.
#pragma once

#include "network/network.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iterscope::analysis_detail {

struct Counted {
    Dims output;
    int64_t params = 0;
    int64_t macs = 0;
    int64_t fwd_flops = 0;
    int64_t bwd_data_flops = 0;
    int64_t bwd_weight_flops = 0;
    int64_t saved_elems = 0;
};

// Element count with overflow checks.
int64_t elements(const Dims& dims);

[[noreturn]] void fail(const Layer& layer, const std::string& problem);

// Numpy broadcasting of two shapes aligned at their last axes.
Dims broadcast(const Layer& layer, const Dims& a, const Dims& b);

// A per-sample axis in [-rank, rank) as an index; fails naming `what` otherwise.
std::size_t axisIndex(const Layer& layer, int64_t axis, std::size_t rank, const char* what);

// The kinds that work on tensors of any rank: FullyConnected over the last axis, MatMul,
// LayerNorm, Reduce, Slice, Constant, Expand, Softmax and Pad on any axes.
Counted countTensorLayer(const Layer& layer, const std::vector<const Dims*>& inputs);

} // namespace iterscope::analysis_detail
