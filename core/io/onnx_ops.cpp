// ONNX ops that become layers. ONNX shapes lead with the batch; the network's are per
// sample, so axes, permutations and reshape targets drop that first entry here.
#include "io/onnx_importer.h"

#include "network/analysis.h"
#include "util/checked.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_map>

namespace iterscope::onnx_import {
namespace {

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

struct Window {
    int64_t kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0, pb = 0, pr = 0, dh = 1, dw = 1;
    PadMode mode = PadMode::Explicit;
};

void pairAttr(Importer& im, const char* name, int64_t& h, int64_t& w) {
    const auto v = im.attrInts(name);
    if (v.empty() && !im.hasAttr(name))
        return;
    if (v.size() != 2)
        im.fail(std::string(name) + " has " + std::to_string(v.size()) +
                " entries; only 2-D windows are supported");
    h = v[0];
    w = v[1];
}

Window readWindow(Importer& im, int64_t kh, int64_t kw) {
    Window w;
    w.kh = kh;
    w.kw = kw;
    pairAttr(im, "strides", w.sh, w.sw);
    pairAttr(im, "dilations", w.dh, w.dw);
    if (im.hasAttr("pads")) {
        const auto p = im.attrInts("pads");
        if (p.size() != 4)
            im.fail("pads has " + std::to_string(p.size()) + " entries, a 2-D window needs 4");
        // ONNX orders pads as all begins, then all ends: [top, left, bottom, right].
        w.pt = p[0];
        w.pl = p[1];
        w.pb = p[2];
        w.pr = p[3];
    }
    const std::string auto_pad = im.attrString("auto_pad", "NOTSET");
    if (auto_pad == "SAME_UPPER")
        w.mode = PadMode::SameUpper;
    else if (auto_pad == "SAME_LOWER")
        w.mode = PadMode::SameLower;
    else if (auto_pad == "VALID")
        w.mode = PadMode::Valid;
    else if (auto_pad != "NOTSET" && !auto_pad.empty())
        im.fail("unknown auto_pad '" + auto_pad + "'");
    if (w.mode != PadMode::Explicit)
        w.pt = w.pl = w.pb = w.pr = 0;
    return w;
}

void applyWindow(ConvParams& p, const Window& win) {
    p.kernel_h = win.kh;
    p.kernel_w = win.kw;
    p.stride_h = win.sh;
    p.stride_w = win.sw;
    p.pad_top = win.pt;
    p.pad_left = win.pl;
    p.pad_bottom = win.pb;
    p.pad_right = win.pr;
    p.dilation_h = win.dh;
    p.dilation_w = win.dw;
    p.pad_mode = win.mode;
}

void checkKernelAttr(Importer& im, int64_t kh, int64_t kw) {
    if (!im.hasAttr("kernel_shape"))
        return;
    const auto k = im.attrInts("kernel_shape");
    if (k.size() != 2 || k[0] != kh || k[1] != kw)
        im.fail("kernel_shape disagrees with the weight's " + std::to_string(kh) + "x" +
                std::to_string(kw) + " kernel");
}

const Value& imageInput(Importer& im) {
    const Value& x = im.activation(0);
    if (x.dims.size() != 3)
        im.fail("expects an NxCxHxW input, got per-sample " + dimsText(x.dims));
    return x;
}

const ConstTensor& weight(Importer& im, int i, std::size_t rank) {
    const ConstTensor& w = im.constant(i, false);
    if (w.dims.size() != rank)
        im.fail("weight '" + im.inputName(i) + "' has " + std::to_string(w.dims.size()) +
                " dimensions; only 2-D convolutions (4-D weights) are supported");
    return w;
}

void setBias(Importer& im, int i, int64_t channels, bool& bias) {
    bias = im.hasInput(i);
    if (!bias)
        return;
    const int64_t n = elementsOf(im, im.constant(i, false));
    if (n != channels)
        im.fail("bias '" + im.inputName(i) + "' has " + std::to_string(n) + " elements for " +
                std::to_string(channels) + " outputs");
}

void conv(Importer& im) {
    const Value& x = imageInput(im);
    const ConstTensor& w = weight(im, 1, 4);
    const int64_t group = im.attrInt("group", 1);
    if (group <= 0)
        im.fail("group " + std::to_string(group) + " is not positive");
    if (checkedMul(w.dims[1], group, "channel count") != x.dims[0])
        im.fail("channel mismatch: weight '" + im.inputName(1) + "' expects " +
                std::to_string(w.dims[1]) + "x" + std::to_string(group) +
                " input channels, the input has " + std::to_string(x.dims[0]));
    checkKernelAttr(im, w.dims[2], w.dims[3]);
    const Window win = readWindow(im, w.dims[2], w.dims[3]);
    Layer l;
    l.kind = LayerKind::Convolution;
    ConvParams& p = l.conv;
    p.out_channels = w.dims[0];
    applyWindow(p, win);
    p.groups = group;
    setBias(im, 2, p.out_channels, p.bias);
    im.emit(std::move(l), {x.layer});
}

void convTranspose(Importer& im) {
    const Value& x = imageInput(im);
    const ConstTensor& w = weight(im, 1, 4);
    const int64_t group = im.attrInt("group", 1);
    if (group <= 0)
        im.fail("group " + std::to_string(group) + " is not positive");
    if (w.dims[0] != x.dims[0])
        im.fail("channel mismatch: weight '" + im.inputName(1) + "' expects " +
                std::to_string(w.dims[0]) + " input channels, the input has " +
                std::to_string(x.dims[0]));
    checkKernelAttr(im, w.dims[2], w.dims[3]);
    Window win = readWindow(im, w.dims[2], w.dims[3]);
    Layer l;
    l.kind = LayerKind::Deconvolution;
    ConvParams& p = l.conv;
    p.out_channels = checkedMul(w.dims[1], group, "channel count");
    pairAttr(im, "output_padding", p.output_pad_h, p.output_pad_w);
    if (im.hasAttr("output_shape")) {
        // An explicit output size fixes the padding (ONNX ConvTranspose's formula).
        auto out = im.attrInts("output_shape");
        if (out.size() == 4)
            out.erase(out.begin(), out.begin() + 2);
        if (out.size() != 2)
            im.fail("output_shape must have 2 spatial entries");
        auto fit = [&](int64_t in, int64_t k, int64_t s, int64_t d, int64_t& op, int64_t want,
                       int64_t& begin, int64_t& end) {
            const int64_t full =
                checkedAdd(checkedMul(s, in - 1, "output size"), checkedMul(d, k - 1) + 1 + op);
            const int64_t total = full - want;
            if (total < 0) {
                op -= total;
                begin = end = 0;
            } else if (win.mode == PadMode::SameUpper) {
                begin = total / 2;
                end = total - begin;
            } else {
                end = total / 2;
                begin = total - end;
            }
        };
        fit(x.dims[1], win.kh, win.sh, win.dh, p.output_pad_h, out[0], win.pt, win.pb);
        fit(x.dims[2], win.kw, win.sw, win.dw, p.output_pad_w, out[1], win.pl, win.pr);
        win.mode = PadMode::Explicit;
    }
    applyWindow(p, win);
    p.groups = group;
    setBias(im, 2, p.out_channels, p.bias);
    im.emit(std::move(l), {x.layer});
}

// Gemm and MatMul with a constant weight on a [batch, features] input.
void fullyConnected(Importer& im, bool gemm) {
    if (im.isConstant(0))
        im.fail("a constant first operand is not supported (the weight must be the second)");
    const Value& a = im.activation(0);
    if (!im.isConstant(1))
        im.fail("the second operand must be a constant weight; products of two activations "
                "are not supported");
    const ConstTensor& b = im.constant(1, false);
    if (b.dims.size() != 2)
        im.fail("weight '" + im.inputName(1) + "' must be 2-D, has " +
                std::to_string(b.dims.size()) + " dimensions");
    if (a.dims.size() != 1)
        im.fail("expects a [batch, features] input, got per-sample " + dimsText(a.dims) +
                " (insert a Flatten)");
    if (gemm && im.attrInt("transA", 0) != 0)
        im.fail("transA=1 is not supported");
    const bool trans_b = gemm && im.attrInt("transB", 0) != 0;
    const int64_t k = trans_b ? b.dims[1] : b.dims[0];
    const int64_t n = trans_b ? b.dims[0] : b.dims[1];
    if (k != a.dims[0])
        im.fail("weight '" + im.inputName(1) + "' expects " + std::to_string(k) +
                " input features, the input has " + std::to_string(a.dims[0]));
    Layer l;
    l.kind = LayerKind::FullyConnected;
    l.fc.out_features = n;
    l.fc.bias = false;
    if (gemm && im.hasInput(2)) {
        const int64_t c = elementsOf(im, im.constant(2, false));
        if (c != n && c != 1)
            im.fail("bias '" + im.inputName(2) + "' has " + std::to_string(c) + " elements for " +
                    std::to_string(n) + " outputs");
        l.fc.bias = true;
    }
    im.emit(std::move(l), {a.layer});
}

void normalization(Importer& im) {
    const Value& x = im.activation(0);
    if (x.dims.empty())
        im.fail("needs a channel dimension");
    const int64_t scale = elementsOf(im, im.constant(1, false));
    if (scale != x.dims[0])
        im.fail("channel mismatch: scale '" + im.inputName(1) + "' has " + std::to_string(scale) +
                " elements, the input has " + std::to_string(x.dims[0]) + " channels");
    Layer l;
    l.kind = LayerKind::BatchNorm;
    l.bn.affine = true;
    im.emit(std::move(l), {x.layer});
}

void activationLayer(Importer& im, ActivationKind kind, bool channel_shared = false) {
    const Value& x = im.activation(0);
    Layer l;
    l.kind = LayerKind::Activation;
    l.activation.kind = kind;
    l.activation.prelu_channel_shared = channel_shared;
    im.emit(std::move(l), {x.layer});
}

void prelu(Importer& im) {
    const Value& x = im.activation(0);
    const int64_t slopes = elementsOf(im, im.constant(1, false));
    const int64_t channels = x.dims.empty() ? 1 : x.dims[0];
    if (slopes != 1 && slopes != channels)
        im.fail("slope '" + im.inputName(1) + "' has " + std::to_string(slopes) + " elements for " +
                std::to_string(channels) + " channels");
    activationLayer(im, ActivationKind::PReLU, slopes == 1);
}

std::optional<double> clipBound(Importer& im, int input, const char* attr_name) {
    if (im.hasInput(input)) {
        const ConstTensor& t = im.constant(input, true);
        if (t.valueCount() != 1)
            im.fail(std::string(attr_name) + " must be a scalar");
        return t.realAt(0);
    }
    if (im.hasAttr(attr_name))
        return im.attrFloat(attr_name, 0.0F);
    return std::nullopt;
}

void clip(Importer& im) {
    const auto lo = clipBound(im, 1, "min");
    const auto hi = clipBound(im, 2, "max");
    const bool relu_floor = lo && *lo == 0.0;
    if (relu_floor && hi && *hi == 6.0)
        activationLayer(im, ActivationKind::ReLU6);
    else if (relu_floor && (!hi || *hi >= 3.0e38))
        activationLayer(im, ActivationKind::ReLU);
    else
        activationLayer(im, ActivationKind::Clip);
}

void pool(Importer& im, PoolKind kind) {
    const Value& x = imageInput(im);
    const auto k = im.attrInts("kernel_shape");
    if (k.size() != 2)
        im.fail("kernel_shape must have 2 entries for a 2-D pooling");
    const Window win = readWindow(im, k[0], k[1]);
    if (win.dh != 1 || win.dw != 1)
        im.fail("dilated pooling is not supported");
    Layer l;
    l.kind = LayerKind::Pooling;
    PoolParams& p = l.pool;
    p.kind = kind;
    p.kernel_h = win.kh;
    p.kernel_w = win.kw;
    p.stride_h = win.sh;
    p.stride_w = win.sw;
    p.pad_top = win.pt;
    p.pad_left = win.pl;
    p.pad_bottom = win.pb;
    p.pad_right = win.pr;
    p.pad_mode = win.mode;
    p.ceil_mode = im.attrInt("ceil_mode", 0) != 0;
    p.count_include_pad = kind == PoolKind::Average && im.attrInt("count_include_pad", 0) != 0;
    im.emit(std::move(l), {x.layer});
}

void globalPool(Importer& im, PoolKind kind) {
    const Value& x = imageInput(im);
    Layer l;
    l.kind = LayerKind::GlobalPooling;
    l.pool.kind = kind;
    im.emit(std::move(l), {x.layer});
}

// x.mean([2, 3]) as exporters write global pooling.
void reducePool(Importer& im, PoolKind kind) {
    const Value& x = im.activation(0);
    std::vector<int64_t> axes = im.attrInts("axes");
    if (im.hasInput(1))
        axes = im.constant(1, true).ints;
    const auto rank = static_cast<int64_t>(x.dims.size()) + 1;
    for (int64_t& a : axes)
        a = im.normalizeAxis(a, rank);
    std::sort(axes.begin(), axes.end());
    if (rank != 4 || axes != std::vector<int64_t>{2, 3})
        im.fail("only reductions over the spatial axes (2, 3) of an NxCxHxW input are "
                "supported");
    Layer l;
    l.kind = LayerKind::GlobalPooling;
    l.pool.kind = kind;
    const std::size_t pooled = im.emit(std::move(l), {x.layer});
    if (im.attrInt("keepdims", 1) == 0) {
        Layer flat;
        flat.kind = LayerKind::Flatten;
        im.emit(std::move(flat), {pooled}, "/flatten");
    }
}

void simpleLayer(Importer& im, LayerKind kind) {
    const Value& x = im.activation(0);
    Layer l;
    l.kind = kind;
    if (kind == LayerKind::LRN) {
        l.lrn.size = im.attrInt("size", 0);
        if (l.lrn.size <= 0)
            im.fail("LRN size must be positive");
    }
    im.emit(std::move(l), {x.layer});
}

bool allEqual(const ConstTensor& c, double v) {
    if (!c.has_values)
        return false;
    for (std::size_t i = 0; i < c.valueCount(); ++i) {
        if (c.realAt(i) != v)
            return false;
    }
    return true;
}

void eltwise(Importer& im, EltwiseKind kind) {
    std::vector<int> acts, consts;
    for (int i = 0; i < im.inputCount(); ++i) {
        if (!im.hasInput(i))
            continue;
        (im.input(i).kind == Value::Kind::Activation ? acts : consts).push_back(i);
    }
    if (acts.empty())
        im.fail("no input flows from the network input");
    if (acts.size() > 1) {
        if (!consts.empty())
            im.fail("mixing several activations with constants is not supported");
        std::vector<std::size_t> layers;
        for (int i : acts)
            layers.push_back(im.input(i).layer);
        Layer l;
        l.kind = LayerKind::Eltwise;
        l.eltwise.kind = kind;
        im.emit(std::move(l), layers);
        return;
    }
    const Value& x = im.input(acts[0]);
    if (consts.size() != 1)
        im.fail("expects one constant operand");
    const ConstTensor& c = im.constant(consts[0], false);
    const bool constant_second = consts[0] > acts[0];
    // x + 0, x - 0, x * 1, x / 1: nothing to compute.
    const bool additive = kind == EltwiseKind::Add || kind == EltwiseKind::Sub;
    const bool multiplicative = kind == EltwiseKind::Mul || kind == EltwiseKind::Div;
    if ((additive && allEqual(c, 0.0) && (kind == EltwiseKind::Add || constant_second)) ||
        (multiplicative && allEqual(c, 1.0) && (kind == EltwiseKind::Mul || constant_second))) {
        im.alias(0, x);
        return;
    }
    // The constant is broadcast onto x; it must not enlarge it.
    Dims cd = c.dims;
    if (cd.size() == x.dims.size() + 1) {
        if (cd[0] != 1 && cd[0] != im.exportBatch())
            im.fail("constant '" + im.inputName(consts[0]) + "' has a batch dimension of " +
                    std::to_string(cd[0]));
        cd.erase(cd.begin());
    }
    bool fits = cd.size() <= x.dims.size();
    for (std::size_t k = 0; fits && k < cd.size(); ++k) {
        const int64_t dc = cd[cd.size() - 1 - k];
        const int64_t dx = x.dims[x.dims.size() - 1 - k];
        fits = dc == 1 || dc == dx;
    }
    if (!fits)
        im.fail("broadcasting constant '" + im.inputName(consts[0]) + "' (" + dimsText(c.dims) +
                ") onto " + dimsText(x.dims) + " is not supported");
    // MatMul + Add and bias-free Conv + Add are how some exporters write a biased layer.
    Layer& producer = im.network().layers[x.layer];
    const int64_t n = elementsOf(im, c);
    if (kind == EltwiseKind::Add && im.uses(im.inputName(acts[0])) == 1 && !x.dims.empty() &&
        n == x.dims[0] && (cd.size() == 1 || cd.size() == x.dims.size())) {
        if (producer.kind == LayerKind::FullyConnected && !producer.fc.bias) {
            producer.fc.bias = true;
            im.alias(0, x);
            return;
        }
        if ((producer.kind == LayerKind::Convolution ||
             producer.kind == LayerKind::Deconvolution) &&
            !producer.conv.bias && cd.size() == x.dims.size()) {
            producer.conv.bias = true;
            im.alias(0, x);
            return;
        }
    }
    Layer l;
    l.kind = LayerKind::Eltwise;
    l.eltwise.kind = kind;
    im.emit(std::move(l), {x.layer});
}

void concat(Importer& im) {
    std::vector<std::size_t> layers;
    int64_t rank = 0;
    for (int i = 0; i < im.inputCount(); ++i) {
        const Value& v = im.activation(i);
        layers.push_back(v.layer);
        rank = static_cast<int64_t>(v.dims.size()) + 1;
    }
    if (layers.empty())
        im.fail("has no inputs");
    if (!im.hasAttr("axis"))
        im.fail("axis is required");
    const int64_t axis = im.normalizeAxis(im.attrInt("axis", 1), rank);
    if (axis == 0)
        im.fail("concatenation along the batch axis is not supported");
    Layer l;
    l.kind = LayerKind::Concat;
    l.concat.axis = axis - 1;
    im.emit(std::move(l), layers);
}

void flatten(Importer& im) {
    const Value& x = im.activation(0);
    const auto rank = static_cast<int64_t>(x.dims.size()) + 1;
    int64_t axis = im.attrInt("axis", 1);
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis > rank) // axis == rank is allowed: [N * ..., 1]
        im.fail("axis " + std::to_string(im.attrInt("axis", 1)) + " is outside the input");
    if (axis == 0)
        im.fail("Flatten at axis 0 merges the batch into the features; not supported");
    // Axis k > 1 keeps [N*d1*...*d(k-1), rest]: only per-sample when those dims are 1.
    for (int64_t k = 0; k + 1 < axis; ++k) {
        if (x.dims[static_cast<std::size_t>(k)] != 1)
            im.fail("Flatten at axis " + std::to_string(axis) +
                    " merges the batch with other dimensions; not supported");
    }
    Layer l;
    l.kind = LayerKind::Flatten;
    im.emit(std::move(l), {x.layer});
}

void reshapeTo(Importer& im, const Value& x, Dims per_sample) {
    Layer l;
    l.kind = LayerKind::Reshape;
    l.reshape.target = std::move(per_sample);
    im.emit(std::move(l), {x.layer});
}

void reshape(Importer& im) {
    const Value& x = im.activation(0);
    Dims target = im.hasInput(1) ? im.constant(1, true).ints : im.attrInts("shape");
    if (im.hasInput(1) && !im.constant(1, true).isInteger())
        im.fail("the target shape must be integers");
    if (target.empty())
        im.fail("reshaping to a scalar drops the batch; not supported");
    const int64_t first = target.front();
    if (first != 0 && first != -1 && first != im.exportBatch())
        im.fail("target shape " + formatDims(target) +
                " does not keep the batch dimension first; not supported");
    if (im.attrInt("allowzero", 0) != 0 && std::count(target.begin(), target.end(), 0) > 0)
        im.fail("allowzero with a zero in the target shape makes an empty tensor");
    target.erase(target.begin());
    reshapeTo(im, x, std::move(target));
}

std::vector<int64_t> axesOf(Importer& im) {
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
    std::vector<int64_t> axes = axesOf(im);
    Dims full = x.dims;
    full.insert(full.begin(), im.exportBatch());
    const auto out_rank = static_cast<int64_t>(full.size() + (unsqueeze ? axes.size() : 0));
    if (out_rank > 16)
        im.fail("the result would have " + std::to_string(out_rank) + " dimensions");
    for (int64_t& a : axes)
        a = im.normalizeAxis(a, unsqueeze ? out_rank : static_cast<int64_t>(full.size()));
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
        im.fail("axes repeat");
    if (!axes.empty() && axes.front() == 0)
        im.fail("squeezing or unsqueezing the batch axis is not supported");
    Dims out;
    if (unsqueeze) {
        out = full;
        for (int64_t a : axes)
            out.insert(out.begin() + a, 1);
    } else {
        for (std::size_t k = 0; k < full.size(); ++k) {
            const bool listed = std::binary_search(axes.begin(), axes.end(), int64_t(k));
            if (listed && full[k] != 1)
                im.fail("cannot squeeze axis " + std::to_string(k) + " of size " +
                        std::to_string(full[k]));
            if (!(listed || (axes.empty() && k > 0 && full[k] == 1)))
                out.push_back(full[k]);
        }
    }
    out.erase(out.begin());
    reshapeTo(im, x, std::move(out));
}

void transpose(Importer& im) {
    const Value& x = im.activation(0);
    const auto rank = static_cast<int64_t>(x.dims.size()) + 1;
    std::vector<int64_t> perm = im.attrInts("perm");
    if (perm.empty()) {
        for (int64_t k = rank - 1; k >= 0; --k)
            perm.push_back(k);
    }
    if (static_cast<int64_t>(perm.size()) != rank || perm[0] != 0)
        im.fail("the permutation must keep the batch axis first");
    perm.erase(perm.begin());
    bool identity = true;
    for (std::size_t k = 0; k < perm.size(); ++k) {
        perm[k] -= 1;
        identity = identity && perm[k] == static_cast<int64_t>(k);
    }
    if (identity) {
        im.alias(0, x);
        return;
    }
    Layer l;
    l.kind = LayerKind::Transpose;
    l.transpose.perm = std::move(perm);
    im.emit(std::move(l), {x.layer});
}

void pad(Importer& im) {
    const Value& x = imageInput(im);
    const std::vector<int64_t> pads =
        im.hasInput(1) ? im.constant(1, true).ints : im.attrInts("pads");
    if (pads.size() != 8)
        im.fail("pads must have 8 entries for an NxCxHxW input, has " +
                std::to_string(pads.size()));
    if (pads[0] != 0 || pads[1] != 0 || pads[4] != 0 || pads[5] != 0)
        im.fail("padding the batch or channel axis is not supported");
    if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; }))
        im.fail("negative pads (cropping) are not supported");
    Layer l;
    l.kind = LayerKind::Pad;
    l.pad.top = pads[2];
    l.pad.left = pads[3];
    l.pad.bottom = pads[6];
    l.pad.right = pads[7];
    im.emit(std::move(l), {x.layer});
}

