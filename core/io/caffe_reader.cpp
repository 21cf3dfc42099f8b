// Caffe NetParameter in text form, interpreted for the TRAIN phase.
//
// Caffe blobs are named and layers may write in place (top == bottom), so a blob name maps
// to whichever layer wrote it last. Blobs that carry no image data (labels, losses) are
// "side" blobs: layers that only consume them (Accuracy, losses, Silence) are skipped.
#include "io/caffe_reader.h"

#include "io/caffe_text.h"
#include "network/analysis.h"
#include "util/checked.h"
#include "util/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace iterscope {
namespace {

using caffe_text::Document;
using caffe_text::Field;
using caffe_text::Message;

// Caffe's V1 "layers { type: CONVOLUTION }" enum names, mapped to the V2 type strings.
const std::unordered_map<std::string, std::string>& legacyTypes() {
    static const std::unordered_map<std::string, std::string> table = {
        {"ABSVAL", "AbsVal"},
        {"ACCURACY", "Accuracy"},
        {"ARGMAX", "ArgMax"},
        {"BNLL", "BNLL"},
        {"CONCAT", "Concat"},
        {"CONTRASTIVE_LOSS", "ContrastiveLoss"},
        {"CONVOLUTION", "Convolution"},
        {"DATA", "Data"},
        {"DECONVOLUTION", "Deconvolution"},
        {"DROPOUT", "Dropout"},
        {"DUMMY_DATA", "DummyData"},
        {"EUCLIDEAN_LOSS", "EuclideanLoss"},
        {"ELTWISE", "Eltwise"},
        {"EXP", "Exp"},
        {"FLATTEN", "Flatten"},
        {"HDF5_DATA", "HDF5Data"},
        {"HDF5_OUTPUT", "HDF5Output"},
        {"HINGE_LOSS", "HingeLoss"},
        {"IMAGE_DATA", "ImageData"},
        {"INFOGAIN_LOSS", "InfogainLoss"},
        {"INNER_PRODUCT", "InnerProduct"},
        {"LRN", "LRN"},
        {"MEMORY_DATA", "MemoryData"},
        {"MULTINOMIAL_LOGISTIC_LOSS", "MultinomialLogisticLoss"},
        {"MVN", "MVN"},
        {"POOLING", "Pooling"},
        {"POWER", "Power"},
        {"RELU", "ReLU"},
        {"SIGMOID", "Sigmoid"},
        {"SIGMOID_CROSS_ENTROPY_LOSS", "SigmoidCrossEntropyLoss"},
        {"SILENCE", "Silence"},
        {"SOFTMAX", "Softmax"},
        {"SOFTMAX_LOSS", "SoftmaxWithLoss"},
        {"SPLIT", "Split"},
        {"SLICE", "Slice"},
        {"TANH", "TanH"},
        {"WINDOW_DATA", "WindowData"},
        {"THRESHOLD", "Threshold"},
    };
    return table;
}

bool isDataLayer(const std::string& type) {
    return type == "Data" || type == "ImageData" || type == "WindowData" || type == "MemoryData" ||
           type == "DummyData" || type == "HDF5Data" || type == "AnnotatedData";
}

// Layers that end the network or only observe it: their outputs feed nothing we model.
bool isSinkLayer(const std::string& type) {
    return type == "Accuracy" || type == "Silence" || type == "HDF5Output" || type == "ArgMax" ||
           (type.size() > 4 && type.compare(type.size() - 4, 4, "Loss") == 0 &&
            type != "SoftmaxWithLoss");
}

// Element-wise layers with no counterpart in the network IR: zero-cost, shape-preserving.
bool isElementwiseIdentity(const std::string& type) {
    return type == "Power" || type == "AbsVal" || type == "BNLL" || type == "Exp" ||
           type == "Log" || type == "Threshold" || type == "MVN";
}

struct Blob {
    bool side = false;     // labels and other non-image data
    std::size_t layer = 0; // producer, when not side
};

class Reader {
  public:
    Reader(const Document& doc, std::string context)
        : doc_(doc)
        , context_(std::move(context)) {}

