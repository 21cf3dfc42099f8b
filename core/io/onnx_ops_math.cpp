// ONNX ops that compute on tensors of any rank: products (MatMul and Gemm, between an
// activation and a weight or between two activations, as attention does), Softmax over any
// axis, reductions, LayerNormalization and Expand. Also the helpers the op files share.
#include "io/onnx_ops_detail.h"

#include "network/analysis.h"
#include "util/checked.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

namespace iterscope::onnx_import {

std::string dimsText(const Dims& d) {
    return d.empty() ? std::string("a scalar") : formatDims(d);
}

int64_t elementsOf(Importer& im, const ConstTensor& t) {
    try {
        return t.elementCount();
    } catch (const InputError& e) {
        im.fail(e.what());
    }
}

std::vector<int64_t> intsOf(Importer& im, int input, const char* attr) {
    if (!im.hasInput(input))
        return im.attrInts(attr);
    const ConstTensor& t = im.constant(input, true);
    if (!t.isInteger())
        im.fail(std::string(attr) + " must be integers");
    return t.ints;
}

Dims constantSampleDims(Importer& im, const Value& x, const ConstTensor& c,
                        const std::string& name) {
    Dims cd = c.dims;
    if (x.batch.free())
        return cd;
    const auto rank = static_cast<int64_t>(onnxDims(x, im.exportBatch()).size());
    const int64_t k = x.batch.axis - (rank - static_cast<int64_t>(cd.size()));
    if (k < 0 || k >= static_cast<int64_t>(cd.size()))
        return cd;
    const int64_t d = cd[static_cast<std::size_t>(k)];
    if (x.batch.merged) {
        if (d != 1)
            im.fail("constant '" + name + "' (" + dimsText(c.dims) +
                    ") varies along the axis that holds the batch; not supported");
        return cd;
    }
    if (d != 1 && d != im.exportBatch())
        im.fail("constant '" + name + "' has a batch dimension of " + std::to_string(d));
    cd.erase(cd.begin() + k);
    return cd;
}

BatchLayout sharedLayout(Importer& im, const std::vector<const Value*>& values) {
    std::size_t rank = 0;
    for (const Value* v : values)
        rank = std::max(rank, onnxDims(*v, im.exportBatch()).size());
    std::optional<BatchLayout> shared;
    for (const Value* v : values) {
        if (v->batch.free())
            continue;
        BatchLayout b = v->batch;
        const std::size_t r = onnxDims(*v, im.exportBatch()).size();
        b.axis += static_cast<int>(rank - r); // counted from the end, as broadcasting aligns
        if (shared && !(*shared == b))
            im.fail("the inputs hold the batch on different axes; not supported");
        shared = b;
    }
    if (!shared)
        return {-1, false, 1};
    return *shared;
}

CombinedActivations combinedActivations(Importer& im, int count) {
    CombinedActivations out;
    for (int i = 0; i < count; ++i)
        if (!im.isConstant(i))
            out.values.push_back(im.activation(i));
    if (out.values.empty())
        im.fail("no input flows from the network input");
    std::vector<const Value*> ptrs;
    for (const Value& v : out.values)
        ptrs.push_back(&v);
    out.layout = sharedLayout(im, ptrs);
    return out;
}

namespace {

void claimInput(Importer& im, int i) {
    if (im.isConstant(i))
        im.claim(im.input(i));
}

// A product of the activation's last axis with a 2-D weight: a Linear layer.
void linear(Importer& im, const Value& a, const ConstTensor& w, bool trans_b, int bias_input) {
    const int64_t k = trans_b ? w.dims[1] : w.dims[0];
    const int64_t n = trans_b ? w.dims[0] : w.dims[1];
    const Dims full = onnxDims(a, im.exportBatch());
    im.sampleAxis(a, static_cast<int64_t>(full.size()) - 1, "the product's inner axis");
    if (a.dims.empty() || a.dims.back() != k)
        im.fail("weight '" + im.inputName(1) + "' expects " + std::to_string(k) +
                " input features, the input has " +
                (a.dims.empty() ? std::string("none") : std::to_string(a.dims.back())));
    Layer l;
    l.kind = LayerKind::FullyConnected;
    l.fc.out_features = n;
    l.fc.bias = false;
    // A sample that is one vector: a classifier; a sequence or a map: every row alike.
    l.fc.flatten = a.dims.size() == 1;
    if (bias_input >= 0 && im.hasInput(bias_input)) {
        const int64_t c = elementsOf(im, im.constant(bias_input, false));
        if (c != n && c != 1)
            im.fail("bias '" + im.inputName(bias_input) + "' has " + std::to_string(c) +
                    " elements for " + std::to_string(n) + " outputs");
        l.fc.bias = true;
        claimInput(im, bias_input);
    }
    claimInput(im, 1);
    im.emit(std::move(l), {a.layer}, a.batch);
}

void matmul(Importer& im, bool gemm) {
    if (!im.hasInput(0) || !im.hasInput(1))
        im.fail("needs two inputs");
    const bool trans_a = gemm && im.attrInt("transA", 0) != 0;
    const bool trans_b = gemm && im.attrInt("transB", 0) != 0;
    const bool a_const = im.isConstant(0), b_const = im.isConstant(1);
    if (!a_const && b_const && !trans_a) {
        const ConstTensor& w = im.constant(1, false);
        if (w.dims.size() == 2) {
            const Value a = im.activation(0);
            linear(im, a, w, trans_b, gemm ? 2 : -1);
            return;
        }
    }
    if (gemm && im.hasInput(2))
        im.fail("Gemm of two activations with a bias C is not supported");
    // A product of two tensors that are not (activation, 2-D weight): each constant operand
    // becomes a Constant layer given to every sample.
    std::vector<std::size_t> layers;
    const auto [acts, batch] = combinedActivations(im, 2);
    for (const Value& v : acts) {
        const auto rank = static_cast<int64_t>(onnxDims(v, im.exportBatch()).size());
        if (!v.batch.free() && v.batch.axis >= rank - 2)
            im.fail("the batch is on one of the multiplied axes, so the product mixes samples; "
                    "not supported");
    }
    std::size_t act = 0;
    for (int i = 0; i < 2; ++i) {
        if (im.isConstant(i)) {
            const Value c = im.input(i);
            const Dims dims = constantSampleDims(im, acts.front(), c.constant, im.inputName(i));
            layers.push_back(im.constantLayer(c, dims, i == 0 ? "/a" : "/b"));
        } else {
            layers.push_back(acts[act++].layer);
        }
    }
    Layer l;
    l.kind = LayerKind::MatMul;
    l.matmul.transpose_a = trans_a;
    l.matmul.transpose_b = trans_b;
    im.emit(std::move(l), layers, batch);
}

void softmax(Importer& im) {
    const Value& x = im.activation(0);
    const auto rank = static_cast<int64_t>(onnxDims(x, im.exportBatch()).size());
    // Before opset 13, Softmax flattens the axes from `axis` on (default 1) into one.
    const bool coerced = im.opset() < 13;
    const int64_t axis = im.normalizeAxis(im.attrInt("axis", coerced ? 1 : -1), rank);
    const int64_t last = coerced ? rank - 1 : axis;
    for (int64_t a = axis; a <= last; ++a)
        im.sampleAxis(x, a, "softmax axis");
    Layer l;
    l.kind = LayerKind::Softmax;
    l.softmax.axis = static_cast<int64_t>(im.sampleAxis(x, axis, "softmax axis"));
    im.emit(std::move(l), {x.layer}, x.batch);
}

// ReduceMean/Max/Min/Sum over any axes but the batch's. Over the spatial axes of an image it
// is global pooling, as x.mean([2, 3]) exports.
void reduce(Importer& im, ReduceKind kind) {
    const Value x = im.activation(0);
    const auto rank = static_cast<int64_t>(onnxDims(x, im.exportBatch()).size());
    std::vector<int64_t> axes = im.attrInts("axes");
    if (im.hasInput(1))
        axes = intsOf(im, 1, "axes");
    if (axes.empty()) {
        if (im.attrInt("noop_with_empty_axes", 0) != 0) {
            im.alias(0, x);
            return;
        }
        im.fail("a reduction over every axis includes the batch; not supported");
    }
    for (int64_t& a : axes)
        a = im.normalizeAxis(a, rank);
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
        im.fail("axes repeat");
    const bool keepdims = im.attrInt("keepdims", 1) != 0;
    std::vector<int64_t> sample_axes;
    for (int64_t a : axes)
        sample_axes.push_back(static_cast<int64_t>(im.sampleAxis(x, a, "reduced axis")));
    BatchLayout batch = x.batch;
    if (!keepdims && !batch.free())
        batch.axis -= static_cast<int>(
            std::count_if(axes.begin(), axes.end(), [&](int64_t a) { return a < x.batch.axis; }));
    const bool pooling = (kind == ReduceKind::Mean || kind == ReduceKind::Max) && batchFirst(x) &&
                         rank == 4 && axes == std::vector<int64_t>{2, 3};
    if (pooling) {
        Layer l;
        l.kind = LayerKind::GlobalPooling;
        l.pool.kind = kind == ReduceKind::Mean ? PoolKind::Average : PoolKind::Max;
        const std::size_t pooled = im.emit(std::move(l), {x.layer}, x.batch);
        if (!keepdims) {
            Layer flat;
            flat.kind = LayerKind::Flatten;
            im.emit(std::move(flat), {pooled}, batch, 0, "/flatten");
        }
        return;
    }
    Layer l;
    l.kind = LayerKind::Reduce;
    l.reduce.kind = kind;
    l.reduce.axes = sample_axes;
    l.reduce.keepdims = keepdims;
    im.emit(std::move(l), {x.layer}, batch);
}

void layerNormalization(Importer& im) {
    const Value& x = im.activation(0);
    const auto rank = static_cast<int64_t>(onnxDims(x, im.exportBatch()).size());
    const int64_t axis = im.normalizeAxis(im.attrInt("axis", -1), rank);
    for (int64_t a = axis; a < rank; ++a)
        im.sampleAxis(x, a, "normalized axis");
    const std::size_t first = im.sampleAxis(x, axis, "normalized axis");
    int64_t block = 1;
    for (std::size_t k = first; k < x.dims.size(); ++k)
        block = checkedMul(block, x.dims[k], "tensor size");
    Layer l;
    l.kind = LayerKind::LayerNorm;
    l.layernorm.axis = static_cast<int64_t>(first);
    l.layernorm.scale = im.hasInput(1);
    l.layernorm.bias = im.hasInput(2);
    for (int i = 1; i <= 2; ++i) {
        if (!im.hasInput(i))
            continue;
        const int64_t n = elementsOf(im, im.constant(i, false));
        if (n != block)
            im.fail(std::string(i == 1 ? "scale '" : "bias '") + im.inputName(i) + "' has " +
                    std::to_string(n) + " elements for a normalized block of " +
                    std::to_string(block));
        claimInput(im, i);
    }
    im.emit(std::move(l), {x.layer}, x.batch);
}

void expand(Importer& im) {
    const Value x = im.activation(0);
    const ConstTensor& shape = im.constant(1, true);
    if (!shape.isInteger())
        im.fail("the shape must be integers");
    const Dims in = onnxDims(x, im.exportBatch());
    const Dims& t = shape.ints;
    const std::size_t rank = std::max(in.size(), t.size());
    Dims out(rank, 1);
    for (std::size_t k = 0; k < rank; ++k) {
        const int64_t a = k + in.size() >= rank ? in[k + in.size() - rank] : 1;
        const int64_t b = k + t.size() >= rank ? t[k + t.size() - rank] : 1;
        if (a != b && a != 1 && b != 1)
            im.fail("cannot expand " + formatDims(in) + " to " + formatDims(t));
        out[k] = std::max(a, b);
    }
    BatchLayout batch = x.batch;
    if (!batch.free())
        batch.axis += static_cast<int>(rank - in.size());
    // The per-sample target: the output without the batch (which must not grow).
    Dims target = out;
    if (!batch.free()) {
        const auto a = static_cast<std::size_t>(batch.axis);
        if (out[a] != in[static_cast<std::size_t>(x.batch.axis)])
            im.fail("expanding the axis that holds the batch; not supported");
        if (batch.merged)
            target[a] /= im.exportBatch();
        else
            target.erase(target.begin() + static_cast<std::ptrdiff_t>(a));
    }
    if (target == x.dims) {
        im.aliasAs(0, x, x.dims, batch);
        return;
    }
    Layer l;
    l.kind = LayerKind::Expand;
    l.expand.target = target;
    im.emit(std::move(l), {x.layer}, batch);
}

} // namespace

bool convertMathOp(Importer& im, const std::string& op) {
    static const std::unordered_map<std::string, std::function<void(Importer&)>> table = {
        {"MatMul", [](Importer& i) { matmul(i, false); }},
        {"Gemm", [](Importer& i) { matmul(i, true); }},
        {"Softmax", softmax},
        {"LogSoftmax", softmax},
        {"ReduceMean", [](Importer& i) { reduce(i, ReduceKind::Mean); }},
        {"ReduceMax", [](Importer& i) { reduce(i, ReduceKind::Max); }},
        {"ReduceMin", [](Importer& i) { reduce(i, ReduceKind::Min); }},
        {"ReduceSum", [](Importer& i) { reduce(i, ReduceKind::Sum); }},
        {"LayerNormalization", layerNormalization},
        {"Expand", expand},
    };
    const auto it = table.find(op);
    if (it == table.end())
        return false;
    it->second(im);
    return true;
}

} // namespace iterscope::onnx_import
