#include "trace/op_kinds.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace iterscope {

namespace {

using Entry = std::pair<std::string_view, OpKind>;

// Forward ATen operators (without "aten::"), as torch.profiler names them. Composite ops
// (conv2d) and what they call (cudnn_convolution) map alike: the outermost one names the
// layer, so its bias addition and layout transposes count with it.
constexpr std::array kForward{
    Entry{"conv1d", OpKind::Convolution},
    Entry{"conv2d", OpKind::Convolution},
    Entry{"conv3d", OpKind::Convolution},
    Entry{"convolution", OpKind::Convolution},
    Entry{"_convolution", OpKind::Convolution},
    Entry{"cudnn_convolution", OpKind::Convolution},
    Entry{"cudnn_convolution_relu", OpKind::Convolution},
    Entry{"cudnn_convolution_add_relu", OpKind::Convolution},
    Entry{"conv_transpose1d", OpKind::Convolution},
    Entry{"conv_transpose2d", OpKind::Convolution},
    Entry{"conv_transpose3d", OpKind::Convolution},
    Entry{"cudnn_convolution_transpose", OpKind::Convolution},
    Entry{"linear", OpKind::Linear},
    Entry{"addmm", OpKind::Linear},
    Entry{"mm", OpKind::Linear},
    Entry{"matmul", OpKind::MatMul},
    Entry{"bmm", OpKind::MatMul},
    Entry{"baddbmm", OpKind::MatMul},
    Entry{"einsum", OpKind::MatMul},
    Entry{"batch_norm", OpKind::BatchNorm},
    Entry{"_batch_norm_impl_index", OpKind::BatchNorm},
    Entry{"cudnn_batch_norm", OpKind::BatchNorm},
    Entry{"native_batch_norm", OpKind::BatchNorm},
    Entry{"_native_batch_norm_legit", OpKind::BatchNorm},
    Entry{"_native_batch_norm_legit_functional", OpKind::BatchNorm},
    Entry{"layer_norm", OpKind::LayerNorm},
    Entry{"native_layer_norm", OpKind::LayerNorm},
    Entry{"relu", OpKind::Activation},
    Entry{"relu_", OpKind::Activation},
    Entry{"relu6", OpKind::Activation},
    Entry{"gelu", OpKind::Activation},
    Entry{"gelu_", OpKind::Activation},
    Entry{"silu", OpKind::Activation},
    Entry{"silu_", OpKind::Activation},
    Entry{"sigmoid", OpKind::Activation},
    Entry{"sigmoid_", OpKind::Activation},
    Entry{"tanh", OpKind::Activation},
    Entry{"tanh_", OpKind::Activation},
    Entry{"hardswish", OpKind::Activation},
    Entry{"hardswish_", OpKind::Activation},
    Entry{"hardsigmoid", OpKind::Activation},
    Entry{"hardsigmoid_", OpKind::Activation},
    Entry{"hardtanh", OpKind::Activation},
    Entry{"hardtanh_", OpKind::Activation},
    Entry{"leaky_relu", OpKind::Activation},
    Entry{"leaky_relu_", OpKind::Activation},
    Entry{"elu", OpKind::Activation},
    Entry{"elu_", OpKind::Activation},
    Entry{"prelu", OpKind::Activation},
    Entry{"_prelu_kernel", OpKind::Activation},
    Entry{"mish", OpKind::Activation},
    Entry{"mish_", OpKind::Activation},
    Entry{"threshold", OpKind::Activation},
    Entry{"threshold_", OpKind::Activation},
    Entry{"add", OpKind::Eltwise},
    Entry{"add_", OpKind::Eltwise},
    Entry{"sub", OpKind::Eltwise},
    Entry{"sub_", OpKind::Eltwise},
    Entry{"mul", OpKind::Eltwise},
    Entry{"mul_", OpKind::Eltwise},
    Entry{"div", OpKind::Eltwise},
    Entry{"div_", OpKind::Eltwise},
    Entry{"maximum", OpKind::Eltwise},
    Entry{"minimum", OpKind::Eltwise},
    Entry{"pow", OpKind::Eltwise},
    Entry{"cat", OpKind::Concat},
    Entry{"_cat", OpKind::Concat},
    Entry{"concat", OpKind::Concat},
    Entry{"dropout", OpKind::Dropout},
    Entry{"dropout_", OpKind::Dropout},
    Entry{"native_dropout", OpKind::Dropout},
    Entry{"feature_dropout", OpKind::Dropout},
    Entry{"_fused_dropout", OpKind::Dropout},
    Entry{"softmax", OpKind::Softmax},
    Entry{"_softmax", OpKind::Softmax},
    Entry{"log_softmax", OpKind::Softmax},
    Entry{"_log_softmax", OpKind::Softmax},
    Entry{"constant_pad_nd", OpKind::Pad},
    Entry{"pad", OpKind::Pad},
    Entry{"reflection_pad2d", OpKind::Pad},
    Entry{"replication_pad2d", OpKind::Pad},
    Entry{"flatten", OpKind::Reshape},
    Entry{"view", OpKind::Reshape},
    Entry{"reshape", OpKind::Reshape},
    Entry{"_unsafe_view", OpKind::Reshape},
    Entry{"permute", OpKind::Reshape},
    Entry{"transpose", OpKind::Reshape},
    Entry{"t", OpKind::Reshape},
    Entry{"contiguous", OpKind::Reshape},
    Entry{"clone", OpKind::Reshape},
    Entry{"roll", OpKind::Reshape},
    Entry{"mean", OpKind::Reduce},
    Entry{"sum", OpKind::Reduce},
    Entry{"amax", OpKind::Reduce},
    Entry{"norm", OpKind::Reduce},
    Entry{"cross_entropy_loss", OpKind::Loss},
    Entry{"nll_loss", OpKind::Loss},
    Entry{"nll_loss_nd", OpKind::Loss},
    Entry{"nll_loss2d", OpKind::Loss},
    Entry{"mse_loss", OpKind::Loss},
    Entry{"l1_loss", OpKind::Loss},
    Entry{"smooth_l1_loss", OpKind::Loss},
    Entry{"binary_cross_entropy", OpKind::Loss},
    Entry{"binary_cross_entropy_with_logits", OpKind::Loss},
    Entry{"kl_div", OpKind::Loss},
    Entry{"copy_", OpKind::Copy},
    Entry{"to", OpKind::Copy},
    Entry{"_to_copy", OpKind::Copy},
    Entry{"zero_", OpKind::Copy},
    Entry{"fill_", OpKind::Copy},
    Entry{"zeros", OpKind::Copy},
    Entry{"ones", OpKind::Copy},
};

// Autograd nodes: "<Prefix>Backward<N>", the prefix naming the forward op.
constexpr std::array kBackward{
    Entry{"Convolution", OpKind::Convolution},
    Entry{"CudnnConvolution", OpKind::Convolution},
    Entry{"CudnnConvolutionTranspose", OpKind::Convolution},
    Entry{"SlowConv2D", OpKind::Convolution},
    Entry{"ThnnConv2D", OpKind::Convolution},
    Entry{"Addmm", OpKind::Linear},
    Entry{"Mm", OpKind::Linear},
    Entry{"Linear", OpKind::Linear},
    Entry{"Bmm", OpKind::MatMul},
    Entry{"Baddbmm", OpKind::MatMul},
    Entry{"CudnnBatchNorm", OpKind::BatchNorm},
    Entry{"NativeBatchNorm", OpKind::BatchNorm},
    Entry{"BatchNorm", OpKind::BatchNorm},
    Entry{"NativeLayerNorm", OpKind::LayerNorm},
    Entry{"Relu", OpKind::Activation},
    Entry{"Threshold", OpKind::Activation},
    Entry{"Gelu", OpKind::Activation},
    Entry{"Silu", OpKind::Activation},
    Entry{"Sigmoid", OpKind::Activation},
    Entry{"Tanh", OpKind::Activation},
    Entry{"Hardswish", OpKind::Activation},
    Entry{"Hardsigmoid", OpKind::Activation},
    Entry{"Hardtanh", OpKind::Activation},
    Entry{"LeakyRelu", OpKind::Activation},
    Entry{"Elu", OpKind::Activation},
    Entry{"Prelu", OpKind::Activation},
    Entry{"PreluKernel", OpKind::Activation},
    Entry{"Mish", OpKind::Activation},
    Entry{"MaxPool2DWithIndices", OpKind::Pooling},
    Entry{"MaxPool3DWithIndices", OpKind::Pooling},
    Entry{"MaxPool2D", OpKind::Pooling},
    Entry{"AvgPool2D", OpKind::Pooling},
    Entry{"AvgPool3D", OpKind::Pooling},
    Entry{"AdaptiveAvgPool2D", OpKind::Pooling},
    Entry{"AdaptiveMaxPool2D", OpKind::Pooling},
    Entry{"Add", OpKind::Eltwise},
    Entry{"Sub", OpKind::Eltwise},
    Entry{"Mul", OpKind::Eltwise},
    Entry{"Div", OpKind::Eltwise},
    Entry{"Pow", OpKind::Eltwise},
    Entry{"Cat", OpKind::Concat},
    Entry{"NativeDropout", OpKind::Dropout},
    Entry{"FusedDropout", OpKind::Dropout},
    Entry{"Softmax", OpKind::Softmax},
    Entry{"LogSoftmax", OpKind::Softmax},
    Entry{"ConstantPadNd", OpKind::Pad},
    Entry{"ReflectionPad2D", OpKind::Pad},
    Entry{"View", OpKind::Reshape},
    Entry{"Reshape", OpKind::Reshape},
    Entry{"ReshapeAlias", OpKind::Reshape},
    Entry{"UnsafeView", OpKind::Reshape},
    Entry{"Permute", OpKind::Reshape},
    Entry{"Transpose", OpKind::Reshape},
    Entry{"T", OpKind::Reshape},
    Entry{"Clone", OpKind::Reshape},
    Entry{"Roll", OpKind::Reshape},
    Entry{"Mean", OpKind::Reduce},
    Entry{"Sum", OpKind::Reduce},
    Entry{"NllLoss", OpKind::Loss},
    Entry{"NllLoss2D", OpKind::Loss},
    Entry{"MseLoss", OpKind::Loss},
    Entry{"L1Loss", OpKind::Loss},
    Entry{"SmoothL1Loss", OpKind::Loss},
    Entry{"BinaryCrossEntropy", OpKind::Loss},
    Entry{"BinaryCrossEntropyWithLogits", OpKind::Loss},
};

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

bool containsNoCase(std::string_view s, std::string_view needle) {
    return std::search(s.begin(), s.end(), needle.begin(), needle.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           }) != s.end();
}

