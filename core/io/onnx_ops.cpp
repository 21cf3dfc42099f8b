// ONNX ops that become layers: convolutions, pooling, normalization, activations,
// element-wise arithmetic, concatenation and padding. ONNX shapes hold the batch (first, for
// images); the network's are per sample, so axes drop it (Importer::sampleAxis).
#include "io/onnx_ops_detail.h"

#include "network/analysis.h"
#include "util/checked.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_map>

namespace iterscope::onnx_import {
namespace {

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
    if (x.dims.size() != 3 || !batchFirst(x))
        im.fail("expects an NxCxHxW input, got " + dimsText(onnxDims(x, im.exportBatch())) +
                (batchFirst(x) ? "" : " with the batch elsewhere than first"));
    return x;
}

const ConstTensor& weight(Importer& im, int i, std::size_t rank) {
    const ConstTensor& w = im.constant(i, false);
    if (w.dims.size() != rank)
        im.fail("weight '" + im.inputName(i) + "' has " + std::to_string(w.dims.size()) +
                " dimensions; only 2-D convolutions (4-D weights) are supported");
    return w;
}

// The weights (and statistics) a layer counts by its own kind are not counted again by a
// Constant layer that might read the same initializers.
void claimConstants(Importer& im) {
    for (int i = 0; i < im.inputCount(); ++i)
        if (im.isConstant(i))
            im.claim(im.input(i));
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
    claimConstants(im);
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
    claimConstants(im);
    im.emit(std::move(l), {x.layer});
}

void normalization(Importer& im) {
    const Value& x = im.activation(0);
    if (x.dims.empty() || !batchFirst(x))
        im.fail("needs an N x C x ... input with the batch first");
    const int64_t scale = elementsOf(im, im.constant(1, false));
    if (scale != x.dims[0])
        im.fail("channel mismatch: scale '" + im.inputName(1) + "' has " + std::to_string(scale) +
                " elements, the input has " + std::to_string(x.dims[0]) + " channels");
    Layer l;
    l.kind = LayerKind::BatchNorm;
    l.bn.affine = true;
    claimConstants(im);
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
    claimConstants(im);
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

// Dropout of probability 0 (torchvision's ViT and Swin export one after every block) is
// the identity even in training: PyTorch returns its input untouched.
void dropout(Importer& im) {
    const Value& x = im.activation(0);
    double ratio = im.attrFloat("ratio", 0.5F);
    if (im.hasInput(1)) {
        const ConstTensor& r = im.constant(1, false);
        if (r.has_values && r.valueCount() == 1)
            ratio = r.realAt(0);
    }
    if (ratio == 0.0) {
        im.alias(0, x);
        return;
    }
    simpleLayer(im, LayerKind::Dropout);
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

// Whether a constant holds learned elements no layer has counted yet.
bool learned(const Value& c) {
    return !c.learned.empty();
}

// Several activations (and constants) combined element-wise, broadcasting.
void eltwiseOfActivations(Importer& im, EltwiseKind kind, const std::vector<int>& inputs) {
    std::vector<Value> acts;
    for (int i : inputs)
        if (!im.isConstant(i))
            acts.push_back(im.input(i));
    std::vector<const Value*> ptrs;
    for (const Value& v : acts)
        ptrs.push_back(&v);
    const BatchLayout batch = sharedLayout(im, ptrs);
    std::vector<std::size_t> layers;
    std::size_t next = 0;
    for (int i : inputs) {
        if (im.isConstant(i)) {
            const Value c = im.input(i);
            layers.push_back(im.constantLayer(
                c, constantSampleDims(im, acts.front(), c.constant, im.inputName(i)),
                "/" + std::to_string(i)));
        } else {
            layers.push_back(acts[next++].layer);
        }
    }
    Layer l;
    l.kind = LayerKind::Eltwise;
    l.eltwise.kind = kind;
    im.emit(std::move(l), layers, batch);
}

void eltwise(Importer& im, EltwiseKind kind) {
    std::vector<int> inputs, acts, consts;
    for (int i = 0; i < im.inputCount(); ++i) {
        if (!im.hasInput(i))
            continue;
        inputs.push_back(i);
        (im.input(i).kind == Value::Kind::Activation ? acts : consts).push_back(i);
    }
    if (acts.empty())
        im.fail("no input flows from the network input");
    if (acts.size() > 1) {
        eltwiseOfActivations(im, kind, inputs);
        return;
    }
    const Value x = im.input(acts[0]);
    if (consts.size() != 1)
        im.fail("expects one constant operand");
    const Value cv = im.input(consts[0]);
    const ConstTensor& c = cv.constant;
    const bool constant_second = consts[0] > acts[0];
    // x + 0, x - 0, x * 1, x / 1: nothing to compute. Not for a learned tensor, whose values
    // in the file are only its initialization (torchvision zeroes Linear biases).
    const bool additive = kind == EltwiseKind::Add || kind == EltwiseKind::Sub;
    const bool multiplicative = kind == EltwiseKind::Mul || kind == EltwiseKind::Div;
    const bool neutral =
        (additive && allEqual(c, 0.0) && (kind == EltwiseKind::Add || constant_second)) ||
        (multiplicative && allEqual(c, 1.0) && (kind == EltwiseKind::Mul || constant_second));
    if (neutral && !learned(cv)) {
        im.alias(0, x);
        return;
    }
    const Dims cd = constantSampleDims(im, x, c, im.inputName(consts[0]));
    // MatMul + Add and bias-free Conv + Add are how some exporters write a biased layer.
    Layer& producer = im.network().layers[x.layer];
    const int64_t n = elementsOf(im, c);
    if (kind == EltwiseKind::Add && im.uses(im.inputName(acts[0])) == 1 && !x.dims.empty()) {
        const bool along_last =
            n == x.dims.back() &&
            std::count_if(cd.begin(), cd.end(), [](int64_t d) { return d != 1; }) <= 1 &&
            (cd.empty() || cd.back() == n);
        if (producer.kind == LayerKind::FullyConnected && !producer.fc.bias &&
            n == producer.fc.out_features && along_last) {
            producer.fc.bias = true;
            im.claim(cv);
            im.alias(0, x);
            return;
        }
        if ((producer.kind == LayerKind::Convolution ||
             producer.kind == LayerKind::Deconvolution) &&
            !producer.conv.bias && n == x.dims[0] && cd.size() == x.dims.size()) {
            producer.conv.bias = true;
            im.claim(cv);
            im.alias(0, x);
            return;
        }
    }
    // A constant that is learned (a position table, a layer scale, a norm's weight) or that
    // enlarges x is a layer of its own; a fixed one that fits x (an epsilon, a scale
    // factor, a mask) is folded into the element-wise layer.
    bool fits = cd.size() <= x.dims.size();
    for (std::size_t k = 0; fits && k < cd.size(); ++k) {
        const int64_t dc = cd[cd.size() - 1 - k];
        const int64_t dx = x.dims[x.dims.size() - 1 - k];
        fits = dc == 1 || dc == dx;
    }
    if (learned(cv) || !fits) {
        eltwiseOfActivations(
            im, kind,
            {acts[0] < consts[0] ? acts[0] : consts[0], acts[0] < consts[0] ? consts[0] : acts[0]});
        return;
    }
    Layer l;
    l.kind = LayerKind::Eltwise;
    l.eltwise.kind = kind;
    im.emit(std::move(l), {x.layer}, x.batch);
}

void concat(Importer& im) {
    if (im.inputCount() == 0)
        im.fail("has no inputs");
    if (!im.hasAttr("axis"))
        im.fail("axis is required");
    const auto [acts, batch] = combinedActivations(im, im.inputCount());
    const Value& ref = acts.front();
    const auto rank = static_cast<int64_t>(onnxDims(ref, im.exportBatch()).size());
    const int64_t onnx_axis = im.normalizeAxis(im.attrInt("axis", 1), rank);
    if (!ref.batch.free() && onnx_axis == ref.batch.axis)
        im.fail("concatenation along the batch axis is not supported");
    const std::size_t axis = im.sampleAxis(ref, onnx_axis, "concat axis");
    std::vector<std::size_t> layers;
    std::size_t next = 0;
    for (int i = 0; i < im.inputCount(); ++i) {
        if (im.isConstant(i)) {
            // A class token expanded to the batch, say: the same tensor for every sample.
            const Value c = im.input(i);
            layers.push_back(
                im.constantLayer(c, constantSampleDims(im, ref, c.constant, im.inputName(i)),
                                 "/" + std::to_string(i)));
        } else {
            layers.push_back(acts[next++].layer);
        }
    }
    Layer l;
    l.kind = LayerKind::Concat;
    l.concat.axis = static_cast<int64_t>(axis);
    im.emit(std::move(l), layers, batch);
}

void pad(Importer& im) {
    const Value& x = im.activation(0);
    const Dims full = onnxDims(x, im.exportBatch());
    const auto rank = static_cast<int64_t>(full.size());
    std::vector<int64_t> pads = im.hasInput(1) ? intsOf(im, 1, "pads") : im.attrInts("pads");
    if (im.hasInput(3)) {
        // Opset 18: pads for the listed axes only.
        std::vector<int64_t> axes = intsOf(im, 3, "axes");
        if (pads.size() != 2 * axes.size())
            im.fail("pads must have two entries per listed axis");
        std::vector<int64_t> all(static_cast<std::size_t>(2 * rank), 0);
        for (std::size_t k = 0; k < axes.size(); ++k) {
            const int64_t a = im.normalizeAxis(axes[k], rank);
            all[static_cast<std::size_t>(a)] = pads[k];
            all[static_cast<std::size_t>(a + rank)] = pads[k + axes.size()];
        }
        pads = std::move(all);
    }
    if (static_cast<int64_t>(pads.size()) != 2 * rank)
        im.fail("pads must have " + std::to_string(2 * rank) + " entries for a " +
                std::to_string(rank) + "-D input, has " + std::to_string(pads.size()));
    if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; }))
        im.fail("negative pads (cropping) are not supported");
    Layer l;
    l.kind = LayerKind::Pad;
    bool none = true;
    for (int64_t a = 0; a < rank; ++a) {
        const int64_t begin = pads[static_cast<std::size_t>(a)];
        const int64_t end = pads[static_cast<std::size_t>(a + rank)];
        if (!x.batch.free() && a == x.batch.axis) {
            if (begin != 0 || end != 0)
                im.fail("padding the batch axis is not supported");
            continue;
        }
        none = none && begin == 0 && end == 0;
        l.pad.begins.push_back(begin);
        l.pad.ends.push_back(end);
    }
    if (none) {
        im.alias(0, x);
        return;
    }
    // An image padded in height and width only: the spatial form network files write.
    if (batchFirst(x) && rank == 4 && l.pad.begins[0] == 0 && l.pad.ends[0] == 0) {
        l.pad.top = l.pad.begins[1];
        l.pad.left = l.pad.begins[2];
        l.pad.bottom = l.pad.ends[1];
        l.pad.right = l.pad.ends[2];
        l.pad.begins.clear();
        l.pad.ends.clear();
    }
    im.emit(std::move(l), {x.layer}, x.batch);
}