    Network run();

  private:
    [[noreturn]] void fail(int line, const std::string& problem) const {
        throw InputError(context_ + ":" + std::to_string(line) + ": " + problem);
    }
    [[noreturn]] void failLayer(const std::string& problem) const {
        fail(layer_line_, "layer '" + layer_name_ + "' (" + layer_type_ + "): " + problem);
    }

    int64_t toInt(const Field& f) const;
    double toReal(const Field& f) const;
    bool toBool(const Field& f) const;
    int64_t intField(const Message& m, const char* name, int64_t fallback) const;
    int64_t positiveField(const Message& m, const char* name, int64_t fallback) const;
    std::vector<int64_t> intFields(const Message& m, const char* name) const;
    bool boolField(const Message& m, const char* name, bool fallback) const;
    double realField(const Message& m, const char* name, double fallback) const;
    std::string textField(const Message& m, const char* name, const std::string& fallback) const;
    const Message* sub(const Message& m, const char* name) const;

    bool included(const Message& layer) const;
    bool ruleMet(const Message& rule) const;
    void setInput(const std::string& blob, const Dims& nchw, int line);
    Dims dimsOf(const Message& shape) const;
    void convertLayer(const Message& layer, bool legacy);
    void dataLayer(const Message& layer, const std::vector<std::string>& tops);
    void addLayer(Layer layer, const std::vector<std::size_t>& inputs,
                  const std::vector<std::string>& tops);
    void convolution(Layer& l, const Message& layer);
    void pooling(Layer& l, const Message& layer);

    const Document& doc_;
    std::string context_;
    Network net_;
    std::unordered_map<std::string, Blob> blobs_;
    std::unordered_set<std::string> names_;
    std::string layer_name_, layer_type_;
    int layer_line_ = 0;
    std::vector<int> lines_; // parallel to net_.layers: where each layer is defined
};

int64_t Reader::toInt(const Field& f) const {
    if (f.is_message)
        fail(f.line, "field '" + f.name + "' must be a number, not a message");
    int64_t v = 0;
    const char* begin = f.value.data();
    const char* end = begin + f.value.size();
    if (begin != end && *begin == '+')
        ++begin;
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec == std::errc::result_out_of_range)
        fail(f.line, "field '" + f.name + "': " + f.value + " is out of range");
    if (ec != std::errc() || ptr != end)
        fail(f.line, "field '" + f.name + "': '" + f.value + "' is not an integer");
    return v;
}

double Reader::toReal(const Field& f) const {
    if (f.is_message || f.value.empty())
        fail(f.line, "field '" + f.name + "' must be a number");
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(f.value.c_str(), &end);
    if (end != f.value.c_str() + f.value.size() || errno == ERANGE)
        fail(f.line, "field '" + f.name + "': '" + f.value + "' is not a number");
    return v;
}

bool Reader::toBool(const Field& f) const {
    if (f.value == "true" || f.value == "True" || f.value == "t" || f.value == "1")
        return true;
    if (f.value == "false" || f.value == "False" || f.value == "f" || f.value == "0")
        return false;
    fail(f.line, "field '" + f.name + "': '" + f.value + "' is not true or false");
}

int64_t Reader::intField(const Message& m, const char* name, int64_t fallback) const {
    const Field* f = doc_.find(m, name);
    return f ? toInt(*f) : fallback;
}

int64_t Reader::positiveField(const Message& m, const char* name, int64_t fallback) const {
    const Field* f = doc_.find(m, name);
    if (f == nullptr)
        return fallback;
    const int64_t v = toInt(*f);
    if (v <= 0)
        fail(f->line,
             "layer '" + layer_name_ + "': " + name + " " + std::to_string(v) + " is not positive");
    return v;
}

std::vector<int64_t> Reader::intFields(const Message& m, const char* name) const {
    std::vector<int64_t> out;
    for (const Field* f : doc_.all(m, name))
        out.push_back(toInt(*f));
    return out;
}

