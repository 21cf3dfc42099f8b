// Shapes and counts of the layers that transformers and modern CNNs add: products of two
// activations, normalization over trailing axes, reductions, slices, constants broadcast to
// the batch. FLOP figures follow the kernels PyTorch runs for them (docs/model.md).
#include "network/analysis_detail.h"

#include "network/analysis.h"
#include "util/checked.h"

#include <algorithm>

namespace iterscope::analysis_detail {
namespace {

int64_t product(const Dims& d, std::size_t from, std::size_t to) {
    int64_t n = 1;
    for (std::size_t i = from; i < to && i < d.size(); ++i)
        n = checkedMul(n, d[i], "tensor size");
    return n;
}

Counted linearOnLastAxis(const Layer& layer, const Dims& in) {
    if (in.empty())
        fail(layer, "needs at least one axis");
    if (layer.fc.out_features <= 0)
        fail(layer, "output features must be positive");
    Counted c;
    const int64_t k = in.back();
    c.output = in;
    c.output.back() = layer.fc.out_features;
    const int64_t weights = checkedMul(k, layer.fc.out_features, "parameter count");
    c.params = checkedAdd(weights, layer.fc.bias ? layer.fc.out_features : 0);
    c.macs = checkedMul(elements(in), layer.fc.out_features, "MAC count");
    const int64_t out = elements(c.output);
    c.fwd_flops = checkedAdd(checkedMul(2, c.macs, "FLOP count"), layer.fc.bias ? out : 0);
    c.bwd_data_flops = checkedMul(2, c.macs, "FLOP count");
    c.bwd_weight_flops = checkedAdd(checkedMul(2, c.macs, "FLOP count"), layer.fc.bias ? out : 0);
    c.saved_elems = elements(in);
    return c;
}

// Numpy matmul: 1-D operands gain (and then lose) a unit axis; the leading axes broadcast.
Counted matmul(const Layer& layer, const std::vector<const Dims*>& inputs) {
    if (inputs.size() != 2)
        fail(layer, "takes two inputs, got " + std::to_string(inputs.size()));
    Dims a = *inputs[0], b = *inputs[1];
    if (a.empty() || b.empty())
        fail(layer, "operands must have at least one axis");
    const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
    if (a_vector)
        a.insert(a.begin(), 1);
    if (b_vector)
        b.push_back(1);
    if (layer.matmul.transpose_a)
        std::swap(a[a.size() - 1], a[a.size() - 2]);
    if (layer.matmul.transpose_b)
        std::swap(b[b.size() - 1], b[b.size() - 2]);
    const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
    if (b[b.size() - 2] != k)
        fail(layer, "cannot multiply " + formatDims(*inputs[0]) + " by " + formatDims(*inputs[1]) +
                        ": inner sizes " + std::to_string(k) + " and " +
                        std::to_string(b[b.size() - 2]) + " differ");
    const Dims lead_a(a.begin(), a.end() - 2), lead_b(b.begin(), b.end() - 2);
    Counted c;
    c.output = broadcast(layer, lead_a, lead_b);
    if (!a_vector)
        c.output.push_back(m);
    if (!b_vector)
        c.output.push_back(n);
    if (c.output.empty())
        c.output.push_back(1);
    const int64_t out = elements(c.output);
    c.macs = checkedMul(out, k, "MAC count");
    c.fwd_flops = checkedMul(2, c.macs, "FLOP count");
    // dA = dC x B^T and dB = A^T x dC: two products of the forward's size.
    c.bwd_data_flops = checkedMul(4, c.macs, "FLOP count");
    c.saved_elems = checkedAdd(elements(*inputs[0]), elements(*inputs[1]));
    return c;
}

Counted layerNorm(const Layer& layer, const Dims& in) {
    const std::size_t axis = axisIndex(layer, layer.layernorm.axis, in.size(), "normalized axis");
    const int64_t block = product(in, axis, in.size());
    const int64_t n = elements(in);
    const int64_t rows = n / std::max<int64_t>(block, 1);
    Counted c;
    c.output = in;
    const int64_t per_element = (layer.layernorm.scale ? 1 : 0) + (layer.layernorm.bias ? 1 : 0);
    c.params = checkedMul(per_element, block, "parameter count");
    // Mean and variance in one pass (3 FLOPs an element), normalize (2), scale and shift (2).
    c.fwd_flops = checkedMul(7, n, "FLOP count");
    // dx needs two row reductions of dy and dy * x-hat, then a fused update: about 8.
    c.bwd_data_flops = checkedMul(8, n, "FLOP count");
    c.bwd_weight_flops = c.params > 0 ? checkedMul(2, n, "FLOP count") : 0;
    // The input (or x-hat) plus each row's mean and reciprocal deviation.
    c.saved_elems = checkedAdd(n, checkedMul(2, rows));
    return c;
}

Counted reduce(const Layer& layer, const Dims& in) {
    std::vector<bool> reduced(in.size(), false);
    if (layer.reduce.axes.empty())
        std::fill(reduced.begin(), reduced.end(), true); // ONNX: no axes means all
    for (int64_t a : layer.reduce.axes) {
        const std::size_t k = axisIndex(layer, a, in.size(), "reduced axis");
        if (reduced[k])
            fail(layer, "axis " + std::to_string(a) + " is reduced twice");
        reduced[k] = true;
    }
    Counted c;
    for (std::size_t k = 0; k < in.size(); ++k) {
        if (!reduced[k])
            c.output.push_back(in[k]);
        else if (layer.reduce.keepdims)
            c.output.push_back(1);
    }
    if (c.output.empty())
        c.output.push_back(1); // a per-sample scalar stays one element
    const int64_t n = elements(in);
    c.fwd_flops = n;
    c.bwd_data_flops = n; // the output gradient broadcast back (and scaled, for a mean)
    const bool extremum =
        layer.reduce.kind == ReduceKind::Max || layer.reduce.kind == ReduceKind::Min;
    c.saved_elems = extremum ? n : 0;
    return c;
}

Counted slice(const Layer& layer, const Dims& in) {
    const SliceParams& s = layer.slice;
    if (s.starts.size() != s.axes.size() || s.ends.size() != s.axes.size() ||
        (!s.steps.empty() && s.steps.size() != s.axes.size()))
        fail(layer, "axes, starts, ends and steps must have one entry per sliced axis");
    Counted c;
    c.output = in;
    std::vector<bool> seen(in.size(), false);
    for (std::size_t i = 0; i < s.axes.size(); ++i) {
        const std::size_t k = axisIndex(layer, s.axes[i], in.size(), "sliced axis");
        if (seen[k])
            fail(layer, "axis " + std::to_string(s.axes[i]) + " is sliced twice");
        seen[k] = true;
        const int64_t n = in[k];
        const int64_t step = s.steps.empty() ? 1 : s.steps[i];
        if (step == 0)
            fail(layer, "a slice step of 0");
        // ONNX Slice: negative indices count from the end, then clamp to the axis.
        auto clampIndex = [n](int64_t v, int64_t lo, int64_t hi) {
            if (v < 0)
                v = v < -n ? lo : v + n;
            return std::clamp(v, lo, hi);
        };
        const int64_t start =
            step > 0 ? clampIndex(s.starts[i], 0, n) : clampIndex(s.starts[i], -1, n - 1);
        const int64_t end =
            step > 0 ? clampIndex(s.ends[i], 0, n) : clampIndex(s.ends[i], -1, n - 1);
        int64_t count = 0;
        if (step > 0 && end > start)
            count = (end - start + step - 1) / step;
        else if (step < 0 && start > end)
            count = (start - end + (-step) - 1) / (-step);
        if (count <= 0)
            fail(layer, "the slice of axis " + std::to_string(s.axes[i]) + " (size " +
                            std::to_string(n) + ") is empty");
        c.output[k] = count;
    }
    // A copy forward; backward scatters the gradient into a zeroed input-sized tensor.
    c.bwd_data_flops = elements(in);
    return c;
}

Counted expand(const Layer& layer, const Dims& in) {
    for (int64_t d : layer.expand.target)
        if (d <= 0)
            fail(layer, "target dimension " + std::to_string(d) + " is not positive");
    Counted c;
    c.output = broadcast(layer, in, layer.expand.target);
    // The gradient sums the copies back onto the input.
    c.bwd_data_flops = elements(c.output);
    return c;
}

Counted constant(const Layer& layer) {
    const ConstantParams& p = layer.constant;
    if (p.dims.empty())
        fail(layer, "a constant needs at least one dimension");
    for (int64_t d : p.dims)
        if (d <= 0)
            fail(layer, "dimension " + std::to_string(d) + " is not positive");
    if (p.params < 0)
        fail(layer, "a negative parameter count");
    Counted c;
    c.output = p.dims;
    c.params = p.params;
    // A learned tensor broadcast to the batch gathers its gradient over the samples.
    c.bwd_weight_flops = p.params > 0 ? elements(p.dims) : 0;
    return c;
}

Counted softmax(const Layer& layer, const Dims& in) {
    if (!in.empty())
        axisIndex(layer, layer.softmax.axis, in.size(), "softmax axis");
    const int64_t n = elements(in);
    Counted c;
    c.output = in;
    c.fwd_flops = checkedMul(5, n, "FLOP count");
    c.bwd_data_flops = checkedMul(3, n, "FLOP count");
    c.saved_elems = n;
    return c;
}

Counted pad(const Layer& layer, const Dims& in) {
    const PadParams& p = layer.pad;
    if (p.begins.size() != in.size() || p.ends.size() != in.size())
        fail(layer, "pads need one begin and one end for each of the " + std::to_string(in.size()) +
                        " axes");
    Counted c;
    c.output = in;
    for (std::size_t k = 0; k < in.size(); ++k) {
        if (p.begins[k] < 0 || p.ends[k] < 0)
            fail(layer, "negative padding");
        c.output[k] = checkedAdd(in[k], checkedAdd(p.begins[k], p.ends[k]), "padded size");
    }
    return c;
}

} // namespace

Counted countTensorLayer(const Layer& layer, const std::vector<const Dims*>& inputs) {
    if (layer.kind == LayerKind::Constant)
        return constant(layer);
    const Dims& in = *inputs.front();
    switch (layer.kind) {
    case LayerKind::FullyConnected:
        return linearOnLastAxis(layer, in);
    case LayerKind::MatMul:
        return matmul(layer, inputs);
    case LayerKind::LayerNorm:
        return layerNorm(layer, in);
    case LayerKind::Reduce:
        return reduce(layer, in);
    case LayerKind::Slice:
        return slice(layer, in);
    case LayerKind::Expand:
        return expand(layer, in);
    case LayerKind::Softmax:
        return softmax(layer, in);
    case LayerKind::Pad:
        return pad(layer, in);
    default:
        fail(layer, "is not a tensor layer");
    }
}

} // namespace iterscope::analysis_detail
