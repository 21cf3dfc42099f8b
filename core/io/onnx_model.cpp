#include "io/onnx_model.h"

#include "util/checked.h"
#include "util/error.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream.h>

#include <bit>
#include <climits>
#include <cmath>
#include <cstring>

namespace iterscope::onnx_import {
namespace {

namespace pbio = google::protobuf::io;

enum WireType : uint32_t { Varint = 0, Fixed64 = 1, Delimited = 2, Fixed32 = 5 };

// Field numbers from onnx.proto.
namespace model_field {
constexpr uint32_t ir_version = 1, graph = 7, opset_import = 8;
}
namespace graph_field {
constexpr uint32_t node = 1, name = 2, initializer = 5, input = 11, output = 12, value_info = 13;
}
namespace tensor_field {
constexpr uint32_t dims = 1, data_type = 2, float_data = 4, int32_data = 5, int64_data = 7,
                   name = 8, raw_data = 9, double_data = 10, uint64_data = 11;
}

using DT = onnx::TensorProto_DataType;

bool isIntegerType(int32_t t) {
    switch (t) {
    case DT::TensorProto_DataType_UINT8:
    case DT::TensorProto_DataType_INT8:
    case DT::TensorProto_DataType_UINT16:
    case DT::TensorProto_DataType_INT16:
    case DT::TensorProto_DataType_INT32:
    case DT::TensorProto_DataType_INT64:
    case DT::TensorProto_DataType_BOOL:
    case DT::TensorProto_DataType_UINT32:
    case DT::TensorProto_DataType_UINT64:
        return true;
    default:
        return false;
    }
}

// Bytes of one element in raw_data; 0 for types whose values we never decode.
std::size_t elementBytes(int32_t t) {
    switch (t) {
    case DT::TensorProto_DataType_UINT8:
    case DT::TensorProto_DataType_INT8:
    case DT::TensorProto_DataType_BOOL:
        return 1;
    case DT::TensorProto_DataType_UINT16:
    case DT::TensorProto_DataType_INT16:
    case DT::TensorProto_DataType_FLOAT16:
    case DT::TensorProto_DataType_BFLOAT16:
        return 2;
    case DT::TensorProto_DataType_INT32:
    case DT::TensorProto_DataType_UINT32:
    case DT::TensorProto_DataType_FLOAT:
        return 4;
    case DT::TensorProto_DataType_INT64:
    case DT::TensorProto_DataType_UINT64:
    case DT::TensorProto_DataType_DOUBLE:
        return 8;
    default:
        return 0;
    }
}

double halfToDouble(uint16_t h) {
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0)
        return sign * std::ldexp(mantissa, -24);
    if (exponent == 31)
        return mantissa ? NAN : sign * INFINITY;
    return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

double bfloatToDouble(uint16_t b) {
    return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(b) << 16));
}