bool Reader::boolField(const Message& m, const char* name, bool fallback) const {
    const Field* f = doc_.find(m, name);
    return f ? toBool(*f) : fallback;
}

double Reader::realField(const Message& m, const char* name, double fallback) const {
    const Field* f = doc_.find(m, name);
    return f ? toReal(*f) : fallback;
}

std::string Reader::textField(const Message& m, const char* name,
                              const std::string& fallback) const {
    const Field* f = doc_.find(m, name);
    if (f == nullptr)
        return fallback;
    if (f->is_message)
        fail(f->line, "field '" + f->name + "' must be a value, not a message");
    return f->value;
}

const Message* Reader::sub(const Message& m, const char* name) const {
    const Field* f = doc_.find(m, name);
    if (f == nullptr)
        return nullptr;
    if (!f->is_message)
        fail(f->line, "field '" + f->name + "' must be a message { ... }");
    return &doc_.at(*f);
}

// Caffe's NetStateRule for the state {phase: TRAIN, level: 0, no stages}.
bool Reader::ruleMet(const Message& rule) const {
    const std::string phase = textField(rule, "phase", "");
    if (!phase.empty() && phase != "TRAIN" && phase != "0")
        return false;
    if (intField(rule, "min_level", 0) > 0 || intField(rule, "max_level", 0) < 0)
        return false;
    return doc_.find(rule, "stage") == nullptr; // no stages are set
}

bool Reader::included(const Message& layer) const {
    const auto includes = doc_.all(layer, "include");
    const auto excludes = doc_.all(layer, "exclude");
    if (!includes.empty()) {
        return std::any_of(includes.begin(), includes.end(),
                           [&](const Field* f) { return f->is_message && ruleMet(doc_.at(*f)); });
    }
    return std::none_of(excludes.begin(), excludes.end(),
                        [&](const Field* f) { return f->is_message && ruleMet(doc_.at(*f)); });
}

void Reader::setInput(const std::string& blob, const Dims& nchw, int line) {
    if (!net_.layers.empty()) {
        blobs_[blob] = Blob{true, 0}; // a second input: treated as side data
        return;
    }
    if (nchw.size() < 2)
        fail(line, "input '" + blob + "' needs a batch dimension and at least one more");
    for (int64_t d : nchw) {
        if (d <= 0)
            fail(line, "input '" + blob + "': dimension " + std::to_string(d) + " is not positive");
    }
    try {
        int64_t elements = 1;
        for (int64_t d : nchw)
            elements = checkedMul(elements, d, "input size");
    } catch (const InputError& e) {
        fail(line, "input '" + blob + "': " + e.what());
    }
    net_.input.assign(nchw.begin() + 1, nchw.end());
    Layer in;
    in.kind = LayerKind::Input;
    in.name = blob;
    in.source_op = "Input";
    names_.insert(blob);
    net_.layers.push_back(std::move(in));
    lines_.push_back(line);
    blobs_[blob] = Blob{false, 0};
}

Dims Reader::dimsOf(const Message& shape) const {
    return intFields(shape, "dim");
}

void Reader::addLayer(Layer layer, const std::vector<std::size_t>& inputs,
                      const std::vector<std::string>& tops) {
    std::string name = layer_name_.empty() ? layer_type_ : layer_name_;
    for (int n = 2; !names_.insert(name).second; ++n)
        name = layer_name_ + "_" + std::to_string(n);
    layer.name = std::move(name);
    layer.source_op = layer_type_;
    layer.inputs = inputs;
    net_.layers.push_back(std::move(layer));
    lines_.push_back(layer_line_);
    for (const std::string& top : tops)
        blobs_[top] = Blob{false, net_.layers.size() - 1};
}

