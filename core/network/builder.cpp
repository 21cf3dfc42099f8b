#include "network/builder.h"

#include "network/analysis.h"
#include "util/error.h"

#include <stdexcept>
#include <utility>

namespace iterscope {

NetworkBuilder::NetworkBuilder(std::string name, Dims input, std::string input_name) {
    net_.name = std::move(name);
    net_.input = std::move(input);
    Layer in;
    in.name = std::move(input_name);
    in.kind = LayerKind::Input;
    net_.layers.push_back(std::move(in));
}

Layer NetworkBuilder::make(const std::string& name, LayerKind kind,
                           std::vector<LayerRef> inputs) const {
    // A ref from another builder is a programming error in the zoo, not bad user input.
    for (LayerRef r : inputs)
        if (r >= net_.layers.size())
            throw std::logic_error("NetworkBuilder: layer '" + name + "' uses an unknown ref");
    Layer l;
    l.name = name;
    l.kind = kind;
    l.inputs = std::move(inputs);
    return l;
}

LayerRef NetworkBuilder::append(Layer layer) {
    net_.layers.push_back(std::move(layer));
    return net_.layers.size() - 1;
}

LayerRef NetworkBuilder::conv(const std::string& name, LayerRef in, int64_t out_channels,
                              const Conv& spec) {
    Layer l = make(name, LayerKind::Convolution, {in});
    l.conv = spec.params(out_channels);
    return append(std::move(l));
}

LayerRef NetworkBuilder::fc(const std::string& name, LayerRef in, int64_t out_features, bool bias) {
    Layer l = make(name, LayerKind::FullyConnected, {in});
    l.fc.out_features = out_features;
    l.fc.bias = bias;
    return append(std::move(l));
}

LayerRef NetworkBuilder::batchNorm(const std::string& name, LayerRef in, bool affine) {
    Layer l = make(name, LayerKind::BatchNorm, {in});
    l.bn.affine = affine;
    return append(std::move(l));
}

LayerRef NetworkBuilder::activation(const std::string& name, LayerRef in, ActivationKind kind) {
    Layer l = make(name, LayerKind::Activation, {in});
    l.activation.kind = kind;
    return append(std::move(l));
}

LayerRef NetworkBuilder::pool(const std::string& name, LayerRef in, const Pool& spec) {
    Layer l = make(name, LayerKind::Pooling, {in});
    l.pool = spec.params();
    return append(std::move(l));
}

LayerRef NetworkBuilder::globalPool(const std::string& name, LayerRef in, PoolKind kind) {
    Layer l = make(name, LayerKind::GlobalPooling, {in});
    l.pool.kind = kind;
    return append(std::move(l));
}

LayerRef NetworkBuilder::lrn(const std::string& name, LayerRef in, int64_t size) {
    Layer l = make(name, LayerKind::LRN, {in});
    l.lrn.size = size;
    return append(std::move(l));
}

LayerRef NetworkBuilder::concat(const std::string& name, const std::vector<LayerRef>& ins,
                                int64_t axis) {
    Layer l = make(name, LayerKind::Concat, ins);
    l.concat.axis = axis;
    return append(std::move(l));
}

LayerRef NetworkBuilder::add(const std::string& name, LayerRef a, LayerRef b) {
    return eltwise(name, {a, b}, EltwiseKind::Add);
}

LayerRef NetworkBuilder::mul(const std::string& name, LayerRef a, LayerRef b) {
    return eltwise(name, {a, b}, EltwiseKind::Mul);
}

LayerRef NetworkBuilder::eltwise(const std::string& name, const std::vector<LayerRef>& ins,
                                 EltwiseKind kind) {
    Layer l = make(name, LayerKind::Eltwise, ins);
    l.eltwise.kind = kind;
    return append(std::move(l));
}

LayerRef NetworkBuilder::dropout(const std::string& name, LayerRef in) {
    return append(make(name, LayerKind::Dropout, {in}));
}

LayerRef NetworkBuilder::flatten(const std::string& name, LayerRef in) {
    return append(make(name, LayerKind::Flatten, {in}));
}

LayerRef NetworkBuilder::softmax(const std::string& name, LayerRef in, int64_t axis) {
    Layer l = make(name, LayerKind::Softmax, {in});
    l.softmax.axis = axis;
    return append(std::move(l));
}

LayerRef NetworkBuilder::linear(const std::string& name, LayerRef in, int64_t out_features,
                                bool bias) {
    Layer l = make(name, LayerKind::FullyConnected, {in});
    l.fc.out_features = out_features;
    l.fc.bias = bias;
    l.fc.flatten = false;
    return append(std::move(l));
}

LayerRef NetworkBuilder::layerNorm(const std::string& name, LayerRef in, int64_t axis) {
    Layer l = make(name, LayerKind::LayerNorm, {in});
    l.layernorm.axis = axis;
    return append(std::move(l));
}

LayerRef NetworkBuilder::matmul(const std::string& name, LayerRef a, LayerRef b, bool transpose_b) {
    Layer l = make(name, LayerKind::MatMul, {a, b});
    l.matmul.transpose_b = transpose_b;
    return append(std::move(l));
}

LayerRef NetworkBuilder::transpose(const std::string& name, LayerRef in,
                                   std::vector<int64_t> perm) {
    Layer l = make(name, LayerKind::Transpose, {in});
    l.transpose.perm = std::move(perm);
    return append(std::move(l));
}

LayerRef NetworkBuilder::reshape(const std::string& name, LayerRef in, Dims target) {
    Layer l = make(name, LayerKind::Reshape, {in});
    l.reshape.target = std::move(target);
    return append(std::move(l));
}

LayerRef NetworkBuilder::slice(const std::string& name, LayerRef in, std::vector<int64_t> axes,
                               std::vector<int64_t> starts, std::vector<int64_t> ends,
                               std::vector<int64_t> steps) {
    Layer l = make(name, LayerKind::Slice, {in});
    l.slice = {std::move(axes), std::move(starts), std::move(ends), std::move(steps)};
    return append(std::move(l));
}

LayerRef NetworkBuilder::constant(const std::string& name, Dims dims, int64_t params) {
    Layer l = make(name, LayerKind::Constant, {});
    l.constant = {std::move(dims), params};
    return append(std::move(l));
}

LayerRef NetworkBuilder::pad(const std::string& name, LayerRef in, std::vector<int64_t> begins,
                             std::vector<int64_t> ends) {
    Layer l = make(name, LayerKind::Pad, {in});
    l.pad.begins = std::move(begins);
    l.pad.ends = std::move(ends);
    return append(std::move(l));
}

namespace {
// One axis of an adaptive pooling lowered to a fixed window. Where the input is at
// least the output, stride floor(in/out) and the kernel that makes the last window end
// at the edge give exactly `out` windows (exact when in is a multiple of out). A smaller
// input is replicated by PyTorch; padding the far edge gives the same shape.
struct AdaptiveAxis {
    int64_t kernel = 1, stride = 1, pad_end = 0;
};
AdaptiveAxis adaptiveAxis(int64_t in, int64_t out) {
    if (in >= out) {
        const int64_t stride = in / out;
        return {in - (out - 1) * stride, stride, 0};
    }
    return {1, 1, out - in};
}
} // namespace

LayerRef NetworkBuilder::adaptiveAveragePool(const std::string& name, LayerRef in, int64_t out) {
    const Dims d = dims(in);
    if (d.size() != 3)
        throw InputError(net_.name + ": layer '" + name + "': expects a CxHxW input, got " +
                         formatDims(d));
    const AdaptiveAxis h = adaptiveAxis(d[1], out);
    const AdaptiveAxis w = adaptiveAxis(d[2], out);
    Layer l = make(name, LayerKind::Pooling, {in});
    l.pool.kind = PoolKind::Average;
    l.pool.kernel_h = h.kernel;
    l.pool.kernel_w = w.kernel;
    l.pool.stride_h = h.stride;
    l.pool.stride_w = w.stride;
    l.pool.pad_bottom = h.pad_end;
    l.pool.pad_right = w.pad_end;
    return append(std::move(l));
}

Dims NetworkBuilder::dims(LayerRef ref) const {
    if (ref >= net_.layers.size())
        throw std::logic_error("NetworkBuilder::dims: unknown ref");
    // Analysing only the prefix up to ref keeps this linear for the zoo's one or two calls.
    Network prefix;
    prefix.name = net_.name;
    prefix.input = net_.input;
    prefix.layers.assign(net_.layers.begin(),
                         net_.layers.begin() + static_cast<std::ptrdiff_t>(ref) + 1);
    return analyze(prefix).layers.back().output;
}

Network NetworkBuilder::build() && {
    validateTopology(net_);
    return std::move(net_);
}

} // namespace iterscope
