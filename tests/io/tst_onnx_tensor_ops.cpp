// The ONNX importer's ops on tensors of any rank, each on a model made for it with shapes and
// counts worked out by hand: attention's products and reshapes (the batch moved and merged),
// slices, splits, gathers, rolls, learned tokens, LayerNorm and GELU written out or fused,
// softmax and reductions over any axis, padding of any axis.
#include "onnx_builder.h"

#include "io/onnx_reader.h"
#include "network/analysis.h"
#include "util/error.h"

#include <QTest>

#include <string>
#include <vector>

using namespace iterscope;
using onnx_test::OnnxBuilder;
using onnx_test::Weights;

namespace {

struct Imported {
    Network net;
    NetworkAnalysis analysis;
    std::vector<std::string> warnings;

    const Layer& layer(const std::string& name) const {
        for (const Layer& l : net.layers)
            if (l.name == name)
                return l;
        qFatal("no layer %s", name.c_str());
    }
    const Dims& dims(const std::string& name) const {
        for (std::size_t i = 0; i < net.layers.size(); ++i)
            if (net.layers[i].name == name)
                return analysis.layers[i].output;
        qFatal("no layer %s", name.c_str());
    }
    bool has(const std::string& name) const {
        for (const Layer& l : net.layers)
            if (l.name == name)
                return true;
        return false;
    }
    std::size_t count(LayerKind kind) const {
        std::size_t n = 0;
        for (const Layer& l : net.layers)
            n += l.kind == kind;
        return n;
    }
};

Imported import(const OnnxBuilder& b, int64_t batch = 1) {
    Imported r;
    r.net = readOnnxBytes(b.bytes(), "test.onnx", batch, &r.warnings);
    r.analysis = analyze(r.net);
    return r;
}

std::string errorOf(const OnnxBuilder& b, int64_t batch = 1) {
    try {
        analyze(readOnnxBytes(b.bytes(), "bad.onnx", batch));
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// A Constant node holding one float, as torch.onnx writes Python numbers.
void constant(OnnxBuilder& b, const std::string& name, float value) {
    auto& n = b.node("Constant", {}, {name});
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto_DataType_FLOAT);
    a->mutable_t()->add_float_data(value);
}

void perm(onnx::NodeProto& n, std::vector<int64_t> p) {
    OnnxBuilder::attr(n, "perm", p);
}

void axis(onnx::NodeProto& n, int64_t a) {
    OnnxBuilder::attr(n, "axis", a);
}

// torch.onnx's LayerNorm below opset 17, over the last axis, with weight and bias.
void decomposedLayerNorm(OnnxBuilder& b, const std::string& p, const std::string& x,
                         const std::string& y, int64_t width) {
    auto& mean = b.node("ReduceMean", {x}, {p + "/mean"}, p + "/ReduceMean");
    OnnxBuilder::attr(mean, "axes", std::vector<int64_t>{-1});
    b.node("Sub", {x, p + "/mean"}, {p + "/d"}, p + "/Sub");
    constant(b, p + "/two", 2.0F);
    b.node("Pow", {p + "/d", p + "/two"}, {p + "/sq"}, p + "/Pow");
    auto& var = b.node("ReduceMean", {p + "/sq"}, {p + "/var"}, p + "/ReduceMean_1");
    OnnxBuilder::attr(var, "axes", std::vector<int64_t>{-1});
    constant(b, p + "/eps", 1e-6F);
    b.node("Add", {p + "/var", p + "/eps"}, {p + "/ve"}, p + "/Add");
    b.node("Sqrt", {p + "/ve"}, {p + "/s"}, p + "/Sqrt");
    b.node("Div", {p + "/d", p + "/s"}, {p + "/n"}, p + "/Div");
    b.floats(p + ".weight", {width});
    b.floats(p + ".bias", {width});
    b.node("Mul", {p + "/n", p + ".weight"}, {p + "/w"}, p + "/Mul");
    b.node("Add", {p + "/w", p + ".bias"}, {y}, p + "/Add_1");
}

// torch.onnx's exact GELU: x * (erf(x / sqrt 2) + 1) * 0.5, with a given last factor.
void decomposedGelu(OnnxBuilder& b, const std::string& p, const std::string& x,
                    const std::string& y, float half = 0.5F) {
    constant(b, p + "/sqrt2", 1.4142135F);
    b.node("Div", {x, p + "/sqrt2"}, {p + "/a"}, p + "/Div");
    b.node("Erf", {p + "/a"}, {p + "/e"}, p + "/Erf");
    constant(b, p + "/one", 1.0F);
    b.node("Add", {p + "/e", p + "/one"}, {p + "/e1"}, p + "/Add");
    b.node("Mul", {x, p + "/e1"}, {p + "/m"}, p + "/Mul");
    constant(b, p + "/half", half);
    b.node("Mul", {p + "/m", p + "/half"}, {y}, p + "/Mul_1");
}

} // namespace

class TestOnnxTensorOps : public QObject {
    Q_OBJECT