using Handler = std::function<void(Importer&)>;

const std::unordered_map<std::string, Handler>& handlers() {
    using AK = ActivationKind;
    static const std::unordered_map<std::string, Handler> table = {
        {"Conv", conv},
        {"ConvTranspose", convTranspose},
        {"Gemm", [](Importer& im) { fullyConnected(im, true); }},
        {"MatMul", [](Importer& im) { fullyConnected(im, false); }},
        {"BatchNormalization", normalization},
        {"InstanceNormalization", normalization},
        {"Relu", [](Importer& im) { activationLayer(im, AK::ReLU); }},
        {"LeakyRelu", [](Importer& im) { activationLayer(im, AK::LeakyReLU); }},
        {"PRelu", prelu},
        {"Clip", clip},
        {"Sigmoid", [](Importer& im) { activationLayer(im, AK::Sigmoid); }},
        {"Tanh", [](Importer& im) { activationLayer(im, AK::Tanh); }},
        {"HardSigmoid", [](Importer& im) { activationLayer(im, AK::HardSigmoid); }},
        {"HardSwish", [](Importer& im) { activationLayer(im, AK::HardSwish); }},
        {"Elu", [](Importer& im) { activationLayer(im, AK::ELU); }},
        {"Selu", [](Importer& im) { activationLayer(im, AK::ELU); }},
        {"MaxPool", [](Importer& im) { pool(im, PoolKind::Max); }},
        {"AveragePool", [](Importer& im) { pool(im, PoolKind::Average); }},
        {"GlobalAveragePool", [](Importer& im) { globalPool(im, PoolKind::Average); }},
        {"GlobalMaxPool", [](Importer& im) { globalPool(im, PoolKind::Max); }},
        {"ReduceMean", [](Importer& im) { reducePool(im, PoolKind::Average); }},
        {"ReduceMax", [](Importer& im) { reducePool(im, PoolKind::Max); }},
        {"Add", [](Importer& im) { eltwise(im, EltwiseKind::Add); }},
        {"Sum", [](Importer& im) { eltwise(im, EltwiseKind::Add); }},
        {"Sub", [](Importer& im) { eltwise(im, EltwiseKind::Sub); }},
        {"Mul", [](Importer& im) { eltwise(im, EltwiseKind::Mul); }},
        {"Div", [](Importer& im) { eltwise(im, EltwiseKind::Div); }},
        {"Max", [](Importer& im) { eltwise(im, EltwiseKind::Max); }},
        {"Concat", concat},
        {"Flatten", flatten},
        {"Reshape", reshape},
        {"Squeeze", [](Importer& im) { squeeze(im, false); }},
        {"Unsqueeze", [](Importer& im) { squeeze(im, true); }},
        {"Transpose", transpose},
        {"Pad", pad},
        {"Dropout", [](Importer& im) { simpleLayer(im, LayerKind::Dropout); }},
        {"LRN", [](Importer& im) { simpleLayer(im, LayerKind::LRN); }},
        {"Softmax", [](Importer& im) { simpleLayer(im, LayerKind::Softmax); }},
        {"LogSoftmax", [](Importer& im) { simpleLayer(im, LayerKind::Softmax); }},
        {"Identity", [](Importer& im) { im.alias(0, im.activation(0)); }},
        {"Cast", [](Importer& im) { im.alias(0, im.activation(0)); }},
    };
    return table;
}

} // namespace

