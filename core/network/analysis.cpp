#include "network/analysis.h"

#include "network/analysis_detail.h"
#include "util/checked.h"
#include "util/error.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace iterscope {
namespace {

using namespace analysis_detail;

// FLOPs an element of an activation function: one for the piecewise-linear ones, about
// four for those that evaluate an exponential, erf or tanh.
int64_t activationFlops(ActivationKind kind) {
    switch (kind) {
    case ActivationKind::Sigmoid:
    case ActivationKind::Tanh:
    case ActivationKind::ELU:
    case ActivationKind::Swish:
    case ActivationKind::HardSwish:
    case ActivationKind::GELU:
    case ActivationKind::GELUTanh:
    case ActivationKind::Erf:
    case ActivationKind::Exp:
    case ActivationKind::Log:
    case ActivationKind::Sqrt:
        return 4;
    default:
        return 1;
    }
}

void requireRank(const Layer& layer, const Dims& in, std::size_t rank) {
    if (in.size() != rank)
        fail(layer, "expects a " + std::to_string(rank) + "-D per-sample input, got " +
                        (in.empty() ? std::string("a scalar") : formatDims(in)));
}

// One spatial axis of a convolution or pooling window. Returns the output size.
int64_t windowOutput(const Layer& layer, const char* axis, int64_t in, int64_t kernel,
                     int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end,
                     PadMode mode, bool ceil_mode) {
    if (kernel <= 0 || stride <= 0 || dilation <= 0)
        fail(layer, std::string("kernel, stride and dilation must be positive along ") + axis);
    if (pad_begin < 0 || pad_end < 0)
        fail(layer, std::string("negative padding along ") + axis);
    const int64_t extent = checkedAdd(checkedMul(dilation, kernel - 1, "kernel extent"), 1);
    int64_t out = 0;
    switch (mode) {
    case PadMode::SameUpper:
    case PadMode::SameLower:
        out = (in + stride - 1) / stride;
        break;
    case PadMode::Valid:
        if (extent > in)
            fail(layer, std::string("kernel ") + std::to_string(extent) +
                            " is larger than its input " + std::to_string(in) + " along " + axis);
        out = (in - extent) / stride + 1;
        break;
    case PadMode::Explicit: {
        const int64_t padded = checkedAdd(checkedAdd(in, pad_begin), pad_end, "padded size");
        // Rounding up lets a window overhang the padded input by less than a stride (a 3x3/2
        // ceil pool on a 2x2 map gives 1x1 in Caffe and PyTorch).
        if (extent > padded && !(ceil_mode && extent - padded < stride))
            fail(layer, std::string("kernel ") + std::to_string(extent) +
                            " is larger than its padded input " + std::to_string(padded) +
                            " along " + axis);
        const int64_t span = padded - extent;
        out = (ceil_mode ? (span + stride - 1 >= 0 ? (span + stride - 1) / stride : 0)
                         : span / stride) +
              1;
        // The last window must start inside the input or its leading padding (Caffe and
        // PyTorch drop it otherwise).
        if (ceil_mode && (out - 1) * stride >= in + pad_begin)
            --out;
        break;
    }
    }
    if (out <= 0)
        fail(layer, std::string("output size reaches zero along ") + axis);
    return out;
}

Counted countConvolution(const Layer& layer, const Dims& in) {
    requireRank(layer, in, 3);
    const ConvParams& p = layer.conv;
    if (p.out_channels <= 0)
        fail(layer, "output channels must be positive");
    if (p.groups <= 0 || in[0] % p.groups != 0 || p.out_channels % p.groups != 0)
        fail(layer, "groups " + std::to_string(p.groups) + " must divide input channels " +
                        std::to_string(in[0]) + " and output channels " +
                        std::to_string(p.out_channels));
    Counted c;
    const int64_t window = checkedMul(p.kernel_h, p.kernel_w, "kernel size");
    if (layer.kind == LayerKind::Convolution) {
        const int64_t ho = windowOutput(layer, "height", in[1], p.kernel_h, p.stride_h,
                                        p.dilation_h, p.pad_top, p.pad_bottom, p.pad_mode, false);
        const int64_t wo = windowOutput(layer, "width", in[2], p.kernel_w, p.stride_w, p.dilation_w,
                                        p.pad_left, p.pad_right, p.pad_mode, false);
        c.output = {p.out_channels, ho, wo};
        const int64_t per_output = checkedMul(in[0] / p.groups, window, "kernel size");
        c.params = checkedMul(p.out_channels, per_output, "parameter count");
        c.macs = checkedMul(elements(c.output), per_output, "MAC count");
    } else {
        if (p.kernel_h <= 0 || p.kernel_w <= 0 || p.stride_h <= 0 || p.stride_w <= 0 ||
            p.dilation_h <= 0 || p.dilation_w <= 0)
            fail(layer, "kernel, stride and dilation must be positive");
        auto axis = [&](int64_t n, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                        int64_t op) {
            const int64_t out = checkedAdd(checkedMul(n - 1, s, "output size"),
                                           checkedMul(d, k - 1, "kernel extent") + 1 + op) -
                                pb - pe;
            if (out <= 0)
                fail(layer, "output size reaches zero");
            return out;
        };
        int64_t ho = 0, wo = 0;
        if (p.pad_mode == PadMode::SameUpper || p.pad_mode == PadMode::SameLower) {
            ho = checkedMul(in[1], p.stride_h, "output size");
            wo = checkedMul(in[2], p.stride_w, "output size");
        } else {
            ho = axis(in[1], p.kernel_h, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom,
                      p.output_pad_h);
            wo = axis(in[2], p.kernel_w, p.stride_w, p.dilation_w, p.pad_left, p.pad_right,
                      p.output_pad_w);
        }
        c.output = {p.out_channels, ho, wo};
        const int64_t per_input = checkedMul(p.out_channels / p.groups, window, "kernel size");
        c.params = checkedMul(in[0], per_input, "parameter count");
        c.macs = checkedMul(elements(in), per_input, "MAC count");
    }
    const int64_t out_elems = elements(c.output);
    if (p.bias)
        c.params = checkedAdd(c.params, p.out_channels, "parameter count");
    c.fwd_flops = checkedAdd(checkedMul(2, c.macs, "FLOP count"), p.bias ? out_elems : 0);
    c.bwd_data_flops = checkedMul(2, c.macs, "FLOP count");
    c.bwd_weight_flops = checkedAdd(checkedMul(2, c.macs, "FLOP count"), p.bias ? out_elems : 0);
    c.saved_elems = elements(in);
    return c;
}

Counted countPooling(const Layer& layer, const Dims& in) {
    requireRank(layer, in, 3);
    const PoolParams& p = layer.pool;
    Counted c;
    const int64_t ho = windowOutput(layer, "height", in[1], p.kernel_h, p.stride_h, 1, p.pad_top,
                                    p.pad_bottom, p.pad_mode, p.ceil_mode);
    const int64_t wo = windowOutput(layer, "width", in[2], p.kernel_w, p.stride_w, 1, p.pad_left,
                                    p.pad_right, p.pad_mode, p.ceil_mode);
    c.output = {in[0], ho, wo};
    const int64_t out_elems = elements(c.output);
    c.fwd_flops = checkedMul(out_elems, checkedMul(p.kernel_h, p.kernel_w), "FLOP count");
    c.bwd_data_flops = checkedAdd(elements(in), out_elems);
    // Max pooling keeps its input (or an index map) and output; average needs neither.
    c.saved_elems = p.kind == PoolKind::Max ? checkedAdd(elements(in), out_elems) : 0;
    return c;
}

Counted countLayer(const Layer& layer, const std::vector<const Dims*>& inputs,
                   const Dims& network_input) {
    if (layer.kind == LayerKind::Input) {
        Counted c;
        c.output = network_input;
        return c;
    }
    if (layer.kind == LayerKind::Constant)
        return countTensorLayer(layer, inputs);
    const Dims& in = *inputs.front();
    const int64_t in_elems = elements(in);
    Counted c;
    switch (layer.kind) {
    case LayerKind::Input:
        break;
    case LayerKind::Convolution:
    case LayerKind::Deconvolution:
        return countConvolution(layer, in);
    case LayerKind::FullyConnected: {
        if (!layer.fc.flatten)
            return countTensorLayer(layer, inputs);
        if (layer.fc.out_features <= 0)
            fail(layer, "output features must be positive");
        c.output = {layer.fc.out_features};
        c.macs = checkedMul(in_elems, layer.fc.out_features, "MAC count");
        c.params = checkedAdd(c.macs, layer.fc.bias ? layer.fc.out_features : 0);
        c.fwd_flops = checkedMul(2, c.macs, "FLOP count");
        c.bwd_data_flops = c.fwd_flops;
        c.bwd_weight_flops = c.fwd_flops;
        c.saved_elems = in_elems;
        return c;
    }
    case LayerKind::BatchNorm:
    case LayerKind::Scale: {
        if (in.empty())
            fail(layer, "needs a channel dimension");
        c.output = in;
        const bool trainable = layer.kind == LayerKind::BatchNorm ? layer.bn.affine : true;
        const int64_t per_channel =
            layer.kind == LayerKind::Scale ? (layer.scale.bias ? 2 : 1) : (trainable ? 2 : 0);
        c.params = checkedMul(per_channel, in[0], "parameter count");
        // Training-mode batch norm: statistics, then normalize and scale (about 4 FLOPs an
        // element each way); Scale is one multiply-add.
        const int64_t flops_per_elem = layer.kind == LayerKind::BatchNorm ? 4 : 2;
        c.fwd_flops = checkedMul(flops_per_elem, in_elems, "FLOP count");
        c.bwd_data_flops = checkedMul(flops_per_elem, in_elems, "FLOP count");
        c.bwd_weight_flops = c.params > 0 ? checkedMul(2, in_elems, "FLOP count") : 0;
        c.saved_elems = in_elems;
        return c;
    }
    case LayerKind::Activation: {
        c.output = in;
        if (layer.activation.kind == ActivationKind::PReLU)
            c.params = layer.activation.prelu_channel_shared || in.empty() ? 1 : in[0];
        c.fwd_flops = checkedMul(activationFlops(layer.activation.kind), in_elems, "FLOP count");
        c.bwd_data_flops = c.fwd_flops;
        c.bwd_weight_flops = c.params > 0 ? checkedMul(2, in_elems, "FLOP count") : 0;
        c.saved_elems = in_elems;
        return c;
    }
    case LayerKind::Pooling:
        return countPooling(layer, in);
    case LayerKind::GlobalPooling: {
        requireRank(layer, in, 3);
        c.output = {in[0], 1, 1};
        c.fwd_flops = in_elems;
        c.bwd_data_flops = in_elems;
        c.saved_elems = layer.pool.kind == PoolKind::Max ? in_elems : 0;
        return c;
    }
    case LayerKind::LRN: {
        if (layer.lrn.size <= 0)
            fail(layer, "LRN size must be positive");
        c.output = in;
        c.fwd_flops = checkedMul(in_elems, checkedAdd(layer.lrn.size, 4), "FLOP count");
        c.bwd_data_flops = checkedMul(2, c.fwd_flops, "FLOP count");
        c.saved_elems = checkedMul(2, in_elems);
        return c;
    }
    case LayerKind::Concat: {
        const int64_t axis = layer.concat.axis;
        if (axis < 0 || axis >= static_cast<int64_t>(in.size()))
            fail(layer, "concat axis " + std::to_string(axis) + " is outside the input's " +
                            std::to_string(in.size()) + " dimensions");
        c.output = in;
        c.output[static_cast<std::size_t>(axis)] = 0;
        for (const Dims* other : inputs) {
            if (other->size() != in.size())
                fail(layer,
                     "inputs " + formatDims(in) + " and " + formatDims(*other) + " differ in rank");
            for (std::size_t d = 0; d < in.size(); ++d) {
                if (static_cast<int64_t>(d) != axis && (*other)[d] != in[d])
                    fail(layer, "inputs " + formatDims(in) + " and " + formatDims(*other) +
                                    " differ outside the concat axis");
            }
            c.output[static_cast<std::size_t>(axis)] =
                checkedAdd(c.output[static_cast<std::size_t>(axis)],
                           (*other)[static_cast<std::size_t>(axis)], "concat size");
        }
        return c; // a copy; no arithmetic
    }
    case LayerKind::Eltwise: {
        c.output = in;
        for (std::size_t i = 1; i < inputs.size(); ++i)
            c.output = broadcast(layer, c.output, *inputs[i]);
        const int64_t out_elems = elements(c.output);
        const int64_t ops = std::max<int64_t>(1, static_cast<int64_t>(inputs.size()) - 1);
        c.fwd_flops = checkedMul(ops, out_elems, "FLOP count");
        c.bwd_data_flops =
            layer.eltwise.kind == EltwiseKind::Add || layer.eltwise.kind == EltwiseKind::Sub
                ? 0 // gradients pass through unchanged
                : checkedMul(2, c.fwd_flops, "FLOP count");
        // Products, quotients, extrema and powers keep their inputs for backward: each at its
        // own size (an SE gate's Cx1x1, not the map it scales).
        if (c.bwd_data_flops > 0)
            for (const Dims* d : inputs)
                c.saved_elems = checkedAdd(c.saved_elems, elements(*d), "activation size");
        return c;
    }
    case LayerKind::Dropout:
        c.output = in;
        c.fwd_flops = in_elems;
        c.bwd_data_flops = in_elems;
        c.saved_elems = in_elems; // the mask
        return c;
    case LayerKind::Flatten:
        c.output = {in_elems};
        return c;
    case LayerKind::Reshape: {
        Dims out = layer.reshape.target;
        int64_t known = 1;
        int infer = -1;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out[i] == 0) {
                if (i >= in.size())
                    fail(layer, "target dimension " + std::to_string(i) +
                                    " copies an input dimension that does not exist");
                out[i] = in[i];
            }
            if (out[i] == -1) {
                if (infer >= 0)
                    fail(layer, "more than one -1 in the target shape");
                infer = static_cast<int>(i);
                continue;
            }
            if (out[i] <= 0)
                fail(layer, "target dimension " + std::to_string(out[i]) + " is not positive");
            known = checkedMul(known, out[i], "tensor size");
        }
        if (infer >= 0) {
            if (in_elems % known != 0)
                fail(layer, "cannot reshape " + formatDims(in) + " into " +
                                formatDims(layer.reshape.target));
            out[static_cast<std::size_t>(infer)] = in_elems / known;
        }
        if (elements(out) != in_elems)
            fail(layer, "cannot reshape " + formatDims(in) + " (" + std::to_string(in_elems) +
                            " elements) into " + formatDims(out));
        c.output = out;
        return c;
    }
    case LayerKind::Transpose: {
        const auto& perm = layer.transpose.perm;
        if (perm.size() != in.size())
            fail(layer, "permutation has " + std::to_string(perm.size()) + " entries for a " +
                            std::to_string(in.size()) + "-D input");
        std::vector<bool> seen(perm.size(), false);
        c.output.resize(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i) {
            if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(perm.size()) ||
                seen[static_cast<std::size_t>(perm[i])])
                fail(layer, "permutation is not a permutation");
            seen[static_cast<std::size_t>(perm[i])] = true;
            c.output[i] = in[static_cast<std::size_t>(perm[i])];
        }
        c.fwd_flops = 0;
        return c;
    }
    case LayerKind::Constant:
    case LayerKind::Softmax:
    case LayerKind::MatMul:
    case LayerKind::LayerNorm:
    case LayerKind::Reduce:
    case LayerKind::Slice:
    case LayerKind::Expand:
        return countTensorLayer(layer, inputs);
    case LayerKind::Pad: {
        if (!layer.pad.begins.empty() || !layer.pad.ends.empty())
            return countTensorLayer(layer, inputs);
        requireRank(layer, in, 3);
        const PadParams& p = layer.pad;
        if (p.top < 0 || p.left < 0 || p.bottom < 0 || p.right < 0)
            fail(layer, "negative padding");
        c.output = {in[0], checkedAdd(in[1], checkedAdd(p.top, p.bottom)),
                    checkedAdd(in[2], checkedAdd(p.left, p.right))};
        return c;
    }
    case LayerKind::Identity:
        c.output = in;
        return c;
    }
    return c;
}

} // namespace