template <std::size_t N> OpKind lookUp(const std::array<Entry, N>& table, std::string_view key) {
    for (const Entry& e : table)
        if (e.first == key)
            return e.second;
    return OpKind::Other;
}

} // namespace

const char* opKindName(OpKind kind) {
    switch (kind) {
    case OpKind::Convolution:
        return "conv";
    case OpKind::Linear:
        return "linear";
    case OpKind::MatMul:
        return "matmul";
    case OpKind::BatchNorm:
        return "batchnorm";
    case OpKind::LayerNorm:
        return "layernorm";
    case OpKind::Activation:
        return "activation";
    case OpKind::Pooling:
        return "pooling";
    case OpKind::Eltwise:
        return "eltwise";
    case OpKind::Concat:
        return "concat";
    case OpKind::Dropout:
        return "dropout";
    case OpKind::Softmax:
        return "softmax";
    case OpKind::Pad:
        return "pad";
    case OpKind::Reshape:
        return "reshape";
    case OpKind::Reduce:
        return "reduce";
    case OpKind::Loss:
        return "loss";
    case OpKind::Copy:
        return "copy";
    case OpKind::Other:
        return "other";
    }
    return "other";
}

const char* tracePassName(TracePass p) {
    switch (p) {
    case TracePass::Forward:
        return "forward";
    case TracePass::Backward:
        return "backward";
    case TracePass::Optimizer:
        return "optimizer";
    case TracePass::Communication:
        return "communication";
    case TracePass::Input:
        return "input";
    }
    return "forward";
}

