// The ONNX importer: the exported torchvision networks match their published counts, each
// feature works on a model made for it, and bad files fail with one precise message.
#include "onnx_builder.h"

#include "io/network_json.h"
#include "io/onnx_reader.h"
#include "network/analysis.h"
#include "util/error.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <fstream>
#include <random>
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
};

Imported import(const std::string& bytes, int64_t batch = 1) {
    Imported r;
    r.net = readOnnxBytes(bytes, "test.onnx", batch, &r.warnings);
    r.analysis = analyze(r.net);
    return r;
}

// The error text of reading (and analyzing) the bytes, or "" when they were accepted.
std::string errorOf(const std::string& bytes) {
    try {
        analyze(readOnnxBytes(bytes, "bad.onnx"));
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

const Layer* layerNamed(const Network& net, const std::string& name) {
    for (const Layer& l : net.layers) {
        if (l.name == name)
            return &l;
    }
    return nullptr;
}

std::size_t indexOf(const Network& net, const std::string& name) {
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        if (net.layers[i].name == name)
            return i;
    }
    return net.layers.size();
}

std::size_t countKind(const Network& net, LayerKind kind) {
    std::size_t n = 0;
    for (const Layer& l : net.layers)
        n += l.kind == kind ? 1 : 0;
    return n;
}

QJsonObject onnxTruth() {
    QFile f(QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/truth.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open onnx/truth.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// x[1,3,8,8] -> conv(4, 3x3, pad 1) -> BN -> ReLU -> MaxPool 2 -> Flatten -> Gemm(10).
// Parameters: conv 3*4*9 + 4, BN 2*4, Gemm 64*10 + 10 = 770. MACs: 4*8*8*27 + 640 = 7552.
OnnxBuilder tinyNet(Weights how = Weights::External, int64_t opset = 13, int64_t ir = 7) {
    OnnxBuilder b(opset, ir);
    b.input("x", {1, 3, 8, 8});
    b.conv("x", "c1", 3, 4, 3, 1, 1, how);
    for (const char* p : {"bn.scale", "bn.bias", "bn.mean", "bn.var"})
        b.floats(p, {4}, how);
    b.node("BatchNormalization", {"c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"}, {"bn"});
    b.node("Relu", {"bn"}, {"r"});
    auto& pool = b.node("MaxPool", {"r"}, {"p"});
    OnnxBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
    OnnxBuilder::attr(pool, "strides", std::vector<int64_t>{2, 2});
    b.node("Flatten", {"p"}, {"f"});
    b.gemm("f", "fc", 64, 10, how);
    b.output("fc", {1, 10});
    return b;
}

constexpr int64_t kTinyParams = 770;
constexpr int64_t kTinyMacs = 7552;

} // namespace

class TestOnnxReader : public QObject {
    Q_OBJECT

  private slots:
    void exportedNetworksMatchTheirPublishedCounts_data() {
        QTest::addColumn<QString>("name");
        const QJsonObject truth = onnxTruth();
        QVERIFY(truth.size() >= 19);
        for (const QString& name : truth.keys())
            QTest::newRow(qPrintable(name)) << name;
    }
    void exportedNetworksMatchTheirPublishedCounts() {
        // torchvision 0.14 exports in training mode (scripts/truth/export_onnx.py): ResNeXt,
        // Wide ResNet, EfficientNet v1/v2, MobileNet-v3, RegNetY, ConvNeXt (LayerNorm after
        // a permute), ViT-B/16 (class token, attention) and Swin-T (shifted windows), at
        // opset 13 (decomposed LayerNorm and GELU) and 17, with a fixed or symbolic batch.
        QFETCH(QString, name);
        const QJsonObject truth = onnxTruth()[name].toObject();
        const std::string path =
            (QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/") + name + ".structure.onnx").toStdString();
        const auto batch = static_cast<int64_t>(truth["batch"].toDouble(1));
        std::vector<std::string> warnings;
        const Network net = readOnnxFile(path, batch, &warnings);
        const NetworkAnalysis a = analyze(net);
        QCOMPARE(a.total_params, static_cast<int64_t>(truth["params"].toDouble()));
        const double macs = truth["macs"].toDouble();
        QVERIFY2(std::fabs(static_cast<double>(a.total_macs) - macs) <= 0.005 * macs,
                 qPrintable(QString::number(a.total_macs) + " vs " + QString::number(macs)));
        QVERIFY2(warnings.empty(), warnings.empty() ? "" : warnings.front().c_str());
        const QJsonArray input = truth["input"].toArray();
        const int64_t image = input.at(3).toInteger();
        QCOMPARE(net.input, (Dims{3, image, image}));
        QCOMPARE(a.layers.back().output, Dims{1000}); // the logits the file declares
        for (const Layer& l : net.layers) // nothing unknown slipped through as an identity
            QVERIFY2(l.kind != LayerKind::Identity, l.name.c_str());
    }

    void aPyTorchExportIsNamedAfterItsFile() {
        // torch.onnx names every graph "torch_jit" (or "main_graph"): the file says which
        // network it is.
        const Network net =
            readOnnxFile(ITERSCOPE_TEST_DATA "/onnx/resnet18.structure.onnx", 1, nullptr);
        QCOMPARE(QString::fromStdString(net.name), QStringLiteral("resnet18.structure"));
    }

    void importedNetworksRoundTripThroughJson() {
        for (const QString& name : onnxTruth().keys()) {
            const Network net = readOnnxFile(
                (QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/") + name + ".structure.onnx")
                    .toStdString(),
                static_cast<int64_t>(onnxTruth()[name].toObject()["batch"].toDouble(1)));
            const Network back = networkFromJson(networkToJson(net));
            const NetworkAnalysis a = analyze(net), b = analyze(back);
            QCOMPARE(b.total_params, a.total_params);
            QCOMPARE(b.total_macs, a.total_macs);
            QCOMPARE(b.total_fwd_flops, a.total_fwd_flops);
            QCOMPARE(b.total_bwd_flops, a.total_bwd_flops);
            QCOMPARE(back.layers.size(), net.layers.size());
        }
    }

    void weightsMayBeExternalEmbeddedRawOrTyped() {
        for (Weights how : {Weights::External, Weights::Raw, Weights::Typed}) {
            const Imported r = import(tinyNet(how).bytes());
            QCOMPARE(r.analysis.total_params, kTinyParams);
            QCOMPARE(r.analysis.total_macs, kTinyMacs);
        }
    }

    void batchNormCountsScaleAndBiasButNotStatistics() {
        const Imported r = import(tinyNet().bytes());
        const std::size_t bn = indexOf(r.net, "bn");
        QVERIFY(bn < r.net.layers.size());
        QCOMPARE(r.net.layers[bn].kind, LayerKind::BatchNorm);
        QVERIFY(r.net.layers[bn].bn.affine);
        QCOMPARE(r.analysis.layers[bn].params, int64_t{8});
    }

    void oldIrListsInitializersAsGraphInputs() {
        OnnxBuilder b = tinyNet(Weights::Raw, 7, 3);
        b.listInitializersAsInputs();
        const Imported r = import(b.bytes());
        QCOMPARE(r.analysis.total_params, kTinyParams);
        QCOMPARE(r.net.layers.front().name, std::string("x"));
        QCOMPARE(countKind(r.net, LayerKind::Input), std::size_t{1});
    }

    void clipAndSqueezeReadAttributesInOpset7AndInputsInOpset17() {
        for (int64_t opset : {7, 17}) {
            OnnxBuilder b(opset);
            b.input("x", {1, 3, 8, 8});
            b.conv("x", "c", 3, 4, 1, 1, 0);
            if (opset < 11) {
                auto& clip = b.node("Clip", {"c"}, {"r6"});
                OnnxBuilder::attrFloat(clip, "min", 0.0F);
                OnnxBuilder::attrFloat(clip, "max", 6.0F);
            } else {
                b.scalar("lo", 0.0F);
                b.scalar("hi", 6.0F);
                b.node("Clip", {"c", "lo", "hi"}, {"r6"});
            }
            b.node("GlobalAveragePool", {"r6"}, {"g"});
            if (opset < 13) {
                auto& sq = b.node("Squeeze", {"g"}, {"s"});
                OnnxBuilder::attr(sq, "axes", std::vector<int64_t>{2, 3});
            } else {
                b.ints("axes", {2, 3});
                b.node("Squeeze", {"g", "axes"}, {"s"});
            }
            b.gemm("s", "fc", 4, 5);
            b.output("fc");
            const Imported r = import(b.bytes());
            const Layer* clip = layerNamed(r.net, "r6");
            QVERIFY(clip != nullptr);
            QCOMPARE(clip->activation.kind, ActivationKind::ReLU6);
            const Layer* sq = layerNamed(r.net, "s");
            QVERIFY(sq != nullptr);
            QCOMPARE(sq->kind, LayerKind::Reshape);
            QCOMPARE(sq->reshape.target, Dims{4});
            QCOMPARE(r.analysis.total_params, int64_t{3 * 4 + 4 + 4 * 5 + 5});
        }
    }

    void autoPadSameKeepsCeilOfInputOverStride() {
        for (const char* mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
            OnnxBuilder b(11);
            b.input("x", {1, 3, 7, 7});
            b.floats("w", {8, 3, 3, 3});
            auto& n = b.node("Conv", {"x", "w"}, {"y"});
            OnnxBuilder::attr(n, "strides", std::vector<int64_t>{2, 2});
            OnnxBuilder::attr(n, "auto_pad", std::string(mode));
            b.output("y");
            const Imported r = import(b.bytes());
            const Dims expected = std::string(mode) == "VALID" ? Dims{8, 3, 3} : Dims{8, 4, 4};
            QCOMPARE(r.analysis.layers.back().output, expected);
            QCOMPARE(r.net.layers.back().conv.bias, false);
        }
    }

    void ceilModePoolingRoundsUp() {
        for (int64_t ceil : {0, 1}) {
            OnnxBuilder b(10);
            b.input("x", {1, 2, 8, 8});
            auto& n = b.node("MaxPool", {"x"}, {"y"});
            OnnxBuilder::attr(n, "kernel_shape", std::vector<int64_t>{3, 3});
            OnnxBuilder::attr(n, "strides", std::vector<int64_t>{2, 2});
            OnnxBuilder::attr(n, "ceil_mode", ceil);
            b.output("y");
            const Imported r = import(b.bytes());
            QCOMPARE(r.analysis.layers.back().output, ceil ? (Dims{2, 4, 4}) : (Dims{2, 3, 3}));
        }
    }

    void shapeChainsFoldIntoAReshapeWithASymbolicBatch() {
        OnnxBuilder b(13);
        b.input("x", {-1, 3, 8, 8}, "N");
        b.conv("x", "c", 3, 4, 3, 1, 1);
        b.node("Shape", {"c"}, {"shape"});
        b.ints("zero", {0}, true);
        auto& g = b.node("Gather", {"shape", "zero"}, {"n"});
        OnnxBuilder::attr(g, "axis", int64_t{0});
        b.ints("axes0", {0});
        b.node("Unsqueeze", {"n", "axes0"}, {"n1"});
        b.ints("minus1", {-1});
        auto& cat = b.node("Concat", {"n1", "minus1"}, {"target"});
        OnnxBuilder::attr(cat, "axis", int64_t{0});
        b.node("Reshape", {"c", "target"}, {"flat"});
        b.gemm("flat", "fc", 256, 10);
        b.output("fc");
        for (int64_t batch : {1, 16}) {
            const Imported r = import(b.bytes(), batch);
            const Layer* reshape = layerNamed(r.net, "flat");
            QVERIFY(reshape != nullptr);
            QCOMPARE(reshape->kind, LayerKind::Reshape);
            QCOMPARE(reshape->reshape.target, Dims{-1});
            QCOMPARE(r.analysis.total_params, int64_t{3 * 4 * 9 + 4 + 256 * 10 + 10});
            // Only the conv, the reshape and the Gemm become layers; the chain is folded.
            QCOMPARE(r.net.layers.size(), std::size_t{4});
        }
    }

    void scalarConstantsBecomeSingleInputEltwiseOrFoldAway() {
        OnnxBuilder b(13);
        b.input("x", {1, 16});
        b.scalar("two", 2.0F);
        b.scalar("zero", 0.0F);
        b.node("Mul", {"x", "two"}, {"scaled"});
        b.node("Add", {"scaled", "zero"}, {"same"});
        b.floats("w", {16, 8});
        b.floats("bias", {8});
        b.node("MatMul", {"same", "w"}, {"mm"});
        b.node("Add", {"mm", "bias"}, {"y"});
        b.output("y");
        const Imported r = import(b.bytes());
        const Layer* mul = layerNamed(r.net, "scaled");
        QVERIFY(mul != nullptr);
        QCOMPARE(mul->kind, LayerKind::Eltwise);
        QCOMPARE(mul->inputs.size(), std::size_t{1});
        QVERIFY(layerNamed(r.net, "same") == nullptr); // x + 0
        QVERIFY(layerNamed(r.net, "y") == nullptr);    // the bias joins the MatMul
        const Layer* fc = layerNamed(r.net, "mm");
        QVERIFY(fc != nullptr);
        QCOMPARE(fc->kind, LayerKind::FullyConnected);
        QVERIFY(fc->fc.bias);
        QCOMPARE(r.analysis.total_params, int64_t{16 * 8 + 8});
    }

    void axesAndPermutationsDropTheBatch() {
        OnnxBuilder b(13);
        b.input("x", {1, 4, 6, 6});
        b.conv("x", "a", 4, 2, 1, 1, 0);
        b.conv("x", "b", 4, 3, 1, 1, 0);
        auto& cat = b.node("Concat", {"a", "b"}, {"cat"});
        OnnxBuilder::attr(cat, "axis", int64_t{-3});
        auto& t = b.node("Transpose", {"cat"}, {"t"});
        OnnxBuilder::attr(t, "perm", std::vector<int64_t>{0, 2, 3, 1});
        b.ints("target", {0, -1});
        b.node("Reshape", {"t", "target"}, {"flat"});
        b.output("flat");
        const Imported r = import(b.bytes());
        QCOMPARE(layerNamed(r.net, "cat")->concat.axis, int64_t{0});
        QCOMPARE(layerNamed(r.net, "t")->transpose.perm, (std::vector<int64_t>{1, 2, 0}));
        QCOMPARE(layerNamed(r.net, "flat")->reshape.target, Dims{-1});
        QCOMPARE(r.analysis.layers.back().output, Dims{5 * 6 * 6});
    }

    void convTransposePreluAndPadKeepTheirParameters() {
        OnnxBuilder b(13);
        b.input("x", {1, 4, 4, 4});
        b.floats("up.w", {4, 3, 4, 4}); // [C_in, C_out / group, kH, kW]
        auto& up = b.node("ConvTranspose", {"x", "up.w"}, {"up"});
        OnnxBuilder::attr(up, "strides", std::vector<int64_t>{2, 2});
        OnnxBuilder::attr(up, "pads", std::vector<int64_t>{1, 1, 1, 1});
        b.floats("slope", {3, 1, 1});
        b.node("PRelu", {"up", "slope"}, {"act"});
        b.ints("pads", {0, 0, 1, 2, 0, 0, 3, 4});
        b.node("Pad", {"act", "pads"}, {"padded"});
        b.output("padded");
        const Imported r = import(b.bytes());
        QCOMPARE(r.analysis.layers[indexOf(r.net, "up")].output, (Dims{3, 8, 8}));
        QCOMPARE(r.analysis.layers[indexOf(r.net, "up")].params, int64_t{4 * 3 * 16});
        QCOMPARE(r.analysis.layers[indexOf(r.net, "act")].params, int64_t{3});
        const Layer* pad = layerNamed(r.net, "padded");
        QCOMPARE(pad->pad, (PadParams{1, 2, 3, 4, {}, {}}));
        QCOMPARE(r.analysis.layers.back().output, (Dims{3, 12, 14}));
    }

    void nodesOutOfOrderAreSortedTopologically() {
        OnnxBuilder b(13);
        b.input("x", {1, 3, 8, 8});
        b.node("Relu", {"c"}, {"r"}); // uses the conv below
        b.conv("x", "c", 3, 4, 3, 1, 1);
        b.output("r");
        const Imported r = import(b.bytes());
        QCOMPARE(r.net.layers.size(), std::size_t{3});
        QCOMPARE(r.net.layers[1].name, std::string("c"));
        QCOMPARE(r.net.layers[2].inputs, std::vector<std::size_t>{1});
    }

    void unknownShapePreservingOpIsAnIdentityWithOneWarning() {
        OnnxBuilder b(13);
        b.input("x", {1, 3, 8, 8});
        b.conv("x", "c", 3, 4, 3, 1, 1);
        b.node("FancyNorm", {"c"}, {"n1"});
        b.node("FancyNorm", {"n1"}, {"n2"});
        b.node("Softplus", {"n2"}, {"n3"});
        b.output("n3");
        const Imported r = import(b.bytes());
        QCOMPARE(r.warnings.size(), std::size_t{1});
        QVERIFY(contains(r.warnings[0], "FancyNorm (x2)"));
        QVERIFY(contains(r.warnings[0], "Softplus"));
        const Layer* n = layerNamed(r.net, "n1");
        QVERIFY(n != nullptr);
        QCOMPARE(n->kind, LayerKind::Identity);
        QCOMPARE(n->source_op, std::string("FancyNorm"));
        QCOMPARE(r.analysis.layers.back().output, (Dims{4, 8, 8}));
    }

    void trainingModeStochasticDepthMultipliesByARandomConstant() {
        OnnxBuilder b(13);
        b.input("x", {-1, 3, 8, 8}, "N");
        b.conv("x", "c", 3, 4, 3, 1, 1);
        b.node("Shape", {"c"}, {"shape"});
        b.ints("zero", {0}, true);
        b.node("Gather", {"shape", "zero"}, {"n"});
        b.ints("axes0", {0});
        b.node("Unsqueeze", {"n", "axes0"}, {"n1"});
        b.ints("ones", {1, 1, 1});
        auto& cat = b.node("Concat", {"n1", "ones"}, {"noise_shape"});
        OnnxBuilder::attr(cat, "axis", int64_t{0});
        b.node("ConstantOfShape", {"noise_shape"}, {"empty"});
        b.node("Bernoulli", {"empty"}, {"keep"});
        b.scalar("survival", 0.8F);
        b.node("Div", {"keep", "survival"}, {"noise"});
        b.node("Mul", {"c", "noise"}, {"dropped"});
        b.output("dropped");
        const Imported r = import(b.bytes(), 8);
        const Layer* mul = layerNamed(r.net, "dropped");
        QVERIFY(mul != nullptr);
        QCOMPARE(mul->kind, LayerKind::Eltwise);
        QCOMPARE(mul->inputs.size(), std::size_t{1});
        QCOMPARE(r.net.layers.size(), std::size_t{3});
        QCOMPARE(r.warnings.size(), std::size_t{1});
        QVERIFY(contains(r.warnings[0], "Bernoulli"));
    }

    void unknownOpThatChangesTheShapeIsAnError() {
        OnnxBuilder b(13);
        b.input("x", {1, 3, 8, 8});
        b.conv("x", "c", 3, 4, 3, 1, 1);
        b.node("Squash", {"c"}, {"s"}, "squash1");
        b.valueInfo("s", {1, 4, 4, 4});
        b.output("s");
        const std::string e = errorOf(b.bytes());
        QVERIFY2(contains(e, "bad.onnx") && contains(e, "squash1") &&
                     contains(e, "changes the shape"),
                 e.c_str());
    }

    void badInputIsAnErrorNamingFileNodeAndProblem_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const std::string& bytes, const char* expected) {
            QTest::newRow(name) << QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()))
                                << QString(expected);
        };
        const std::string real = readFile(ITERSCOPE_TEST_DATA "/onnx/resnet18.structure.onnx");
        row("empty", "", "empty");
        row("truncated", real.substr(0, real.size() / 2), "truncated");
        std::mt19937 rng(7);
        std::string noise(4096, '\0');
        for (char& c : noise)
            c = static_cast<char>(rng());
        row("random bytes", noise, "bad.onnx");
        row("prototxt content", "name: \"AlexNet\"\nlayer { name: \"conv1\" }\n", "bad.onnx");
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 8, 8});
            b.node("Relu", {"b"}, {"a"}, "relu_a");
            b.node("Relu", {"a"}, {"b"}, "relu_b");
            b.output("b");
            row("cycle", b.bytes(), "cycle");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 8, 8});
            b.node("Relu", {"ghost"}, {"y"}, "relu_y");
            b.output("y");
            row("dangling input", b.bytes(), "'ghost' is not produced");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 8, 8});
            b.floats("w", {4, 5, 3, 3});
            b.node("Conv", {"x", "w"}, {"y"}, "conv_y");
            b.output("y");
            row("channel mismatch", b.bytes(), "channel mismatch");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 4, 4});
            b.conv("x", "conv_big", 3, 4, 7, 1, 0);
            b.output("conv_big");
            row("kernel larger than input", b.bytes(), "larger than");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 0, 8});
            b.conv("x", "c", 3, 4, 3, 1, 1);
            b.output("c");
            row("zero dimension", b.bytes(), "not positive");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, -5, 8});
            b.conv("x", "c", 3, 4, 3, 1, 1);
            b.output("c");
            row("negative dimension", b.bytes(), "not positive");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 1 << 30, 1 << 30, 1 << 30});
            b.node("Relu", {"x"}, {"y"});
            b.output("y");
            row("overflowing dimensions", b.bytes(), "overflows");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 8, 8});
            b.floats("w", {4, -3, 3, 3});
            b.node("Conv", {"x", "w"}, {"y"});
            b.output("y");
            row("negative weight dimension", b.bytes(), "negative dimension");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 8, 8});
            b.node("Resize", {"x"}, {"y"}, "resize1");
            b.output("y");
            row("unsupported op on activations", b.bytes(), "resize1");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 8, 8});
            b.conv("x", "a", 3, 4, 3, 1, 1);
            auto& cat = b.node("Concat", {"a", "a"}, {"y"}, "cat_batch");
            OnnxBuilder::attr(cat, "axis", int64_t{0});
            b.output("y");
            row("concat along the batch", b.bytes(), "batch");
        }
        {
            OnnxBuilder b;
            b.input("x", {1, 3, 8, 8});
            b.conv("x", "a", 3, 4, 3, 1, 1);
            b.node("Relu", {"a"}, {"y"}, "dup");
            b.node("Sigmoid", {"a"}, {"y"}, "dup2");
            b.output("y");
            row("output produced twice", b.bytes(), "also produced by");
        }
        {
            onnx::ModelProto m;
            m.set_ir_version(7);
            row("no graph", m.SerializeAsString(), "no graph");
        }
    }
    void badInputIsAnErrorNamingFileNodeAndProblem() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const std::string e = errorOf(bytes.toStdString());
        QVERIFY2(!e.empty(), "accepted");
        QVERIFY2(e.rfind("bad.onnx", 0) == 0, e.c_str());
        QVERIFY2(contains(e, expected.toStdString()), e.c_str());
        QVERIFY2(!contains(e, "\n"), e.c_str());
    }

    void nodeErrorsNameTheNode() {
        OnnxBuilder b;
        b.input("x", {1, 3, 8, 8});
        b.floats("w", {4, 5, 3, 3});
        b.node("Conv", {"x", "w"}, {"y"}, "the_conv");
        b.output("y");
        const std::string e = errorOf(b.bytes());
        QVERIFY2(contains(e, "node 'the_conv' (Conv)"), e.c_str());
    }

    void badFixtureFilesFailWithTheirPath() {
        const QDir dir(QStringLiteral(ITERSCOPE_TEST_DATA "/bad/onnx"));
        const QStringList files = dir.entryList({"*.onnx"}, QDir::Files);
        QVERIFY(files.size() >= 5);
        for (const QString& f : files) {
            const std::string path = dir.filePath(f).toStdString();
            std::string e;
            try {
                analyze(readOnnxFile(path));
            } catch (const InputError& err) {
                e = err.what();
            }
            QVERIFY2(!e.empty(), qPrintable(f + " was accepted"));
            QVERIFY2(e.rfind(path, 0) == 0, e.c_str());
        }
    }

    void missingFileIsAnError() {
        QVERIFY_THROWS_EXCEPTION(InputError, readOnnxFile("/nonexistent/x.onnx"));
        QVERIFY_THROWS_EXCEPTION(InputError, readOnnxFile(ITERSCOPE_TEST_DATA));
    }
};

QTEST_APPLESS_MAIN(TestOnnxReader)
#include "tst_onnx_reader.moc"