// Appends one element of type t, given its little-endian bytes.
void appendRaw(ConstTensor& t, const unsigned char* p) {
    auto load = [p](auto zero) {
        decltype(zero) v{};
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    switch (t.data_type) {
    case DT::TensorProto_DataType_UINT8:
    case DT::TensorProto_DataType_BOOL:
        t.ints.push_back(p[0]);
        break;
    case DT::TensorProto_DataType_INT8:
        t.ints.push_back(static_cast<int8_t>(p[0]));
        break;
    case DT::TensorProto_DataType_UINT16:
        t.ints.push_back(load(uint16_t{}));
        break;
    case DT::TensorProto_DataType_INT16:
        t.ints.push_back(load(int16_t{}));
        break;
    case DT::TensorProto_DataType_INT32:
        t.ints.push_back(load(int32_t{}));
        break;
    case DT::TensorProto_DataType_UINT32:
        t.ints.push_back(load(uint32_t{}));
        break;
    case DT::TensorProto_DataType_INT64:
        t.ints.push_back(load(int64_t{}));
        break;
    case DT::TensorProto_DataType_UINT64:
        t.ints.push_back(static_cast<int64_t>(load(uint64_t{})));
        break;
    case DT::TensorProto_DataType_FLOAT:
        t.reals.push_back(load(float{}));
        break;
    case DT::TensorProto_DataType_DOUBLE:
        t.reals.push_back(load(double{}));
        break;
    case DT::TensorProto_DataType_FLOAT16:
        t.reals.push_back(halfToDouble(load(uint16_t{})));
        break;
    case DT::TensorProto_DataType_BFLOAT16:
        t.reals.push_back(bfloatToDouble(load(uint16_t{})));
        break;
    default:
        break;
    }
}

// Typed repeated fields store FLOAT16 and BFLOAT16 as bit patterns in int32_data.
void appendTypedInt(ConstTensor& t, int64_t v) {
    if (t.data_type == DT::TensorProto_DataType_FLOAT16)
        t.reals.push_back(halfToDouble(static_cast<uint16_t>(v)));
    else if (t.data_type == DT::TensorProto_DataType_BFLOAT16)
        t.reals.push_back(bfloatToDouble(static_cast<uint16_t>(v)));
    else if (isIntegerType(t.data_type))
        t.ints.push_back(v);
    else
        t.reals.push_back(static_cast<double>(v));
}

void appendTypedReal(ConstTensor& t, double v) {
    // An integer tensor stored as floats (a corrupt file): a value no int64 holds reads as 0
    // rather than as undefined behaviour.
    if (isIntegerType(t.data_type))
        t.ints.push_back(std::isfinite(v) && std::fabs(v) < 9.2e18 ? static_cast<int64_t>(v) : 0);
    else
        t.reals.push_back(v);
}

// Raw tensor bytes, before the type is known (fields may come in any order).
struct PendingTensor {
    ConstTensor tensor;
    std::string raw; // only when small
    bool raw_seen = false;
    bool raw_skipped = false;
    bool typed_skipped = false;
    std::size_t typed_count = 0;
};

class WireReader {
  public:
    WireReader(pbio::CodedInputStream& in, const std::string& context)
        : in_(in)
        , context_(context) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(context_ + ": invalid ONNX file: " + what);
    }

    // 0 at the end of the current limit; a corrupt tag is an error.
    uint32_t tag() {
        const uint32_t t = in_.ReadTag();
        if (t == 0 && in_.BytesUntilLimit() != 0)
            fail(in_.BytesUntilLimit() > 0 ? "truncated or corrupt protobuf (bad field tag)"
                                           : "corrupt protobuf");
        return t;
    }

    uint64_t varint() {
        uint64_t v = 0;
        if (!in_.ReadVarint64(&v))
            fail("truncated or corrupt protobuf (bad varint)");
        return v;
    }

    int length() {
        const uint64_t n = varint();
        const int left = in_.BytesUntilLimit();
        if (n > static_cast<uint64_t>(INT_MAX) || (left >= 0 && n > static_cast<uint64_t>(left)))
            fail("truncated or corrupt protobuf: a field claims " + std::to_string(n) +
                 " bytes but only " + std::to_string(left) + " remain");
        return static_cast<int>(n);
    }

    void skip(int n) {
        if (!in_.Skip(n))
            fail("truncated protobuf");
    }

    std::string bytes(int n) {
        std::string s;
        if (!in_.ReadString(&s, n))
            fail("truncated protobuf");
        return s;
    }

    void skipField(uint32_t t) {
        switch (t & 7) {
        case Varint:
            varint();
            break;
        case Fixed64:
            skip(8);
            break;
        case Delimited:
            skip(length());
            break;
        case Fixed32:
            skip(4);
            break;
        default:
            // Groups never occur in ONNX; accepting them would invite unbounded nesting.
            fail("corrupt protobuf (unexpected wire type " + std::to_string(t & 7) + ")");
        }
    }

    template <class Message> void message(Message& m, const char* what) {
        const std::string s = bytes(length());
        if (!m.ParseFromString(s))
            fail(std::string("corrupt ") + what);
    }

    // Runs body inside a length-delimited sub-message.
    template <class Body> void nested(Body&& body) {
        const int n = length();
        const auto limit = in_.PushLimit(n);
        body();
        if (in_.BytesUntilLimit() != 0)
            fail("truncated protobuf");
        in_.PopLimit(limit);
    }

    // Repeated scalar: packed (one delimited run) or one value per tag.
    template <class ReadOne> void repeated(uint32_t t, ReadOne&& read_one) {
        if ((t & 7) == Delimited) {
            nested([&] {
                while (in_.BytesUntilLimit() > 0)
                    read_one();
            });
        } else {
            read_one();
        }
    }

    uint32_t fixed32() {
        uint32_t v = 0;
        if (!in_.ReadLittleEndian32(&v))
            fail("truncated protobuf");
        return v;
    }
    uint64_t fixed64() {
        uint64_t v = 0;
        if (!in_.ReadLittleEndian64(&v))
            fail("truncated protobuf");
        return v;
    }

    int bytesLeft() const { return in_.BytesUntilLimit(); }

    pbio::CodedInputStream& in_;
    const std::string& context_;
};