namespace analysis_detail {

int64_t elements(const Dims& dims) {
    // Element counts per sample are bounded well below 2^63 by checkedMul; a count that
    // passes here still has room to be multiplied by a batch in statsAt().
    int64_t n = 1;
    for (int64_t d : dims)
        n = checkedMul(n, d, "tensor size");
    return n;
}

void fail(const Layer& layer, const std::string& problem) {
    throw InputError("layer '" + layer.name + "' (" + layerKindName(layer.kind) + "): " + problem);
}

Dims broadcast(const Layer& layer, const Dims& a, const Dims& b) {
    Dims out(std::max(a.size(), b.size()), 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
        const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (da != db && da != 1 && db != 1)
            fail(layer, "cannot broadcast " + formatDims(a) + " with " + formatDims(b));
        out[out.size() - 1 - i] = std::max(da, db);
    }
    return out;
}

std::size_t axisIndex(const Layer& layer, int64_t axis, std::size_t rank, const char* what) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r)
        fail(layer, std::string(what) + " " + std::to_string(axis) + " is outside a " +
                        std::to_string(rank) + "-D input");
    return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

} // namespace analysis_detail

std::string formatDims(const Dims& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i > 0)
            s += 'x';
        s += std::to_string(dims[i]);
    }
    return s.empty() ? "scalar" : s;
}