void Reader::dataLayer(const Message& layer, const std::vector<std::string>& tops) {
    if (tops.empty())
        failLayer("has no top");
    Dims dims;
    if (layer_type_ == "Input") {
        const Message* p = sub(layer, "input_param");
        const Message* shape = p ? sub(*p, "shape") : nullptr;
        if (shape == nullptr)
            failLayer("input_param has no shape");
        dims = dimsOf(*shape);
    } else if (layer_type_ == "DummyData") {
        const Message* p = sub(layer, "dummy_data_param");
        const Message* shape = p ? sub(*p, "shape") : nullptr;
        if (shape == nullptr)
            failLayer("dummy_data_param has no shape");
        dims = dimsOf(*shape);
    } else if (layer_type_ == "MemoryData") {
        const Message* p = sub(layer, "memory_data_param");
        if (p == nullptr)
            failLayer("has no memory_data_param");
        dims = {1, positiveField(*p, "channels", 3), positiveField(*p, "height", 0),
                positiveField(*p, "width", 0)};
    } else {
        const Message* t = sub(layer, "transform_param");
        const Message* image = sub(layer, "image_data_param");
        int64_t channels = 3; // colour images unless the file says otherwise
        if ((t && boolField(*t, "force_gray", false)) ||
            (image && !boolField(*image, "is_color", true)))
            channels = 1;
        int64_t crop = t ? positiveField(*t, "crop_size", 0) : 0;
        int64_t h = crop, w = crop;
        if (crop == 0 && image) {
            h = positiveField(*image, "new_height", 0);
            w = positiveField(*image, "new_width", 0);
        }
        if (h == 0 || w == 0)
            failLayer("gives no input size: set transform_param { crop_size } (or use an Input "
                      "layer)");
        dims = {1, channels, h, w};
    }
    setInput(tops[0], dims, layer_line_);
    for (std::size_t i = 1; i < tops.size(); ++i)
        blobs_[tops[i]] = Blob{true, 0};
}

void Reader::convolution(Layer& l, const Message& layer) {
    const Message* p = sub(layer, "convolution_param");
    if (p == nullptr)
        failLayer("has no convolution_param");
    ConvParams& c = l.conv;
    c.out_channels = positiveField(*p, "num_output", 0);
    if (c.out_channels == 0)
        failLayer("convolution_param has no num_output");
    c.bias = boolField(*p, "bias_term", true);
    c.groups = positiveField(*p, "group", 1);
    if (intField(*p, "axis", 1) != 1)
        failLayer("only axis 1 (channels) is supported");
    // kernel_size, stride, pad, dilation: one value for both axes or [h, w].
    auto pair = [&](const char* name, const char* name_h, const char* name_w, int64_t fallback,
                    int64_t& h, int64_t& w) {
        const auto v = intFields(*p, name);
        if (v.size() > 2)
            failLayer(std::string(name) + " has " + std::to_string(v.size()) +
                      " values; only 2-D convolutions are supported");
        h = v.empty() ? fallback : v[0];
        w = v.empty() ? fallback : v.back();
        h = intField(*p, name_h, h);
        w = intField(*p, name_w, w);
    };
    pair("kernel_size", "kernel_h", "kernel_w", 0, c.kernel_h, c.kernel_w);
    if (c.kernel_h <= 0 || c.kernel_w <= 0)
        failLayer("kernel size must be positive (set kernel_size or kernel_h/kernel_w)");
    pair("stride", "stride_h", "stride_w", 1, c.stride_h, c.stride_w);
    int64_t pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;
    pair("pad", "pad_h", "pad_w", 0, pad_h, pad_w);
    pair("dilation", "dilation_h", "dilation_w", 1, dil_h, dil_w);
    c.pad_top = c.pad_bottom = pad_h;
    c.pad_left = c.pad_right = pad_w;
    c.dilation_h = dil_h;
    c.dilation_w = dil_w;
}

