// The JSON network format: lossless round trips of every zoo network and every attribute,
// and strict, precise rejection of bad files.
#include "io/network_json.h"
#include "network/analysis.h"
#include "network/builder.h"
#include "network/zoo.h"
#include "util/error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace iterscope;

namespace {

// A document around the given layers (after the Input layer "data").
std::string doc(const std::string& layers, const std::string& input = "[3, 8, 8]") {
    return R"({"format": "iterscope-network", "version": 1, "name": "t", "input": )" + input +
           R"(, "layers": [{"name": "data", "kind": "Input"})" + (layers.empty() ? "" : ", ") +
           layers + "]}";
}

// The error text, or "" when the document was accepted.
std::string errorOf(const std::string& text) {
    try {
        networkFromJson(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

void compareCosts(const NetworkAnalysis& a, const NetworkAnalysis& b) {
    QCOMPARE(a.layers.size(), b.layers.size());
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        const LayerCost& x = a.layers[i];
        const LayerCost& y = b.layers[i];
        QCOMPARE(x.output, y.output);
        QCOMPARE(x.needs_data_grad, y.needs_data_grad);
        for (int64_t element_bytes : {4, 2}) {
            const LayerStats s = statsAt(x, 32, element_bytes);
            const LayerStats t = statsAt(y, 32, element_bytes);
            QCOMPARE(s.params, t.params);
            QCOMPARE(s.macs, t.macs);
            QCOMPARE(s.fwd_flops, t.fwd_flops);
            QCOMPARE(s.bwd_flops, t.bwd_flops);
            QCOMPARE(s.activation_bytes, t.activation_bytes);
            QCOMPARE(s.gradient_bytes, t.gradient_bytes);
            QCOMPARE(s.fwd_bytes_read, t.fwd_bytes_read);
            QCOMPARE(s.fwd_bytes_written, t.fwd_bytes_written);
            QCOMPARE(s.bwd_bytes_read, t.bwd_bytes_read);
            QCOMPARE(s.bwd_bytes_written, t.bwd_bytes_written);
        }
    }
    QCOMPARE(a.total_params, b.total_params);
    QCOMPARE(a.total_macs, b.total_macs);
}

// One layer of every kind, each attribute away from its default, so that a field the
// writer forgets or the reader drops shows up as an inequality.
Network everyAttribute() {
    Network net;
    net.name = "every-attribute";
    net.input = {3, 32, 32};
    auto add = [&net](LayerKind kind, std::vector<std::size_t> inputs) -> Layer& {
        Layer l;
        l.name = std::string(layerKindName(kind)) + std::to_string(net.layers.size());
        l.kind = kind;
        l.inputs = std::move(inputs);
        net.layers.push_back(std::move(l));
        return net.layers.back();
    };
    add(LayerKind::Input, {}).source_op = "data";
    Layer& conv = add(LayerKind::Convolution, {0});
    conv.conv = {8, 3, 5, 2, 1, 1, 2, 0, 3, 2, 1, 1, 0, 0, PadMode::SameLower, false};
    conv.source_op = "Conv";
    Layer& deconv = add(LayerKind::Deconvolution, {1});
    deconv.conv = {4, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, PadMode::Explicit, true};
    add(LayerKind::BatchNorm, {2}).bn.affine = false;
    add(LayerKind::Scale, {3}).scale.bias = false;
    Layer& prelu = add(LayerKind::Activation, {4});
    prelu.activation = {ActivationKind::PReLU, true};
    add(LayerKind::Activation, {5}).activation.kind = ActivationKind::HardSwish;
    Layer& pool = add(LayerKind::Pooling, {6});
    pool.pool = {PoolKind::Average, 3, 2, 2, 1, 1, 0, 0, 1, PadMode::Valid, true, true};
    add(LayerKind::GlobalPooling, {7}).pool.kind = PoolKind::Max;
    add(LayerKind::LRN, {6}).lrn.size = 3;
    add(LayerKind::Concat, {6, 6}).concat.axis = 1;
    add(LayerKind::Eltwise, {6, 6, 6}).eltwise.kind = EltwiseKind::Max;
    add(LayerKind::Dropout, {11});
    add(LayerKind::Pad, {12}).pad = {1, 2, 3, 4, {}, {}};
    add(LayerKind::Transpose, {13}).transpose.perm = {0, 2, 1};
    add(LayerKind::Reshape, {14}).reshape.target = {0, -1};
    add(LayerKind::Flatten, {15});
    Layer& fc = add(LayerKind::FullyConnected, {16});
    fc.fc = {10, false, true};
    add(LayerKind::Softmax, {17}).softmax.axis = 0;
    add(LayerKind::Identity, {18}).source_op = "SomeUnknownOp";
    // The tensor kinds, fed by the 3x32x32 input.
    Layer& mm = add(LayerKind::MatMul, {0, 0});
    mm.matmul = {false, true};
    add(LayerKind::LayerNorm, {0}).layernorm = {-2, false, true};
    add(LayerKind::Reduce, {0}).reduce = {ReduceKind::Max, {1}, false};
    add(LayerKind::Slice, {0}).slice = {{2, 0}, {1, 0}, {-1, 2}, {2, 1}};
    add(LayerKind::Constant, {}).constant = {{1, 32}, 32};
    add(LayerKind::Expand, {24}).expand.target = {4, 32};
    Layer& tokens = add(LayerKind::FullyConnected, {0});
    tokens.fc = {7, true, false};
    add(LayerKind::Pad, {0}).pad = {0, 0, 0, 0, {0, 1, 2}, {1, 0, 0}};
    return net;
}

} // namespace

class TestNetworkJson : public QObject {
    Q_OBJECT

  private slots:
    void everyZooNetworkRoundTrips_data() {
        QTest::addColumn<QString>("id");
        for (const std::string& id : zooIds())
            QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }

    void everyZooNetworkRoundTrips() {
        QFETCH(QString, id);
        const Network net = *zooNetwork(id.toStdString());
        const std::string text = networkToJson(net);
        const Network back = networkFromJson(text);
        QVERIFY(back == net);
        compareCosts(analyze(net), analyze(back));
        // Writing is deterministic, so exported files diff cleanly.
        QCOMPARE(networkToJson(back), text);
    }

    void everyKindAndAttributeRoundTrips() {
        const Network net = everyAttribute();
        // Every LayerKind is present, so a new kind without JSON support fails here.
        std::set<LayerKind> kinds;
        for (const Layer& l : net.layers)
            kinds.insert(l.kind);
        QCOMPARE(kinds.size(), static_cast<std::size_t>(LayerKind::Identity) + 1);
        const Network back = networkFromJson(networkToJson(net));
        for (std::size_t i = 0; i < net.layers.size(); ++i)
            QVERIFY2(back.layers[i] == net.layers[i], net.layers[i].name.c_str());
        QVERIFY(back == net);
    }

    void theWrittenHeaderCarriesFormatAndVersion() {
        const std::string text = networkToJson(*zooNetwork("alexnet"));
        QVERIFY(contains(text, R"("format": "iterscope-network")"));
        QVERIFY(contains(text, R"("version": 1)"));
        QVERIFY(contains(text, R"("input": [3,224,224])"));
    }

    void compactFormsAreAccepted() {
        const Network net = networkFromJson(doc(
            R"({"name": "c", "kind": "Convolution", "inputs": ["data"], "out_channels": 4,
                "kernel": 3, "stride": 2, "pad": [1, 2]},
               {"name": "p", "kind": "Pooling", "inputs": ["c"], "mode": "Max", "kernel": [2, 1],
                "pad": 1})"));
        const ConvParams& c = net.layers[1].conv;
        QCOMPARE(c.kernel_h, int64_t{3});
        QCOMPARE(c.kernel_w, int64_t{3});
        QCOMPARE(c.stride_w, int64_t{2});
        QCOMPARE(c.pad_top, int64_t{1});
        QCOMPARE(c.pad_left, int64_t{2});
        QCOMPARE(c.pad_bottom, int64_t{1});
        QCOMPARE(c.pad_right, int64_t{2});
        QVERIFY(c.bias);
        const PoolParams& p = net.layers[2].pool;
        QCOMPARE(p.kernel_w, int64_t{1});
        QCOMPARE(p.stride_h, int64_t{1}); // the documented default
        QCOMPARE(p.pad_right, int64_t{1});
    }

    void theDocumentedExampleReads() {
        QFile f(QStringLiteral(ITERSCOPE_TEST_DATA "/../../docs/network-format.md"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string md = f.readAll().toStdString();
        const auto begin = md.find("```json\n");
        QVERIFY(begin != std::string::npos);
        const auto end = md.find("```", begin + 8);
        QVERIFY(end != std::string::npos);
        const Network net = networkFromJson(md.substr(begin + 8, end - begin - 8));
        const NetworkAnalysis a = analyze(net);
        QVERIFY(a.total_params > 0);
        QCOMPARE(a.layers.back().output, (Dims{10}));
    }

    void badDocumentsAreRejectedPrecisely_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected"); // substrings of the error

        const std::string conv =
            R"({"name": "c", "kind": "Convolution", "inputs": ["data"], "out_channels": 4, )";
        auto row = [](const char* name, const std::string& text, QStringList expected) {
            QTest::newRow(name) << QString::fromStdString(text) << expected;
        };
        const std::string good = doc(conv + R"("kernel": 3})");
        row("empty", "", {"invalid JSON"});
        row("truncated", good.substr(0, good.size() / 2), {"invalid JSON"});
        row("not an object", "[1, 2]", {"top level", "array"});
        row("wrong format", R"({"format": "onnx", "version": 1, "input": [3], "layers": []})",
            {"'format'", "iterscope-network"});
        row("missing format", R"({"version": 1, "input": [3], "layers": []})",
            {"'format'", "required"});
        row("future version",
            R"({"format": "iterscope-network", "version": 2, "input": [3], "layers": []})",
            {"'version'", "unsupported version 2"});
        row("version as string",
            R"({"format": "iterscope-network", "version": "1", "input": [3], "layers": []})",
            {"'version'", "expected an integer, got a string"});
        row("missing layers", R"({"format": "iterscope-network", "version": 1, "input": [3]})",
            {"'layers'", "required"});
        row("missing input",
            R"({"format": "iterscope-network", "version": 1, "layers": [{"name": "d", "kind": "Input"}]})",
            {"'input'", "required"});
        row("zero input dim", doc("", "[3, 0, 8]"), {"'input[1]'", "outside"});
        row("unknown top-level field", doc("").insert(1, R"("comment": "x", )"),
            {"'comment'", "unknown field"});
        row("duplicate key", doc(conv + R"("kernel": 3, "kernel": 5})"),
            {"duplicate key \"kernel\""});
        row("unknown kind", doc(R"({"name": "x", "kind": "Convolution2D", "inputs": ["data"]})"),
            {"layer 'x'", "'kind'", "Convolution2D", "expected one of"});
        row("misspelt field", doc(conv + R"("kernal": 3})"),
            {"layer 'c'", "'kernal'", "unknown field for a Convolution layer"});
        row("field of another kind", doc(conv + R"("kernel": 3, "ceil_mode": true})"),
            {"layer 'c'", "'ceil_mode'", "unknown field"});
        row("missing required field", doc(conv + R"("stride": 2})"),
            {"layer 'c'", "'kernel'", "required"});
        row("string for integer", doc(conv + R"("kernel": "3"})"),
            {"layer 'c'", "'kernel'", "integer"});
        row("fraction for integer", doc(conv + R"("kernel": 3, "groups": 1.5})"),
            {"layer 'c'", "'groups'", "expected an integer, got a non-integer number"});
        row("integer for boolean", doc(conv + R"("kernel": 3, "bias": 0})"),
            {"layer 'c'", "'bias'", "true or false"});
        row("negative kernel", doc(conv + R"("kernel": [3, -1]})"),
            {"layer 'c'", "'kernel[1]'", "outside"});
        row("absurd size", doc(conv + R"("kernel": 3, "stride": 99999999999999999999})"),
            {"layer 'c'", "'stride'"});
        row("three pads", doc(conv + R"("kernel": 3, "pad": [1, 1, 1]})"),
            {"layer 'c'", "'pad'", "[top, left, bottom, right]"});
        row("unknown enum value",
            doc(R"({"name": "a", "kind": "Activation", "inputs": ["data"], "function": "relu"})"),
            {"layer 'a'", "'function'", "\"relu\"", "ReLU"});
        row("dangling input", doc(R"({"name": "r", "kind": "Dropout", "inputs": ["dat"]})"),
            {"layer 'r'", "'inputs[0]'", "no layer is named 'dat'"});
        row("forward reference", doc(R"({"name": "a", "kind": "Dropout", "inputs": ["b"]},
                   {"name": "b", "kind": "Dropout", "inputs": ["data"]})"),
            {"layer 'a'", "'inputs[0]'", "later", "topological order"});
        row("cycle",
            doc(R"({"name": "a", "kind": "Eltwise", "operation": "Add", "inputs": ["data", "b"]},
                   {"name": "b", "kind": "Dropout", "inputs": ["a"]})"),
            {"layer 'a'", "'inputs[1]'", "cycle"});
        row("self loop", doc(R"({"name": "a", "kind": "Dropout", "inputs": ["a"]})"),
            {"layer 'a'", "'inputs[0]'", "its own output"});
        row("duplicate names", doc(R"({"name": "a", "kind": "Dropout", "inputs": ["data"]},
                   {"name": "a", "kind": "Dropout", "inputs": ["data"]})"),
            {"layer #2", "'name'", "'a' is already the name of layer #1"});
        row("missing inputs", doc(R"({"name": "a", "kind": "Dropout"})"),
            {"layer 'a'", "'inputs'", "required"});
        row("input by index", doc(R"({"name": "a", "kind": "Dropout", "inputs": [0]})"),
            {"layer 'a'", "'inputs[0]'", "string"});
        row("two inputs to a conv",
            doc(conv + R"("kernel": 3}, )" +
                R"({"name": "d", "kind": "Convolution",
                                            "inputs": ["data", "c"], "out_channels": 1,
                                            "kernel": 1})"),
            {"layer 'd'", "'inputs'", "takes one input"});
        row("no input layer",
            R"({"format": "iterscope-network", "version": 1, "input": [3],
                "layers": [{"name": "a", "kind": "Dropout", "inputs": []}]})",
            {"layer 'a'", "'kind'", "first layer must be the Input"});
        row("second input layer", doc(R"({"name": "again", "kind": "Input"})"),
            {"layer 'again'", "only the first layer"});
        row("nameless layer", doc(R"({"kind": "Dropout", "inputs": ["data"]})"),
            {"layer #1", "'name'", "required"});
        row("deep nesting",
            doc(conv + R"("kernel": )" + std::string(100, '[') + "3" + std::string(100, ']') + "}"),
            {"nested deeper"});
    }