bool convertLayerOp(Importer& im, const std::string& op) {
    const auto& table = handlers();
    const auto it = table.find(op);
    if (it == table.end())
        return false;
    it->second(im);
    return true;
}

void convertUnknownOp(Importer& im) {
    const onnx::NodeProto& node = im.node();
    const std::string op =
        node.domain().empty() ? node.op_type() : node.domain() + "." + node.op_type();
    std::vector<std::size_t> layers;
    const Dims* shape = nullptr;
    for (int i = 0; i < im.inputCount(); ++i) {
        if (!im.hasInput(i) || im.input(i).kind != Value::Kind::Activation)
            continue;
        const Value& v = im.input(i);
        if (shape != nullptr && *shape != v.dims)
            im.fail("unknown op with inputs of different shapes (" + dimsText(*shape) + ", " +
                    dimsText(v.dims) + "); cannot import it as shape-preserving");
        shape = &v.dims;
        if (std::find(layers.begin(), layers.end(), v.layer) == layers.end())
            layers.push_back(v.layer);
    }
    if (shape == nullptr) {
        // Random ops (RandomUniformLike, Bernoulli: training-mode stochastic depth) and other
        // constant producers: keep the dims, which is all an operand of an Eltwise needs.
        ConstTensor t;
        t.data_type = onnx::TensorProto_DataType_FLOAT;
        if (im.hasAttr("shape")) {
            t.dims = im.attrInts("shape");
        } else {
            for (int i = 0; i < im.inputCount() && t.dims.empty(); ++i) {
                if (im.hasInput(i))
                    t.dims = im.constant(i, false).dims;
            }
        }
        for (int64_t d : t.dims) {
            if (d < 0)
                im.fail("negative dimension " + std::to_string(d));
        }
        im.setConstant(0, std::move(t));
        im.noteUnknown(op);
        return;
    }
    if (node.output_size() > 0) {
        const Dims declared = im.declaredShape(node.output(0));
        bool same = declared.empty() || declared.size() == shape->size() + 1;
        for (std::size_t k = 1; same && k < declared.size(); ++k)
            same = declared[k] < 0 || declared[k] == (*shape)[k - 1];
        if (!same) {
            Dims per_sample(declared.begin() + (declared.empty() ? 0 : 1), declared.end());
            im.fail("unknown op changes the shape from " + dimsText(*shape) + " to " +
                    dimsText(per_sample) + "; it cannot be imported");
        }
    }
    Layer l;
    l.kind = LayerKind::Identity;
    l.source_op = op;
    im.emit(std::move(l), layers);
    im.noteUnknown(op);
}

} // namespace iterscope::onnx_import