  private slots:
    void attentionMultipliesActivationsPerHead() {
        // 5 tokens of width 8, 2 heads of 4: qkv Linear 8 -> 24, split into q, k, v of
        // [heads, tokens, 4], scores q k^T [2, 5, 5], context [2, 5, 4], merged to [5, 8].
        for (int64_t batch : {1, 3}) {
            OnnxBuilder b(13);
            b.input("x", {batch, 5, 8});
            b.floats("qkv.w", {8, 24});
            b.floats("qkv.b", {24});
            b.node("MatMul", {"x", "qkv.w"}, {"mm"}, "qkv");
            b.node("Add", {"qkv.b", "mm"}, {"qkv_out"}, "qkv_bias");
            b.ints("split_shape", {0, 5, 3, 2, 4});
            b.node("Reshape", {"qkv_out", "split_shape"}, {"split"}, "split");
            perm(b.node("Transpose", {"split"}, {"heads"}, "heads"), {2, 0, 3, 1, 4});
            const char* parts[] = {"q", "k", "v"};
            for (int64_t i = 0; i < 3; ++i) {
                b.ints(std::string("i") + parts[i], {i}, true);
                axis(b.node("Gather", {"heads", std::string("i") + parts[i]}, {parts[i]}, parts[i]),
                     0);
            }
            perm(b.node("Transpose", {"k"}, {"kt"}, "kt"), {0, 1, 3, 2});
            b.node("MatMul", {"q", "kt"}, {"scores"}, "scores");
            axis(b.node("Softmax", {"scores"}, {"p"}, "softmax"), -1);
            b.node("MatMul", {"p", "v"}, {"ctx"}, "context");
            perm(b.node("Transpose", {"ctx"}, {"ctx_t"}, "merge"), {0, 2, 1, 3});
            b.ints("merged", {0, 5, 8});
            b.node("Reshape", {"ctx_t", "merged"}, {"y"}, "merged");
            b.output("y");
            const Imported r = import(b, batch);
            QCOMPARE(r.layer("qkv").kind, LayerKind::FullyConnected);
            QVERIFY(!r.layer("qkv").fc.flatten);
            QVERIFY(r.layer("qkv").fc.bias);
            QCOMPARE(r.dims("heads"), (Dims{3, 2, 5, 4}));
            QCOMPARE(r.layer("scores").kind, LayerKind::MatMul);
            QCOMPARE(r.dims("scores"), (Dims{2, 5, 5}));
            QCOMPARE(r.layer("softmax").softmax.axis, int64_t{2});
            QCOMPARE(r.dims("context"), (Dims{2, 5, 4}));
            QCOMPARE(r.analysis.layers.back().output, (Dims{5, 8}));
            QCOMPARE(r.analysis.total_params, int64_t{8 * 24 + 24});
            QCOMPARE(r.analysis.total_macs, int64_t{5 * 8 * 24 + 2 * 5 * 5 * 4 + 2 * 5 * 4 * 5});
        }
    }