void Reader::pooling(Layer& l, const Message& layer) {
    const Message* p = sub(layer, "pooling_param");
    if (p == nullptr)
        failLayer("has no pooling_param");
    const std::string pool = textField(*p, "pool", "MAX");
    PoolKind kind = PoolKind::Max;
    if (pool == "AVE" || pool == "1")
        kind = PoolKind::Average;
    else if (pool != "MAX" && pool != "0" && pool != "STOCHASTIC" && pool != "2")
        failLayer("unknown pool '" + pool + "'");
    if (boolField(*p, "global_pooling", false)) {
        l.kind = LayerKind::GlobalPooling;
        l.pool.kind = kind;
        return;
    }
    PoolParams& q = l.pool;
    q.kind = kind;
    const int64_t k = intField(*p, "kernel_size", 0);
    q.kernel_h = intField(*p, "kernel_h", k);
    q.kernel_w = intField(*p, "kernel_w", k);
    if (q.kernel_h <= 0 || q.kernel_w <= 0)
        failLayer("kernel size must be positive (set kernel_size or kernel_h/kernel_w)");
    const int64_t s = intField(*p, "stride", 1);
    q.stride_h = intField(*p, "stride_h", s);
    q.stride_w = intField(*p, "stride_w", s);
    const int64_t pad = intField(*p, "pad", 0);
    q.pad_top = q.pad_bottom = intField(*p, "pad_h", pad);
    q.pad_left = q.pad_right = intField(*p, "pad_w", pad);
    // Caffe rounds pooled sizes up unless a newer file asks for FLOOR.
    q.ceil_mode = textField(*p, "round_mode", "CEIL") != "FLOOR";
    q.count_include_pad = kind == PoolKind::Average;
}