OpKind opKindOfName(std::string_view name) {
    constexpr std::string_view kEngine = "autograd::engine::evaluate_function: ";
    if (startsWith(name, kEngine))
        name.remove_prefix(kEngine.size());
    if (startsWith(name, "aten::")) {
        name.remove_prefix(6);
        // Every pooling op says so: max_pool2d_with_indices, _adaptive_avg_pool2d, ...
        if (name.find("pool") != std::string_view::npos &&
            name.find("backward") == std::string_view::npos)
            return OpKind::Pooling;
        return lookUp(kForward, name);
    }
    // "ConvolutionBackward0", "MaxPool2DWithIndicesBackward0".
    const auto at = name.rfind("Backward");
    if (at != std::string_view::npos && at > 0) {
        const std::string_view tail = name.substr(at + 8);
        const bool digits = std::all_of(tail.begin(), tail.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        });
        if (digits)
            return lookUp(kBackward, name.substr(0, at));
    }
    return OpKind::Other;
}

bool isBackwardOpName(std::string_view name) {
    // The autograd engine's steps, the nodes themselves and the ATen backward kernels
    // (aten::convolution_backward) all say so.
    return containsNoCase(name, "backward") || startsWith(name, "autograd::engine") ||
           containsNoCase(name, "accumulategrad");
}

