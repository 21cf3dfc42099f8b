// Reading the project's network format (docs/network-format.md).
//
// Reading is strict because a typo in a hand-written file ("kernal") that silently fell back
// to a default would give a plausible but wrong prediction. Every error names the layer and
// the field. Only InputError leaves this file: nlohmann's exceptions are translated.
#include "io/network_json.h"

#include "util/error.h"
#include "util/text_file.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace iterscope {
namespace {

using json = nlohmann::json;

// Far above any real hyper-parameter; rejects absurd values with a clear message before
// the analysis would report them as an overflow.
constexpr int64_t kMaxValue = std::numeric_limits<int32_t>::max();
constexpr int kMaxDepth = 32;                        // our format nests 4 deep
constexpr std::uintmax_t kMaxFileBytes = 256u << 20; // a 100k-layer file is ~20 MB

// Names of enumerators, both ways, from the one table in network.cpp.

template <typename E> std::vector<E> enumerators(int count) {
    std::vector<E> v;
    for (int i = 0; i < count; ++i)
        v.push_back(static_cast<E>(i));
    return v;
}

const std::vector<LayerKind>& allLayerKinds() {
    static const auto v = enumerators<LayerKind>(static_cast<int>(LayerKind::Identity) + 1);
    return v;
}
const std::vector<ActivationKind>& allActivations() {
    static const auto v =
        enumerators<ActivationKind>(static_cast<int>(ActivationKind::Reciprocal) + 1);
    return v;
}
const std::vector<EltwiseKind>& allEltwise() {
    static const auto v = enumerators<EltwiseKind>(static_cast<int>(EltwiseKind::Pow) + 1);
    return v;
}
const std::vector<ReduceKind>& allReduceKinds() {
    static const std::vector<ReduceKind> v = {ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min,
                                              ReduceKind::Sum};
    return v;
}
const std::vector<PoolKind>& allPoolKinds() {
    static const std::vector<PoolKind> v = {PoolKind::Max, PoolKind::Average};
    return v;
}
const std::vector<PadMode>& allPadModes() {
    static const std::vector<PadMode> v = {PadMode::Explicit, PadMode::SameUpper,
                                           PadMode::SameLower, PadMode::Valid};
    return v;
}

template <typename E, typename NameOf> std::string choices(const std::vector<E>& all, NameOf name) {
    std::string s;
    for (E e : all)
        s += (s.empty() ? "" : ", ") + std::string(name(e));
    return s;
}

// Rejects what nlohmann would silently accept: duplicate keys (it keeps the last) and
// nesting deep enough to exhaust the stack in recursive code further on.
class StrictParse {
  public:
    bool operator()(int depth, json::parse_event_t event, json& parsed) {
        if (depth > kMaxDepth)
            throw InputError("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
        switch (event) {
        case json::parse_event_t::object_start:
            keys_.emplace_back();
            break;
        case json::parse_event_t::object_end:
            if (!keys_.empty())
                keys_.pop_back();
            break;
        case json::parse_event_t::key:
            if (!keys_.empty() && parsed.is_string() &&
                !keys_.back().insert(parsed.get<std::string>()).second)
                throw InputError("duplicate key \"" + parsed.get<std::string>() + "\"" +
                                 (keys_.size() == 1 ? " at the top level" : ""));
            break;
        default:
            break;
        }
        return true;
    }

  private:
    std::vector<std::set<std::string>> keys_;
};

// The place an error refers to: "layer 'conv1'" or "layer #3" until a name is known.
class Where {
  public:
    explicit Where(std::string what)
        : what_(std::move(what)) {}
    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw InputError(what_ + ": field '" + field + "': " + problem);
    }
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(what_ + ": " + problem);
    }
    const std::string& text() const { return what_; }

  private:
    std::string what_;
};

std::string typeName(const json& v) {
    if (v.is_number_integer())
        return "an integer";
    if (v.is_number_float())
        return "a non-integer number";
    if (v.is_boolean())
        return "a boolean";
    if (v.is_string())
        return "a string";
    if (v.is_array())
        return "an array";
    if (v.is_object())
        return "an object";
    return "null";
}