    void multiheadAttentionMovesAndMergesTheBatch() {
        // nn.MultiheadAttention's export: [B, L, E] -> [L, B, E], heads merged with the
        // batch ([L, B*H, d] -> [B*H, L, d]), the output as [L*B, E] through a Gemm and back.
        // Batch 2, L 3, E 4, 2 heads of 2: per sample the scores are [2, 3, 3].
        OnnxBuilder b(13);
        b.input("x", {2, 3, 4});
        perm(b.node("Transpose", {"x"}, {"lbe"}, "seq_first"), {1, 0, 2});
        b.ints("heads_shape", {3, 4, 2});
        b.node("Reshape", {"lbe", "heads_shape"}, {"h"}, "split_heads");
        perm(b.node("Transpose", {"h"}, {"q"}, "q"), {1, 0, 2});
        perm(b.node("Transpose", {"h"}, {"kt"}, "kt"), {1, 2, 0});
        b.node("MatMul", {"q", "kt"}, {"s"}, "scores");
        axis(b.node("Softmax", {"s"}, {"p"}, "softmax"), -1);
        b.node("MatMul", {"p", "q"}, {"c"}, "context");
        perm(b.node("Transpose", {"c"}, {"ct"}, "unheads"), {1, 0, 2});
        b.ints("rows", {6, 4});
        b.node("Reshape", {"ct", "rows"}, {"r"}, "rows");
        b.gemm("r", "out_proj", 4, 4);
        b.ints("lbe_shape", {3, 2, 4});
        b.node("Reshape", {"out_proj", "lbe_shape"}, {"o"}, "unrows");
        perm(b.node("Transpose", {"o"}, {"y"}, "batch_first"), {1, 0, 2});
        b.output("y");
        const Imported r = import(b, 2);
        QVERIFY(!r.has("seq_first")); // moving only the batch moves no data in a sample
        QCOMPARE(r.dims("q"), (Dims{2, 3, 2}));
        QCOMPARE(r.dims("scores"), (Dims{2, 3, 3}));
        QCOMPARE(r.dims("out_proj"), (Dims{3, 4}));
        QVERIFY(!r.layer("out_proj").fc.flatten);
        QCOMPARE(r.analysis.layers.back().output, (Dims{3, 4}));
        QCOMPARE(r.analysis.total_macs, int64_t{2 * 3 * 3 * 2 * 2 + 3 * 4 * 4});
    }

    void aReshapeThatMixesSamplesIsAnError() {
        OnnxBuilder b(13);
        b.input("x", {2, 3, 4});
        b.ints("t", {3, 8});
        b.node("Reshape", {"x", "t"}, {"y"}, "mix");
        b.output("y");
        const std::string e = errorOf(b, 2);
        QVERIFY2(contains(e, "'mix'") && contains(e, "mixes the samples"), e.c_str());
        QVERIFY(!contains(e, "\n"));
    }

