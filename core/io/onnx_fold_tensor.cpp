// Constant folding of tensor ops on constants of any rank: exporters compute attention
// masks, padding amounts and index tables at run time from shapes and zeros (Swin builds its
// shifted-window mask with Range, ScatterND, Equal and Where), and transpose or gather
// weights before using them. Values are computed when small (kMaxKeptElements); larger
// results keep their dims only, which is all the network needs of them.
#include "io/onnx_importer.h"

#include "network/analysis.h"
#include "util/checked.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

namespace iterscope::onnx_import {
namespace {

using DT = onnx::TensorProto_DataType;

int64_t count(Importer& im, const Dims& dims) {
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0)
            im.fail("negative dimension " + std::to_string(d));
        n = checkedMul(n, d, "element count");
    }
    return n;
}

bool small(Importer& im, const Dims& dims) {
    return count(im, dims) <= kMaxKeptElements;
}

std::vector<int64_t> stridesOf(const Dims& d) {
    std::vector<int64_t> s(d.size(), 1);
    for (std::size_t k = d.size(); k-- > 1;)
        s[k - 1] = s[k] * d[k];
    return s;
}

// The flat index into a tensor of dims `d` broadcast to `out`, for output index `i`.
std::size_t broadcastIndex(std::size_t i, const Dims& out, const Dims& d) {
    const auto so = stridesOf(out), sd = stridesOf(d);
    std::size_t idx = 0;
    const std::size_t off = out.size() - d.size();
    for (std::size_t k = 0; k < out.size(); ++k) {
        const auto coord = static_cast<int64_t>(i) / so[k] % out[k];
        if (k >= off && d[k - off] != 1)
            idx += static_cast<std::size_t>(coord * sd[k - off]);
    }
    return idx;
}

Dims broadcastDims(Importer& im, const Dims& a, const Dims& b) {
    Dims out(std::max(a.size(), b.size()), 1);
    for (std::size_t k = 0; k < out.size(); ++k) {
        const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
        const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
        if (da != db && da != 1 && db != 1)
            im.fail("cannot broadcast " + formatDims(a) + " with " + formatDims(b));
        out[out.size() - 1 - k] = da == 1 ? db : da;
    }
    return out;
}

ConstTensor dimsOnly(Dims dims, int32_t type) {
    ConstTensor t;
    t.dims = std::move(dims);
    t.data_type = type;
    return t;
}

void push(ConstTensor& t, double v) {
    // A float that no int64 holds (NaN, 1e30) in an integer tensor reads as 0, as nothing
    // meaningful can come of it.
    if (t.isInteger())
        t.ints.push_back(std::isfinite(v) && std::fabs(v) < 9.2e18 ? static_cast<int64_t>(v) : 0);
    else
        t.reals.push_back(v);
}

const ConstTensor& in(Importer& im, int i) {
    return im.constant(i, false);
}

// Element-wise ops with numpy broadcasting over any number of inputs.
void elementwise(Importer& im, const std::function<double(const std::vector<double>&)>& f,
                 int32_t out_type) {
    Dims out;
    std::vector<int> inputs;
    for (int i = 0; i < im.inputCount(); ++i) {
        if (!im.hasInput(i))
            continue;
        inputs.push_back(i);
        out = inputs.size() == 1 ? in(im, i).dims : broadcastDims(im, out, in(im, i).dims);
    }
    ConstTensor t = dimsOnly(out, out_type);
    bool values = small(im, out);
    for (int i : inputs)
        values = values && in(im, i).has_values;
    if (values) {
        const auto n = static_cast<std::size_t>(count(im, out));
        std::vector<double> args(inputs.size());
        for (std::size_t e = 0; e < n; ++e) {
            for (std::size_t j = 0; j < inputs.size(); ++j) {
                const ConstTensor& c = in(im, inputs[j]);
                args[j] = c.realAt(broadcastIndex(e, out, c.dims));
            }
            const double v = f(args);
            if (t.isInteger() && (!std::isfinite(v) || std::fabs(v) > 9.2e18))
                im.fail("an integer result out of range");
            push(t, v);
        }
        t.has_values = true;
    }
    im.setConstant(0, std::move(t));
}

