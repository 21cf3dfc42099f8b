// The network intermediate representation: a DAG of layers in topological order.
//
// Every reader (zoo, JSON, ONNX, Caffe) produces a Network; every later stage (analysis,
// model, views) consumes it. Shapes here are per sample: the batch dimension is never
// stored, it is applied by the analysis, so one Network serves every batch size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iterscope {

// Per-sample tensor dimensions, e.g. {C, H, W} for an image, {F} after flattening, {T, D}
// for a sequence of T tokens of width D. Any rank; the batch is never one of them.
using Dims = std::vector<int64_t>;

enum class LayerKind {
    Input,
    Convolution,    // conv: groups, dilation, asymmetric and "same" padding
    Deconvolution,  // conv (transposed)
    FullyConnected, // fc: flattens its input, or (fc.flatten false) maps its last axis
    BatchNorm,      // bn.affine: whether scale and bias are trainable here
    Scale,          // Caffe Scale: per-channel gamma (and beta with scale.bias)
    Activation,     // activation
    Pooling,        // pool: max/avg windows
    GlobalPooling,  // pool.kind: max or avg over the whole spatial extent
    LRN,            // lrn
    Concat,         // concat.axis (per-sample axis, 0 = channels)
    Eltwise,        // eltwise: add/sub/mul/div/max of inputs with broadcasting
    Dropout,
    Flatten,
    Reshape,   // reshape.target: per-sample dims, may hold one -1 and 0 = copy
    Transpose, // transpose.perm: per-sample permutation
    Softmax,   // softmax.axis
    Pad,       // pad: spatial zero padding, or pad.begins/ends on any axes
    MatMul,    // matmul: batched product of its two inputs' last two axes (attention)
    LayerNorm, // layernorm: normalizes the trailing axes from layernorm.axis on
    Reduce,    // reduce: mean/max/min/sum over reduce.axes
    Slice,     // slice: a strided window of some axes
    Constant,  // constant: a tensor given to every sample (learned when constant.params > 0)
    Expand,    // expand.target: broadcasts its input to a larger shape
    Identity,  // also unknown ops imported as shape-preserving, zero cost
};

enum class PadMode { Explicit, SameUpper, SameLower, Valid };

struct ConvParams {
    int64_t out_channels = 0;
    int64_t kernel_h = 1, kernel_w = 1;
    int64_t stride_h = 1, stride_w = 1;
    int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
    int64_t dilation_h = 1, dilation_w = 1;
    int64_t groups = 1;
    // Deconvolution only: extra rows/columns added to one side of the output.
    int64_t output_pad_h = 0, output_pad_w = 0;
    PadMode pad_mode = PadMode::Explicit;
    bool bias = true;
    bool operator==(const ConvParams&) const = default;
};

enum class PoolKind { Max, Average };

struct PoolParams {
    PoolKind kind = PoolKind::Max;
    int64_t kernel_h = 1, kernel_w = 1;
    int64_t stride_h = 1, stride_w = 1;
    int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
    PadMode pad_mode = PadMode::Explicit;
    bool ceil_mode = false; // Caffe always rounds up; ONNX/PyTorch by attribute
    bool count_include_pad = false;
    bool operator==(const PoolParams&) const = default;
};

struct FcParams {
    int64_t out_features = 0;
    bool bias = true;
    // True: the input is flattened to one vector (a classifier). False: the layer maps the
    // last axis and keeps the others, as a Linear applied to every token does.
    bool flatten = true;
    bool operator==(const FcParams&) const = default;
};

struct BatchNormParams {
    bool affine = true; // false for Caffe's BatchNorm, whose Scale layer holds gamma/beta
    bool operator==(const BatchNormParams&) const = default;
};

struct ScaleParams {
    bool bias = true;
    bool operator==(const ScaleParams&) const = default;
};

enum class ActivationKind {
    ReLU,
    LeakyReLU,
    PReLU,
    ReLU6, // Clip(0, 6)
    Clip,
    Sigmoid,
    Tanh,
    HardSigmoid,
    HardSwish,
    ELU,
    Swish,    // x * sigmoid(x), also called SiLU
    GELU,     // x * Phi(x), the exact (erf) form
    GELUTanh, // GELU's tanh approximation
    Erf,
    Sqrt,
    Exp,
    Log,
    Abs,
    Neg,
    Reciprocal,
};

struct ActivationParams {
    ActivationKind kind = ActivationKind::ReLU;
    bool prelu_channel_shared = false; // PReLU: one slope, or one per channel
    bool operator==(const ActivationParams&) const = default;
};

struct LrnParams {
    int64_t size = 5;
    bool operator==(const LrnParams&) const = default;
};

struct ConcatParams {
    int64_t axis = 0; // per-sample axis: 0 is the channel axis of a CHW tensor
    bool operator==(const ConcatParams&) const = default;
};

enum class EltwiseKind { Add, Sub, Mul, Div, Max, Min, Pow };

struct EltwiseParams {
    EltwiseKind kind = EltwiseKind::Add;
    bool operator==(const EltwiseParams&) const = default;
};