NetworkAnalysis analyze(const Network& net) {
    validateTopology(net);
    if (net.input.empty())
        throw InputError("network '" + net.name + "': the input has no dimensions");
    for (int64_t d : net.input) {
        if (d <= 0)
            throw InputError("network '" + net.name + "': input dimension " + std::to_string(d) +
                             " is not positive");
    }
    NetworkAnalysis result;
    result.layers.resize(net.layers.size());
    // Whether a trainable parameter lies at or upstream of each layer's output: only then
    // does backward need a data gradient through the layers below it.
    std::vector<bool> trainable_upstream(net.layers.size(), false);
    std::vector<const Dims*> inputs;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& layer = net.layers[i];
        inputs.clear();
        bool upstream = false;
        int64_t input_elems = 0;
        for (std::size_t j : layer.inputs) {
            inputs.push_back(&result.layers[j].output);
            upstream = upstream || trainable_upstream[j];
            input_elems = checkedAdd(input_elems, elements(result.layers[j].output));
        }
        Counted c = countLayer(layer, inputs, net.input);
        LayerCost& cost = result.layers[i];
        cost.output = std::move(c.output);
        cost.params = c.params;
        cost.macs = c.macs;
        cost.fwd_flops = c.fwd_flops;
        cost.needs_data_grad = upstream;
        cost.bwd_data_flops = upstream ? c.bwd_data_flops : 0;
        cost.bwd_weight_flops = c.bwd_weight_flops;
        cost.input_elems = input_elems;
        cost.output_elems = elements(cost.output);
        cost.saved_elems = c.saved_elems;
        trainable_upstream[i] = upstream || c.params > 0;

        result.total_params = checkedAdd(result.total_params, cost.params, "parameter count");
        result.total_macs = checkedAdd(result.total_macs, cost.macs, "MAC count");
        result.total_fwd_flops = checkedAdd(result.total_fwd_flops, cost.fwd_flops, "FLOP count");
        result.total_bwd_flops =
            checkedAdd(result.total_bwd_flops,
                       checkedAdd(cost.bwd_data_flops, cost.bwd_weight_flops), "FLOP count");
    }
    return result;
}

