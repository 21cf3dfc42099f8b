// Operators that exporters write as chains of small ops, recognised and imported as the one
// layer a framework runs: LayerNorm (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, then
// an optional scale and shift: torch.onnx below opset 17), GELU (x/sqrt2, Erf, +1, *x, *0.5;
// or the tanh form), SiLU (x * Sigmoid(x)) and hard-swish (x * HardSigmoid(x)). A chain is
// fused only when its intermediate results feed nothing else; GELU's arithmetic is checked by
// evaluating it, so any order of the same operations matches and nothing else does.
#include "io/onnx_importer.h"

#include "network/analysis.h"
#include "util/checked.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace iterscope::onnx_import {
namespace {

class Graph {
  public:
    explicit Graph(const Model& m)
        : m_(m) {
        for (std::size_t i = 0; i < m.nodes.size(); ++i) {
            for (const std::string& out : m.nodes[i].output())
                if (!out.empty())
                    producer_.emplace(out, i);
            for (const std::string& in : m.nodes[i].input())
                if (!in.empty())
                    consumers_[in].push_back(i);
        }
        for (const auto& out : m.outputs)
            outputs_.insert(out.name());
        for (const NamedTensor& t : m.initializers)
            initializers_.emplace(t.name, &t.tensor);
    }

    const onnx::NodeProto& node(std::size_t i) const { return m_.nodes[i]; }
    std::size_t size() const { return m_.nodes.size(); }

    const std::vector<std::size_t>& consumers(const std::string& t) const {
        static const std::vector<std::size_t> none;
        const auto it = consumers_.find(t);
        return it == consumers_.end() ? none : it->second;
    }

    // The one node that reads t, when exactly one does and t is not a graph output.
    std::optional<std::size_t> sole(const std::string& t) const {
        const auto& c = consumers(t);
        if (c.size() != 1 || outputs_.count(t))
            return std::nullopt;
        return c.front();
    }

    std::optional<std::size_t> producer(const std::string& t) const {
        const auto it = producer_.find(t);
        return it == producer_.end() ? std::nullopt : std::optional(it->second);
    }

    // A tensor known before import: an initializer or a Constant node's output (through
    // Cast and Identity).
    std::optional<ConstTensor> constant(const std::string& t, int depth = 0) const {
        if (const auto it = initializers_.find(t); it != initializers_.end())
            return *it->second;
        const auto p = producer(t);
        if (!p || depth > 8)
            return std::nullopt;
        const onnx::NodeProto& n = node(*p);
        if ((n.op_type() == "Cast" || n.op_type() == "Identity") && n.input_size() > 0)
            return constant(n.input(0), depth + 1);
        if (n.op_type() != "Constant")
            return std::nullopt;
        for (const auto& a : n.attribute()) {
            try {
                if (a.name() == "value")
                    return tensorFromProto(a.t(), "constant");
            } catch (const InputError&) {
                return std::nullopt;
            }
            ConstTensor c;
            c.data_type = onnx::TensorProto_DataType_FLOAT;
            c.has_values = true;
            if (a.name() == "value_float") {
                c.reals = {a.f()};
                return c;
            }
            if (a.name() == "value_int") {
                c.reals = {static_cast<double>(a.i())};
                return c;
            }
        }
        return std::nullopt;
    }

    std::optional<double> scalar(const std::string& t) const {
        const auto c = constant(t);
        if (!c || !c->has_values || c->valueCount() != 1)
            return std::nullopt;
        return c->realAt(0);
    }

    bool isConstant(const std::string& t) const { return constant(t).has_value(); }

    bool isOutput(const std::string& t) const { return outputs_.count(t) > 0; }

