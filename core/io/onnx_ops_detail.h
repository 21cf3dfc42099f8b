// Internal to the ONNX op handlers (onnx_ops.cpp, onnx_ops_tensor.cpp): small helpers both use.
#pragma once

#include "io/onnx_importer.h"

#include <string>
#include <vector>

namespace iterscope::onnx_import {

std::string dimsText(const Dims& d); // "a scalar" or "4x8x8"

int64_t elementsOf(Importer& im, const ConstTensor& t);

// Whether the batch is the ONNX tensor's own first axis (the layout of images).
inline bool batchFirst(const BatchLayout& b) {
    return !b.merged && b.axis == 0;
}
inline bool batchFirst(const Value& v) {
    return batchFirst(v.batch);
}

// The per-sample dims of constant `c` broadcast against activation x: the constant's axis
// that lines up with x's batch must be 1 (or the batch) and is dropped. Leading axes beyond
// x's rank stay.
Dims constantSampleDims(Importer& im, const Value& x, const ConstTensor& c,
                        const std::string& name);

// The ints of constant input `input`, or of attribute `attr` when the input is absent.
std::vector<int64_t> intsOf(Importer& im, int input, const char* attr);

// The layout several activations share when combined (element-wise, concatenated, multiplied):
// every one that places the batch must place it on the same ONNX axis counted from the end.
BatchLayout sharedLayout(Importer& im, const std::vector<const Value*>& values);

// The activations among the node's first `count` inputs (constants left out) and the layout
// they share; fails when none flows from the network input.
struct CombinedActivations {
    std::vector<Value> values;
    BatchLayout layout;
};
CombinedActivations combinedActivations(Importer& im, int count);

} // namespace iterscope::onnx_import
