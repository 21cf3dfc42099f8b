// Constant folding: exporters compute reshape targets at run time from the input's shape
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape). Shapes are known at import, so these
// chains evaluate here to constants, and the Reshape at the end sees a plain target.
#include "io/onnx_importer.h"

#include "util/checked.h"

#include <algorithm>
#include <cmath>

namespace iterscope::onnx_import {
namespace {

using DT = onnx::TensorProto_DataType;

ConstTensor intVector(std::vector<int64_t> values) {
    ConstTensor t;
    t.data_type = DT::TensorProto_DataType_INT64;
    t.dims = {static_cast<int64_t>(values.size())};
    t.ints = std::move(values);
    t.has_values = true;
    return t;
}

int64_t countOf(Importer& im, const Dims& dims) {
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0)
            im.fail("negative dimension " + std::to_string(d));
        n = checkedMul(n, d, "element count");
    }
    return n;
}

ConstTensor decode(Importer& im, const onnx::TensorProto& proto) {
    try {
        return tensorFromProto(proto, "value");
    } catch (const InputError& e) {
        im.fail(e.what());
    }
}

void constantNode(Importer& im) {
    ConstTensor t;
    if (const auto* a = im.attr("value")) {
        t = decode(im, a->t());
    } else if (const auto* f = im.attr("value_float")) {
        t.data_type = DT::TensorProto_DataType_FLOAT;
        t.reals = {f->f()};
        t.has_values = true;
    } else if (const auto* fs = im.attr("value_floats")) {
        t.data_type = DT::TensorProto_DataType_FLOAT;
        t.reals.assign(fs->floats().begin(), fs->floats().end());
        t.dims = {static_cast<int64_t>(t.reals.size())};
        t.has_values = true;
    } else if (const auto* i = im.attr("value_int")) {
        t = intVector({i->i()});
        t.dims.clear();
    } else if (const auto* is = im.attr("value_ints")) {
        t = intVector({is->ints().begin(), is->ints().end()});
    } else {
        im.fail("has no supported value attribute (sparse and string constants are not "
                "supported)");
    }
    im.setConstant(0, std::move(t));
}

void shapeNode(Importer& im) {
    const Value& x = im.input(0);
    std::vector<int64_t> shape;
    if (x.kind == Value::Kind::Activation) {
        shape = onnxDims(x, im.exportBatch());
    } else {
        shape = x.constant.dims;
    }
    const auto rank = static_cast<int64_t>(shape.size());
    auto clampAxis = [rank](int64_t a) {
        return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank);
    };
    const int64_t start = clampAxis(im.attrInt("start", 0));
    const int64_t end = clampAxis(im.attrInt("end", rank));
    std::vector<int64_t> part;
    for (int64_t k = start; k < end; ++k)
        part.push_back(shape[static_cast<std::size_t>(k)]);
    im.setConstant(0, intVector(std::move(part)));
}

// Squeeze, Unsqueeze, Flatten and Reshape of a constant change its dims only.
void redimension(Importer& im, const std::string& op) {
    ConstTensor t = im.constant(0, false);
    const auto rank = static_cast<int64_t>(t.dims.size());
    const int64_t count = countOf(im, t.dims);
    std::vector<int64_t> axes = im.attrInts("axes");
    if (im.hasInput(1) && op != "Flatten")
        axes = im.constant(1, true).ints;
    Dims out;
    if (op == "Unsqueeze") {
        out = t.dims;
        const auto out_rank = rank + static_cast<int64_t>(axes.size());
        if (out_rank > 64)
            im.fail("the result would have " + std::to_string(out_rank) + " dimensions");
        for (int64_t& a : axes)
            a = im.normalizeAxis(a, out_rank);
        std::sort(axes.begin(), axes.end());
        for (int64_t a : axes)
            out.insert(out.begin() + std::min<int64_t>(a, static_cast<int64_t>(out.size())), 1);
    } else if (op == "Squeeze") {
        for (int64_t& a : axes)
            a = im.normalizeAxis(a, rank);
        for (int64_t k = 0; k < rank; ++k) {
            const bool listed = std::find(axes.begin(), axes.end(), k) != axes.end();
            if (!(listed || (axes.empty() && t.dims[static_cast<std::size_t>(k)] == 1)))
                out.push_back(t.dims[static_cast<std::size_t>(k)]);
        }
    } else if (op == "Flatten") {
        int64_t axis = im.attrInt("axis", 1);
        axis = axis < 0 ? axis + rank : axis;
        if (axis < 0 || axis > rank)
            im.fail("axis is outside the input");
        out = {countOf(im, Dims(t.dims.begin(), t.dims.begin() + axis)), 1};
        out[1] = out[0] == 0 ? 0 : count / out[0];
    } else { // Reshape
        const ConstTensor& target = im.constant(1, true);
        out = target.ints;
        int64_t known = 1;
        int infer = -1;
        for (std::size_t k = 0; k < out.size(); ++k) {
            if (out[k] == 0 && k < t.dims.size())
                out[k] = t.dims[k];
            if (out[k] == -1 && infer < 0) {
                infer = static_cast<int>(k);
                continue;
            }
            if (out[k] < 0)
                im.fail("bad reshape target " + std::to_string(out[k]));
            known = checkedMul(known, out[k], "element count");
        }
        if (infer >= 0)
            out[static_cast<std::size_t>(infer)] = known == 0 ? 0 : count / known;
    }
    if (countOf(im, out) != count)
        im.fail("cannot give " + std::to_string(count) + " elements a new shape of " +
                std::to_string(countOf(im, out)));
    t.dims = std::move(out);
    im.setConstant(0, std::move(t));
}

