// Turns a parsed ONNX graph into a Network: topological order, per-sample shapes, constant
// folding of the shape arithmetic exporters emit, and one handler per supported op.
//
// Every tensor name maps to a Value: an activation (a layer of the network, with its
// per-sample dims), a constant (an initializer or a folded result), or an output the
// importer does not model (BatchNormalization's running statistics, Dropout's mask).
//
// An activation's ONNX tensor holds the batch somewhere, not always first: attention
// exports move it ([tokens, batch, width]) and merge it with other axes ([batch x windows,
// tokens, width]). BatchLayout says where, so that ONNX axes, shapes and reshape targets map
// onto the per-sample dims the network stores (onnx_layout.cpp).
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

// Where the batch sits in an activation's ONNX tensor, given its per-sample dims P:
//  - separate (axis a, not merged): the tensor is P[0..a) + [batch] + P[a..);
//  - merged into axis a: the tensor is P with P[a] multiplied by the batch; of P[a]'s
//    factor, `outer` elements come before the batch in memory order, the rest after;
//  - free (axis -1): only with an export batch of 1, once the batch has been folded into
//    some axis; the tensor is P itself, and a batch of 1 can sit anywhere.
struct BatchLayout {
    int axis = 0;
    bool merged = false;
    int64_t outer = 1;
    bool free() const { return axis < 0; }
    bool operator==(const BatchLayout&) const = default;
};

struct Value {
    enum class Kind { Activation, Constant, Unmodelled };
    Kind kind = Kind::Unmodelled;
    std::size_t layer = 0; // Activation: index into Network::layers
    Dims dims;             // Activation: per-sample dims
    BatchLayout batch;     // Activation: where the batch is in the ONNX tensor
    ConstTensor constant;  // Constant: full dims, values when small
    // Constant: the learned initializers it was computed from (a class token expanded to
    // the batch, a position table gathered by an index); their elements count as parameters
    // of the first layer that uses them.
    std::vector<std::string> learned;
};

// The ONNX tensor's dims of an activation at the export batch.
Dims onnxDims(const Value& v, int64_t batch);

// A group of nodes the importer replaces by one layer (a decomposed LayerNorm, GELU or SiLU),
// found before conversion by findFusions() (onnx_fusion.cpp).
struct FusedLayer {
    std::size_t output_node = 0;     // the group's last node: the layer is emitted there
    std::vector<std::size_t> nodes;  // every node of the group
    std::string input;               // the activation the group reads
    Layer layer;                     // kind and parameters (LayerNorm's axis is set later)
    std::vector<int64_t> onnx_axes;  // LayerNorm: the normalized ONNX axes
    std::vector<std::string> params; // LayerNorm: its scale and shift tensors
    std::string name;                // the layer's name
};

std::vector<FusedLayer> findFusions(const Model& model);

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
    // 0 to it with the given batch layout (the batch first unless said otherwise). Returns
    // the layer's index.
    std::size_t emit(Layer layer, const std::vector<std::size_t>& inputs,
                     const std::string& suffix = "");
    std::size_t emit(Layer layer, const std::vector<std::size_t>& inputs, BatchLayout batch,
                     int output = 0, const std::string& suffix = "");
    void setActivation(int output, std::size_t layer, Dims dims, BatchLayout batch = {});
    // Binds a folded constant; it inherits the learned initializers of the node's constant
    // inputs.
    void setConstant(int output, ConstTensor tensor);
    void alias(int output, const Value& value);
    // The same layer under another batch layout (a transpose or reshape that moves only the
    // batch): no data moves within a sample.
    void aliasAs(int output, const Value& value, const Dims& dims, BatchLayout batch);
    // Per-sample dims of a layer emitted so far.
    const Dims& layerDims(std::size_t layer) const { return layer_dims_[layer]; }

    // Parameters: a layer whose own kind counts its weights (Conv, Gemm, norms) claims the
    // initializers behind its constant inputs, so that no other layer counts them again.
    void claim(const Value& constant);
    // A Constant layer holding `constant` broadcast to every sample with the given per-sample
    // dims; it carries the unclaimed learned elements behind the constant.
    std::size_t constantLayer(const Value& constant, Dims dims, const std::string& suffix);

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
    // The per-sample axis of an activation's ONNX axis; fails when that axis holds the batch.
    std::size_t sampleAxis(const Value& v, int64_t onnx_axis, const char* what) const;

  private:
    void bindInputs();
    std::vector<const onnx::NodeProto*> topologicalOrder() const;
    void emitFused(const FusedLayer& fused);
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
    std::unordered_map<std::string, int64_t> learned_elems_; // learned initializers, unclaimed
    std::vector<FusedLayer> fusions_;
    std::unordered_map<std::size_t, std::size_t> fused_at_; // output node -> fusions_ index
    std::vector<bool> absorbed_;                            // by node index
    int64_t export_batch_ = 1;
    const onnx::NodeProto* node_ = nullptr;
    std::size_t node_index_ = 0;
};

// One handler per op type; returns false when the op is not known at all.
bool convertLayerOp(Importer& im, const std::string& op);
bool convertTensorOp(Importer& im, const std::string& op); // onnx_ops_tensor.cpp
bool convertMathOp(Importer& im, const std::string& op);   // onnx_ops_math.cpp
bool convertShapeOp(Importer& im, const std::string& op);
bool foldTensorOp(Importer& im, const std::string& op); // onnx_fold_tensor.cpp
void convertUnknownOp(Importer& im);

// The layout after reshaping an activation to the ONNX dims `target` (already resolved: no
// 0 or -1), and the per-sample dims that go with it. Fails when the reshape would mix
// samples.
struct Reshaped {
    Dims dims;
    BatchLayout batch;
};
Reshaped reshapeLayout(const Importer& im, const Value& v, const Dims& target);

} // namespace iterscope::onnx_import