int32_t firstType(Importer& im) {
    return in(im, 0).data_type;
}

double integerDivide(Importer& im, double a, double b) {
    if (b == 0)
        im.fail("integer division by zero");
    return std::trunc(a / b);
}

int presentInputs(Importer& im) {
    int n = 0;
    for (int i = 0; i < im.inputCount(); ++i)
        n += im.hasInput(i) ? 1 : 0;
    return n;
}

void arithmetic(Importer& im, const std::string& op) {
    const int inputs = presentInputs(im);
    const int needed = op == "Where" ? 3 : (op == "Max" || op == "Min" ? -1 : 2);
    if ((needed > 0 && (inputs != needed || im.inputCount() != needed)) || inputs == 0)
        im.fail("expects " + (needed > 0 ? std::to_string(needed) : std::string("some")) +
                " inputs, has " + std::to_string(inputs));
    const bool integer = in(im, 0).isInteger();
    if (op == "Add")
        return elementwise(
            im, [](const auto& a) { return a[0] + a[1]; }, firstType(im));
    if (op == "Sub")
        return elementwise(
            im, [](const auto& a) { return a[0] - a[1]; }, firstType(im));
    if (op == "Mul")
        return elementwise(
            im, [](const auto& a) { return a[0] * a[1]; }, firstType(im));
    if (op == "Div")
        return elementwise(
            im,
            [&](const auto& a) { return integer ? integerDivide(im, a[0], a[1]) : a[0] / a[1]; },
            firstType(im));
    if (op == "Pow")
        return elementwise(
            im, [](const auto& a) { return std::pow(a[0], a[1]); }, firstType(im));
    if (op == "Mod")
        return elementwise(
            im,
            [&](const auto& a) {
                if (a[1] == 0)
                    im.fail("modulo by zero");
                const bool fmod = im.attrInt("fmod", 0) != 0;
                const double r = std::fmod(a[0], a[1]);
                return fmod || r == 0 || (r < 0) == (a[1] < 0) ? r : r + a[1];
            },
            firstType(im));
    if (op == "Max" || op == "Min")
        return elementwise(
            im,
            [&](const auto& a) {
                double r = a[0];
                for (double v : a)
                    r = op == "Max" ? std::max(r, v) : std::min(r, v);
                return r;
            },
            firstType(im));
    const int32_t boolean = DT::TensorProto_DataType_BOOL;
    if (op == "Equal")
        return elementwise(
            im, [](const auto& a) { return a[0] == a[1] ? 1.0 : 0.0; }, boolean);
    if (op == "Less")
        return elementwise(
            im, [](const auto& a) { return a[0] < a[1] ? 1.0 : 0.0; }, boolean);
    if (op == "Greater")
        return elementwise(
            im, [](const auto& a) { return a[0] > a[1] ? 1.0 : 0.0; }, boolean);
    if (op == "LessOrEqual")
        return elementwise(
            im, [](const auto& a) { return a[0] <= a[1] ? 1.0 : 0.0; }, boolean);
    if (op == "GreaterOrEqual")
        return elementwise(
            im, [](const auto& a) { return a[0] >= a[1] ? 1.0 : 0.0; }, boolean);
    if (op == "And")
        return elementwise(
            im, [](const auto& a) { return a[0] != 0 && a[1] != 0 ? 1.0 : 0.0; }, boolean);
    if (op == "Or")
        return elementwise(
            im, [](const auto& a) { return a[0] != 0 || a[1] != 0 ? 1.0 : 0.0; }, boolean);
    if (op == "Xor")
        return elementwise(
            im, [](const auto& a) { return (a[0] != 0) != (a[1] != 0) ? 1.0 : 0.0; }, boolean);
    // Where(condition, x, y): the type of x.
    return elementwise(
        im, [](const auto& a) { return a[0] != 0 ? a[1] : a[2]; }, in(im, 1).data_type);
}

