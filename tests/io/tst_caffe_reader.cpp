// The Caffe importer: published prototxt files match Caffe's own counts, each syntax and
// layer rule works on a small file made for it, and bad files fail with one precise line.
#include "io/caffe_reader.h"
#include "io/network_json.h"
#include "io/network_loader.h"
#include "network/analysis.h"
#include "util/error.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <string>

using namespace iterscope;

namespace {

struct Imported {
    Network net;
    NetworkAnalysis analysis;
};

Imported import(const std::string& text) {
    Imported r;
    r.net = readCaffeText(text, "test.prototxt");
    r.analysis = analyze(r.net);
    return r;
}

std::string errorOf(const std::string& text) {
    try {
        analyze(readCaffeText(text, "bad.prototxt"));
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

const std::string kDeployInput = R"(name: "t"
input: "data"
input_dim: 1
input_dim: 3
input_dim: 32
input_dim: 32
)";

// conv(8, 3x3, stride 2) -> ReLU in place -> pool(3, stride 2) -> fc(10) -> softmax.
const std::string kSmallLayers = R"(
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
        convolution_param { num_output: 8 kernel_size: 3 stride: 2 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
        pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "fc" type: "InnerProduct" bottom: "pool1" top: "fc"
        inner_product_param { num_output: 10 } }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
)";

} // namespace

class TestCaffeReader : public QObject {
    Q_OBJECT