int64_t toInt(const Where& w, const std::string& field, const json& v, int64_t min_value,
              int64_t max_value = kMaxValue) {
    if (!v.is_number_integer())
        w.fail(field, "expected an integer, got " + typeName(v));
    int64_t x = 0;
    if (v.is_number_unsigned()) {
        const auto u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(max_value))
            w.fail(field, std::to_string(u) + " is larger than " + std::to_string(max_value));
        x = static_cast<int64_t>(u);
    } else {
        x = v.get<int64_t>();
    }
    if (x < min_value || x > max_value)
        w.fail(field, std::to_string(x) + " is outside " + std::to_string(min_value) + ".." +
                          std::to_string(max_value));
    return x;
}

bool toBool(const Where& w, const std::string& field, const json& v) {
    if (!v.is_boolean())
        w.fail(field, "expected true or false, got " + typeName(v));
    return v.get<bool>();
}

std::string toString(const Where& w, const std::string& field, const json& v) {
    if (!v.is_string())
        w.fail(field, "expected a string, got " + typeName(v));
    return v.get<std::string>();
}

std::vector<int64_t> toIntArray(const Where& w, const std::string& field, const json& v,
                                int64_t min_value, std::size_t max_size) {
    if (!v.is_array())
        w.fail(field, "expected an array of integers, got " + typeName(v));
    if (v.size() > max_size)
        w.fail(field, "has " + std::to_string(v.size()) + " entries, at most " +
                          std::to_string(max_size) + " allowed");
    std::vector<int64_t> out;
    for (std::size_t i = 0; i < v.size(); ++i)
        out.push_back(toInt(w, field + "[" + std::to_string(i) + "]", v[i], min_value));
    return out;
}

// An integer for both axes, or [h, w].
std::pair<int64_t, int64_t> toPair(const Where& w, const std::string& field, const json& v,
                                   int64_t min_value) {
    if (v.is_number_integer()) {
        const int64_t x = toInt(w, field, v, min_value);
        return {x, x};
    }
    if (!v.is_array() || v.size() != 2)
        w.fail(field, "expected an integer or [height, width]");
    return {toInt(w, field + "[0]", v[0], min_value), toInt(w, field + "[1]", v[1], min_value)};
}

// An integer for all sides, [h, w] for symmetric padding, or [top, left, bottom, right].
std::array<int64_t, 4> toPads(const Where& w, const std::string& field, const json& v) {
    if (v.is_number_integer()) {
        const int64_t x = toInt(w, field, v, 0);
        return {x, x, x, x};
    }
    if (v.is_array() && v.size() == 2) {
        const auto [h, wd] = toPair(w, field, v, 0);
        return {h, wd, h, wd};
    }
    if (!v.is_array() || v.size() != 4)
        w.fail(field, "expected an integer, [height, width] or [top, left, bottom, right]");
    std::array<int64_t, 4> p{};
    for (std::size_t i = 0; i < 4; ++i)
        p[i] = toInt(w, field + "[" + std::to_string(i) + "]", v[i], 0);
    return p;
}

template <typename E, typename NameOf>
E toEnum(const Where& w, const std::string& field, const json& v, const std::vector<E>& all,
         NameOf name) {
    const std::string s = toString(w, field, v);
    for (E e : all)
        if (s == name(e))
            return e;
    w.fail(field, "unknown value \"" + s + "\" (expected one of " + choices(all, name) + ")");
}

