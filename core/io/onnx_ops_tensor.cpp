// ONNX ops on tensors of any rank: layout changes (Reshape, Transpose, Flatten, Squeeze,
// Unsqueeze, Expand), selections (Slice, Split, Gather), products (MatMul, Gemm), and the
// reductions and normalizations transformers use (Softmax, ReduceMean, LayerNormalization).
// ONNX axes count the batch wherever the tensor holds it (BatchLayout); the network's axes do
// not, so every axis goes through Importer::sampleAxis.
#include "io/onnx_ops_detail.h"

#include "network/analysis.h"
#include "util/checked.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>

namespace iterscope::onnx_import {
namespace {

int64_t product(const Dims& d) {
    int64_t n = 1;
    for (int64_t v : d)
        n = checkedMul(n, v, "tensor size");
    return n;
}

// The layout after removing ONNX axis `removed` (not the batch's) from a tensor.
BatchLayout withoutAxis(const Value& v, int64_t removed) {
    BatchLayout b = v.batch;
    if (!b.free() && removed < b.axis)
        --b.axis;
    return b;
}

// Emits a Reshape to explicit per-sample dims, or aliases when they do not change.
void reshapeTo(Importer& im, const Value& x, const Reshaped& r, Dims target) {
    if (r.dims == x.dims) {
        im.aliasAs(0, x, r.dims, r.batch);
        return;
    }
    Layer l;
    l.kind = LayerKind::Reshape;
    l.reshape.target = std::move(target);
    im.emit(std::move(l), {x.layer}, r.batch);
}

void reshape(Importer& im) {
    const Value& x = im.activation(0);
    Dims spec = im.hasInput(1) ? im.constant(1, true).ints : im.attrInts("shape");
    if (im.hasInput(1) && !im.constant(1, true).isInteger())
        im.fail("the target shape must be integers");
    if (spec.empty())
        im.fail("reshaping to a scalar drops the batch; not supported");
    const bool allow_zero = im.attrInt("allowzero", 0) != 0;
    if (allow_zero && std::count(spec.begin(), spec.end(), 0) > 0)
        im.fail("allowzero with a zero in the target shape makes an empty tensor");
    // Resolve 0 (copy the input's dim) and -1 (infer) against the ONNX tensor.
    const Dims in = onnxDims(x, im.exportBatch());
    Dims target = spec;
    int infer = -1;
    int64_t known = 1;
    for (std::size_t k = 0; k < target.size(); ++k) {
        if (target[k] == 0) {
            if (k >= in.size())
                im.fail("target entry " + std::to_string(k) +
                        " copies an input dimension that does not exist");
            target[k] = in[k];
        }
        if (target[k] == -1) {
            if (infer >= 0)
                im.fail("more than one -1 in the target shape");
            infer = static_cast<int>(k);
            continue;
        }
        if (target[k] <= 0)
            im.fail("target dimension " + std::to_string(target[k]) + " is not positive");
        known = checkedMul(known, target[k], "tensor size");
    }
    const int64_t total = product(in);
    if (infer >= 0) {
        if (total % known != 0)
            im.fail("cannot reshape " + formatDims(in) + " to " + formatDims(spec));
        target[static_cast<std::size_t>(infer)] = total / known;
    }
    const Reshaped r = reshapeLayout(im, x, target);
    // With the batch first before and after, the file's own target (0 and -1 included) says
    // what the reshape does per sample, as a network file would write it.
    const int64_t first = spec.front();
    if (batchFirst(x) && batchFirst(r.batch) &&
        (first == 0 || first == -1 || first == im.exportBatch())) {
        Dims per_sample(spec.begin() + 1, spec.end());
        reshapeTo(im, x, r, std::move(per_sample));
        return;
    }
    reshapeTo(im, x, r, r.dims);
}

void flatten(Importer& im) {
    const Value& x = im.activation(0);
    const Dims in = onnxDims(x, im.exportBatch());
    const auto rank = static_cast<int64_t>(in.size());
    int64_t axis = im.attrInt("axis", 1);
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis > rank) // axis == rank is allowed: [N * ..., 1]
        im.fail("axis " + std::to_string(im.attrInt("axis", 1)) + " is outside the input");
    const Dims head(in.begin(), in.begin() + axis), tail(in.begin() + axis, in.end());
    const Reshaped r = reshapeLayout(im, x, {product(head), product(tail)});
    if (r.dims.size() == 1 && !r.batch.free() && r.batch.axis == 0 && !r.batch.merged) {
        if (r.dims == x.dims) {
            im.aliasAs(0, x, r.dims, r.batch);
            return;
        }
        Layer l;
        l.kind = LayerKind::Flatten;
        im.emit(std::move(l), {x.layer}, r.batch);
        return;
    }
    reshapeTo(im, x, r, r.dims);
}

std::vector<int64_t> axesInput(Importer& im) {
    if (im.hasInput(1)) {
        const ConstTensor& t = im.constant(1, true);
        if (!t.isInteger())
            im.fail("axes must be integers");
        return t.ints;
    }
    return im.attrInts("axes");
}

void squeeze(Importer& im, bool unsqueeze) {
    const Value& x = im.activation(0);
    const Dims in = onnxDims(x, im.exportBatch());
    std::vector<int64_t> axes = axesInput(im);
    const auto out_rank = static_cast<int64_t>(in.size() + (unsqueeze ? axes.size() : 0));
    if (out_rank > 16)
        im.fail("the result would have " + std::to_string(out_rank) + " dimensions");
    for (int64_t& a : axes)
        a = im.normalizeAxis(a, unsqueeze ? out_rank : static_cast<int64_t>(in.size()));
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
        im.fail("axes repeat");
    Dims target;
    if (unsqueeze) {
        target = in;
        for (int64_t a : axes)
            target.insert(target.begin() + a, 1);
    } else {
        for (std::size_t k = 0; k < in.size(); ++k) {
            const bool listed = std::binary_search(axes.begin(), axes.end(), int64_t(k));
            if (listed && in[k] != 1)
                im.fail("cannot squeeze axis " + std::to_string(k) + " of size " +
                        std::to_string(in[k]));
            if (!(listed || (axes.empty() && in[k] == 1)))
                target.push_back(in[k]);
        }
    }
    if (target.empty())
        im.fail("the result is a scalar, which drops the batch; not supported");
    const Reshaped r = reshapeLayout(im, x, target);
    reshapeTo(im, x, r, r.dims);
}

void transpose(Importer& im) {
    const Value& x = im.activation(0);
    const auto rank = static_cast<int64_t>(onnxDims(x, im.exportBatch()).size());
    std::vector<int64_t> perm = im.attrInts("perm");
    if (perm.empty()) {
        for (int64_t k = rank - 1; k >= 0; --k)
            perm.push_back(k);
    }
    if (static_cast<int64_t>(perm.size()) != rank)
        im.fail("perm has " + std::to_string(perm.size()) + " entries for a " +
                std::to_string(rank) + "-D input");
    std::vector<bool> seen(perm.size(), false);
    for (int64_t p : perm) {
        if (p < 0 || p >= rank || seen[static_cast<std::size_t>(p)])
            im.fail("perm is not a permutation");
        seen[static_cast<std::size_t>(p)] = true;
    }
    // The batch's axis moves to where perm puts it; the per-sample axes keep their order
    // unless perm changes it, and only then does data move within a sample.
    BatchLayout batch = x.batch;
    std::vector<int64_t> sample_perm;
    for (std::size_t k = 0; k < perm.size(); ++k) {
        const int64_t p = perm[k];
        if (!x.batch.free() && p == x.batch.axis) {
            batch.axis = static_cast<int>(k);
            if (!x.batch.merged)
                continue;
        }
        const bool after_batch = !x.batch.free() && !x.batch.merged && p > x.batch.axis;
        sample_perm.push_back(after_batch ? p - 1 : p);
    }
    Dims dims;
    bool identity = true;
    for (std::size_t k = 0; k < sample_perm.size(); ++k) {
        dims.push_back(x.dims[static_cast<std::size_t>(sample_perm[k])]);
        identity = identity && sample_perm[k] == static_cast<int64_t>(k);
    }
    if (identity) {
        im.aliasAs(0, x, x.dims, batch);
        return;
    }
    Layer l;
    l.kind = LayerKind::Transpose;
    l.transpose.perm = std::move(sample_perm);
    im.emit(std::move(l), {x.layer}, batch);
}

// Slice's per-axis parameters: inputs from opset 10, attributes before.
struct SliceSpec {
    std::vector<int64_t> starts, ends, axes, steps;
};

SliceSpec sliceSpec(Importer& im) {
    SliceSpec s;
    if (im.opset() >= 10 || im.hasInput(1)) {
        s.starts = intsOf(im, 1, "starts");
        s.ends = intsOf(im, 2, "ends");
        if (im.hasInput(3))
            s.axes = intsOf(im, 3, "axes");
        if (im.hasInput(4))
            s.steps = intsOf(im, 4, "steps");
    } else {
        s.starts = im.attrInts("starts");
        s.ends = im.attrInts("ends");
        s.axes = im.attrInts("axes");
    }
    if (s.axes.empty())
        for (std::size_t k = 0; k < s.starts.size(); ++k)
            s.axes.push_back(static_cast<int64_t>(k));
    if (s.steps.empty())
        s.steps.assign(s.starts.size(), 1);
    if (s.starts.size() != s.ends.size() || s.axes.size() != s.starts.size() ||
        s.steps.size() != s.starts.size())
        im.fail("starts, ends, axes and steps differ in length");
    return s;
}

// ONNX's clamping of a slice bound on an axis of n.
int64_t clampBound(int64_t v, int64_t n, int64_t step) {
    if (v < 0)
        v = v < -n ? (step > 0 ? 0 : -1) : v + n;
    return step > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
}

// Emits a Slice of x's per-sample axes bound to `output`, and returns its layer; a slice
// that keeps everything is an alias of x's layer.
std::size_t emitSlice(Importer& im, const Value& x, const SliceSpec& s, int output,
                      const std::string& suffix) {
    const Dims full = onnxDims(x, im.exportBatch());
    Layer l;
    l.kind = LayerKind::Slice;
    bool everything = true;
    for (std::size_t i = 0; i < s.axes.size(); ++i) {
        const auto rank = static_cast<int64_t>(full.size());
        const int64_t a = im.normalizeAxis(s.axes[i], rank);
        const int64_t step = s.steps[i];
        if (step == 0)
            im.fail("a slice step of 0");
        const int64_t n = full[static_cast<std::size_t>(a)];
        const int64_t start = clampBound(s.starts[i], n, step);
        const int64_t end = clampBound(s.ends[i], n, step);
        const bool whole = step == 1 && start == 0 && end == n;
        if (!x.batch.free() && a == x.batch.axis) {
            if (!whole)
                im.fail("slicing the axis that holds the batch; not supported");
            continue;
        }
        if (whole)
            continue;
        everything = false;
        l.slice.axes.push_back(static_cast<int64_t>(im.sampleAxis(x, a, "sliced axis")));
        l.slice.starts.push_back(start);
        // A negative step's end of -1 means "past the first element": store it as ONNX's
        // below-range value so that the layer reads it the same way.
        l.slice.ends.push_back(step < 0 && end < 0 ? -n - 1 : end);
        l.slice.steps.push_back(step);
    }
    if (everything) {
        im.alias(output, x);
        return x.layer;
    }
    if (std::all_of(l.slice.steps.begin(), l.slice.steps.end(), [](int64_t v) { return v == 1; }))
        l.slice.steps.clear();
    return im.emit(std::move(l), {x.layer}, x.batch, output, suffix);
}

void slice(Importer& im) {
    emitSlice(im, im.activation(0), sliceSpec(im), 0, "");
}

void split(Importer& im) {
    const Value x = im.activation(0);
    const Dims full = onnxDims(x, im.exportBatch());
    const auto rank = static_cast<int64_t>(full.size());
    const int64_t axis = im.normalizeAxis(im.attrInt("axis", 0), rank);
    const int64_t n = full[static_cast<std::size_t>(axis)];
    std::vector<int64_t> sizes = im.hasInput(1) ? intsOf(im, 1, "split") : im.attrInts("split");
    const int outputs = im.node().output_size();
    if (sizes.empty()) {
        const int64_t parts = im.attrInt("num_outputs", outputs);
        if (parts <= 0)
            im.fail("no outputs");
        const int64_t each = (n + parts - 1) / parts; // the last part may be smaller
        for (int64_t k = 0, left = n; k < parts; ++k, left -= each)
            sizes.push_back(std::min(each, std::max<int64_t>(left, 0)));
    }
    if (static_cast<int>(sizes.size()) != outputs)
        im.fail(std::to_string(sizes.size()) + " split sizes for " + std::to_string(outputs) +
                " outputs");
    if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != n)
        im.fail("split sizes do not add up to the axis' " + std::to_string(n));
    int64_t start = 0;
    for (int k = 0; k < outputs; ++k) {
        const int64_t size = sizes[static_cast<std::size_t>(k)];
        if (size <= 0)
            im.fail("an empty split part");
        SliceSpec s{{start}, {start + size}, {axis}, {1}};
        emitSlice(im, x, s, k, "/" + std::to_string(k));
        start += size;
    }
}

