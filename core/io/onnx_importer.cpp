#include "io/onnx_importer.h"

#include "network/analysis.h"
#include "util/checked.h"
#include "util/error.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace iterscope::onnx_import {
namespace {

std::string describeNode(const onnx::NodeProto& node, std::size_t index) {
    const std::string name = node.name().empty() ? "#" + std::to_string(index) : node.name();
    return "node '" + name + "' (" + node.op_type() + ")";
}

Dims shapeOf(const onnx::ValueInfoProto& info) {
    Dims dims;
    if (!info.has_type() || !info.type().has_tensor_type() ||
        !info.type().tensor_type().has_shape())
        return dims;
    for (const auto& d : info.type().tensor_type().shape().dim())
        dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    return dims;
}

} // namespace

Importer::Importer(const Model& model, std::string context, int64_t batch,
                   std::vector<std::string>* warnings)
    : model_(model)
    , context_(std::move(context))
    , batch_(batch)
    , warnings_(warnings) {}

void Importer::fail(const std::string& problem) const {
    if (node_ == nullptr)
        throw InputError(context_ + ": " + problem);
    throw InputError(context_ + ": " + describeNode(*node_, node_index_) + ": " + problem);
}

bool Importer::hasInput(int i) const {
    return i < node_->input_size() && !node_->input(i).empty();
}

const Value& Importer::input(int i) const {
    if (!hasInput(i))
        fail("input " + std::to_string(i) + " is missing");
    const auto it = values_.find(node_->input(i));
    // topologicalOrder() has already rejected names nothing produces.
    if (it == values_.end())
        fail("input '" + node_->input(i) + "' is not produced by any node");
    if (it->second.kind == Value::Kind::Unmodelled)
        fail("uses '" + node_->input(i) +
             "', an auxiliary output (running statistics, mask or indices) that is not modelled");
    return it->second;
}

const Value& Importer::activation(int i) const {
    const Value& v = input(i);
    if (v.kind != Value::Kind::Activation)
        fail("input '" + node_->input(i) +
             "' is a constant where the op needs data flowing from the network input");
    return v;
}

const ConstTensor& Importer::constant(int i, bool need_values) const {
    const Value& v = input(i);
    if (v.kind != Value::Kind::Constant)
        fail("input '" + node_->input(i) + "' must be a constant (an initializer or computed " +
             "from shapes), not an activation");
    if (need_values && !v.constant.has_values)
        fail("the values of constant '" + node_->input(i) + "' are needed but not stored " +
             "(external data, an unsupported type, or too large)");
    return v.constant;
}

const onnx::AttributeProto* Importer::attr(const char* name) const {
    for (const auto& a : node_->attribute()) {
        if (a.name() == name)
            return &a;
    }
    return nullptr;
}

bool Importer::hasAttr(const char* name) const {
    return attr(name) != nullptr;
}

int64_t Importer::attrInt(const char* name, int64_t fallback) const {
    const auto* a = attr(name);
    return a ? a->i() : fallback;
}

float Importer::attrFloat(const char* name, float fallback) const {
    const auto* a = attr(name);
    return a ? a->f() : fallback;
}

std::string Importer::attrString(const char* name, const std::string& fallback) const {
    const auto* a = attr(name);
    return a ? a->s() : fallback;
}

std::vector<int64_t> Importer::attrInts(const char* name) const {
    const auto* a = attr(name);
    if (a == nullptr)
        return {};
    return {a->ints().begin(), a->ints().end()};
}

int Importer::uses(const std::string& name) const {
    const auto it = uses_.find(name);
    return it == uses_.end() ? 0 : it->second;
}

Dims Importer::declaredShape(const std::string& name) const {
    const auto it = declared_.find(name);
    return it == declared_.end() ? Dims{} : it->second;
}

int64_t Importer::normalizeAxis(int64_t axis, int64_t rank) const {
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        fail("axis " + std::to_string(axis) + " is outside a " + std::to_string(rank) +
             "-D tensor");
    return a;
}

std::string Importer::uniqueName(const std::string& base) {
    std::string name = base;
    for (int n = 2; !layer_names_.insert(name).second; ++n)
        name = base + "_" + std::to_string(n);
    return name;
}

