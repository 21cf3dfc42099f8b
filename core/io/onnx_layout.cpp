// Where the batch sits in an activation's ONNX tensor (BatchLayout, onnx_importer.h), and how
// reshapes and axes move it. Reshapes keep memory order, so the batch keeps its place in it:
// with P elements a sample, `outer` of them before the batch and P / outer after. A reshape
// target puts the batch on the one axis that can hold it there; with an export batch of 1
// any axis of size 1 can.
#include "io/onnx_importer.h"

#include "network/analysis.h"
#include "util/checked.h"

namespace iterscope::onnx_import {
namespace {

int64_t product(const Dims& d, std::size_t from, std::size_t to) {
    int64_t n = 1;
    for (std::size_t i = from; i < to && i < d.size(); ++i)
        n = checkedMul(n, d[i], "tensor size");
    return n;
}

// Per-sample elements before the batch in memory order.
int64_t outerElements(const Value& v) {
    const auto a = static_cast<std::size_t>(v.batch.axis);
    const int64_t before = product(v.dims, 0, a);
    return v.batch.merged ? checkedMul(before, v.batch.outer) : before;
}

Dims without(const Dims& d, std::size_t axis) {
    Dims out = d;
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
    return out;
}

} // namespace

Dims onnxDims(const Value& v, int64_t batch) {
    if (v.batch.free())
        return v.dims;
    Dims d = v.dims;
    const auto a = static_cast<std::size_t>(v.batch.axis);
    if (v.batch.merged)
        d[a] = checkedMul(d[a], batch, "tensor size");
    else
        d.insert(d.begin() + static_cast<std::ptrdiff_t>(a), batch);
    return d;
}

std::size_t Importer::sampleAxis(const Value& v, int64_t onnx_axis, const char* what) const {
    const auto rank = static_cast<int64_t>(onnxDims(v, exportBatch()).size());
    const int64_t a = normalizeAxis(onnx_axis, rank);
    if (v.batch.free())
        return static_cast<std::size_t>(a);
    if (a == v.batch.axis)
        fail(std::string(what) + " " + std::to_string(onnx_axis) +
             " is the axis that holds the batch; not supported");
    return static_cast<std::size_t>(!v.batch.merged && a > v.batch.axis ? a - 1 : a);
}

Reshaped reshapeLayout(const Importer& im, const Value& v, const Dims& target) {
    const int64_t batch = im.exportBatch();
    const int64_t per_sample = product(v.dims, 0, v.dims.size());
    const int64_t total = checkedMul(per_sample, batch, "tensor size");
    if (product(target, 0, target.size()) != total)
        im.fail("cannot reshape " + formatDims(onnxDims(v, batch)) + " to " + formatDims(target));
    if (batch == 1) {
        // Any axis of size 1 can hold a batch of 1: prefer the one at the batch's place in
        // memory order, else the first (the batch is usually outermost).
        int candidate = -1;
        const int64_t outer = v.batch.free() ? -1 : outerElements(v);
        for (std::size_t t = 0; t < target.size(); ++t) {
            if (target[t] != 1)
                continue;
            if (product(target, 0, t) == outer)
                return {without(target, t), {static_cast<int>(t), false, 1}};
            if (candidate < 0)
                candidate = static_cast<int>(t);
        }
        if (candidate >= 0)
            return {without(target, static_cast<std::size_t>(candidate)), {candidate, false, 1}};
        return {target, {-1, false, 1}};
    }
    // Batch > 1: the axis t whose span covers the batch's place, [o, batch, i] within it.
    const int64_t outer = outerElements(v);
    const int64_t inner = per_sample / outer;
    int64_t before = 1;
    Reshaped merged_choice;
    bool have_merged = false;
    for (std::size_t t = 0; t < target.size(); ++t) {
        if (outer % before == 0) {
            const int64_t o = outer / before;
            const int64_t span = checkedMul(o, batch);
            if (target[t] % span == 0) {
                const int64_t i = target[t] / span;
                if (checkedMul(i, product(target, t + 1, target.size())) == inner) {
                    if (o == 1 && i == 1)
                        return {without(target, t), {static_cast<int>(t), false, 1}};
                    if (!have_merged) {
                        merged_choice.dims = target;
                        merged_choice.dims[t] = o * i;
                        merged_choice.batch = {static_cast<int>(t), true, o};
                        have_merged = true;
                    }
                }
            }
        }
        before = checkedMul(before, target[t], "tensor size");
    }
    if (!have_merged)
        im.fail("reshaping " + formatDims(onnxDims(v, batch)) + " to " + formatDims(target) +
                " mixes the samples of the batch; not supported");
    return merged_choice;
}

} // namespace iterscope::onnx_import