void castNode(Importer& im) {
    ConstTensor t = im.constant(0, false);
    const auto to = static_cast<int32_t>(im.attrInt("to", t.data_type));
    ConstTensor out;
    out.dims = t.dims;
    out.data_type = to;
    out.has_values = t.has_values;
    if (t.has_values) {
        for (std::size_t k = 0; k < t.valueCount(); ++k) {
            if (out.isInteger()) {
                const double v = t.realAt(k);
                if (!std::isfinite(v) || std::fabs(v) > 9.2e18)
                    im.fail("cannot cast " + std::to_string(v) + " to an integer");
                out.ints.push_back(t.isInteger() ? t.ints[k] : static_cast<int64_t>(v));
            } else {
                out.reals.push_back(t.realAt(k));
            }
        }
    }
    im.setConstant(0, std::move(out));
}

void constantOfShape(Importer& im) {
    const ConstTensor& shape = im.constant(0, true);
    if (!shape.isInteger())
        im.fail("the shape must be integers");
    ConstTensor out;
    out.dims = shape.ints;
    out.data_type = DT::TensorProto_DataType_FLOAT;
    double fill = 0.0;
    if (const auto* a = im.attr("value")) {
        const ConstTensor v = decode(im, a->t());
        out.data_type = v.data_type;
        if (v.has_values && v.valueCount() > 0)
            fill = v.realAt(0);
    }
    const int64_t count = countOf(im, out.dims);
    if (count <= kMaxKeptElements) {
        if (out.isInteger())
            out.ints.assign(
                static_cast<std::size_t>(count),
                std::isfinite(fill) && std::fabs(fill) < 9.2e18 ? static_cast<int64_t>(fill) : 0);
        else
            out.reals.assign(static_cast<std::size_t>(count), fill);
        out.has_values = true;
    }
    im.setConstant(0, std::move(out));
}

bool allInputsConstant(Importer& im) {
    bool any = false;
    for (int i = 0; i < im.inputCount(); ++i) {
        if (!im.hasInput(i))
            continue;
        if (!im.isConstant(i))
            return false;
        any = true;
    }
    return any;
}

} // namespace

bool convertShapeOp(Importer& im, const std::string& op) {
    if (op == "Constant") {
        constantNode(im);
        return true;
    }
    if (op == "Shape") {
        shapeNode(im);
        return true;
    }
    if (op == "ConstantOfShape") {
        constantOfShape(im);
        return true;
    }
    if (!allInputsConstant(im)) {
        // Shape-changing ops the network cannot express: an error, not a silent identity.
        static const char* const unsupported[] = {"GatherElements",
                                                  "GatherND",
                                                  "Resize",
                                                  "Upsample",
                                                  "Tile",
                                                  "DepthToSpace",
                                                  "SpaceToDepth",
                                                  "ReduceProd",
                                                  "ReduceL1",
                                                  "ReduceL2",
                                                  "ReduceLogSumExp",
                                                  "ArgMax",
                                                  "ArgMin",
                                                  "TopK",
                                                  "NonZero",
                                                  "RoiAlign",
                                                  "MaxRoiPool",
                                                  "LpPool",
                                                  "MaxUnpool",
                                                  "OneHot",
                                                  "Compress",
                                                  "Einsum",
                                                  "ScatterND",
                                                  "ScatterElements",
                                                  "Loop",
                                                  "If",
                                                  "Scan",
                                                  "Range",
                                                  "CumSum",
                                                  "Where",
                                                  "Equal",
                                                  "Less",
                                                  "Greater",
                                                  "Not",
                                                  "Mod"};
        for (const char* name : unsupported) {
            if (op == name)
                im.fail("this op on activations is not supported");
        }
        return false;
    }
    if (op == "Squeeze" || op == "Unsqueeze" || op == "Flatten" || op == "Reshape")
        redimension(im, op);
    else if (op == "Cast")
        castNode(im);
    else if (op == "Identity")
        im.alias(0, im.input(0));
    else
        return foldTensorOp(im, op);
    return true;
}

} // namespace iterscope::onnx_import