// Gather with constant indices on an activation: a scalar index picks one slice and drops
// the axis; evenly spaced indices are a strided slice.
void gather(Importer& im) {
    const Value x = im.activation(0);
    const ConstTensor& idx = im.constant(1, true);
    if (!idx.isInteger() || idx.dims.size() > 1 || idx.ints.empty())
        im.fail("only a scalar index or a list of indices can gather from an activation");
    const Dims full = onnxDims(x, im.exportBatch());
    const auto rank = static_cast<int64_t>(full.size());
    const int64_t axis = im.normalizeAxis(im.attrInt("axis", 0), rank);
    const int64_t n = full[static_cast<std::size_t>(axis)];
    std::vector<int64_t> ids = idx.ints;
    for (int64_t& i : ids) {
        if (i < -n || i >= n)
            im.fail("index " + std::to_string(i) + " is outside an axis of " + std::to_string(n));
        if (i < 0)
            i += n;
    }
    const int64_t step = ids.size() > 1 ? ids[1] - ids[0] : 1;
    for (std::size_t k = 1; k < ids.size(); ++k)
        if (step == 0 || ids[k] - ids[k - 1] != step)
            im.fail("indices that are not evenly spaced; only slices can be gathered");
    const int64_t last = ids.back();
    SliceSpec s{
        {ids.front()}, {step > 0 ? last + 1 : (last == 0 ? -n - 1 : last - 1)}, {axis}, {step}};
    if (!idx.dims.empty()) {
        emitSlice(im, x, s, 0, "");
        return;
    }
    // A scalar index: slice, then drop the axis (a view).
    const std::size_t j = im.sampleAxis(x, axis, "gathered axis");
    const std::size_t sliced = emitSlice(im, x, s, 0, "");
    Dims dims = im.layerDims(sliced);
    dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(j));
    if (dims.empty())
        im.fail("gathering one element drops every axis of a sample; not supported");
    Layer r;
    r.kind = LayerKind::Reshape;
    r.reshape.target = dims;
    im.emit(std::move(r), {sliced}, withoutAxis(x, axis), 0, "/squeeze");
}

} // namespace

bool convertTensorOp(Importer& im, const std::string& op) {
    static const std::unordered_map<std::string, std::function<void(Importer&)>> table = {
        {"Reshape", reshape},
        {"Flatten", flatten},
        {"Squeeze", [](Importer& im2) { squeeze(im2, false); }},
        {"Unsqueeze", [](Importer& im2) { squeeze(im2, true); }},
        {"Transpose", transpose},
        {"Slice", slice},
        {"Split", split},
        {"Gather", gather},
    };
    const auto it = table.find(op);
    if (it == table.end())
        return false;
    it->second(im);
    return true;
}

} // namespace iterscope::onnx_import
