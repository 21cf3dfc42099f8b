// Writing the project's network format (docs/network-format.md); the strict reader is in
// network_json_reader.cpp.
#include "io/network_json.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace iterscope {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

void putPair(ordered_json& o, const char* key, int64_t h, int64_t w, int64_t default_value) {
    if (h != default_value || w != default_value)
        o[key] = {h, w};
}

void putPads(ordered_json& o, int64_t top, int64_t left, int64_t bottom, int64_t right) {
    if (top != 0 || left != 0 || bottom != 0 || right != 0)
        o["pad"] = {top, left, bottom, right};
}

void putPadMode(ordered_json& o, PadMode mode) {
    if (mode != PadMode::Explicit)
        o["pad_mode"] = padModeName(mode);
}

// Required attributes always, optional ones only where they differ from the documented
// default, so a file shows what is particular about each layer.
ordered_json layerToJson(const Network& net, const Layer& l) {
    ordered_json o;
    o["name"] = l.name;
    o["kind"] = layerKindName(l.kind);
    if (l.kind != LayerKind::Input && !(l.kind == LayerKind::Constant && l.inputs.empty())) {
        ordered_json inputs = ordered_json::array();
        for (std::size_t i : l.inputs)
            inputs.push_back(i < net.layers.size() ? net.layers[i].name : std::string());
        o["inputs"] = std::move(inputs);
    }
    if (!l.source_op.empty())
        o["source_op"] = l.source_op;
    switch (l.kind) {
    case LayerKind::Convolution:
    case LayerKind::Deconvolution: {
        const ConvParams& c = l.conv;
        o["out_channels"] = c.out_channels;
        o["kernel"] = {c.kernel_h, c.kernel_w};
        putPair(o, "stride", c.stride_h, c.stride_w, 1);
        putPads(o, c.pad_top, c.pad_left, c.pad_bottom, c.pad_right);
        putPadMode(o, c.pad_mode);
        putPair(o, "dilation", c.dilation_h, c.dilation_w, 1);
        if (c.groups != 1)
            o["groups"] = c.groups;
        if (l.kind == LayerKind::Deconvolution)
            putPair(o, "output_pad", c.output_pad_h, c.output_pad_w, 0);
        if (!c.bias)
            o["bias"] = false;
        break;
    }
    case LayerKind::FullyConnected:
        o["out_features"] = l.fc.out_features;
        if (!l.fc.bias)
            o["bias"] = false;
        if (!l.fc.flatten)
            o["flatten"] = false;
        break;
    case LayerKind::BatchNorm:
        if (!l.bn.affine)
            o["affine"] = false;
        break;
    case LayerKind::Scale:
        if (!l.scale.bias)
            o["bias"] = false;
        break;
    case LayerKind::Activation:
        o["function"] = activationKindName(l.activation.kind);
        if (l.activation.prelu_channel_shared)
            o["channel_shared"] = true;
        break;
    case LayerKind::Pooling: {
        const PoolParams& p = l.pool;
        o["mode"] = poolKindName(p.kind);
        o["kernel"] = {p.kernel_h, p.kernel_w};
        putPair(o, "stride", p.stride_h, p.stride_w, 1);
        putPads(o, p.pad_top, p.pad_left, p.pad_bottom, p.pad_right);
        putPadMode(o, p.pad_mode);
        if (p.ceil_mode)
            o["ceil_mode"] = true;
        if (p.count_include_pad)
            o["count_include_pad"] = true;
        break;
    }
    case LayerKind::GlobalPooling:
        o["mode"] = poolKindName(l.pool.kind);
        break;
    case LayerKind::LRN:
        if (l.lrn.size != LrnParams{}.size)
            o["size"] = l.lrn.size;
        break;
    case LayerKind::Concat:
        if (l.concat.axis != 0)
            o["axis"] = l.concat.axis;
        break;
    case LayerKind::Eltwise:
        o["operation"] = eltwiseKindName(l.eltwise.kind);
        break;
    case LayerKind::Reshape:
        o["target"] = l.reshape.target;
        break;
    case LayerKind::Transpose:
        o["perm"] = l.transpose.perm;
        break;
    case LayerKind::Pad:
        if (l.pad.begins.empty() && l.pad.ends.empty()) {
            o["pad"] = {l.pad.top, l.pad.left, l.pad.bottom, l.pad.right};
        } else {
            o["begins"] = l.pad.begins;
            o["ends"] = l.pad.ends;
        }
        break;
    case LayerKind::Softmax:
        if (l.softmax.axis != SoftmaxParams{}.axis)
            o["axis"] = l.softmax.axis;
        break;
    case LayerKind::MatMul:
        if (l.matmul.transpose_a)
            o["transpose_a"] = true;
        if (l.matmul.transpose_b)
            o["transpose_b"] = true;
        break;
    case LayerKind::LayerNorm:
        if (l.layernorm.axis != LayerNormParams{}.axis)
            o["axis"] = l.layernorm.axis;
        if (!l.layernorm.scale)
            o["scale"] = false;
        if (!l.layernorm.bias)
            o["bias"] = false;
        break;
    case LayerKind::Reduce:
        o["operation"] = reduceKindName(l.reduce.kind);
        o["axes"] = l.reduce.axes;
        if (!l.reduce.keepdims)
            o["keepdims"] = false;
        break;
    case LayerKind::Slice:
        o["axes"] = l.slice.axes;
        o["starts"] = l.slice.starts;
        o["ends"] = l.slice.ends;
        if (!l.slice.steps.empty())
            o["steps"] = l.slice.steps;
        break;
    case LayerKind::Constant:
        o["dims"] = l.constant.dims;
        if (l.constant.params != 0)
            o["params"] = l.constant.params;
        break;
    case LayerKind::Expand:
        o["target"] = l.expand.target;
        break;
    case LayerKind::Input:
    case LayerKind::Dropout:
    case LayerKind::Flatten:
    case LayerKind::Identity:
        break;
    }
    return o;
}

std::string dumpCompact(const ordered_json& j) {
    // Names from imported files may hold invalid UTF-8; replace rather than throw.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

std::string networkToJson(const Network& net) {
    ordered_json head;
    head["format"] = kNetworkFormatName;
    head["version"] = kNetworkFormatVersion;
    head["name"] = net.name;
    head["input"] = net.input;
    // The host's share of a run on real images depends on the recipe's augmentation.
    if (net.augmentation != Augmentation::Standard)
        head["augmentation"] = augmentationName(net.augmentation);
    std::ostringstream out;
    // One layer a line: a 500-layer network stays readable and diffs cleanly.
    out << "{\n";
    for (auto it = head.begin(); it != head.end(); ++it)
        out << "  " << dumpCompact(ordered_json(it.key())) << ": " << dumpCompact(*it) << ",\n";
    out << "  \"layers\": [\n";
    for (std::size_t i = 0; i < net.layers.size(); ++i)
        out << "    " << dumpCompact(layerToJson(net, net.layers[i]))
            << (i + 1 < net.layers.size() ? ",\n" : "\n");
    out << "  ]\n}\n";
    return out.str();
}

} // namespace iterscope
