#include "network/network.h"

#include "util/error.h"

#include <string>
#include <unordered_set>

namespace iterscope {

const char* layerKindName(LayerKind kind) {
    switch (kind) {
    case LayerKind::Input:
        return "Input";
    case LayerKind::Convolution:
        return "Convolution";
    case LayerKind::Deconvolution:
        return "Deconvolution";
    case LayerKind::FullyConnected:
        return "FullyConnected";
    case LayerKind::BatchNorm:
        return "BatchNorm";
    case LayerKind::Scale:
        return "Scale";
    case LayerKind::Activation:
        return "Activation";
    case LayerKind::Pooling:
        return "Pooling";
    case LayerKind::GlobalPooling:
        return "GlobalPooling";
    case LayerKind::LRN:
        return "LRN";
    case LayerKind::Concat:
        return "Concat";
    case LayerKind::Eltwise:
        return "Eltwise";
    case LayerKind::Dropout:
        return "Dropout";
    case LayerKind::Flatten:
        return "Flatten";
    case LayerKind::Reshape:
        return "Reshape";
    case LayerKind::Transpose:
        return "Transpose";
    case LayerKind::Softmax:
        return "Softmax";
    case LayerKind::Pad:
        return "Pad";
    case LayerKind::MatMul:
        return "MatMul";
    case LayerKind::LayerNorm:
        return "LayerNorm";
    case LayerKind::Reduce:
        return "Reduce";
    case LayerKind::Slice:
        return "Slice";
    case LayerKind::Constant:
        return "Constant";
    case LayerKind::Expand:
        return "Expand";
    case LayerKind::Identity:
        return "Identity";
    }
    return "Unknown";
}

const char* activationKindName(ActivationKind kind) {
    switch (kind) {
    case ActivationKind::ReLU:
        return "ReLU";
    case ActivationKind::LeakyReLU:
        return "LeakyReLU";
    case ActivationKind::PReLU:
        return "PReLU";
    case ActivationKind::ReLU6:
        return "ReLU6";
    case ActivationKind::Clip:
        return "Clip";
    case ActivationKind::Sigmoid:
        return "Sigmoid";
    case ActivationKind::Tanh:
        return "Tanh";
    case ActivationKind::HardSigmoid:
        return "HardSigmoid";
    case ActivationKind::HardSwish:
        return "HardSwish";
    case ActivationKind::ELU:
        return "ELU";
    case ActivationKind::Swish:
        return "Swish";
    case ActivationKind::GELU:
        return "GELU";
    case ActivationKind::GELUTanh:
        return "GELUTanh";
    case ActivationKind::Erf:
        return "Erf";
    case ActivationKind::Sqrt:
        return "Sqrt";
    case ActivationKind::Exp:
        return "Exp";
    case ActivationKind::Log:
        return "Log";
    case ActivationKind::Abs:
        return "Abs";
    case ActivationKind::Neg:
        return "Neg";
    case ActivationKind::Reciprocal:
        return "Reciprocal";
    }
    return "Unknown";
}

const char* eltwiseKindName(EltwiseKind kind) {
    switch (kind) {
    case EltwiseKind::Add:
        return "Add";
    case EltwiseKind::Sub:
        return "Sub";
    case EltwiseKind::Mul:
        return "Mul";
    case EltwiseKind::Div:
        return "Div";
    case EltwiseKind::Max:
        return "Max";
    case EltwiseKind::Min:
        return "Min";
    case EltwiseKind::Pow:
        return "Pow";
    }
    return "Unknown";
}

const char* poolKindName(PoolKind kind) {
    return kind == PoolKind::Max ? "Max" : "Average";
}

const char* reduceKindName(ReduceKind kind) {
    switch (kind) {
    case ReduceKind::Mean:
        return "Mean";
    case ReduceKind::Max:
        return "Max";
    case ReduceKind::Min:
        return "Min";
    case ReduceKind::Sum:
        return "Sum";
    }
    return "Unknown";
}

const char* augmentationName(Augmentation a) {
    switch (a) {
    case Augmentation::Standard:
        return "standard";
    case Augmentation::AutoAugment:
        return "autoaugment";
    case Augmentation::RandAugment:
        return "randaugment";
    }
    return "standard";
}

std::optional<Augmentation> parseAugmentation(std::string_view s) {
    for (Augmentation a :
         {Augmentation::Standard, Augmentation::AutoAugment, Augmentation::RandAugment})
        if (s == augmentationName(a))
            return a;
    return std::nullopt;
}

const char* padModeName(PadMode mode) {
    switch (mode) {
    case PadMode::Explicit:
        return "explicit";
    case PadMode::SameUpper:
        return "same_upper";
    case PadMode::SameLower:
        return "same_lower";
    case PadMode::Valid:
        return "valid";
    }
    return "explicit";
}

namespace {
std::string window(int64_t kh, int64_t kw, int64_t sh, int64_t sw) {
    std::string s = std::to_string(kh) + "x" + std::to_string(kw);
    if (sh != 1 || sw != 1)
        s += "/" + (sh == sw ? std::to_string(sh) : std::to_string(sh) + "x" + std::to_string(sw));
    return s;
}
} // namespace

std::string layerTypeLabel(const Layer& layer) {
    switch (layer.kind) {
    case LayerKind::Convolution: {
        const ConvParams& c = layer.conv;
        std::string s = c.groups > 1 && c.groups == c.out_channels ? "DWConv " : "Conv ";
        s += window(c.kernel_h, c.kernel_w, c.stride_h, c.stride_w);
        if (c.groups > 1 && c.groups != c.out_channels)
            s += " g" + std::to_string(c.groups);
        if (c.dilation_h != 1 || c.dilation_w != 1)
            s += " d" + std::to_string(c.dilation_h);
        return s;
    }
    case LayerKind::Deconvolution:
        return "Deconv " + window(layer.conv.kernel_h, layer.conv.kernel_w, layer.conv.stride_h,
                                  layer.conv.stride_w);
    case LayerKind::Pooling:
        return std::string(layer.pool.kind == PoolKind::Max ? "MaxPool " : "AvgPool ") +
               window(layer.pool.kernel_h, layer.pool.kernel_w, layer.pool.stride_h,
                      layer.pool.stride_w);
    case LayerKind::GlobalPooling:
        return layer.pool.kind == PoolKind::Max ? "GlobalMaxPool" : "GlobalAvgPool";
    case LayerKind::Activation:
        return activationKindName(layer.activation.kind);
    case LayerKind::Eltwise:
        return eltwiseKindName(layer.eltwise.kind);
    case LayerKind::FullyConnected:
        return "Linear";
    case LayerKind::MatMul:
        return "MatMul";
    case LayerKind::Reduce:
        return std::string("Reduce") + reduceKindName(layer.reduce.kind);
    case LayerKind::Softmax:
        return "Softmax";
    case LayerKind::Constant:
        return layer.constant.params > 0 ? "Parameter" : "Constant";
    case LayerKind::Identity:
        return layer.source_op.empty() ? "Identity" : "Identity (" + layer.source_op + ")";
    default:
        return layerKindName(layer.kind);
    }
}

void validateTopology(const Network& net) {
    if (net.layers.empty() || net.layers.front().kind != LayerKind::Input)
        throw InputError("network '" + net.name + "': the first layer must be the Input");
    std::unordered_set<std::string> names;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& layer = net.layers[i];
        const std::string where = "layer '" + layer.name + "'";
        if (layer.name.empty())
            throw InputError("layer " + std::to_string(i) + ": has no name");
        if (!names.insert(layer.name).second)
            throw InputError(where + ": the name is used twice");
        if (i > 0 && layer.kind == LayerKind::Input)
            throw InputError(where + ": only one Input layer is supported");
        if (i > 0 && layer.inputs.empty() && layer.kind != LayerKind::Constant)
            throw InputError(where + ": has no input");
        for (std::size_t input : layer.inputs) {
            if (input >= i)
                throw InputError(where + ": refers to " +
                                 (input < net.layers.size()
                                      ? "layer '" + net.layers[input].name + "' that comes later"
                                      : "a layer that does not exist") +
                                 " (cycle or dangling input)");
        }
    }
}

} // namespace iterscope