// The fields each kind accepts besides name, kind, inputs and source_op.
const std::set<std::string>& kindFields(LayerKind kind) {
    static const std::set<std::string> none;
    static const std::set<std::string> conv = {"out_channels", "kernel",   "stride", "pad",
                                               "pad_mode",     "dilation", "groups", "bias"};
    static const std::set<std::string> deconv = [] {
        auto s = conv;
        s.insert("output_pad");
        return s;
    }();
    static const std::set<std::string> fc = {"out_features", "bias", "flatten"};
    static const std::set<std::string> bn = {"affine"};
    static const std::set<std::string> scale = {"bias"};
    static const std::set<std::string> act = {"function", "channel_shared"};
    static const std::set<std::string> pool = {"mode",     "kernel",    "stride",           "pad",
                                               "pad_mode", "ceil_mode", "count_include_pad"};
    static const std::set<std::string> gpool = {"mode"};
    static const std::set<std::string> lrn = {"size"};
    static const std::set<std::string> concat = {"axis"};
    static const std::set<std::string> eltwise = {"operation"};
    static const std::set<std::string> reshape = {"target"};
    static const std::set<std::string> transpose = {"perm"};
    static const std::set<std::string> pad = {"pad", "begins", "ends"};
    static const std::set<std::string> softmax = {"axis"};
    static const std::set<std::string> matmul = {"transpose_a", "transpose_b"};
    static const std::set<std::string> layernorm = {"axis", "scale", "bias"};
    static const std::set<std::string> reduce = {"operation", "axes", "keepdims"};
    static const std::set<std::string> slice = {"axes", "starts", "ends", "steps"};
    static const std::set<std::string> constant = {"dims", "params"};
    static const std::set<std::string> expand = {"target"};
    switch (kind) {
    case LayerKind::Convolution:
        return conv;
    case LayerKind::Deconvolution:
        return deconv;
    case LayerKind::FullyConnected:
        return fc;
    case LayerKind::BatchNorm:
        return bn;
    case LayerKind::Scale:
        return scale;
    case LayerKind::Activation:
        return act;
    case LayerKind::Pooling:
        return pool;
    case LayerKind::GlobalPooling:
        return gpool;
    case LayerKind::LRN:
        return lrn;
    case LayerKind::Concat:
        return concat;
    case LayerKind::Eltwise:
        return eltwise;
    case LayerKind::Reshape:
        return reshape;
    case LayerKind::Transpose:
        return transpose;
    case LayerKind::Pad:
        return pad;
    case LayerKind::Softmax:
        return softmax;
    case LayerKind::MatMul:
        return matmul;
    case LayerKind::LayerNorm:
        return layernorm;
    case LayerKind::Reduce:
        return reduce;
    case LayerKind::Slice:
        return slice;
    case LayerKind::Constant:
        return constant;
    case LayerKind::Expand:
        return expand;
    case LayerKind::Input:
    case LayerKind::Dropout:
    case LayerKind::Flatten:
    case LayerKind::Identity:
        break;
    }
    return none;
}

// Kinds whose layer combines several inputs; all others take exactly one.
bool takesSeveralInputs(LayerKind kind) {
    return kind == LayerKind::Concat || kind == LayerKind::Eltwise || kind == LayerKind::MatMul;
}

class LayerReader {
  public:
    LayerReader(const Where& where, const json& o)
        : w_(where)
        , o_(o) {}

    const json* find(const char* key) const {
        auto it = o_.find(key);
        return it == o_.end() ? nullptr : &*it;
    }
    const json& require(const char* key) const {
        const json* v = find(key);
        if (!v)
            w_.fail(key, "is required");
        return *v;
    }
    int64_t integer(const char* key, int64_t fallback, int64_t min_value) const {
        const json* v = find(key);
        return v ? toInt(w_, key, *v, min_value) : fallback;
    }
    bool boolean(const char* key, bool fallback) const {
        const json* v = find(key);
        return v ? toBool(w_, key, *v) : fallback;
    }
    void pair(const char* key, int64_t& h, int64_t& wd, int64_t min_value) const {
        if (const json* v = find(key))
            std::tie(h, wd) = toPair(w_, key, *v, min_value);
    }
    void pads(int64_t& top, int64_t& left, int64_t& bottom, int64_t& right) const {
        if (const json* v = find("pad")) {
            const auto p = toPads(w_, "pad", *v);
            top = p[0];
            left = p[1];
            bottom = p[2];
            right = p[3];
        }
    }
    PadMode padMode() const {
        const json* v = find("pad_mode");
        return v ? toEnum(w_, "pad_mode", *v, allPadModes(), padModeName) : PadMode::Explicit;
    }
    const Where& where() const { return w_; }