  private slots:
    void publishedPrototxtsMatchCaffesCounts_data() {
        QTest::addColumn<QString>("file");
        QFile f(QStringLiteral(ITERSCOPE_TEST_DATA "/caffe/truth.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject truth = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(truth.size() >= 4);
        for (const QString& file : truth.keys())
            QTest::newRow(qPrintable(file)) << file;
    }
    void publishedPrototxtsMatchCaffesCounts() {
        QFETCH(QString, file);
        QFile f(QStringLiteral(ITERSCOPE_TEST_DATA "/caffe/truth.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject truth = QJsonDocument::fromJson(f.readAll()).object()[file].toObject();
        const Network net =
            readCaffeFile((QStringLiteral(ITERSCOPE_TEST_DATA "/caffe/") + file).toStdString());
        const NetworkAnalysis a = analyze(net);
        QCOMPARE(a.total_params, static_cast<int64_t>(truth["params"].toDouble()));
        const double macs = truth["macs"].toDouble();
        QVERIFY2(std::fabs(static_cast<double>(a.total_macs) - macs) <= 0.005 * macs,
                 qPrintable(QString::number(a.total_macs) + " vs " + QString::number(macs)));
        // Every network here ends in 1000 ImageNet classes.
        QCOMPARE(a.layers.back().output, Dims{1000});
        // And survives the project's own format unchanged.
        const NetworkAnalysis back = analyze(networkFromJson(networkToJson(net)));
        QCOMPARE(back.total_params, a.total_params);
        QCOMPARE(back.total_macs, a.total_macs);
        QCOMPARE(back.total_fwd_flops, a.total_fwd_flops);
        QCOMPARE(back.total_bwd_flops, a.total_bwd_flops);
    }

    void trainValReadsTheTrainPhaseDataLayer() {
        const Network net =
            readCaffeFile(ITERSCOPE_TEST_DATA "/caffe/bvlc_alexnet.train_val.prototxt");
        QCOMPARE(net.input, (Dims{3, 227, 227}));
        QCOMPARE(net.layers.front().kind, LayerKind::Input);
        const Layer* loss = layerNamed(net, "loss");
        QVERIFY(loss != nullptr);
        QCOMPARE(loss->kind, LayerKind::Softmax);
        QCOMPARE(loss->inputs.size(), std::size_t{1}); // the label is not a network input
        QVERIFY(layerNamed(net, "accuracy") == nullptr);
    }

    void poolingRoundsUpAndConvolutionRoundsDown() {
        const Imported r = import(kDeployInput + kSmallLayers);
        // conv: floor((32 - 3) / 2) + 1 = 15; pool: ceil((15 - 3) / 2) + 1 = 7.
        QCOMPARE(r.analysis.layers[indexOf(r.net, "conv1")].output, (Dims{8, 15, 15}));
        QCOMPARE(r.analysis.layers[indexOf(r.net, "pool1")].output, (Dims{8, 7, 7}));
        QVERIFY(r.net.layers[indexOf(r.net, "pool1")].pool.ceil_mode);
        // In-place ReLU sits between conv and pool.
        QCOMPARE(r.net.layers[indexOf(r.net, "pool1")].inputs,
                 std::vector<std::size_t>{indexOf(r.net, "relu1")});
        QCOMPARE(r.analysis.total_params, int64_t{8 * 27 + 8 + 8 * 49 * 10 + 10});
    }

    void legacyLayersSyntaxMatchesTheCurrentOne() {
        const std::string legacy = kDeployInput + R"(
layers { name: "conv1" type: CONVOLUTION bottom: "data" top: "conv1"
         blobs_lr: 1 blobs_lr: 2
         convolution_param { num_output: 8 kernel_size: 3 stride: 2 } }
layers { name: "relu1" type: RELU bottom: "conv1" top: "conv1" }
layers { name: "pool1" type: POOLING bottom: "conv1" top: "pool1"
         pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layers { name: "fc" type: INNER_PRODUCT bottom: "pool1" top: "fc"
         inner_product_param { num_output: 10 } }
layers { name: "prob" type: SOFTMAX bottom: "fc" top: "prob" }
)";
        const Imported a = import(legacy), b = import(kDeployInput + kSmallLayers);
        QCOMPARE(a.analysis.total_params, b.analysis.total_params);
        QCOMPARE(a.analysis.total_macs, b.analysis.total_macs);
        QCOMPARE(a.net.layers.size(), b.net.layers.size());
    }

    void inputMayComeFromInputShapeInputLayerOrData_data() {
        QTest::addColumn<QString>("head");
        QTest::addColumn<Dims>("expected");
        QTest::newRow("input_shape")
            << QString("input: \"data\" input_shape { dim: 1 dim: 3 dim: 20 dim: 24 }")
            << Dims{3, 20, 24};
        QTest::newRow("Input layer") << QString(R"(layer { name: "data" type: "Input" top: "data"
                input_param { shape { dim: 10 dim: 1 dim: 28 dim: 28 } } })")
                                     << Dims{1, 28, 28};
        QTest::newRow("Data crop_size") << QString(R"(layer { name: "data" type: "Data"
                top: "data" top: "label" include { phase: TRAIN }
                transform_param { crop_size: 227 } data_param { batch_size: 256 } }
                layer { name: "data" type: "Data" top: "data" top: "label"
                include { phase: TEST } transform_param { crop_size: 99 } })")
                                        << Dims{3, 227, 227};
        QTest::newRow("grey ImageData")
            << QString(R"(layer { name: "data" type: "ImageData" top: "data" top: "label"
                image_data_param { is_color: false new_height: 40 new_width: 30 } })")
            << Dims{1, 40, 30};
    }
    void inputMayComeFromInputShapeInputLayerOrData() {
        QFETCH(QString, head);
        QFETCH(Dims, expected);
        const Imported r =
            import(head.toStdString() +
                   "\nlayer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n");
        QCOMPARE(r.net.input, expected);
    }

    void phaseRulesKeepTrainLayersOnly() {
        const Imported r = import(kDeployInput + R"(
layer { name: "a" type: "ReLU" bottom: "data" top: "x" include { phase: TRAIN } }
layer { name: "b" type: "Sigmoid" bottom: "data" top: "x" include { phase: TEST } }
layer { name: "c" type: "TanH" bottom: "x" top: "y" exclude { phase: TRAIN } }
layer { name: "d" type: "TanH" bottom: "x" top: "y" exclude { phase: TEST } }
layer { name: "e" type: "Dropout" bottom: "y" top: "z" include { stage: "deploy" } }
layer { name: "f" type: "Dropout" bottom: "y" top: "z" }
)");
        for (const char* kept : {"a", "d", "f"})
            QVERIFY2(layerNamed(r.net, kept) != nullptr, kept);
        for (const char* dropped : {"b", "c", "e"})
            QVERIFY2(layerNamed(r.net, dropped) == nullptr, dropped);
    }

    void batchNormHoldsNoParametersAndScaleHoldsGammaAndBeta() {
        const Imported r = import(kDeployInput + R"(
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
        convolution_param { num_output: 16 kernel_size: 1 bias_term: false } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "scale1" type: "Scale" bottom: "conv1" top: "conv1" scale_param { bias_term: true } }
layer { name: "scale2" type: "Scale" bottom: "conv1" top: "conv1" }
)");
        const std::size_t bn = indexOf(r.net, "bn1");
        QCOMPARE(r.net.layers[bn].kind, LayerKind::BatchNorm);
        QVERIFY(!r.net.layers[bn].bn.affine);
        QCOMPARE(r.analysis.layers[bn].params, int64_t{0});
        QCOMPARE(r.analysis.layers[indexOf(r.net, "scale1")].params, int64_t{32});
        QCOMPARE(r.analysis.layers[indexOf(r.net, "scale2")].params, int64_t{16});
        QCOMPARE(r.analysis.total_params, int64_t{3 * 16 + 32 + 16});
    }