bool isOptimizerOpName(std::string_view name) {
    // torch.optim's profiling hooks name "Optimizer.step#SGD.step" and
    // "Optimizer.zero_grad#SGD.zero_grad"; fused and multi-tensor steps run _foreach_ ops.
    return startsWith(name, "Optimizer.") || startsWith(name, "aten::_foreach_") ||
           startsWith(name, "aten::_fused_adam") || startsWith(name, "aten::_fused_sgd") ||
           containsNoCase(name, "optimizer");
}

bool isCommunicationName(std::string_view name) {
    return containsNoCase(name, "nccl") || startsWith(name, "c10d::") ||
           startsWith(name, "record_param_comms") || containsNoCase(name, "all_reduce") ||
           containsNoCase(name, "allreduce");
}

OpKind opKindOfLayer(LayerKind kind) {
    switch (kind) {
    case LayerKind::Convolution:
    case LayerKind::Deconvolution:
        return OpKind::Convolution;
    case LayerKind::FullyConnected:
        return OpKind::Linear;
    case LayerKind::MatMul:
        return OpKind::MatMul;
    case LayerKind::BatchNorm:
        return OpKind::BatchNorm;
    case LayerKind::LayerNorm:
        return OpKind::LayerNorm;
    case LayerKind::Activation:
        return OpKind::Activation;
    case LayerKind::Pooling:
    case LayerKind::GlobalPooling:
        return OpKind::Pooling;
    case LayerKind::Eltwise:
    case LayerKind::Scale:
        return OpKind::Eltwise;
    case LayerKind::Concat:
        return OpKind::Concat;
    case LayerKind::Dropout:
        return OpKind::Dropout;
    case LayerKind::Softmax:
        return OpKind::Softmax;
    case LayerKind::Pad:
        return OpKind::Pad;
    case LayerKind::Flatten:
    case LayerKind::Reshape:
    case LayerKind::Transpose:
    case LayerKind::Slice:
    case LayerKind::Expand:
        return OpKind::Reshape;
    case LayerKind::Reduce:
        return OpKind::Reduce;
    case LayerKind::LRN:
    case LayerKind::Input:
    case LayerKind::Constant:
    case LayerKind::Identity:
        return OpKind::Other;
    }
    return OpKind::Other;
}

} // namespace iterscope