  private:
    const Where& w_;
    const json& o_;
};

void readAttributes(const LayerReader& r, Layer& l) {
    const Where& w = r.where();
    switch (l.kind) {
    case LayerKind::Convolution:
    case LayerKind::Deconvolution: {
        ConvParams& c = l.conv;
        c.out_channels = toInt(w, "out_channels", r.require("out_channels"), 1);
        std::tie(c.kernel_h, c.kernel_w) = toPair(w, "kernel", r.require("kernel"), 1);
        r.pair("stride", c.stride_h, c.stride_w, 1);
        r.pads(c.pad_top, c.pad_left, c.pad_bottom, c.pad_right);
        c.pad_mode = r.padMode();
        r.pair("dilation", c.dilation_h, c.dilation_w, 1);
        c.groups = r.integer("groups", 1, 1);
        r.pair("output_pad", c.output_pad_h, c.output_pad_w, 0);
        c.bias = r.boolean("bias", true);
        break;
    }
    case LayerKind::FullyConnected:
        l.fc.out_features = toInt(w, "out_features", r.require("out_features"), 1);
        l.fc.bias = r.boolean("bias", true);
        l.fc.flatten = r.boolean("flatten", true);
        break;
    case LayerKind::BatchNorm:
        l.bn.affine = r.boolean("affine", true);
        break;
    case LayerKind::Scale:
        l.scale.bias = r.boolean("bias", true);
        break;
    case LayerKind::Activation:
        l.activation.kind =
            toEnum(w, "function", r.require("function"), allActivations(), activationKindName);
        l.activation.prelu_channel_shared = r.boolean("channel_shared", false);
        break;
    case LayerKind::Pooling: {
        PoolParams& p = l.pool;
        p.kind = toEnum(w, "mode", r.require("mode"), allPoolKinds(), poolKindName);
        std::tie(p.kernel_h, p.kernel_w) = toPair(w, "kernel", r.require("kernel"), 1);
        r.pair("stride", p.stride_h, p.stride_w, 1);
        r.pads(p.pad_top, p.pad_left, p.pad_bottom, p.pad_right);
        p.pad_mode = r.padMode();
        p.ceil_mode = r.boolean("ceil_mode", false);
        p.count_include_pad = r.boolean("count_include_pad", false);
        break;
    }
    case LayerKind::GlobalPooling:
        l.pool.kind = toEnum(w, "mode", r.require("mode"), allPoolKinds(), poolKindName);
        break;
    case LayerKind::LRN:
        l.lrn.size = r.integer("size", LrnParams{}.size, 1);
        break;
    case LayerKind::Concat:
        // Negative axes are left for the analysis to judge, as imported files may hold them.
        l.concat.axis = r.integer("axis", 0, -kMaxValue);
        break;
    case LayerKind::Eltwise:
        l.eltwise.kind =
            toEnum(w, "operation", r.require("operation"), allEltwise(), eltwiseKindName);
        break;
    case LayerKind::Reshape:
        l.reshape.target = toIntArray(w, "target", r.require("target"), -1, 16);
        break;
    case LayerKind::Transpose:
        l.transpose.perm = toIntArray(w, "perm", r.require("perm"), 0, 16);
        break;
    case LayerKind::Pad: {
        const json* begins = r.find("begins");
        const json* ends = r.find("ends");
        if (begins || ends) {
            if (r.find("pad"))
                w.fail("pad", "give either pad or begins and ends, not both");
            l.pad.begins = toIntArray(w, "begins", r.require("begins"), 0, 16);
            l.pad.ends = toIntArray(w, "ends", r.require("ends"), 0, 16);
            break;
        }
        const auto p = toPads(w, "pad", r.require("pad"));
        l.pad.top = p[0];
        l.pad.left = p[1];
        l.pad.bottom = p[2];
        l.pad.right = p[3];
        break;
    }
    case LayerKind::Softmax:
        l.softmax.axis = r.integer("axis", SoftmaxParams{}.axis, -16);
        break;
    case LayerKind::MatMul:
        l.matmul.transpose_a = r.boolean("transpose_a", false);
        l.matmul.transpose_b = r.boolean("transpose_b", false);
        break;
    case LayerKind::LayerNorm:
        l.layernorm.axis = r.integer("axis", LayerNormParams{}.axis, -16);
        l.layernorm.scale = r.boolean("scale", true);
        l.layernorm.bias = r.boolean("bias", true);
        break;
    case LayerKind::Reduce:
        l.reduce.kind =
            toEnum(w, "operation", r.require("operation"), allReduceKinds(), reduceKindName);
        if (const json* axes = r.find("axes"))
            l.reduce.axes = toIntArray(w, "axes", *axes, -16, 16);
        l.reduce.keepdims = r.boolean("keepdims", true);
        break;
    case LayerKind::Slice:
        l.slice.axes = toIntArray(w, "axes", r.require("axes"), -16, 16);
        l.slice.starts = toIntArray(w, "starts", r.require("starts"), -kMaxValue, 16);
        l.slice.ends = toIntArray(w, "ends", r.require("ends"), -kMaxValue, 16);
        if (const json* steps = r.find("steps"))
            l.slice.steps = toIntArray(w, "steps", *steps, -kMaxValue, 16);
        break;
    case LayerKind::Constant:
        l.constant.dims = toIntArray(w, "dims", r.require("dims"), 1, 16);
        l.constant.params = r.integer("params", 0, 0);
        break;
    case LayerKind::Expand:
        l.expand.target = toIntArray(w, "target", r.require("target"), 1, 16);
        break;
    case LayerKind::Input:
    case LayerKind::Dropout:
    case LayerKind::Flatten:
    case LayerKind::Identity:
        break;
    }
}