    void splitConcatEltwiseAndSinksWireUp() {
        const Imported r = import(kDeployInput + R"(
layer { name: "split" type: "Split" bottom: "data" top: "s1" top: "s2" }
layer { name: "a" type: "Convolution" bottom: "s1" top: "a"
        convolution_param { num_output: 4 kernel_h: 3 kernel_w: 1 pad_h: 1 pad_w: 0 } }
layer { name: "b" type: "Convolution" bottom: "s2" top: "b"
        convolution_param { num_output: 6 kernel_size: 1 group: 3 } }
layer { name: "cat" type: "Concat" bottom: "a" bottom: "b" top: "cat" }
layer { name: "p" type: "Pooling" bottom: "cat" top: "p" pooling_param { pool: AVE global_pooling: true } }
layer { name: "sum" type: "Eltwise" bottom: "p" bottom: "p" top: "sum" eltwise_param { operation: MAX } }
layer { name: "silence" type: "Silence" bottom: "sum" }
)");
        QVERIFY(layerNamed(r.net, "split") == nullptr);
        QCOMPARE(layerNamed(r.net, "a")->inputs, std::vector<std::size_t>{0});
        QCOMPARE(layerNamed(r.net, "b")->conv.groups, int64_t{3});
        QCOMPARE(layerNamed(r.net, "cat")->concat.axis, int64_t{0});
        QCOMPARE(r.analysis.layers[indexOf(r.net, "cat")].output, (Dims{10, 32, 32}));
        QCOMPARE(layerNamed(r.net, "p")->kind, LayerKind::GlobalPooling);
        QCOMPARE(layerNamed(r.net, "sum")->eltwise.kind, EltwiseKind::Max);
        QVERIFY(layerNamed(r.net, "silence") == nullptr);
    }

    void badTextIsAnErrorWithFileAndLine_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unbalanced open") << QString(kDeployInput.c_str()) + "layer { name: \"x\"\n"
                                         << "bad.prototxt:7:";
        QTest::newRow("unbalanced close") << QString(kDeployInput.c_str()) + "}\n"
                                          << "bad.prototxt:7: unbalanced";
        QTest::newRow("deep nesting") << QString("a { ").repeated(1000) << "nest deeper";
        QTest::newRow("missing colon") << QString("name \"x\"\n") << "bad.prototxt:1:";
        QTest::newRow("bad character") << QString("name: \"x\"\n@\n") << "bad.prototxt:2:";
        QTest::newRow("no input") << QString("name: \"x\"\n") << "no input";
        QTest::newRow("unknown layer")
            << QString(kDeployInput.c_str()) +
                   "layer { name: \"w\" type: \"Warp\" bottom: \"data\" top: \"w\" }\n"
            << "bad.prototxt:7: layer 'w' (Warp): unknown layer type";
        QTest::newRow("missing bottom")
            << QString(kDeployInput.c_str()) +
                   "layer { name: \"r\" type: \"ReLU\" bottom: \"nope\" top: \"r\" }\n"
            << "'nope' is not produced";
        QTest::newRow("kernel larger than input")
            << QString(kDeployInput.c_str()) +
                   "layer { name: \"big\" type: \"Convolution\" bottom: \"data\" top: \"big\"\n"
                   "convolution_param { num_output: 2 kernel_size: 33 } }\n"
            << "bad.prototxt:7: layer 'big' (Convolution): kernel 33 is larger";
        QTest::newRow("zero num_output")
            << QString(kDeployInput.c_str()) +
                   "layer { name: \"z\" type: \"Convolution\" bottom: \"data\" top: \"z\"\n"
                   "convolution_param { num_output: 0 kernel_size: 3 } }\n"
            << "num_output 0 is not positive";
        QTest::newRow("negative input dim")
            << QString("input: \"data\" input_dim: 1 input_dim: -3 input_dim: 8 input_dim: 8\n"
                       "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }")
            << "not positive";
        QTest::newRow("overflowing number")
            << QString("input: \"data\" input_dim: 1 input_dim: 3 input_dim: "
                       "123456789012345678901234567890 input_dim: 8")
            << "out of range";
        QTest::newRow("overflowing dims")
            << QString("input: \"data\" input_dim: 1 input_dim: 3000000000 input_dim: "
                       "3000000000 input_dim: 3000000000\n"
                       "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }")
            << "overflows";
    }
    void badTextIsAnErrorWithFileAndLine() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const std::string e = errorOf(text.toStdString());
        QVERIFY2(!e.empty(), "accepted");
        QVERIFY2(e.rfind("bad.prototxt", 0) == 0, e.c_str());
        QVERIFY2(contains(e, expected.toStdString()), e.c_str());
    }

    void badFixtureFilesFailThroughTheLoaderWithTheirPath() {
        const QDir dir(QStringLiteral(ITERSCOPE_TEST_DATA "/bad/caffe"));
        const QStringList files = dir.entryList({"*.prototxt"}, QDir::Files);
        QVERIFY(files.size() >= 10);
        for (const QString& f : files) {
            const std::string path = dir.filePath(f).toStdString();
            std::string e;
            try {
                loadNetwork(path);
            } catch (const InputError& err) {
                e = err.what();
            }
            QVERIFY2(!e.empty(), qPrintable(f + " was accepted"));
            QVERIFY2(e.rfind(path, 0) == 0, e.c_str());
            QVERIFY2(!contains(e, "\n"), e.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestCaffeReader)
#include "tst_caffe_reader.moc"