void Reader::convertLayer(const Message& layer, bool legacy) {
    layer_name_ = textField(layer, "name", "");
    layer_type_ = textField(layer, "type", "");
    if (legacy) {
        const auto it = legacyTypes().find(layer_type_);
        if (it != legacyTypes().end())
            layer_type_ = it->second;
    }
    if (layer_type_.empty())
        failLayer("has no type");
    if (!included(layer))
        return;
    std::vector<std::string> bottoms, tops;
    for (const Field* f : doc_.all(layer, "bottom"))
        bottoms.push_back(f->value);
    for (const Field* f : doc_.all(layer, "top"))
        tops.push_back(f->value);

    if (layer_type_ == "Input" || isDataLayer(layer_type_)) {
        dataLayer(layer, tops);
        return;
    }
    // Inputs that carry image data; labels and other side blobs are dropped.
    std::vector<std::size_t> inputs;
    for (const std::string& b : bottoms) {
        const auto it = blobs_.find(b);
        if (it == blobs_.end())
            failLayer("bottom '" + b + "' is not produced by any earlier layer or input");
        if (!it->second.side)
            inputs.push_back(it->second.layer);
    }
    if (isSinkLayer(layer_type_) || (inputs.empty() && !bottoms.empty())) {
        for (const std::string& t : tops)
            blobs_[t] = Blob{true, 0};
        return;
    }
    if (inputs.empty())
        failLayer("has no bottom");
    if (layer_type_ == "Split") {
        for (const std::string& t : tops)
            blobs_[t] = Blob{false, inputs[0]};
        return;
    }
    const std::vector<std::size_t> first{inputs[0]};
    Layer l;
    const std::string& type = layer_type_;
    if (type == "Convolution" || type == "Deconvolution") {
        l.kind = type == "Convolution" ? LayerKind::Convolution : LayerKind::Deconvolution;
        convolution(l, layer);
        addLayer(std::move(l), first, tops);
    } else if (type == "Pooling") {
        l.kind = LayerKind::Pooling;
        pooling(l, layer);
        addLayer(std::move(l), first, tops);
    } else if (type == "InnerProduct") {
        const Message* p = sub(layer, "inner_product_param");
        if (p == nullptr)
            failLayer("has no inner_product_param");
        l.kind = LayerKind::FullyConnected;
        l.fc.out_features = positiveField(*p, "num_output", 0);
        if (l.fc.out_features == 0)
            failLayer("inner_product_param has no num_output");
        l.fc.bias = boolField(*p, "bias_term", true);
        if (intField(*p, "axis", 1) != 1)
            failLayer("only axis 1 is supported");
        addLayer(std::move(l), first, tops);
    } else if (type == "ReLU" || type == "PReLU" || type == "Sigmoid" || type == "TanH" ||
               type == "ELU" || type == "ReLU6" || type == "Swish" || type == "Clip") {
        l.kind = LayerKind::Activation;
        ActivationKind k = ActivationKind::ReLU;
        if (type == "ReLU") {
            const Message* p = sub(layer, "relu_param");
            if (p && realField(*p, "negative_slope", 0.0) != 0.0)
                k = ActivationKind::LeakyReLU;
        } else if (type == "PReLU") {
            k = ActivationKind::PReLU;
            const Message* p = sub(layer, "prelu_param");
            l.activation.prelu_channel_shared = p && boolField(*p, "channel_shared", false);
        } else {
            k = type == "Sigmoid" ? ActivationKind::Sigmoid
                : type == "TanH"  ? ActivationKind::Tanh
                : type == "ELU"   ? ActivationKind::ELU
                : type == "ReLU6" ? ActivationKind::ReLU6
                : type == "Swish" ? ActivationKind::Swish
                                  : ActivationKind::Clip;
        }
        l.activation.kind = k;
        addLayer(std::move(l), first, tops);
    } else if (type == "LRN") {
        const Message* p = sub(layer, "lrn_param");
        l.kind = LayerKind::LRN;
        l.lrn.size = p ? positiveField(*p, "local_size", 5) : 5;
        addLayer(std::move(l), first, tops);
    } else if (type == "Concat") {
        const Message* p = sub(layer, "concat_param");
        int64_t axis = 1;
        if (p)
            axis = intField(*p, "axis", intField(*p, "concat_dim", 1));
        if (axis <= 0)
            failLayer("only concatenation along a positive axis after the batch is supported");
        l.kind = LayerKind::Concat;
        l.concat.axis = axis - 1;
        addLayer(std::move(l), inputs, tops);
    } else if (type == "Eltwise") {
        const Message* p = sub(layer, "eltwise_param");
        const std::string op = p ? textField(*p, "operation", "SUM") : "SUM";
        l.kind = LayerKind::Eltwise;
        if (op == "SUM" || op == "1")
            l.eltwise.kind = EltwiseKind::Add;
        else if (op == "PROD" || op == "0")
            l.eltwise.kind = EltwiseKind::Mul;
        else if (op == "MAX" || op == "2")
            l.eltwise.kind = EltwiseKind::Max;
        else
            failLayer("unknown operation '" + op + "'");
        if (inputs.size() < 2)
            failLayer("needs at least two bottoms");
        addLayer(std::move(l), inputs, tops);
    } else if (type == "BatchNorm") {
        l.kind = LayerKind::BatchNorm;
        l.bn.affine = false; // Caffe keeps gamma and beta in the following Scale layer
        addLayer(std::move(l), first, tops);
    } else if (type == "Scale") {
        if (inputs.size() > 1)
            failLayer("a Scale with its factor as a second bottom is not supported");
        const Message* p = sub(layer, "scale_param");
        l.kind = LayerKind::Scale;
        l.scale.bias = p && boolField(*p, "bias_term", false);
        addLayer(std::move(l), first, tops);
    } else if (type == "Dropout") {
        l.kind = LayerKind::Dropout;
        addLayer(std::move(l), first, tops);
    } else if (type == "Softmax" || type == "SoftmaxWithLoss") {
        l.kind = LayerKind::Softmax;
        addLayer(std::move(l), first, tops);
    } else if (type == "Flatten") {
        const Message* p = sub(layer, "flatten_param");
        if (p && (intField(*p, "axis", 1) != 1 || intField(*p, "end_axis", -1) != -1))
            failLayer("only flattening everything after the batch is supported");
        l.kind = LayerKind::Flatten;
        addLayer(std::move(l), first, tops);
    } else if (type == "Reshape") {
        const Message* p = sub(layer, "reshape_param");
        const Message* shape = p ? sub(*p, "shape") : nullptr;
        if (shape == nullptr)
            failLayer("reshape_param has no shape");
        if (intField(*p, "axis", 0) != 0 || intField(*p, "num_axes", -1) != -1)
            failLayer("only reshapes of the whole blob are supported");
        Dims dims = dimsOf(*shape);
        if (dims.empty() || (dims[0] != 0 && dims[0] != -1))
            failLayer("the first dimension must keep the batch (0 or -1)");
        dims.erase(dims.begin());
        l.kind = LayerKind::Reshape;
        l.reshape.target = std::move(dims);
        addLayer(std::move(l), first, tops);
    } else if (isElementwiseIdentity(type)) {
        l.kind = LayerKind::Identity;
        addLayer(std::move(l), first, tops);
    } else {
        failLayer("unknown layer type");
    }
}