// Typed data beyond kMaxKeptElements is skipped in one go when packed.
template <class ReadOne>
void typedField(WireReader& w, uint32_t t, PendingTensor& p, std::size_t packed_elem_bytes,
                ReadOne&& read_one) {
    if ((t & 7) == Delimited) {
        const int n = w.length();
        const std::size_t approx =
            packed_elem_bytes ? static_cast<std::size_t>(n) / packed_elem_bytes : 0;
        if (p.typed_skipped || p.typed_count + approx > kMaxKeptElements) {
            w.skip(n);
            p.typed_skipped = true;
            return;
        }
        const auto limit = w.in_.PushLimit(n);
        while (w.bytesLeft() > 0) {
            read_one();
            ++p.typed_count;
        }
        w.in_.PopLimit(limit);
        return;
    }
    read_one();
    if (++p.typed_count > kMaxKeptElements)
        p.typed_skipped = true;
}

ConstTensor readTensor(WireReader& w, std::string& name) {
    PendingTensor p;
    ConstTensor& t = p.tensor;
    // Typed values are decoded by type, so they are staged until data_type is known.
    std::vector<int64_t> staged_ints;
    std::vector<double> staged_reals;
    while (uint32_t tag = w.tag()) {
        const uint32_t field = tag >> 3;
        switch (field) {
        case tensor_field::dims:
            w.repeated(tag, [&] {
                t.dims.push_back(static_cast<int64_t>(w.varint()));
                if (t.dims.size() > 64)
                    w.fail("tensor '" + name + "' has more than 64 dimensions");
            });
            break;
        case tensor_field::data_type:
            if ((tag & 7) != Varint)
                w.fail("corrupt TensorProto data_type");
            t.data_type = static_cast<int32_t>(w.varint());
            break;
        case tensor_field::name:
            if ((tag & 7) != Delimited)
                w.fail("corrupt TensorProto name");
            name = w.bytes(w.length());
            break;
        case tensor_field::raw_data: {
            if ((tag & 7) != Delimited)
                w.fail("corrupt TensorProto raw_data");
            const int n = w.length();
            p.raw_seen = true;
            // Weight payloads are never needed: skip (seek) past anything large.
            if (n > kMaxKeptElements * 8) {
                w.skip(n);
                p.raw_skipped = true;
            } else {
                p.raw = w.bytes(n);
            }
            break;
        }
        case tensor_field::float_data:
            typedField(w, tag, p, 4, [&] {
                const float f = std::bit_cast<float>(w.fixed32());
                if (!p.typed_skipped)
                    staged_reals.push_back(f);
            });
            break;
        case tensor_field::double_data:
            typedField(w, tag, p, 8, [&] {
                const double d = std::bit_cast<double>(w.fixed64());
                if (!p.typed_skipped)
                    staged_reals.push_back(d);
            });
            break;
        case tensor_field::int32_data:
        case tensor_field::int64_data:
        case tensor_field::uint64_data:
            typedField(w, tag, p, 0, [&] {
                const uint64_t v = w.varint();
                if (p.typed_skipped)
                    return;
                staged_ints.push_back(field == tensor_field::int32_data
                                          ? static_cast<int32_t>(static_cast<uint32_t>(v))
                                          : static_cast<int64_t>(v));
            });
            break;
        default:
            w.skipField(tag);
        }
    }

    int64_t count = 0;
    try {
        count = t.elementCount();
    } catch (const InputError& e) {
        w.fail("tensor '" + name + "': " + e.what());
    }
    if (count > kMaxKeptElements || p.raw_skipped || p.typed_skipped)
        return t;
    if (p.raw_seen) {
        const std::size_t eb = elementBytes(t.data_type);
        if (eb == 0)
            return t;
        if (p.raw.size() != static_cast<std::size_t>(count) * eb)
            w.fail("tensor '" + name + "': raw_data holds " + std::to_string(p.raw.size()) +
                   " bytes, its dims need " + std::to_string(static_cast<std::size_t>(count) * eb));
        const auto* bytes = reinterpret_cast<const unsigned char*>(p.raw.data());
        for (int64_t i = 0; i < count; ++i)
            appendRaw(t, bytes + static_cast<std::size_t>(i) * eb);
    } else if (!staged_ints.empty() || !staged_reals.empty()) {
        for (int64_t v : staged_ints)
            appendTypedInt(t, v);
        for (double v : staged_reals)
            appendTypedReal(t, v);
        if (static_cast<int64_t>(t.valueCount()) != count) {
            // Values whose count disagrees with the dims are unusable for folding; the dims
            // still describe the tensor for the analysis.
            t.ints.clear();
            t.reals.clear();
            return t;
        }
    } else if (count != 0) {
        return t; // external data, or no data at all: dims only
    }
    t.has_values = true;
    return t;
}