void checkFields(const Where& w, const json& o, const std::set<std::string>& allowed,
                 const std::string& for_what) {
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!allowed.count(it.key()))
            w.fail(it.key(), "unknown field" + for_what);
}

Network parseNetwork(const json& doc) {
    const Where top("network");
    if (!doc.is_object())
        top.fail("expected a JSON object at the top level, got " + typeName(doc));
    checkFields(top, doc, {"format", "version", "name", "input", "augmentation", "layers"}, "");
    auto required = [&](const char* key) -> const json& {
        auto it = doc.find(key);
        if (it == doc.end())
            top.fail(key, "is required");
        return *it;
    };
    if (toString(top, "format", required("format")) != kNetworkFormatName)
        top.fail("format", "expected \"" + std::string(kNetworkFormatName) + "\"");
    const int64_t version =
        toInt(top, "version", required("version"), std::numeric_limits<int64_t>::min(), kMaxValue);
    if (version != kNetworkFormatVersion)
        top.fail("version", "unsupported version " + std::to_string(version) +
                                " (this build reads version " +
                                std::to_string(kNetworkFormatVersion) + ")");

    Network net;
    if (auto it = doc.find("name"); it != doc.end())
        net.name = toString(top, "name", *it);
    net.input = toIntArray(top, "input", required("input"), 1, 8);
    if (net.input.empty())
        top.fail("input", "needs at least one dimension");
    if (auto it = doc.find("augmentation"); it != doc.end()) {
        const std::string name = toString(top, "augmentation", *it);
        const auto a = parseAugmentation(name);
        if (!a)
            top.fail("augmentation", "unknown \"" + name.substr(0, 40) +
                                         "\" (standard, autoaugment or randaugment)");
        net.augmentation = *a;
    }

    const json& layers = required("layers");
    if (!layers.is_array())
        top.fail("layers", "expected an array, got " + typeName(layers));
    if (layers.empty())
        top.fail("layers", "is empty (the first layer must be the Input)");

    // Names first, so a reference to a later layer can be told apart from a missing one.
    std::unordered_map<std::string, std::size_t> index_of;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Where w("layer #" + std::to_string(i));
        const json& o = layers[i];
        if (!o.is_object())
            w.fail("expected an object, got " + typeName(o));
        auto it = o.find("name");
        if (it == o.end())
            w.fail("name", "is required");
        std::string name = toString(w, "name", *it);
        if (name.empty())
            w.fail("name", "must not be empty");
        if (!index_of.emplace(name, i).second)
            w.fail("name", "'" + name + "' is already the name of layer #" +
                               std::to_string(index_of[name]));
        names.push_back(std::move(name));
    }

    static const std::set<std::string> common = {"name", "kind", "inputs", "source_op"};
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const json& o = layers[i];
        const Where w("layer '" + names[i] + "'");
        Layer l;
        l.name = names[i];
        l.kind =
            toEnum(w, "kind", LayerReader(w, o).require("kind"), allLayerKinds(), layerKindName);
        std::set<std::string> allowed = common;
        allowed.insert(kindFields(l.kind).begin(), kindFields(l.kind).end());
        checkFields(w, o, allowed, std::string(" for a ") + layerKindName(l.kind) + " layer");
        if (auto it = o.find("source_op"); it != o.end())
            l.source_op = toString(w, "source_op", *it);

        if ((i == 0) != (l.kind == LayerKind::Input))
            w.fail("kind", i == 0 ? "the first layer must be the Input"
                                  : "only the first layer may be an Input");
        auto inputs = o.find("inputs");
        if (l.kind == LayerKind::Input || l.kind == LayerKind::Constant) {
            if (inputs != o.end() && !(inputs->is_array() && inputs->empty()))
                w.fail("inputs",
                       std::string("a ") + layerKindName(l.kind) + " layer has no inputs");
        } else {
            if (inputs == o.end())
                w.fail("inputs", "is required");
            if (!inputs->is_array())
                w.fail("inputs", "expected an array of layer names, got " + typeName(*inputs));
            if (inputs->empty())
                w.fail("inputs", "is empty");
            if (inputs->size() > 1 && !takesSeveralInputs(l.kind))
                w.fail("inputs", std::string("a ") + layerKindName(l.kind) +
                                     " layer takes one input, got " +
                                     std::to_string(inputs->size()));
            for (std::size_t k = 0; k < inputs->size(); ++k) {
                const std::string field = "inputs[" + std::to_string(k) + "]";
                const std::string ref = toString(w, field, (*inputs)[k]);
                auto found = index_of.find(ref);
                if (found == index_of.end())
                    w.fail(field, "no layer is named '" + ref + "'");
                if (found->second == i)
                    w.fail(field, "the layer uses its own output (a cycle)");
                if (found->second > i)
                    w.fail(field, "'" + ref +
                                      "' comes later in the file: layers must be listed in "
                                      "topological order, and a cycle has none");
                l.inputs.push_back(found->second);
            }
        }
        readAttributes(LayerReader(w, o), l);
        net.layers.push_back(std::move(l));
    }
    validateTopology(net);
    return net;
}

std::string stripNlohmannPrefix(const std::string& what) {
    // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at ..."
    if (!what.empty() && what[0] == '[') {
        const auto end = what.find("] ");
        if (end != std::string::npos)
            return what.substr(end + 2);
    }
    return what;
}

} // namespace

Network networkFromJson(const std::string& text) {
    json doc;
    try {
        doc = json::parse(text, StrictParse{});
    } catch (const json::exception& e) {
        throw InputError("invalid JSON: " + stripNlohmannPrefix(e.what()));
    }
    try {
        return parseNetwork(doc);
    } catch (const json::exception& e) {
        // Not expected: every access above checks the type first.
        throw InputError("malformed network: " + stripNlohmannPrefix(e.what()));
    }
}

Network readNetworkJsonFile(const std::string& path) {
    const std::string text = readBoundedFile(path, kMaxFileBytes, "a network description");
    try {
        return networkFromJson(text);
    } catch (const InputError& e) {
        rethrowWithContext(path, e);
    }
}

} // namespace iterscope