    void badDocumentsAreRejectedPrecisely() {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        const std::string error = errorOf(text.toStdString());
        QVERIFY2(!error.empty(), "accepted");
        for (const QString& part : expected)
            QVERIFY2(contains(error, part.toStdString()), error.c_str());
        QVERIFY2(!contains(error, "\n"), error.c_str());
        QVERIFY2(!contains(error, "json.exception"), error.c_str());
    }

    void fileErrorsNameTheFile() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + QStringLiteral("/net.json")).toStdString();
        {
            std::ofstream out(path);
            out << doc(R"({"name": "r", "kind": "Dropout", "inputs": ["nope"]})");
        }
        try {
            readNetworkJsonFile(path);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).rfind(path + ": layer 'r'", 0) == 0, e.what());
        }
        const std::string missing = path + ".missing";
        try {
            readNetworkJsonFile(missing);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).rfind(missing + ": ", 0) == 0, e.what());
        }
    }

    void aWrittenFileReadsBack() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + QStringLiteral("/r50.json")).toStdString();
        const Network net = *zooNetwork("resnet50", 160);
        {
            std::ofstream out(path, std::ios::binary);
            out << networkToJson(net);
        }
        QVERIFY(readNetworkJsonFile(path) == net);
    }
};

QTEST_APPLESS_MAIN(TestNetworkJson)
#include "tst_network_json.moc"