struct ReshapeParams {
    Dims target; // per sample; -1 infers one dimension, 0 copies the input's
    bool operator==(const ReshapeParams&) const = default;
};

struct TransposeParams {
    std::vector<int64_t> perm; // per sample
    bool operator==(const TransposeParams&) const = default;
};

struct PadParams {
    int64_t top = 0, left = 0, bottom = 0, right = 0;
    // Padding of any per-sample axes, one entry per axis at each end; when set, these apply
    // and the four spatial fields (for a CxHxW input) do not.
    std::vector<int64_t> begins, ends;
    bool operator==(const PadParams&) const = default;
};

struct SoftmaxParams {
    int64_t axis = -1; // per-sample axis; negative counts from the end
    bool operator==(const SoftmaxParams&) const = default;
};

struct MatMulParams {
    // Whether each operand's last two axes are read transposed (Gemm's transA / transB).
    bool transpose_a = false, transpose_b = false;
    bool operator==(const MatMulParams&) const = default;
};

struct LayerNormParams {
    int64_t axis = -1; // first normalized per-sample axis; the block runs to the last axis
    bool scale = true; // a learned scale per normalized element
    bool bias = true;  // a learned shift per normalized element
    bool operator==(const LayerNormParams&) const = default;
};

enum class ReduceKind { Mean, Max, Min, Sum };

struct ReduceParams {
    ReduceKind kind = ReduceKind::Mean;
    std::vector<int64_t> axes; // per-sample axes, negative from the end
    bool keepdims = true;      // reduced axes stay as 1, or disappear
    bool operator==(const ReduceParams&) const = default;
};

struct SliceParams {
    // Per axis, ONNX Slice semantics on the per-sample shape: start and end are clamped to
    // the axis (negative ones count from its end), step may be negative.
    std::vector<int64_t> axes, starts, ends, steps;
    bool operator==(const SliceParams&) const = default;
};

struct ConstantParams {
    Dims dims;          // per sample: the same tensor is broadcast to every sample
    int64_t params = 0; // trainable elements behind it (a class token, a position table)
    bool operator==(const ConstantParams&) const = default;
};

struct ExpandParams {
    Dims target; // per sample, broadcast with the input's dims
    bool operator==(const ExpandParams&) const = default;
};

struct Layer {
    std::string name;
    LayerKind kind = LayerKind::Identity;
    std::vector<std::size_t> inputs; // indices of earlier layers in Network::layers
    // The original operator name for imported layers (e.g. "Conv", "InnerProduct", or the
    // unknown op that became an Identity); informational only.
    std::string source_op;

    ConvParams conv;
    PoolParams pool;
    FcParams fc;
    BatchNormParams bn;
    ScaleParams scale;
    ActivationParams activation;
    LrnParams lrn;
    ConcatParams concat;
    EltwiseParams eltwise;
    ReshapeParams reshape;
    TransposeParams transpose;
    PadParams pad;
    SoftmaxParams softmax;
    MatMulParams matmul;
    LayerNormParams layernorm;
    ReduceParams reduce;
    SliceParams slice;
    ConstantParams constant;
    ExpandParams expand;

    bool operator==(const Layer&) const = default;
};

// How a network's published training recipe augments each image on the host: the standard
// random crop and flip, or a learned policy of a few image operations more per image
// (AutoAugment: Cubuk et al. 2019, which EfficientNet B0-B7 train with, Tan and Le 2019;
// RandAugment: Cubuk et al. 2020, which EfficientNetV2 trains with, Tan and Le 2021).
enum class Augmentation { Standard, AutoAugment, RandAugment };
const char* augmentationName(Augmentation a); // "standard", "autoaugment", "randaugment"
std::optional<Augmentation> parseAugmentation(std::string_view s);

struct Network {
    std::string name;
    Dims input; // per-sample input dims, e.g. {3, 224, 224}
    Augmentation augmentation = Augmentation::Standard;
    // Topological order: layers[0] is the Input layer; every input index is smaller than
    // the index of the layer that uses it. validateTopology() checks this.
    std::vector<Layer> layers;
    bool operator==(const Network&) const = default;
};

const char* layerKindName(LayerKind kind);      // "Convolution", ...
const char* activationKindName(ActivationKind); // "ReLU", ...
const char* eltwiseKindName(EltwiseKind);       // "Add", ...
const char* poolKindName(PoolKind);             // "Max", "Average"
const char* reduceKindName(ReduceKind);         // "Mean", "Max", "Min", "Sum"
const char* padModeName(PadMode);               // "explicit", "same_upper", ...

// What a person calls the layer: "Conv2d 3x3/2", "ReLU", "MaxPool 3x3/2", "Add", "Linear".
std::string layerTypeLabel(const Layer& layer);

// Throws InputError when a layer refers to itself, a later layer or a missing one,
// when layers[0] is not the only Input, or when names repeat. Every layer but the Input and
// a Constant reads at least one earlier layer.
void validateTopology(const Network& net);

} // namespace iterscope
