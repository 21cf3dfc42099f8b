// Turns a parsed ONNX graph into a Network: topological order, per-sample shapes, constant
// folding of the shape arithmetic exporters emit, and one handler per supported op.
//
// Every tensor name maps to a Value: an activation (a layer of the network, with its
// per-sample dims), a constant (an initializer or a folded result), or an output the
// importer does not model (BatchNormalization's running statistics, Dropout's mask).
#pragma once

#include "io/onnx_model.h"
#include "network/network.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace iterscope::onnx_import {

struct Value {
    enum class Kind { Activation, Constant, Unmodelled };
    Kind kind = Kind::Unmodelled;
    std::size_t layer = 0; // Activation: index into Network::layers
    Dims dims;             // Activation: per-sample dims
    ConstTensor constant;  // Constant: full dims, values when small
};

class Importer {
  public:
    Importer(const Model& model, std::string context, int64_t batch,
             std::vector<std::string>* warnings);
    Network run();

    // --- used by the op handlers ---
    const onnx::NodeProto& node() const { return *node_; }
    [[noreturn]] void fail(const std::string& problem) const;

    bool hasInput(int i) const;
    const Value& input(int i) const;
    const Value& activation(int i) const; // fails unless input i flows from the network input
    const ConstTensor& constant(int i, bool need_values) const;
    bool isConstant(int i) const { return hasInput(i) && input(i).kind == Value::Kind::Constant; }
    int inputCount() const { return node_->input_size(); }
    const std::string& inputName(int i) const { return node_->input(i); }

    bool hasAttr(const char* name) const;
    int64_t attrInt(const char* name, int64_t fallback) const;
    float attrFloat(const char* name, float fallback) const;
    std::string attrString(const char* name, const std::string& fallback) const;
    std::vector<int64_t> attrInts(const char* name) const;
    const onnx::AttributeProto* attr(const char* name) const;

    // Appends a layer fed by the given layers, infers its per-sample dims and binds output
    // 0 to it. Returns the layer's index.
    std::size_t emit(Layer layer, const std::vector<std::size_t>& inputs,
                     const std::string& suffix = "");
    void setActivation(int output, std::size_t layer, Dims dims);
    void setConstant(int output, ConstTensor tensor);
    void alias(int output, const Value& value);

    Network& network() { return net_; }
    int64_t exportBatch() const { return export_batch_; }
    int opset() const { return static_cast<int>(model_.opset); }
    int uses(const std::string& name) const;
    void noteUnknown(const std::string& op) { ++unknown_ops_[op]; }
    // The shape the file declares for a tensor (value_info or graph output), batch first;
    // -1 marks an unknown or symbolic dimension. Empty when undeclared.
    Dims declaredShape(const std::string& name) const;

    // Per-sample rank of activation input i plus the batch axis: ONNX axes count it.
    int64_t normalizeAxis(int64_t axis, int64_t rank) const;

  private:
    void bindInputs();
    std::vector<const onnx::NodeProto*> topologicalOrder() const;
    void convert(const onnx::NodeProto& node);
    Dims inferDims(const Layer& layer, const std::vector<std::size_t>& inputs) const;
    std::string uniqueName(const std::string& base);

    const Model& model_;
    std::string context_;
    int64_t batch_ = 1;
    std::vector<std::string>* warnings_ = nullptr;
    Network net_;
    std::vector<Dims> layer_dims_; // parallel to net_.layers
    std::unordered_map<std::string, Value> values_;
    std::unordered_map<std::string, int> uses_;
    std::unordered_map<std::string, Dims> declared_;
    std::unordered_set<std::string> layer_names_;
    std::map<std::string, int> unknown_ops_;
    int64_t export_batch_ = 1;
    const onnx::NodeProto* node_ = nullptr;
    std::size_t node_index_ = 0;
};

// One handler per op type; returns false when the op is not known at all.
bool convertLayerOp(Importer& im, const std::string& op);
bool convertShapeOp(Importer& im, const std::string& op);
void convertUnknownOp(Importer& im);

} // namespace iterscope::onnx_import