const std::unordered_map<std::string, double (*)(double)>& unaryOps() {
    static const std::unordered_map<std::string, double (*)(double)> ops = {
        {"Neg", [](double x) { return -x; }},
        {"Abs", [](double x) { return std::fabs(x); }},
        {"Sqrt", [](double x) { return std::sqrt(x); }},
        {"Exp", [](double x) { return std::exp(x); }},
        {"Log", [](double x) { return std::log(x); }},
        {"Reciprocal", [](double x) { return 1.0 / x; }},
        {"Floor", [](double x) { return std::floor(x); }},
        {"Ceil", [](double x) { return std::ceil(x); }},
        {"Round", [](double x) { return std::nearbyint(x); }},
        {"Sign", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }},
        {"Not", [](double x) { return x == 0 ? 1.0 : 0.0; }},
        {"Relu", [](double x) { return std::max(x, 0.0); }},
        {"Sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
        {"Tanh", [](double x) { return std::tanh(x); }},
        {"Erf", [](double x) { return std::erf(x); }},
    };
    return ops;
}

void transposeNode(Importer& im) {
    const ConstTensor& t = in(im, 0);
    const auto rank = t.dims.size();
    std::vector<int64_t> perm = im.attrInts("perm");
    if (perm.empty())
        for (std::size_t k = rank; k-- > 0;)
            perm.push_back(static_cast<int64_t>(k));
    std::vector<bool> seen(rank, false);
    if (perm.size() != rank)
        im.fail("perm does not match the input's rank");
    Dims out;
    for (int64_t p : perm) {
        if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<std::size_t>(p)])
            im.fail("perm is not a permutation");
        seen[static_cast<std::size_t>(p)] = true;
        out.push_back(t.dims[static_cast<std::size_t>(p)]);
    }
    ConstTensor r = dimsOnly(out, t.data_type);
    if (t.has_values) {
        const auto n = static_cast<std::size_t>(count(im, out));
        const auto so = stridesOf(out), si = stridesOf(t.dims);
        for (std::size_t e = 0; e < n; ++e) {
            std::size_t src = 0;
            for (std::size_t k = 0; k < rank; ++k)
                src += static_cast<std::size_t>(static_cast<int64_t>(e) / so[k] % out[k] *
                                                si[static_cast<std::size_t>(perm[k])]);
            push(r, t.realAt(src));
        }
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

void expandNode(Importer& im) {
    const ConstTensor& t = in(im, 0);
    const ConstTensor& shape = im.constant(1, true);
    Dims target = shape.ints;
    for (int64_t& d : target)
        if (d == -1)
            d = 1; // never produced by torch (it writes Where(shape == -1, 1, shape)), but cheap
    const Dims out = broadcastDims(im, t.dims, target);
    ConstTensor r = dimsOnly(out, t.data_type);
    if (t.has_values && small(im, out)) {
        const auto n = static_cast<std::size_t>(count(im, out));
        for (std::size_t e = 0; e < n; ++e)
            push(r, t.realAt(broadcastIndex(e, out, t.dims)));
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

void tileNode(Importer& im) {
    const ConstTensor& t = in(im, 0);
    const ConstTensor& reps = im.constant(1, true);
    if (reps.ints.size() != t.dims.size())
        im.fail("repeats must have one entry per axis");
    Dims out = t.dims;
    for (std::size_t k = 0; k < out.size(); ++k)
        out[k] = checkedMul(out[k], reps.ints[k], "tensor size");
    ConstTensor r = dimsOnly(out, t.data_type);
    if (t.has_values && small(im, out)) {
        const auto n = static_cast<std::size_t>(count(im, out));
        const auto so = stridesOf(out), si = stridesOf(t.dims);
        for (std::size_t e = 0; e < n; ++e) {
            std::size_t src = 0;
            for (std::size_t k = 0; k < out.size(); ++k)
                src += static_cast<std::size_t>(static_cast<int64_t>(e) / so[k] % out[k] %
                                                t.dims[k] * si[k]);
            push(r, t.realAt(src));
        }
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

void rangeNode(Importer& im) {
    const ConstTensor &start = im.constant(0, true), &limit = im.constant(1, true),
                      &delta = im.constant(2, true);
    if (start.valueCount() != 1 || limit.valueCount() != 1 || delta.valueCount() != 1)
        im.fail("start, limit and delta must be scalars");
    const double s = start.realAt(0), l = limit.realAt(0), d = delta.realAt(0);
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
        im.fail("a range with a zero or non-finite step");
    const double n = std::max(std::ceil((l - s) / d), 0.0);
    if (n > 1e12)
        im.fail("a range of " + std::to_string(n) + " elements");
    ConstTensor r = dimsOnly({static_cast<int64_t>(n)}, start.data_type);
    if (small(im, r.dims)) {
        for (int64_t k = 0; k < static_cast<int64_t>(n); ++k)
            push(r, s + static_cast<double>(k) * d);
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

// Slice of a constant of any rank (the existing 1-D rules per axis).
void sliceNode(Importer& im) {
    const ConstTensor& t = in(im, 0);
    auto param = [&](int input, const char* attr) -> std::vector<int64_t> {
        if (im.hasInput(input)) {
            const ConstTensor& c = im.constant(input, true);
            if (!c.isInteger())
                im.fail(std::string(attr) + " must be integers");
            return c.ints;
        }
        return im.attrInts(attr);
    };
    const std::vector<int64_t> starts = param(1, "starts"), ends = param(2, "ends");
    std::vector<int64_t> axes = param(3, "axes"), steps = param(4, "steps");
    if (axes.empty())
        for (std::size_t k = 0; k < starts.size(); ++k)
            axes.push_back(static_cast<int64_t>(k));
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size())
        im.fail("starts, ends, axes and steps differ in length");
    const auto rank = static_cast<int64_t>(t.dims.size());
    std::vector<int64_t> begin(t.dims.size(), 0), step(t.dims.size(), 1);
    Dims out = t.dims;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const int64_t a = im.normalizeAxis(axes[i], rank);
        const int64_t n = t.dims[static_cast<std::size_t>(a)];
        const int64_t st = steps[i];
        if (st == 0)
            im.fail("a slice step of 0");
        auto clampBound = [&](int64_t v) {
            if (v < 0)
                v = v < -n ? (st > 0 ? 0 : -1) : v + n;
            return st > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
        };
        const int64_t s = clampBound(starts[i]), e = clampBound(ends[i]);
        int64_t c = 0;
        if (st > 0 && e > s)
            c = (e - s + st - 1) / st;
        else if (st < 0 && s > e)
            c = (s - e - st - 1) / (-st);
        begin[static_cast<std::size_t>(a)] = s;
        step[static_cast<std::size_t>(a)] = st;
        out[static_cast<std::size_t>(a)] = c;
    }
    ConstTensor r = dimsOnly(out, t.data_type);
    if (t.has_values) {
        const auto n = static_cast<std::size_t>(count(im, out));
        const auto so = stridesOf(out), si = stridesOf(t.dims);
        for (std::size_t e = 0; e < n; ++e) {
            std::size_t src = 0;
            for (std::size_t k = 0; k < out.size(); ++k)
                src += static_cast<std::size_t>(
                    (begin[k] + static_cast<int64_t>(e) / so[k] % out[k] * step[k]) * si[k]);
            push(r, t.realAt(src));
        }
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

void gatherNode(Importer& im) {
    const ConstTensor& data = in(im, 0);
    // A position table gathered by an index buffer held as external data: the result's dims
    // do not need the index values.
    const ConstTensor& indices = in(im, 1);
    if (!indices.isInteger())
        im.fail("indices must be integers");
    if (data.dims.empty())
        im.fail("cannot gather from a scalar");
    const auto rank = static_cast<int64_t>(data.dims.size());
    const auto axis = static_cast<std::size_t>(im.normalizeAxis(im.attrInt("axis", 0), rank));
    const int64_t n = data.dims[axis];
    Dims out(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(axis));
    out.insert(out.end(), indices.dims.begin(), indices.dims.end());
    out.insert(out.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1,
               data.dims.end());
    std::vector<int64_t> ids = indices.ints;
    for (int64_t& i : ids) {
        if (i < -n || i >= n)
            im.fail("index " + std::to_string(i) + " is outside " + std::to_string(n) +
                    " elements");
        if (i < 0)
            i += n;
    }
    ConstTensor r = dimsOnly(out, data.data_type);
    if (data.has_values && indices.has_values && small(im, out)) {
        int64_t outer = 1, inner = 1;
        for (std::size_t k = 0; k < axis; ++k)
            outer *= data.dims[k];
        for (std::size_t k = axis + 1; k < data.dims.size(); ++k)
            inner *= data.dims[k];
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t id : ids)
                for (int64_t i = 0; i < inner; ++i)
                    push(r, data.realAt(static_cast<std::size_t>((o * n + id) * inner + i)));
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

void concatNode(Importer& im) {
    const ConstTensor& first = in(im, 0);
    const auto rank = static_cast<int64_t>(std::max<std::size_t>(first.dims.size(), 1));
    const auto axis = static_cast<std::size_t>(im.normalizeAxis(im.attrInt("axis", 0), rank));
    auto dimsOf = [](const ConstTensor& t) { return t.dims.empty() ? Dims{1} : t.dims; };
    Dims out = dimsOf(first);
    out[axis] = 0;
    bool values = true;
    for (int i = 0; i < im.inputCount(); ++i) {
        const Dims d = dimsOf(in(im, i));
        if (d.size() != out.size())
            im.fail("inputs differ in rank");
        for (std::size_t k = 0; k < d.size(); ++k)
            if (k != axis && d[k] != out[k])
                im.fail("inputs differ outside the concat axis");
        out[axis] = checkedAdd(out[axis], d[axis], "element count");
        values = values && in(im, i).has_values && in(im, i).isInteger() == first.isInteger();
    }
    ConstTensor r = dimsOnly(out, first.data_type);
    if (values && small(im, out)) {
        int64_t outer = 1;
        for (std::size_t k = 0; k < axis; ++k)
            outer *= out[k];
        for (int64_t o = 0; o < outer; ++o) {
            for (int i = 0; i < im.inputCount(); ++i) {
                const ConstTensor& t = in(im, i);
                const Dims d = dimsOf(t);
                int64_t block = 1;
                for (std::size_t k = axis; k < d.size(); ++k)
                    block *= d[k];
                for (int64_t e = 0; e < block; ++e)
                    push(r, t.realAt(static_cast<std::size_t>(o * block + e)));
            }
        }
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

// ScatterND(data, indices, updates): the data's shape; values when every part is small.
void scatterNode(Importer& im) {
    const ConstTensor &data = in(im, 0), &indices = in(im, 1), &updates = in(im, 2);
    ConstTensor r = dimsOnly(data.dims, data.data_type);
    if (data.has_values && indices.has_values && updates.has_values && !indices.dims.empty()) {
        const auto k = static_cast<std::size_t>(indices.dims.back());
        if (k == 0 || k > data.dims.size())
            im.fail("index tuples longer than the data's rank");
        const auto sd = stridesOf(data.dims);
        const std::size_t slice = static_cast<std::size_t>(sd[k - 1]);
        std::vector<double> values(data.valueCount());
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = data.realAt(i);
        const std::size_t tuples = indices.valueCount() / k;
        for (std::size_t t = 0; t < tuples; ++t) {
            std::size_t base = 0;
            for (std::size_t j = 0; j < k; ++j) {
                int64_t v = indices.ints[t * k + j];
                const int64_t n = data.dims[j];
                if (v < -n || v >= n)
                    im.fail("a scatter index is out of range");
                base += static_cast<std::size_t>((v < 0 ? v + n : v) * sd[j]);
            }
            for (std::size_t e = 0; e < slice && t * slice + e < updates.valueCount(); ++e)
                values[base + e] = updates.realAt(t * slice + e);
        }
        for (double v : values)
            push(r, v);
        r.has_values = true;
    }
    im.setConstant(0, std::move(r));
}

void splitNode(Importer& im) {
    const ConstTensor& t = in(im, 0);
    const auto rank = static_cast<int64_t>(t.dims.size());
    const auto axis = static_cast<std::size_t>(im.normalizeAxis(im.attrInt("axis", 0), rank));
    std::vector<int64_t> sizes = im.attrInts("split");
    if (im.hasInput(1))
        sizes = im.constant(1, true).ints;
    const int outputs = im.node().output_size();
    if (sizes.empty())
        sizes.assign(static_cast<std::size_t>(outputs), t.dims[axis] / std::max(outputs, 1));
    if (static_cast<int>(sizes.size()) != outputs)
        im.fail("split sizes do not match the outputs");
    for (int o = 0; o < outputs; ++o) {
        Dims d = t.dims;
        d[axis] = sizes[static_cast<std::size_t>(o)];
        im.setConstant(o, dimsOnly(d, t.data_type));
    }
}

// A product of two constants (weights combined before use): its dims, by numpy's rules.
void matmulNode(Importer& im) {
    Dims a = in(im, 0).dims, b = in(im, 1).dims;
    if (a.empty() || b.empty())
        im.fail("MatMul of a scalar");
    const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
    if (a_vector)
        a.insert(a.begin(), 1);
    if (b_vector)
        b.push_back(1);
    if (a.back() != b[b.size() - 2])
        im.fail("cannot multiply " + formatDims(in(im, 0).dims) + " by " +
                formatDims(in(im, 1).dims));
    Dims out = broadcastDims(im, Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2));
    if (!a_vector)
        out.push_back(a[a.size() - 2]);
    if (!b_vector)
        out.push_back(b.back());
    im.setConstant(0, dimsOnly(out, in(im, 0).data_type));
}

void sizeNode(Importer& im) {
    ConstTensor r;
    r.data_type = DT::TensorProto_DataType_INT64;
    r.ints = {count(im, in(im, 0).dims)};
    r.has_values = true;
    im.setConstant(0, std::move(r));
}

} // namespace

bool foldTensorOp(Importer& im, const std::string& op) {
    static const std::unordered_map<std::string, void (*)(Importer&)> nodes = {
        {"Transpose", transposeNode}, {"Expand", expandNode},     {"Tile", tileNode},
        {"Range", rangeNode},         {"Slice", sliceNode},       {"Gather", gatherNode},
        {"Concat", concatNode},       {"ScatterND", scatterNode}, {"Split", splitNode},
        {"Size", sizeNode},           {"MatMul", matmulNode},
    };
    if (const auto it = nodes.find(op); it != nodes.end()) {
        it->second(im);
        return true;
    }
    static const char* const binary[] = {"Add",
                                         "Sub",
                                         "Mul",
                                         "Div",
                                         "Pow",
                                         "Mod",
                                         "Max",
                                         "Min",
                                         "Equal",
                                         "Less",
                                         "Greater",
                                         "LessOrEqual",
                                         "GreaterOrEqual",
                                         "And",
                                         "Or",
                                         "Xor",
                                         "Where"};
    for (const char* name : binary) {
        if (op == name) {
            arithmetic(im, op);
            return true;
        }
    }
    if (const auto it = unaryOps().find(op); it != unaryOps().end()) {
        if (presentInputs(im) != 1 || !im.hasInput(0))
            im.fail("expects one input");
        const auto f = it->second;
        const int32_t type =
            op == "Not" ? static_cast<int32_t>(DT::TensorProto_DataType_BOOL) : firstType(im);
        elementwise(
            im, [f](const std::vector<double>& a) { return f(a[0]); }, type);
        return true;
    }
    return false;
}

} // namespace iterscope::onnx_import
