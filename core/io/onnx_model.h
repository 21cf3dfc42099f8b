// The part of an ONNX ModelProto the importer needs, read without keeping weight payloads.
//
// A model with embedded weights is mostly initializer bytes (hundreds of MB) that the
// analysis never looks at: only their dims matter. So the model and graph messages are walked
// at the wire level, and initializers keep their name, type, dims and, when small (shape
// vectors, scalars), their values. Nodes and value infos are small and parsed by libonnx.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace google::protobuf::io {
class ZeroCopyInputStream;
}

namespace iterscope::onnx_import {

// A constant tensor: dims always; values only when the tensor is small enough to matter
// for constant folding (shape vectors, scalars). Integer types fill ints, floating types reals.
struct ConstTensor {
    std::vector<int64_t> dims;
    int32_t data_type = 0; // onnx::TensorProto_DataType
    bool has_values = false;
    std::vector<int64_t> ints;
    std::vector<double> reals;

    bool isInteger() const;
    int64_t elementCount() const; // throws InputError on overflow or a negative dim
    std::size_t valueCount() const { return isInteger() ? ints.size() : reals.size(); }
    double realAt(std::size_t i) const {
        return isInteger() ? static_cast<double>(ints[i]) : reals[i];
    }
};

// Values of at most this many elements are kept; larger tensors keep only their dims.
// Folding only ever needs shape vectors, axes, pads and scalars, and a small bound keeps
// every copy of a constant (one per node that passes it on) cheap.
inline constexpr int64_t kMaxKeptElements = 256;

struct NamedTensor {
    std::string name;
    ConstTensor tensor;
};

struct Model {
    int64_t ir_version = 0;
    int64_t opset = 0; // default-domain opset; 0 when the file names none
    bool has_graph = false;
    std::string graph_name;
    std::vector<onnx::NodeProto> nodes;
    std::vector<NamedTensor> initializers;
    std::vector<onnx::ValueInfoProto> inputs, outputs, value_infos;
};

// Reads a model of size_bytes from the stream. Throws InputError(context + ": ...").
Model parseModel(google::protobuf::io::ZeroCopyInputStream& stream, int64_t size_bytes,
                 const std::string& context);

// Decodes a TensorProto (a Constant node's value): dims, type and small values.
ConstTensor tensorFromProto(const onnx::TensorProto& proto, const std::string& context);

} // namespace iterscope::onnx_import