using Handler = std::function<void(Importer&)>;

const std::unordered_map<std::string, Handler>& handlers() {
    using AK = ActivationKind;
    static const std::unordered_map<std::string, Handler> table = {
        {"Conv", conv},
        {"ConvTranspose", convTranspose},
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
        {"Gelu", // opset 20: approximate "none" (erf) or "tanh"
         [](Importer& im) {
             activationLayer(im, im.attrString("approximate", "none") == "tanh" ? AK::GELUTanh
                                                                                : AK::GELU);
         }},
        {"com.microsoft.Gelu", [](Importer& im) { activationLayer(im, AK::GELU); }},
        {"com.microsoft.FastGelu", [](Importer& im) { activationLayer(im, AK::GELUTanh); }},
        {"Erf", [](Importer& im) { activationLayer(im, AK::Erf); }},
        {"Sqrt", [](Importer& im) { activationLayer(im, AK::Sqrt); }},
        {"Exp", [](Importer& im) { activationLayer(im, AK::Exp); }},
        {"Log", [](Importer& im) { activationLayer(im, AK::Log); }},
        {"Abs", [](Importer& im) { activationLayer(im, AK::Abs); }},
        {"Neg", [](Importer& im) { activationLayer(im, AK::Neg); }},
        {"Reciprocal", [](Importer& im) { activationLayer(im, AK::Reciprocal); }},
        {"MaxPool", [](Importer& im) { pool(im, PoolKind::Max); }},
        {"AveragePool", [](Importer& im) { pool(im, PoolKind::Average); }},
        {"GlobalAveragePool", [](Importer& im) { globalPool(im, PoolKind::Average); }},
        {"GlobalMaxPool", [](Importer& im) { globalPool(im, PoolKind::Max); }},
        {"Add", [](Importer& im) { eltwise(im, EltwiseKind::Add); }},
        {"Sum", [](Importer& im) { eltwise(im, EltwiseKind::Add); }},
        {"Sub", [](Importer& im) { eltwise(im, EltwiseKind::Sub); }},
        {"Mul", [](Importer& im) { eltwise(im, EltwiseKind::Mul); }},
        {"Div", [](Importer& im) { eltwise(im, EltwiseKind::Div); }},
        {"Max", [](Importer& im) { eltwise(im, EltwiseKind::Max); }},
        {"Min", [](Importer& im) { eltwise(im, EltwiseKind::Min); }},
        {"Pow", [](Importer& im) { eltwise(im, EltwiseKind::Pow); }},
        {"Concat", concat},
        {"Pad", pad},
        {"Dropout", dropout},
        {"LRN", [](Importer& im) { simpleLayer(im, LayerKind::LRN); }},
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
        return convertTensorOp(im, op) || convertMathOp(im, op);
    it->second(im);
    return true;
}

void convertUnknownOp(Importer& im) {
    const onnx::NodeProto& node = im.node();
    const std::string op =
        node.domain().empty() ? node.op_type() : node.domain() + "." + node.op_type();
    std::vector<std::size_t> layers;
    std::optional<Value> first; // the first activation input: its shape and batch layout
    for (int i = 0; i < im.inputCount(); ++i) {
        if (!im.hasInput(i) || im.input(i).kind != Value::Kind::Activation)
            continue;
        const Value& v = im.input(i);
        if (first && (first->dims != v.dims || !(first->batch == v.batch)))
            im.fail("unknown op with inputs of different shapes (" +
                    dimsText(onnxDims(*first, im.exportBatch())) + ", " +
                    dimsText(onnxDims(v, im.exportBatch())) +
                    "); cannot import it as shape-preserving");
        if (!first)
            first = v;
        if (std::find(layers.begin(), layers.end(), v.layer) == layers.end())
            layers.push_back(v.layer);
    }
    const Dims* shape = first ? &first->dims : nullptr;
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
        // The file may declare the output's shape: it must be the input's (the batch and
        // symbolic dimensions may read -1).
        const Dims declared = im.declaredShape(node.output(0));
        const Dims in = onnxDims(*first, im.exportBatch());
        bool same = declared.empty() || declared.size() == in.size();
        for (std::size_t k = 0; same && k < declared.size(); ++k)
            same = declared[k] < 0 || declared[k] == in[k] ||
                   (!first->batch.free() && static_cast<int>(k) == first->batch.axis);
        if (!same)
            im.fail("unknown op changes the shape from " + dimsText(in) + " to " +
                    dimsText(declared) + "; it cannot be imported");
    }
    Layer l;
    l.kind = LayerKind::Identity;
    l.source_op = op;
    im.emit(std::move(l), layers, first->batch);
    im.noteUnknown(op);
}

} // namespace iterscope::onnx_import