    void slicesSplitsAndGathersCutPerSampleAxes() {
        OnnxBuilder b(13);
        b.input("x", {1, 6, 10});
        b.ints("s.starts", {1});
        b.ints("s.ends", {-1});
        b.ints("s.axes", {2});
        b.ints("s.steps", {2});
        b.node("Slice", {"x", "s.starts", "s.ends", "s.axes", "s.steps"}, {"odd"}, "odd");
        b.ints("r.starts", {-1});
        b.ints("r.ends", {-1000});
        b.ints("r.axes", {-1});
        b.ints("r.steps", {-1});
        b.node("Slice", {"x", "r.starts", "r.ends", "r.axes", "r.steps"}, {"rev"}, "reversed");
        b.ints("sizes", {2, 4});
        axis(b.node("Split", {"x", "sizes"}, {"top", "bottom"}, "split"), 1);
        b.ints("zero", {0}, true);
        axis(b.node("Gather", {"x", "zero"}, {"row"}, "row"), 1);
        b.ints("evens", {0, 2, 4});
        axis(b.node("Gather", {"x", "evens"}, {"rows"}, "rows"), 1);
        for (const char* out : {"odd", "rev", "top", "bottom", "row", "rows"})
            b.output(out);
        const Imported r = import(b);
        QCOMPARE(r.dims("odd"), (Dims{6, 4})); // 1, 3, 5, 7
        QCOMPARE(r.dims("reversed"), (Dims{6, 10}));
        QCOMPARE(r.dims("split/0"), (Dims{2, 10}));
        QCOMPARE(r.dims("split/1"), (Dims{4, 10}));
        QCOMPARE(r.dims("row/squeeze"), (Dims{10}));
        QCOMPARE(r.dims("rows"), (Dims{3, 10}));
        QCOMPARE(r.layer("rows").slice.steps, (std::vector<int64_t>{2}));
        // Slicing the batch is refused.
        OnnxBuilder bad(13);
        bad.input("x", {4, 6});
        bad.ints("st", {1});
        bad.ints("en", {3});
        bad.ints("ax", {0});
        bad.node("Slice", {"x", "st", "en", "ax"}, {"y"}, "batch_slice");
        bad.output("y");
        QVERIFY(contains(errorOf(bad, 4), "batch"));
    }

    void aRollIsTwoSlicesConcatenated() {
        // torch.roll(x, -3, dims=1) on a 7x7 map of 3 channels (channels last, as Swin).
        OnnxBuilder b(13);
        b.input("x", {1, 7, 7, 3});
        b.ints("three", {3});
        b.ints("end", {7});
        b.ints("zero", {0});
        b.ints("ax1", {1});
        b.node("Slice", {"x", "three", "end", "ax1"}, {"tail"}, "tail");
        b.node("Slice", {"x", "zero", "three", "ax1"}, {"head"}, "head");
        axis(b.node("Concat", {"tail", "head"}, {"y"}, "rolled"), 1);
        b.output("y");
        const Imported r = import(b);
        QCOMPARE(r.dims("tail"), (Dims{4, 7, 3}));
        QCOMPARE(r.dims("head"), (Dims{3, 7, 3}));
        QCOMPARE(r.dims("rolled"), (Dims{7, 7, 3}));
        QCOMPARE(r.layer("rolled").concat.axis, int64_t{0});
    }

    void classTokenAndPositionTableAreLearnedConstants() {
        // ViT: a [1, 1, 6] token expanded to the batch and put before 4 patch tokens, then a
        // [1, 5, 6] position table added: 6 + 30 parameters, the output [5, 6] per sample.
        for (int64_t batch : {1, 3}) {
            OnnxBuilder b(13);
            b.input("x", {-1, 4, 6}, "N");
            b.floats("class_token", {1, 1, 6});
            b.node("Shape", {"x"}, {"shape"});
            b.ints("first", {0});
            b.ints("ends", {1});
            b.node("Slice", {"shape", "first", "ends"}, {"n"});
            b.ints("one_six", {1, 6});
            axis(b.node("Concat", {"n", "one_six"}, {"token_shape"}), 0);
            b.node("Expand", {"class_token", "token_shape"}, {"tokens"});
            axis(b.node("Concat", {"tokens", "x"}, {"seq"}, "cat"), 1);
            b.floats("pos", {1, 5, 6});
            b.node("Add", {"seq", "pos"}, {"y"}, "add_pos");
            b.output("y");
            const Imported r = import(b, batch);
            QCOMPARE(r.dims("cat"), (Dims{5, 6}));
            QCOMPARE(r.dims("add_pos"), (Dims{5, 6}));
            QCOMPARE(r.count(LayerKind::Constant), std::size_t{2});
            QCOMPARE(r.analysis.total_params, int64_t{6 + 30});
            QCOMPARE(r.layer("cat/0").constant.params, int64_t{6});
            QCOMPARE(r.layer("add_pos/1").constant.params, int64_t{30});
        }
    }