  private:
    const Model& m_;
    std::unordered_map<std::string, std::size_t> producer_;
    std::unordered_map<std::string, std::vector<std::size_t>> consumers_;
    std::unordered_set<std::string> outputs_;
    std::unordered_map<std::string, const ConstTensor*> initializers_;
};

bool standard(const onnx::NodeProto& n) {
    return n.domain().empty() || n.domain() == "ai.onnx";
}

bool is(const onnx::NodeProto& n, const char* op) {
    return standard(n) && n.op_type() == op;
}

int64_t attrInt(const onnx::NodeProto& n, const char* name, int64_t fallback) {
    for (const auto& a : n.attribute())
        if (a.name() == name)
            return a.i();
    return fallback;
}

float attrFloat(const onnx::NodeProto& n, const char* name, float fallback) {
    for (const auto& a : n.attribute())
        if (a.name() == name)
            return a.f();
    return fallback;
}

// A reduction's axes, from its attribute or (opset 18) its second input.
std::optional<std::vector<int64_t>> reduceAxes(const Graph& g, const onnx::NodeProto& n) {
    for (const auto& a : n.attribute())
        if (a.name() == "axes")
            return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    if (n.input_size() > 1 && !n.input(1).empty()) {
        const auto c = g.constant(n.input(1));
        if (c && c->has_values && c->isInteger())
            return c->ints;
    }
    return std::nullopt;
}

// The input of a binary node other than `t`, or "" when t is not one of two inputs.
std::string otherInput(const onnx::NodeProto& n, const std::string& t) {
    if (n.input_size() != 2)
        return "";
    if (n.input(0) == t)
        return n.input(1);
    if (n.input(1) == t)
        return n.input(0);
    return "";
}

// What the nodes' names share up to a '/', as torch.onnx names nodes by module path
// ("/encoder/layers/encoder_layer_0/ln_1/ReduceMean" -> "/encoder/layers/encoder_layer_0/ln_1").
std::string groupName(const Graph& g, const std::vector<std::size_t>& nodes,
                      std::size_t output_node) {
    std::string prefix = g.node(nodes.front()).name();
    for (std::size_t n : nodes) {
        const std::string& name = g.node(n).name();
        std::size_t k = 0;
        while (k < prefix.size() && k < name.size() && prefix[k] == name[k])
            ++k;
        prefix.resize(k);
    }
    const std::size_t slash = prefix.rfind('/');
    prefix = slash == std::string::npos ? "" : prefix.substr(0, slash);
    if (prefix.empty()) {
        const onnx::NodeProto& out = g.node(output_node);
        return out.name().empty() ? out.op_type() + "_" + std::to_string(output_node) : out.name();
    }
    return prefix;
}

std::optional<FusedLayer> layerNorm(const Graph& g, std::size_t root) {
    const onnx::NodeProto& mean = g.node(root);
    if (!is(mean, "ReduceMean") || mean.input_size() < 1 || attrInt(mean, "keepdims", 1) != 1)
        return std::nullopt;
    const std::string x = mean.input(0);
    const auto axes = reduceAxes(g, mean);
    if (!axes || axes->empty())
        return std::nullopt;
    FusedLayer f;
    f.nodes = {root};
    const auto sub = g.sole(mean.output(0));
    if (!sub || !is(g.node(*sub), "Sub") || g.node(*sub).input_size() != 2 ||
        g.node(*sub).input(0) != x || g.node(*sub).input(1) != mean.output(0))
        return std::nullopt;
    const std::string d = g.node(*sub).output(0);
    const auto& users = g.consumers(d);
    if (users.size() != 2 || g.isOutput(d))
        return std::nullopt;
    std::optional<std::size_t> square, div;
    for (std::size_t u : users) {
        const onnx::NodeProto& n = g.node(u);
        if (is(n, "Div") && n.input_size() == 2 && n.input(0) == d)
            div = u;
        else if ((is(n, "Pow") && n.input_size() == 2 && n.input(0) == d &&
                  g.scalar(n.input(1)) == 2.0) ||
                 (is(n, "Mul") && n.input_size() == 2 && n.input(0) == d && n.input(1) == d))
            square = u;
    }
    if (!square || !div)
        return std::nullopt;
    const auto var = g.sole(g.node(*square).output(0));
    if (!var || !is(g.node(*var), "ReduceMean") || reduceAxes(g, g.node(*var)) != axes ||
        attrInt(g.node(*var), "keepdims", 1) != 1)
        return std::nullopt;
    const auto add = g.sole(g.node(*var).output(0));
    if (!add || !is(g.node(*add), "Add") ||
        !g.scalar(otherInput(g.node(*add), g.node(*var).output(0))))
        return std::nullopt;
    const auto sqrt = g.sole(g.node(*add).output(0));
    if (!sqrt || !is(g.node(*sqrt), "Sqrt"))
        return std::nullopt;
    const auto into_div = g.sole(g.node(*sqrt).output(0));
    if (into_div != div || g.node(*div).input(1) != g.node(*sqrt).output(0))
        return std::nullopt;
    f.nodes.insert(f.nodes.end(), {*sub, *square, *var, *add, *sqrt, *div});
    std::string out = g.node(*div).output(0);
    f.layer.layernorm.scale = false;
    f.layer.layernorm.bias = false;
    // torch.onnx then multiplies by the weight and adds the bias.
    if (const auto mul = g.sole(out); mul && is(g.node(*mul), "Mul")) {
        const std::string gamma = otherInput(g.node(*mul), out);
        if (!gamma.empty() && g.isConstant(gamma)) {
            f.nodes.push_back(*mul);
            f.params.push_back(gamma);
            f.layer.layernorm.scale = true;
            out = g.node(*mul).output(0);
            if (const auto shift = g.sole(out); shift && is(g.node(*shift), "Add")) {
                const std::string beta = otherInput(g.node(*shift), out);
                if (!beta.empty() && g.isConstant(beta)) {
                    f.nodes.push_back(*shift);
                    f.params.push_back(beta);
                    f.layer.layernorm.bias = true;
                    out = g.node(*shift).output(0);
                }
            }
        }
    }
    f.output_node = f.nodes.back();
    f.input = x;
    f.onnx_axes = *axes;
    f.layer.kind = LayerKind::LayerNorm;
    f.layer.source_op = "LayerNormalization (decomposed)";
    f.name = groupName(g, f.nodes, f.output_node);
    return f;
}

// --- GELU: a region of scalar arithmetic on one tensor x around an Erf or a Tanh ---------

bool arithmetic(const onnx::NodeProto& n) {
    return standard(n) && n.input_size() == 2 &&
           (n.op_type() == "Add" || n.op_type() == "Sub" || n.op_type() == "Mul" ||
            n.op_type() == "Div" || n.op_type() == "Pow");
}

struct Region {
    std::string x;
    std::vector<std::size_t> nodes;
};

// Evaluates the region's value of `t` at x = v; nullopt when t depends on something else.
std::optional<double> evaluate(const Graph& g, const Region& r, const std::string& t, double v,
                               int depth = 0) {
    if (t == r.x)
        return v;
    if (const auto c = g.scalar(t))
        return c;
    const auto p = g.producer(t);
    if (!p || depth > 64 || std::find(r.nodes.begin(), r.nodes.end(), *p) == r.nodes.end())
        return std::nullopt;
    const onnx::NodeProto& n = g.node(*p);
    std::vector<double> in;
    for (const std::string& i : n.input()) {
        const auto x = evaluate(g, r, i, v, depth + 1);
        if (!x)
            return std::nullopt;
        in.push_back(*x);
    }
    const std::string& op = n.op_type();
    if (op == "Erf" && in.size() == 1)
        return std::erf(in[0]);
    if (op == "Tanh" && in.size() == 1)
        return std::tanh(in[0]);
    if (in.size() != 2)
        return std::nullopt;
    if (op == "Add")
        return in[0] + in[1];
    if (op == "Sub")
        return in[0] - in[1];
    if (op == "Mul")
        return in[0] * in[1];
    if (op == "Div")
        return in[0] / in[1];
    if (op == "Pow")
        return std::pow(in[0], in[1]);
    return std::nullopt;
}

std::optional<ActivationKind> geluKind(const Graph& g, const Region& r, const std::string& out) {
    constexpr double kSamples[] = {-3.0, -1.5, -0.5, 0.25, 1.0, 2.5};
    bool exact = true, tanh_form = true;
    for (double x : kSamples) {
        const auto y = evaluate(g, r, out, x);
        if (!y || !std::isfinite(*y))
            return std::nullopt;
        const double e = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        const double t =
            0.5 * x *
            (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
        exact = exact && std::fabs(*y - e) <= 1e-5 * (1.0 + std::fabs(e));
        tanh_form = tanh_form && std::fabs(*y - t) <= 1e-5 * (1.0 + std::fabs(t));
    }
    if (exact)
        return ActivationKind::GELU;
    if (tanh_form)
        return ActivationKind::GELUTanh;
    return std::nullopt;
}

std::optional<FusedLayer> gelu(const Graph& g, std::size_t anchor) {
    const onnx::NodeProto& a = g.node(anchor);
    if (!(is(a, "Erf") || is(a, "Tanh")) || a.input_size() != 1)
        return std::nullopt;
    // Backward: arithmetic whose results feed only the region, down to the one tensor x.
    Region r;
    r.nodes.push_back(anchor);
    std::vector<std::string> stack = {a.input(0)};
    std::vector<std::string> leaves;
    while (!stack.empty()) {
        const std::string t = stack.back();
        stack.pop_back();
        if (g.scalar(t))
            continue;
        const auto p = g.producer(t);
        if (p && arithmetic(g.node(*p)) && g.sole(t)) {
            if (std::find(r.nodes.begin(), r.nodes.end(), *p) == r.nodes.end()) {
                r.nodes.push_back(*p);
                for (const std::string& i : g.node(*p).input())
                    stack.push_back(i);
            }
        } else if (std::find(leaves.begin(), leaves.end(), t) == leaves.end()) {
            leaves.push_back(t);
        }
    }
    if (leaves.size() != 1)
        return std::nullopt;
    r.x = leaves.front();
    // Forward: one consumer at a time, its other operand x, a constant, or x times a constant.
    std::optional<FusedLayer> best;
    std::string t = a.output(0);
    for (int step = 0; step < 8; ++step) {
        const auto next = g.sole(t);
        if (!next || !arithmetic(g.node(*next)) || g.node(*next).op_type() == "Pow")
            break;
        const std::string other = otherInput(g.node(*next), t);
        if (other.empty())
            break;
        if (other != r.x && !g.scalar(other)) {
            const auto side = g.producer(other);
            if (!side || !arithmetic(g.node(*side)) || g.sole(other) != next)
                break;
            const onnx::NodeProto& s = g.node(*side);
            const bool of_x = (s.input(0) == r.x && g.scalar(s.input(1))) ||
                              (s.input(1) == r.x && g.scalar(s.input(0)));
            if (!of_x)
                break;
            r.nodes.push_back(*side);
        }
        r.nodes.push_back(*next);
        t = g.node(*next).output(0);
        if (const auto kind = geluKind(g, r, t)) {
            FusedLayer f;
            f.nodes = r.nodes;
            f.output_node = *next;
            f.input = r.x;
            f.layer.kind = LayerKind::Activation;
            f.layer.activation.kind = *kind;
            f.layer.source_op = *kind == ActivationKind::GELU ? "Gelu (decomposed, erf)"
                                                              : "Gelu (decomposed, tanh)";
            f.name = groupName(g, f.nodes, f.output_node);
            best = std::move(f);
        }
    }
    return best;
}

// x * gate(x) with the gate feeding only that product: SiLU and hard-swish.
std::optional<FusedLayer> gatedByItself(const Graph& g, std::size_t anchor) {
    const onnx::NodeProto& a = g.node(anchor);
    ActivationKind kind{};
    if (is(a, "Sigmoid"))
        kind = ActivationKind::Swish;
    else if (is(a, "HardSigmoid") && std::fabs(attrFloat(a, "alpha", 0.2F) - 1.0F / 6.0F) < 1e-6F &&
             std::fabs(attrFloat(a, "beta", 0.5F) - 0.5F) < 1e-6F)
        kind = ActivationKind::HardSwish;
    else
        return std::nullopt;
    if (a.input_size() != 1)
        return std::nullopt;
    const auto mul = g.sole(a.output(0));
    if (!mul || !is(g.node(*mul), "Mul") || otherInput(g.node(*mul), a.output(0)) != a.input(0))
        return std::nullopt;
    FusedLayer f;
    f.nodes = {anchor, *mul};
    f.output_node = *mul;
    f.input = a.input(0);
    f.layer.kind = LayerKind::Activation;
    f.layer.activation.kind = kind;
    f.layer.source_op = kind == ActivationKind::Swish ? "Sigmoid * x" : "HardSigmoid * x";
    f.name = groupName(g, f.nodes, f.output_node);
    return f;
}

} // namespace

std::vector<FusedLayer> findFusions(const Model& model) {
    const Graph g(model);
    std::vector<FusedLayer> found;
    std::vector<bool> taken(g.size(), false);
    for (std::size_t i = 0; i < g.size(); ++i) {
        std::optional<FusedLayer> f = layerNorm(g, i);
        if (!f)
            f = gelu(g, i);
        if (!f)
            f = gatedByItself(g, i);
        if (!f)
            continue;
        // The group's input must come from outside it, and no node may join two groups.
        bool clash = false;
        for (std::size_t n : f->nodes) {
            clash = clash || taken[n];
            for (const std::string& out : g.node(n).output())
                clash = clash || out == f->input;
        }
        if (clash)
            continue;
        for (std::size_t n : f->nodes)
            taken[n] = true;
        found.push_back(std::move(*f));
    }
    return found;
}

void Importer::emitFused(const FusedLayer& f) {
    const auto it = values_.find(f.input);
    if (it == values_.end() || it->second.kind != Value::Kind::Activation)
        fail("the " + std::string(f.layer.source_op) + " starting at '" + f.input +
             "' reads a constant; not supported");
    const Value x = it->second;
    Layer l = f.layer;
    if (l.kind == LayerKind::LayerNorm) {
        // The normalized ONNX axes must be the trailing ones; none may hold the batch.
        const auto rank = static_cast<int64_t>(onnxDims(x, exportBatch()).size());
        std::vector<int64_t> axes;
        for (int64_t a : f.onnx_axes)
            axes.push_back(normalizeAxis(a, rank));
        std::sort(axes.begin(), axes.end());
        for (std::size_t k = 0; k < axes.size(); ++k)
            if (axes[k] != rank - static_cast<int64_t>(axes.size() - k))
                fail("layer norm over axes that are not the trailing ones; not supported");
        for (int64_t a : axes)
            sampleAxis(x, a, "normalized axis");
        const std::size_t first = sampleAxis(x, axes.front(), "normalized axis");
        l.layernorm.axis = static_cast<int64_t>(first);
        int64_t block = 1;
        for (std::size_t k = first; k < x.dims.size(); ++k)
            block = checkedMul(block, x.dims[k], "tensor size");
        for (const std::string& p : f.params) {
            const auto pv = values_.find(p);
            if (pv == values_.end() || pv->second.kind != Value::Kind::Constant)
                fail("layer norm parameter '" + p + "' is not a constant");
            int64_t n = 0;
            try {
                n = pv->second.constant.elementCount();
            } catch (const InputError& e) {
                fail(e.what());
            }
            if (n != block)
                fail("layer norm parameter '" + p + "' has " + std::to_string(n) +
                     " elements for a normalized block of " + std::to_string(block));
            claim(pv->second);
        }
    }
    l.name = uniqueName(f.name);
    l.inputs = {x.layer};
    Dims dims = inferDims(l, l.inputs);
    net_.layers.push_back(std::move(l));
    layer_dims_.push_back(dims);
    setActivation(0, net_.layers.size() - 1, std::move(dims), x.batch);
}

} // namespace iterscope::onnx_import