Dims Importer::inferDims(const Layer& layer, const std::vector<std::size_t>& inputs) const {
    std::vector<const Dims*> dims;
    for (std::size_t in : inputs)
        dims.push_back(&layer_dims_[in]);
    try {
        return layerOutputDims(layer, dims);
    } catch (const InputError& e) {
        // The analysis names the layer, which is this node already.
        const std::string what = e.what();
        const std::size_t cut =
            what.rfind("layer '", 0) == 0 ? what.find("): ") : std::string::npos;
        fail(cut == std::string::npos ? what : what.substr(cut + 3));
    }
}

std::size_t Importer::emit(Layer layer, const std::vector<std::size_t>& inputs,
                           const std::string& suffix) {
    // Element-wise layers keep the batch where their first input has it.
    BatchLayout batch;
    if (hasInput(0)) {
        const auto it = values_.find(node_->input(0));
        if (it != values_.end() && it->second.kind == Value::Kind::Activation)
            batch = it->second.batch;
    }
    return emit(std::move(layer), inputs, batch, 0, suffix);
}

std::size_t Importer::emit(Layer layer, const std::vector<std::size_t>& inputs, BatchLayout batch,
                           int output, const std::string& suffix) {
    const std::string base = node_->name().empty()
                                 ? node_->op_type() + "_" + std::to_string(node_index_)
                                 : node_->name();
    layer.name = uniqueName(base + suffix);
    layer.inputs = inputs;
    if (layer.source_op.empty())
        layer.source_op = node_->op_type();
    Dims dims = inferDims(layer, inputs);
    net_.layers.push_back(std::move(layer));
    layer_dims_.push_back(dims);
    const std::size_t index = net_.layers.size() - 1;
    setActivation(output, index, std::move(dims), batch);
    return index;
}

void Importer::setActivation(int output, std::size_t layer, Dims dims, BatchLayout batch) {
    if (output < 0 || output >= node_->output_size() || node_->output(output).empty())
        return;
    Value v;
    v.kind = Value::Kind::Activation;
    v.layer = layer;
    v.dims = std::move(dims);
    v.batch = batch;
    values_[node_->output(output)] = std::move(v);
}

void Importer::setConstant(int output, ConstTensor tensor) {
    if (output >= node_->output_size() || node_->output(output).empty())
        return;
    Value v;
    v.kind = Value::Kind::Constant;
    v.constant = std::move(tensor);
    for (int i = 0; i < node_->input_size(); ++i) {
        if (!hasInput(i))
            continue;
        const auto it = values_.find(node_->input(i));
        if (it == values_.end() || it->second.kind != Value::Kind::Constant)
            continue;
        for (const std::string& name : it->second.learned)
            if (std::find(v.learned.begin(), v.learned.end(), name) == v.learned.end())
                v.learned.push_back(name);
    }
    values_[node_->output(output)] = std::move(v);
}

void Importer::aliasAs(int output, const Value& value, const Dims& dims, BatchLayout batch) {
    Value copy = value;
    copy.dims = dims;
    copy.batch = batch;
    alias(output, copy);
}

void Importer::claim(const Value& constant) {
    for (const std::string& name : constant.learned)
        learned_elems_.erase(name);
}

std::size_t Importer::constantLayer(const Value& constant, Dims dims, const std::string& suffix) {
    Layer l;
    l.kind = LayerKind::Constant;
    l.constant.dims = std::move(dims);
    for (const std::string& name : constant.learned) {
        const auto it = learned_elems_.find(name);
        if (it == learned_elems_.end())
            continue;
        l.constant.params = checkedAdd(l.constant.params, it->second, "parameter count");
        learned_elems_.erase(it);
    }
    l.source_op = l.constant.params > 0 ? "initializer" : "constant";
    const std::string base = node_->name().empty()
                                 ? node_->op_type() + "_" + std::to_string(node_index_)
                                 : node_->name();
    l.name = uniqueName(base + suffix);
    Dims out = inferDims(l, {});
    net_.layers.push_back(std::move(l));
    layer_dims_.push_back(std::move(out));
    return net_.layers.size() - 1;
}

void Importer::alias(int output, const Value& value) {
    if (output >= node_->output_size() || node_->output(output).empty())
        return;
    Value copy = value; // value may live in values_, which the insertion can rehash
    values_[node_->output(output)] = std::move(copy);
}