void readGraph(WireReader& w, Model& m) {
    while (uint32_t tag = w.tag()) {
        if ((tag & 7) != Delimited) {
            w.skipField(tag);
            continue;
        }
        switch (tag >> 3) {
        case graph_field::node:
            w.message(m.nodes.emplace_back(), "NodeProto");
            break;
        case graph_field::name:
            m.graph_name = w.bytes(w.length());
            break;
        case graph_field::initializer: {
            NamedTensor& nt = m.initializers.emplace_back();
            w.nested([&] { nt.tensor = readTensor(w, nt.name); });
            break;
        }
        case graph_field::input:
            w.message(m.inputs.emplace_back(), "graph input");
            break;
        case graph_field::output:
            w.message(m.outputs.emplace_back(), "graph output");
            break;
        case graph_field::value_info:
            w.message(m.value_infos.emplace_back(), "value_info");
            break;
        default:
            w.skipField(tag);
        }
    }
}

} // namespace

bool ConstTensor::isInteger() const {
    return isIntegerType(data_type);
}

int64_t ConstTensor::elementCount() const {
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0)
            throw InputError("negative dimension " + std::to_string(d));
        n = checkedMul(n, d, "element count");
    }
    return n;
}

Model parseModel(pbio::ZeroCopyInputStream& stream, int64_t size_bytes,
                 const std::string& context) {
    if (size_bytes <= 0)
        throw InputError(context + ": the file is empty");
    if (size_bytes > INT_MAX)
        throw InputError(context + ": larger than 2 GB, the protobuf limit; such models keep "
                                   "their weights as ONNX external data");
    pbio::CodedInputStream in(&stream);
    in.SetTotalBytesLimit(static_cast<int>(size_bytes));
    in.PushLimit(static_cast<int>(size_bytes));
    WireReader w(in, context);
    Model m;
    while (uint32_t tag = w.tag()) {
        const uint32_t field = tag >> 3;
        if (field == model_field::ir_version && (tag & 7) == Varint) {
            m.ir_version = static_cast<int64_t>(w.varint());
        } else if (field == model_field::opset_import && (tag & 7) == Delimited) {
            onnx::OperatorSetIdProto op;
            w.message(op, "opset_import");
            if (op.domain().empty() || op.domain() == "ai.onnx")
                m.opset = op.version();
        } else if (field == model_field::graph && (tag & 7) == Delimited) {
            if (m.has_graph)
                w.fail("the model holds more than one graph");
            m.has_graph = true;
            w.nested([&] { readGraph(w, m); });
        } else {
            w.skipField(tag);
        }
    }
    return m;
}

ConstTensor tensorFromProto(const onnx::TensorProto& proto, const std::string& context) {
    // Re-reading the serialized form keeps one decoding path for both sources.
    const std::string bytes = proto.SerializeAsString();
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.PushLimit(static_cast<int>(bytes.size()));
    WireReader w(in, context);
    std::string name = proto.name();
    return readTensor(w, name);
}

} // namespace iterscope::onnx_import