    void aLearnedZeroBiasStaysAParameter() {
        // torchvision zeroes Linear biases; a bias stored with its values is still learned.
        OnnxBuilder b(13);
        b.input("x", {1, 3, 4});
        b.floats("w", {4, 5});
        b.floats("bias", {5}, Weights::Typed).clear_float_data();
        auto& t = b.graph().mutable_initializer()->at(b.graph().initializer_size() - 1);
        for (int i = 0; i < 5; ++i)
            t.add_float_data(0.0F);
        b.node("MatMul", {"x", "w"}, {"mm"}, "linear");
        b.node("Add", {"bias", "mm"}, {"y"}, "bias_add");
        b.output("y");
        const Imported r = import(b);
        QVERIFY(r.layer("linear").fc.bias);
        QCOMPARE(r.analysis.total_params, int64_t{4 * 5 + 5});
    }

    void aWeightOfHigherRankIsAConstantOperand() {
        // Two 5x3 matrices a sample times two 3x4 weights: [2, 5, 4].
        OnnxBuilder b(13);
        b.input("x", {1, 2, 5, 3});
        b.floats("w", {2, 3, 4});
        b.node("MatMul", {"x", "w"}, {"y"}, "batched");
        b.output("y");
        const Imported r = import(b);
        QCOMPARE(r.layer("batched").kind, LayerKind::MatMul);
        QCOMPARE(r.dims("batched"), (Dims{2, 5, 4}));
        QCOMPARE(r.analysis.total_params, int64_t{24});
        QCOMPARE(r.analysis.total_macs, int64_t{2 * 5 * 4 * 3});
    }

    void aGemmOfTwoActivationsIsAnError() {
        OnnxBuilder b(13);
        b.input("x", {2, 4});
        b.node("Gemm", {"x", "x"}, {"y"}, "gram");
        b.output("y");
        const std::string e = errorOf(b, 2);
        QVERIFY2(contains(e, "'gram' (Gemm)") && contains(e, "mixes samples"), e.c_str());
    }

    void layerNormalizationNormalizesTheTrailingAxes() {
        for (int64_t a : {-1, -2}) {
            OnnxBuilder b(17);
            b.input("x", {1, 4, 6});
            const int64_t block = a == -1 ? 6 : 24;
            b.floats("scale", a == -1 ? std::vector<int64_t>{6} : std::vector<int64_t>{4, 6});
            b.floats("shift", a == -1 ? std::vector<int64_t>{6} : std::vector<int64_t>{4, 6});
            axis(b.node("LayerNormalization", {"x", "scale", "shift"}, {"y"}, "ln"), a);
            b.output("y");
            const Imported r = import(b);
            QCOMPARE(r.layer("ln").kind, LayerKind::LayerNorm);
            QCOMPARE(r.layer("ln").layernorm.axis, a == -1 ? int64_t{1} : int64_t{0});
            QCOMPARE(r.analysis.total_params, 2 * block);
            QCOMPARE(r.dims("ln"), (Dims{4, 6}));
        }
    }