void Importer::bindInputs() {
    for (const NamedTensor& init : model_.initializers) {
        Value v;
        v.kind = Value::Kind::Constant;
        v.constant = init.tensor;
        // Floating-point initializers of more than one element are weights (a scalar is a
        // constant: an epsilon, a scale); integer ones are indices and shapes.
        int64_t elems = 0;
        try {
            elems = init.tensor.elementCount();
        } catch (const InputError& e) {
            fail("initializer '" + init.name + "': " + e.what());
        }
        if (!init.tensor.isInteger() && elems > 1) {
            v.learned.push_back(init.name);
            learned_elems_[init.name] = elems;
        }
        if (!values_.emplace(init.name, std::move(v)).second)
            fail("initializer '" + init.name + "' is defined twice");
    }
    // Files of IR version < 4 also list every initializer as a graph input.
    std::vector<const onnx::ValueInfoProto*> real_inputs;
    for (const auto& in : model_.inputs) {
        if (values_.count(in.name()) == 0)
            real_inputs.push_back(&in);
    }
    if (real_inputs.empty())
        fail("the graph has no input besides its initializers");
    if (real_inputs.size() > 1)
        fail("the graph has " + std::to_string(real_inputs.size()) + " inputs ('" +
             real_inputs[0]->name() + "', '" + real_inputs[1]->name() +
             "', ...); only single-input networks are supported");
    const onnx::ValueInfoProto& in = *real_inputs.front();
    if (!in.has_type() || !in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
        fail("input '" + in.name() + "' has no shape");
    const auto& dims = in.type().tensor_type().shape().dim();
    if (dims.size() < 2)
        fail("input '" + in.name() + "' needs a batch dimension and at least one more");
    if (dims.size() > 8)
        fail("input '" + in.name() + "' has " + std::to_string(dims.size()) + " dimensions");
    if (dims[0].has_dim_value()) {
        if (dims[0].dim_value() <= 0)
            fail("input '" + in.name() + "': batch dimension " +
                 std::to_string(dims[0].dim_value()) + " is not positive");
        export_batch_ = dims[0].dim_value();
    } else {
        export_batch_ = batch_; // symbolic batch: the scenario's
    }
    Dims per_sample;
    for (int k = 1; k < dims.size(); ++k) {
        if (dims[k].has_dim_value()) {
            if (dims[k].dim_value() <= 0)
                fail("input '" + in.name() + "': dimension " + std::to_string(k) + " is " +
                     std::to_string(dims[k].dim_value()) + ", not positive");
            per_sample.push_back(dims[k].dim_value());
        } else if (dims.size() == 4 && k >= 2) {
            per_sample.push_back(224);
            if (warnings_)
                warnings_->push_back(context_ + ": input '" + in.name() + "': symbolic " +
                                     (k == 2 ? "height" : "width") + " '" + dims[k].dim_param() +
                                     "' taken as 224 (--image sets it)");
        } else {
            fail("input '" + in.name() + "': dimension " + std::to_string(k) + " is symbolic ('" +
                 dims[k].dim_param() + "'); export with a fixed size");
        }
    }
    net_.input = per_sample;
    Layer layer;
    layer.kind = LayerKind::Input;
    layer.name = uniqueName(in.name());
    layer.source_op = "input";
    net_.layers.push_back(std::move(layer));
    layer_dims_.push_back(per_sample);
    Value v;
    v.kind = Value::Kind::Activation;
    v.layer = 0;
    v.dims = per_sample;
    values_[in.name()] = std::move(v);
}

std::vector<const onnx::NodeProto*> Importer::topologicalOrder() const {
    const auto& nodes = model_.nodes;
    std::unordered_map<std::string, std::size_t> producer;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (const std::string& out : nodes[i].output()) {
            if (out.empty())
                continue;
            if (values_.count(out))
                throw InputError(context_ + ": " + describeNode(nodes[i], i) + ": output '" + out +
                                 "' redefines a graph input or initializer");
            const auto [it, fresh] = producer.emplace(out, i);
            if (!fresh)
                throw InputError(context_ + ": " + describeNode(nodes[i], i) + ": output '" + out +
                                 "' is also produced by " +
                                 describeNode(nodes[it->second], it->second));
        }
    }
    std::vector<std::vector<std::size_t>> users(nodes.size());
    std::vector<std::size_t> pending(nodes.size(), 0);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (const std::string& in : nodes[i].input()) {
            if (in.empty())
                continue; // an omitted optional input
            const auto it = producer.find(in);
            if (it != producer.end()) {
                users[it->second].push_back(i);
                ++pending[i];
            } else if (values_.count(in) == 0) {
                throw InputError(context_ + ": " + describeNode(nodes[i], i) + ": input '" + in +
                                 "' is not produced by any node, initializer or graph input");
            }
        }
    }
    // Kahn's algorithm, taking ready nodes in file order so the layer order stays familiar.
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (pending[i] == 0)
            ready.push(i);
    }
    std::vector<const onnx::NodeProto*> order;
    order.reserve(nodes.size());
    std::vector<bool> done(nodes.size(), false);
    while (!ready.empty()) {
        const std::size_t i = ready.top();
        ready.pop();
        order.push_back(&nodes[i]);
        done[i] = true;
        for (std::size_t u : users[i]) {
            if (--pending[u] == 0)
                ready.push(u);
        }
    }
    if (order.size() != nodes.size()) {
        const auto it = std::find(done.begin(), done.end(), false);
        const auto i = static_cast<std::size_t>(it - done.begin());
        throw InputError(context_ + ": " + describeNode(nodes[i], i) +
                         ": the graph has a cycle through this node");
    }
    return order;
}