Dims layerOutputDims(const Layer& layer, const std::vector<const Dims*>& inputs) {
    if (layer.kind == LayerKind::Input || (inputs.empty() && layer.kind != LayerKind::Constant))
        fail(layer, "needs an input");
    return countLayer(layer, inputs, Dims{}).output;
}

LayerStats statsAt(const LayerCost& cost, int64_t batch, int64_t element_bytes) {
    if (batch <= 0)
        throw InputError("batch must be positive");
    LayerStats s;
    const auto perBatch = [&](int64_t per_sample, const char* what) {
        return checkedMul(per_sample, batch, what);
    };
    const auto bytes = [&](int64_t elems) {
        return checkedMul(elems, element_bytes, "byte count");
    };
    s.params = cost.params;
    s.macs = perBatch(cost.macs, "MAC count");
    s.fwd_flops = perBatch(cost.fwd_flops, "FLOP count");
    s.bwd_flops = perBatch(checkedAdd(cost.bwd_data_flops, cost.bwd_weight_flops), "FLOP count");
    s.activation_bytes = bytes(perBatch(cost.saved_elems, "activation size"));
    s.gradient_bytes = bytes(cost.params);
    s.fwd_bytes_read =
        checkedAdd(bytes(perBatch(cost.input_elems, "input size")), bytes(cost.params));
    s.fwd_bytes_written = bytes(perBatch(cost.output_elems, "output size"));
    s.bwd_bytes_read = checkedAdd(
        bytes(perBatch(checkedAdd(cost.output_elems, cost.saved_elems), "gradient size")),
        bytes(cost.params));
    s.bwd_bytes_written =
        checkedAdd(cost.needs_data_grad ? bytes(perBatch(cost.input_elems, "gradient size")) : 0,
                   bytes(cost.params));
    return s;
}

LayerStats totalsAt(const NetworkAnalysis& analysis, int64_t batch, int64_t element_bytes) {
    LayerStats total;
    for (const LayerCost& cost : analysis.layers) {
        const LayerStats s = statsAt(cost, batch, element_bytes);
        total.params = checkedAdd(total.params, s.params);
        total.macs = checkedAdd(total.macs, s.macs);
        total.fwd_flops = checkedAdd(total.fwd_flops, s.fwd_flops);
        total.bwd_flops = checkedAdd(total.bwd_flops, s.bwd_flops);
        total.activation_bytes = checkedAdd(total.activation_bytes, s.activation_bytes);
        total.gradient_bytes = checkedAdd(total.gradient_bytes, s.gradient_bytes);
        total.fwd_bytes_read = checkedAdd(total.fwd_bytes_read, s.fwd_bytes_read);
        total.fwd_bytes_written = checkedAdd(total.fwd_bytes_written, s.fwd_bytes_written);
        total.bwd_bytes_read = checkedAdd(total.bwd_bytes_read, s.bwd_bytes_read);
        total.bwd_bytes_written = checkedAdd(total.bwd_bytes_written, s.bwd_bytes_written);
    }
    return total;
}

} // namespace iterscope