    void aWrittenOutLayerNormIsOneLayer() {
        OnnxBuilder b(13);
        b.input("x", {1, 4, 6});
        decomposedLayerNorm(b, "/block/ln", "x", "y", 6);
        b.output("y");
        const Imported r = import(b);
        QCOMPARE(r.net.layers.size(), std::size_t{2});
        const Layer& ln = r.net.layers[1];
        QCOMPARE(ln.kind, LayerKind::LayerNorm);
        QCOMPARE(ln.name, std::string("/block/ln")); // what the nodes' names share
        QCOMPARE(ln.layernorm.axis, int64_t{1});
        QCOMPARE(r.analysis.total_params, int64_t{12});
        // An intermediate someone else reads keeps the ops apart, with the same shapes.
        OnnxBuilder shared(13);
        shared.input("x", {1, 4, 6});
        decomposedLayerNorm(shared, "/ln", "x", "y", 6);
        shared.output("y");
        shared.output("/ln/d");
        const Imported s = import(shared);
        QCOMPARE(s.count(LayerKind::LayerNorm), std::size_t{0});
        QCOMPARE(s.count(LayerKind::Reduce), std::size_t{2});
        QCOMPARE(s.dims("/ln/ReduceMean"), (Dims{4, 1}));
        QCOMPARE(s.analysis.layers.back().output, (Dims{4, 6}));
        QCOMPARE(s.analysis.total_params, int64_t{12}); // weight and bias as learned constants
    }

    void aWrittenOutGeluIsOneActivationInEitherForm() {
        OnnxBuilder b(13);
        b.input("x", {1, 8});
        decomposedGelu(b, "/mlp/gelu", "x", "y");
        b.output("y");
        const Imported r = import(b);
        QCOMPARE(r.net.layers.size(), std::size_t{2});
        QCOMPARE(r.net.layers[1].activation.kind, ActivationKind::GELU);
        // The tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), torch's order.
        OnnxBuilder t(13);
        t.input("x", {1, 8});
        t.node("Mul", {"x", "x"}, {"x2"});
        t.node("Mul", {"x", "x2"}, {"x3"});
        constant(t, "kappa", 0.044715F);
        t.node("Mul", {"kappa", "x3"}, {"kx3"});
        t.node("Add", {"x", "kx3"}, {"inner"});
        constant(t, "beta", 0.7978845608F);
        t.node("Mul", {"beta", "inner"}, {"scaled"});
        t.node("Tanh", {"scaled"}, {"th"});
        constant(t, "one", 1.0F);
        t.node("Add", {"one", "th"}, {"th1"});
        t.node("Mul", {"x", "th1"}, {"xth"});
        constant(t, "half", 0.5F);
        t.node("Mul", {"half", "xth"}, {"y"});
        t.output("y");
        const Imported rt = import(t);
        QCOMPARE(rt.net.layers.size(), std::size_t{2});
        QCOMPARE(rt.net.layers[1].activation.kind, ActivationKind::GELUTanh);
        // Other arithmetic around an Erf is not a GELU: its ops stay, Erf among them.
        OnnxBuilder odd(13);
        odd.input("x", {1, 8});
        decomposedGelu(odd, "/odd", "x", "y", 0.6F);
        odd.output("y");
        const Imported ro = import(odd);
        QCOMPARE(ro.layer("/odd/Erf").activation.kind, ActivationKind::Erf);
        QCOMPARE(ro.count(LayerKind::Eltwise), std::size_t{4});
    }

    void fusedGeluOpsAreOneActivation() {
        // ONNX Gelu (opset 20) in both forms, and ONNX Runtime's fused FastGelu.
        OnnxBuilder b(20);
        b.input("x", {1, 4, 8});
        b.node("Gelu", {"x"}, {"a"}, "exact");
        OnnxBuilder::attr(b.node("Gelu", {"a"}, {"t"}, "tanh"), "approximate", std::string("tanh"));
        auto& fast = b.node("FastGelu", {"t"}, {"y"}, "fast");
        fast.set_domain("com.microsoft");
        b.output("y");
        const Imported r = import(b);
        QCOMPARE(r.layer("exact").activation.kind, ActivationKind::GELU);
        QCOMPARE(r.layer("tanh").activation.kind, ActivationKind::GELUTanh);
        QCOMPARE(r.layer("fast").activation.kind, ActivationKind::GELUTanh);
        QVERIFY(r.warnings.empty());
        QCOMPARE(r.dims("fast"), (Dims{4, 8}));
    }