void Importer::convert(const onnx::NodeProto& node) {
    const std::string& op = node.op_type();
    const bool standard = node.domain().empty() || node.domain() == "ai.onnx";
    if (standard && (convertShapeOp(*this, op) || convertLayerOp(*this, op)))
        return;
    // ONNX Runtime's fused transformer ops that keep the shape.
    if (node.domain() == "com.microsoft" && convertLayerOp(*this, "com.microsoft." + op))
        return;
    convertUnknownOp(*this);
}

Network Importer::run() {
    if (!model_.has_graph)
        fail("not an ONNX model (no graph)");
    if (model_.nodes.empty())
        fail("the graph has no nodes");
    net_.name = model_.graph_name.empty() ? "onnx" : model_.graph_name;
    for (const auto& info : model_.value_infos)
        declared_[info.name()] = shapeOf(info);
    for (const auto& info : model_.outputs) {
        Dims dims = shapeOf(info);
        if (!dims.empty())
            declared_[info.name()] = std::move(dims);
    }
    bindInputs();
    for (const auto& node : model_.nodes) {
        for (const std::string& in : node.input())
            ++uses_[in];
    }
    for (const auto& out : model_.outputs)
        ++uses_[out.name()];

    const std::vector<const onnx::NodeProto*> order = topologicalOrder();
    fusions_ = findFusions(model_);
    absorbed_.assign(model_.nodes.size(), false);
    for (std::size_t f = 0; f < fusions_.size(); ++f) {
        for (std::size_t n : fusions_[f].nodes)
            absorbed_[n] = true;
        fused_at_[fusions_[f].output_node] = f;
    }
    for (const onnx::NodeProto* node : order) {
        node_ = node;
        node_index_ = static_cast<std::size_t>(node - model_.nodes.data());
        if (const auto it = fused_at_.find(node_index_); it != fused_at_.end())
            emitFused(fusions_[it->second]);
        else if (!absorbed_[node_index_])
            convert(*node);
        // Outputs a handler did not bind are auxiliary (masks, indices, statistics).
        for (const std::string& out : node->output()) {
            if (!out.empty() && values_.count(out) == 0)
                values_[out] = Value{};
        }
    }
    node_ = nullptr;
    for (const auto& out : model_.outputs) {
        const auto it = values_.find(out.name());
        if (it == values_.end())
            fail("graph output '" + out.name() + "' is not produced by any node");
    }
    if (net_.layers.size() < 2)
        fail("the graph computes nothing from its input");
    if (!unknown_ops_.empty() && warnings_) {
        std::string list;
        for (const auto& [op, count] : unknown_ops_) {
            list += (list.empty() ? "" : ", ") + op;
            if (count > 1)
                list += " (x" + std::to_string(count) + ")";
        }
        warnings_->push_back(context_ +
                             ": unknown ops imported as zero-cost, shape-preserving: " + list);
    }
    return std::move(net_);
}

} // namespace iterscope::onnx_import