Network Reader::run() {
    const Message& root = doc_.root();
    net_.name = textField(root, "name", "caffe");
    // Deploy files: "input" with input_dim (4 per input) or input_shape { dim }.
    const auto inputs = doc_.all(root, "input");
    if (!inputs.empty()) {
        const auto dims = intFields(root, "input_dim");
        const auto shapes = doc_.all(root, "input_shape");
        Dims first;
        if (!shapes.empty()) {
            if (!shapes[0]->is_message)
                fail(shapes[0]->line, "input_shape must be a message { dim: ... }");
            first = dimsOf(doc_.at(*shapes[0]));
        } else {
            if (dims.size() < 4)
                fail(inputs[0]->line,
                     "input '" + inputs[0]->value + "' needs input_dim (4 values) or input_shape");
            first.assign(dims.begin(), dims.begin() + 4);
        }
        setInput(inputs[0]->value, first, inputs[0]->line);
        for (std::size_t i = 1; i < inputs.size(); ++i)
            blobs_[inputs[i]->value] = Blob{true, 0};
    }
    const auto layers = doc_.all(root, "layer");
    const auto legacy = doc_.all(root, "layers");
    if (!layers.empty() && !legacy.empty())
        fail(legacy[0]->line, "mixes 'layer' and legacy 'layers' definitions");
    for (const Field* f : layers.empty() ? legacy : layers) {
        if (!f->is_message)
            fail(f->line, "'" + f->name + "' must be a message { ... }");
        layer_line_ = f->line;
        layer_name_.clear();
        layer_type_.clear();
        convertLayer(doc_.at(*f), !legacy.empty());
    }
    if (net_.layers.empty())
        fail(1, "no input: expected 'input' with 'input_dim', an Input layer or a Data layer "
                "with crop_size (TRAIN phase)");
    if (net_.layers.size() < 2)
        fail(1, "the network has no layers after its input");
    // Shape problems (a kernel larger than its input, mismatched channels) surface in the
    // analysis; running it here lets the error carry the file and the layer's line.
    try {
        analyze(net_);
    } catch (const InputError& e) {
        const std::string what = e.what();
        int line = 1;
        for (std::size_t i = 0; i < net_.layers.size(); ++i) {
            if (what.rfind("layer '" + net_.layers[i].name + "' (", 0) == 0)
                line = lines_[i];
        }
        fail(line, what);
    }
    return std::move(net_);
}

} // namespace

Network readCaffeText(const std::string& text, const std::string& name_for_errors) {
    const Document doc = caffe_text::parse(text, name_for_errors);
    return Reader(doc, name_for_errors).run();
}

Network readCaffeFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw InputError(path + ": cannot be opened for reading");
    // Network definitions are kilobytes; refusing huge files bounds the parse tree's memory.
    constexpr std::streamoff kMaxBytes = 64 << 20;
    if (in.tellg() > kMaxBytes)
        throw InputError(path + ": larger than 64 MB, not a network definition");
    in.seekg(0);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
        throw InputError(path + ": read error");
    const std::string text = buffer.str();
    if (text.empty())
        throw InputError(path + ": the file is empty");
    if (text.find('\0') != std::string::npos)
        throw InputError(path + ": binary data, not a text prototxt");
    return readCaffeText(text, path);
}

} // namespace iterscope
