// Builds small ONNX models in tests and benchmarks with libonnx's protobuf classes, so each
// importer feature is checked on a file made for it (weights embedded or external, old IR
// versions, opset variants, shape chains) rather than only on the exported test networks.
#pragma once

#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace onnx_test {

// How an initializer carries its values.
enum class Weights { External, Raw, Typed };

class OnnxBuilder {
  public:
    explicit OnnxBuilder(int64_t opset = 13, int64_t ir_version = 7) {
        model.set_ir_version(ir_version);
        model.set_producer_name("iterscope-tests");
        auto* op = model.add_opset_import();
        op->set_domain("");
        op->set_version(opset);
        model.mutable_graph()->set_name("test");
    }

    onnx::ModelProto model;

    onnx::GraphProto& graph() { return *model.mutable_graph(); }

    // dims lead with the batch; batch_param names a symbolic batch instead.
    void input(const std::string& name, const std::vector<int64_t>& dims,
               const std::string& batch_param = "") {
        fillInfo(*graph().add_input(), name, dims, batch_param);
    }
    void output(const std::string& name, const std::vector<int64_t>& dims = {}) {
        fillInfo(*graph().add_output(), name, dims, "");
    }
    void valueInfo(const std::string& name, const std::vector<int64_t>& dims) {
        fillInfo(*graph().add_value_info(), name, dims, "");
    }

    onnx::TensorProto& floats(const std::string& name, const std::vector<int64_t>& dims,
                              Weights how = Weights::External) {
        onnx::TensorProto& t = *graph().add_initializer();
        t.set_name(name);
        t.set_data_type(onnx::TensorProto_DataType_FLOAT);
        int64_t n = 1;
        for (int64_t d : dims) {
            t.add_dims(d);
            n *= d;
        }
        if (how == Weights::Raw) {
            t.mutable_raw_data()->assign(static_cast<std::size_t>(n) * 4, '\x01');
        } else if (how == Weights::Typed) {
            for (int64_t i = 0; i < n; ++i)
                t.add_float_data(0.5F);
        } else {
            t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
            auto* e = t.add_external_data();
            e->set_key("location");
            e->set_value(name + ".bin");
        }
        return t;
    }

    // A 1-D int64 initializer; scalar = true makes a 0-D one of a single value.
    void ints(const std::string& name, const std::vector<int64_t>& values, bool scalar = false) {
        onnx::TensorProto& t = *graph().add_initializer();
        t.set_name(name);
        t.set_data_type(onnx::TensorProto_DataType_INT64);
        if (!scalar)
            t.add_dims(static_cast<int64_t>(values.size()));
        for (int64_t v : values)
            t.add_int64_data(v);
    }

    void scalar(const std::string& name, float value) {
        onnx::TensorProto& t = *graph().add_initializer();
        t.set_name(name);
        t.set_data_type(onnx::TensorProto_DataType_FLOAT);
        t.mutable_raw_data()->assign(reinterpret_cast<const char*>(&value), sizeof value);
    }

    // IR < 4: every initializer is also declared as a graph input.
    void listInitializersAsInputs() {
        for (const auto& t : graph().initializer()) {
            std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
            fillInfo(*graph().add_input(), t.name(), dims, "");
        }
    }

    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "") {
        onnx::NodeProto& n = *graph().add_node();
        n.set_op_type(op);
        n.set_name(name.empty() ? outputs.front() : name);
        for (const auto& i : inputs)
            n.add_input(i);
        for (const auto& o : outputs)
            n.add_output(o);
        return n;
    }

    static void attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto_AttributeType_INT);
        a->set_i(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto_AttributeType_INTS);
        for (int64_t x : v)
            a->add_ints(x);
    }
    static void attrFloat(onnx::NodeProto& n, const std::string& name, float v) {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
        a->set_f(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto_AttributeType_STRING);
        a->set_s(v);
    }

    // Conv with a weight (and bias) initializer named after the output.
    onnx::NodeProto& conv(const std::string& x, const std::string& y, int64_t in_channels,
                          int64_t out_channels, int64_t kernel, int64_t stride, int64_t pad,
                          Weights how = Weights::External, bool bias = true, int64_t group = 1) {
        floats(y + ".w", {out_channels, in_channels / group, kernel, kernel}, how);
        std::vector<std::string> ins{x, y + ".w"};
        if (bias) {
            floats(y + ".b", {out_channels}, how);
            ins.push_back(y + ".b");
        }
        onnx::NodeProto& n = node("Conv", ins, {y});
        attr(n, "kernel_shape", std::vector<int64_t>{kernel, kernel});
        attr(n, "strides", std::vector<int64_t>{stride, stride});
        attr(n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
        if (group != 1)
            attr(n, "group", group);
        return n;
    }

    onnx::NodeProto& gemm(const std::string& x, const std::string& y, int64_t in_features,
                          int64_t out_features, Weights how = Weights::External) {
        floats(y + ".w", {out_features, in_features}, how);
        floats(y + ".b", {out_features}, how);
        onnx::NodeProto& n = node("Gemm", {x, y + ".w", y + ".b"}, {y});
        attr(n, "transB", int64_t{1});
        return n;
    }

    std::string bytes() const { return model.SerializeAsString(); }

  private:
    static void fillInfo(onnx::ValueInfoProto& info, const std::string& name,
                         const std::vector<int64_t>& dims, const std::string& batch_param) {
        info.set_name(name);
        auto* tt = info.mutable_type()->mutable_tensor_type();
        tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
        if (dims.empty())
            return;
        auto* shape = tt->mutable_shape();
        for (std::size_t i = 0; i < dims.size(); ++i) {
            auto* d = shape->add_dim();
            if (i == 0 && !batch_param.empty())
                d->set_dim_param(batch_param);
            else
                d->set_dim_value(dims[i]);
        }
    }
};

} // namespace onnx_test
