// What a profiled op is, by its name alone: the kind of network layer it can stand for
// (aten::conv2d and ConvolutionBackward0 are both a convolution) and the pass it belongs
// to. Names are PyTorch's operator and autograd-node names, which are the same for every
// network and GPU; nothing here knows a particular model.
#pragma once

#include "network/network.h"

#include <cstdint>
#include <string_view>

namespace iterscope {

enum class OpKind : std::uint8_t {
    Convolution, // also transposed: autograd cannot tell them apart
    Linear,      // aten::linear, addmm, mm
    MatMul,      // products between activations: matmul, bmm
    BatchNorm,
    LayerNorm,
    Activation,
    Pooling, // windows and global (adaptive) pooling
    Eltwise,
    Concat,
    Dropout,
    Softmax,
    Pad,
    Reshape, // views and the copies that make them contiguous
    Reduce,
    Loss,
    Copy, // copies and fills that are no layer (the input copy, zeroing)
    Other,
};

enum class TracePass : std::uint8_t { Forward, Backward, Optimizer, Communication, Input };

const char* opKindName(OpKind kind);    // "conv", "linear", ... "other"
const char* tracePassName(TracePass p); // "forward", "backward", "optimizer", ...

// The kind an op name stands for; Other when it is none of them. "aten::" and the
// autograd engine's "evaluate_function: " prefix are looked through.
OpKind opKindOfName(std::string_view name);

// Whether the name is a step of the autograd engine, an optimizer's step or zeroing, or a
// collective's op; the pass of a kernel follows from the ops it was launched under.
bool isBackwardOpName(std::string_view name);
bool isOptimizerOpName(std::string_view name);
bool isCommunicationName(std::string_view name); // op or kernel name: nccl, c10d

// The kind a network layer is matched under; Other for layers no op stands for (inputs,
// constants, identities, LRN, which PyTorch composes of pooling and arithmetic).
OpKind opKindOfLayer(LayerKind kind);

} // namespace iterscope