    void gatesOfThemselvesAreSiluAndHardSwish() {
        OnnxBuilder b(13);
        b.input("x", {1, 4, 2, 2});
        b.node("Sigmoid", {"x"}, {"s"});
        b.node("Mul", {"x", "s"}, {"silu"}, "silu");
        auto& hs = b.node("HardSigmoid", {"silu"}, {"h"});
        OnnxBuilder::attrFloat(hs, "alpha", 1.0F / 6.0F);
        b.node("Mul", {"silu", "h"}, {"y"}, "hswish");
        b.output("y");
        const Imported r = import(b);
        QCOMPARE(r.net.layers.size(), std::size_t{3});
        QCOMPARE(r.net.layers[1].activation.kind, ActivationKind::Swish);
        QCOMPARE(r.net.layers[2].activation.kind, ActivationKind::HardSwish);
    }

    void softmaxAndReductionsTakeAnyAxisButTheBatch() {
        OnnxBuilder b(13);
        b.input("x", {1, 3, 4, 5});
        axis(b.node("Softmax", {"x"}, {"sm"}, "softmax"), 2);
        auto& mean = b.node("ReduceMean", {"sm"}, {"m"}, "mean");
        OnnxBuilder::attr(mean, "axes", std::vector<int64_t>{1});
        OnnxBuilder::attr(mean, "keepdims", int64_t{0});
        b.ints("last", {-1});
        b.node("ReduceSum", {"sm", "last"}, {"s"}, "sum");
        b.output("m");
        b.output("s");
        const Imported r = import(b);
        QCOMPARE(r.layer("softmax").softmax.axis, int64_t{1});
        QCOMPARE(r.dims("mean"), (Dims{4, 5}));
        QCOMPARE(r.dims("sum"), (Dims{3, 4, 1}));
        QCOMPARE(r.layer("sum").reduce.kind, ReduceKind::Sum);
        OnnxBuilder bad(13);
        bad.input("x", {2, 3});
        auto& over = bad.node("ReduceMean", {"x"}, {"y"}, "over_batch");
        OnnxBuilder::attr(over, "axes", std::vector<int64_t>{0});
        bad.output("y");
        QVERIFY(contains(errorOf(bad, 2), "batch"));
    }

    void paddingReachesAnyAxisAndZeroPaddingIsFree() {
        OnnxBuilder b(13);
        b.input("x", {1, 5, 5, 3});
        b.ints("pads", {0, 1, 0, 0, 0, 0, 2, 0});
        b.node("Pad", {"x", "pads"}, {"p"}, "pad");
        b.ints("none", {0, 0, 0, 0, 0, 0, 0, 0});
        b.node("Pad", {"p", "none"}, {"y"}, "no_pad");
        b.output("y");
        const Imported r = import(b);
        QCOMPARE(r.dims("pad"), (Dims{6, 7, 3}));
        QCOMPARE(r.layer("pad").pad.begins, (std::vector<int64_t>{1, 0, 0}));
        QVERIFY(!r.has("no_pad"));
    }

    void dropoutOfRatioZeroAndExpandOfASampleAxis() {
        OnnxBuilder b(13);
        b.input("x", {1, 3, 1});
        b.scalar("ratio", 0.0F);
        b.node("Dropout", {"x", "ratio"}, {"d"}, "no_drop");
        b.ints("shape", {1, 3, 4});
        b.node("Expand", {"d", "shape"}, {"y"}, "expand");
        b.output("y");
        const Imported r = import(b);
        QVERIFY(!r.has("no_drop"));
        QCOMPARE(r.layer("expand").kind, LayerKind::Expand);
        QCOMPARE(r.dims("expand"), (Dims{3, 4}));
    }
};

QTEST_APPLESS_MAIN(TestOnnxTensorOps)
#include "tst_onnx_tensor_ops.moc"
