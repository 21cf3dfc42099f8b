// The built-in zoo against independently counted ground truth (tests/data/zoo-truth.json):
// parameters exactly, conv + fc multiply-accumulates within 0.5%.
#include "network/analysis.h"
#include "network/builder.h"
#include "network/zoo.h"
#include "util/error.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <optional>
#include <set>
#include <string_view>

using namespace iterscope;

class TestZoo : public QObject {
    Q_OBJECT

    static QJsonObject truth() {
        QFile f(QStringLiteral(ITERSCOPE_TEST_DATA "/zoo-truth.json"));
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot open zoo-truth.json");
        return QJsonDocument::fromJson(f.readAll()).object();
    }

    static int64_t count(const QJsonObject& entry, const char* key) {
        // QJsonValue holds doubles; every count here is below 2^53, so this is exact.
        return static_cast<int64_t>(entry.value(QLatin1String(key)).toDouble());
    }

  private slots:
    void idsAreTheContractedOnesGroupedByFamily() {
        // clang-format off
        const std::vector<std::string> expected = {
            "alexnet", "alexnet-tf", "alexnet-bvlc",
            "vgg16", "vgg19",
            "googlenet", "inception-v3",
            "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnet200",
            "resnet50-v1", "resnet101-v1", "resnet152-v1",
            "resnext50-32x4d", "resnext101-32x4d", "resnext101-32x8d", "se-resnext101-32x4d",
            "wide-resnet50-2",
            "densenet121",
            "squeezenet1.0",
            "mobilenet-v2", "mobilenet-v3-large",
            "efficientnet-b0", "efficientnet-b4", "efficientnet-v2-s",
            "regnet-y-1.6gf",
            "convnext-tiny",
            "vit-b-16",
            "swin-t"};
        // clang-format on
        QCOMPARE(zooIds(), expected);
        // A family's ids are adjacent, so a grouped list shows each family once.
        std::set<std::string_view> finished;
        std::string_view current;
        for (const std::string& id : zooIds()) {
            const std::string_view family = zooFamily(id);
            QVERIFY2(!family.empty(), id.c_str());
            if (family != current) {
                QVERIFY2(finished.insert(family).second, id.c_str());
                current = family;
            }
        }
        QCOMPARE(zooFamily("resnext101-32x4d"), std::string_view("ResNeXt"));
        QCOMPARE(zooFamily("vit-b-16"), std::string_view("Vision Transformer"));
        QVERIFY(zooFamily("resnet51").empty());
    }

    void everyTruthEntryMatches_data() {
        QTest::addColumn<QString>("key");
        const QJsonObject t = truth();
        QVERIFY(t.size() >= 32);
        for (const QString& key : t.keys())
            QTest::newRow(qPrintable(key)) << key;
    }

    void everyTruthEntryMatches() {
        QFETCH(QString, key);
        const QJsonObject entry = truth().value(key).toObject();
        const std::string id = key.section(QLatin1Char('@'), 0, 0).toStdString();
        const int64_t image = count(entry, "image");
        const auto net = zooNetwork(id, image);
        QVERIFY(net.has_value());
        const NetworkAnalysis a = analyze(*net);
        const int64_t params = count(entry, "params");
        const int64_t macs = count(entry, "macs");
        QCOMPARE(a.total_params, params);
        const double rel =
            std::abs(static_cast<double>(a.total_macs - macs)) / static_cast<double>(macs);
        if (rel > 0.005)
            QFAIL(qPrintable(QStringLiteral("%1: macs %2, truth %3 (%4%)")
                                 .arg(key)
                                 .arg(a.total_macs)
                                 .arg(macs)
                                 .arg(rel * 100.0, 0, 'f', 3)));
    }

    void defaultImageIsTheTruthImage() {
        const QJsonObject t = truth();
        for (const std::string& id : zooIds()) {
            const QJsonValue v = t.value(QString::fromStdString(id));
            if (v.isObject())
                QCOMPARE(zooDefaultImage(id), count(v.toObject(), "image"));
            else
                QCOMPARE(zooDefaultImage(id), int64_t{224});
        }
    }

    void everyIdLoadsAtItsDefaultSize() {
        for (const std::string& id : zooIds()) {
            const auto net = zooNetwork(id);
            QVERIFY2(net.has_value(), id.c_str());
            QCOMPARE(net->name, id);
            QCOMPARE(net->layers.front().kind, LayerKind::Input);
            validateTopology(*net);
            const NetworkAnalysis a = analyze(*net);
            QCOMPARE(a.layers.size(), net->layers.size());
            // Every classifier ends in 1000 ImageNet classes.
            QCOMPARE(a.layers.back().output, (Dims{1000}));
        }
    }

    void resnet200HasTheFbResnetTorchDepth() {
        const auto net = zooNetwork("resnet200");
        QVERIFY(net.has_value());
        int convs = 0, fcs = 0;
        for (const Layer& l : net->layers) {
            convs += l.kind == LayerKind::Convolution;
            fcs += l.kind == LayerKind::FullyConnected;
        }
        // 1 stem + 3 per bottleneck x (3+24+36+3) + 1 fc = 200 weighted layers, plus the 4
        // projection shortcuts.
        QCOMPARE(convs, 1 + 3 * 66 + 4);
        QCOMPARE(fcs, 1);
        // Bottleneck 3-24-36-3 over ResNet-152's 3-8-36-3 adds 16 blocks of layer2.
        const NetworkAnalysis a = analyze(*net);
        const NetworkAnalysis r152 = analyze(*zooNetwork("resnet152"));
        const int64_t block2 = (128 * 512 + 128 * 128 * 9 + 512 * 128) + 2 * (128 + 128 + 512);
        QCOMPARE(a.total_params - r152.total_params, 16 * block2);
    }

    void usesTheLayerKindsTheModelTimes() {
        std::set<LayerKind> seen;
        for (const std::string& id : zooIds()) {
            // Keep the network alive: a range-for over a temporary's member dangles.
            const std::optional<Network> net = zooNetwork(id);
            QVERIFY2(net.has_value(), id.c_str());
            for (const Layer& l : net->layers)
                seen.insert(l.kind);
        }
        for (LayerKind k :
             {LayerKind::Convolution, LayerKind::BatchNorm, LayerKind::Activation,
              LayerKind::Pooling, LayerKind::GlobalPooling, LayerKind::Concat, LayerKind::Eltwise,
              LayerKind::Dropout, LayerKind::Flatten, LayerKind::FullyConnected, LayerKind::LRN,
              LayerKind::LayerNorm, LayerKind::MatMul, LayerKind::Softmax, LayerKind::Transpose,
              LayerKind::Reshape, LayerKind::Slice, LayerKind::Constant})
            QVERIFY2(seen.count(k), layerKindName(k));
    }

    void squeezeExcitationScalesEveryChannelOfTheMap() {
        // SE-ResNeXt-101's first bottleneck: a 256x1x1 gate multiplies the 256x56x56 output
        // of conv3/bn3 by broadcasting, before the residual add.
        const auto net = zooNetwork("se-resnext101-32x4d");
        const NetworkAnalysis a = analyze(*net);
        auto at = [&](const std::string& name) -> std::size_t {
            for (std::size_t i = 0; i < net->layers.size(); ++i)
                if (net->layers[i].name == name)
                    return i;
            qFatal("no layer %s", name.c_str());
        };
        QCOMPARE(a.layers[at("layer1.0.se.gate")].output, (Dims{256, 1, 1}));
        QCOMPARE(a.layers[at("layer1.0.se.fc1")].output, (Dims{16, 1, 1}));
        QCOMPARE(a.layers[at("layer1.0.se.mul")].output, (Dims{256, 56, 56}));
        QCOMPARE(net->layers[at("layer1.0.add")].inputs.front(), at("layer1.0.se.mul"));
        // The SE modules are the only difference from ResNeXt-101 32x4d: per bottleneck of
        // C outputs two 1x1 convolutions C -> C/16 -> C with biases.
        const NetworkAnalysis plain = analyze(*zooNetwork("resnext101-32x4d"));
        const int blocks[] = {3, 4, 23, 3};
        int64_t se_params = 0, se_macs = 0;
        for (int stage = 0; stage < 4; ++stage) {
            const int64_t c = int64_t{256} << stage;
            se_params += blocks[stage] * (2 * c * (c / 16) + c / 16 + c);
            se_macs += blocks[stage] * 2 * c * (c / 16);
        }
        QCOMPARE(a.total_params - plain.total_params, se_params);
        QCOMPARE(a.total_macs - plain.total_macs, se_macs);
    }

    void efficientnetScalesWidthAndDepthAsTorchvision() {
        // B4 (width 1.4, depth 1.8): a 48-channel stem, ceil(1.8 x (1+2+2+3+3+4+1)) = 32
        // MBConv blocks, each with one SE gate, and a 4 x 448 = 1792-channel head at 12x12.
        const auto net = zooNetwork("efficientnet-b4");
        const NetworkAnalysis a = analyze(*net);
        int gates = 0;
        for (const Layer& l : net->layers)
            gates += l.kind == LayerKind::GlobalPooling && l.name != "avgpool";
        QCOMPARE(gates, 2 + 4 + 4 + 6 + 6 + 8 + 2);
        QCOMPARE(a.layers[1].output, (Dims{48, 190, 190}));
        const std::size_t head = net->layers.size() - 5; // its activation; pool, flatten, ...
        QCOMPARE(a.layers[head].output, (Dims{1792, 12, 12}));
    }

    void torchvisionPoolsRoundUpWhereTorchvisionDoes() {
        // GoogLeNet at 224: ceil pooling 112 -> 56 -> 28 -> 14 -> 7; floor would give 55.
        const auto net = zooNetwork("googlenet");
        const NetworkAnalysis a = analyze(*net);
        for (std::size_t i = 0; i < net->layers.size(); ++i)
            if (net->layers[i].name == "maxpool1")
                QCOMPARE(a.layers[i].output, (Dims{64, 56, 56}));
    }

    void networksFollowTheImageSize() {
        for (const std::string& id : zooIds()) {
            const auto small = zooNetwork(id, 256);
            const auto large = zooNetwork(id, 320);
            QCOMPARE(small->input, (Dims{3, 256, 256}));
            const NetworkAnalysis a = analyze(*small), b = analyze(*large);
            QVERIFY2(a.total_macs < b.total_macs, id.c_str());
            // Global or adaptive pooling keeps the classifier's size; the Caffe and
            // TensorFlow AlexNets flatten whatever their features give, as those do, and
            // ViT has one position embedding per patch.
            if (id == "alexnet-tf" || id == "alexnet-bvlc" || id == "vit-b-16")
                QVERIFY(a.total_params < b.total_params);
            else
                QCOMPARE(a.total_params, b.total_params);
        }
    }

    void aTooSmallImageIsAnInputErrorNamingTheNetwork() {
        // Every reduction of torchvision's ResNets, ResNeXts, MobileNets, EfficientNets and
        // RegNets is padded, so PyTorch (and the zoo) runs them down to a 1x1 input; every
        // other network has an unpadded window (a patch embedding, say) that a 1x1 image
        // cannot fill.
        const std::set<std::string> runs_at_1 = {"resnet18",
                                                 "resnet34",
                                                 "resnet50",
                                                 "resnet101",
                                                 "resnet152",
                                                 "resnet200",
                                                 "mobilenet-v2",
                                                 "resnext50-32x4d",
                                                 "resnext101-32x4d",
                                                 "resnext101-32x8d",
                                                 "se-resnext101-32x4d",
                                                 "wide-resnet50-2",
                                                 "mobilenet-v3-large",
                                                 "efficientnet-b0",
                                                 "efficientnet-b4",
                                                 "efficientnet-v2-s",
                                                 "regnet-y-1.6gf"};
        for (const std::string& id : zooIds()) {
            bool threw = false;
            try {
                zooNetwork(id, 1);
            } catch (const InputError& e) {
                threw = true;
                QVERIFY2(std::string(e.what()).rfind(id + " ", 0) == 0, e.what());
            }
            QVERIFY2(threw != (runs_at_1.count(id) > 0), id.c_str());
        }
        QVERIFY_THROWS_EXCEPTION(InputError, zooNetwork("vgg16", 31));
        QVERIFY(zooNetwork("vgg16", 32).has_value());
    }

    void anAbsurdImageIsAnInputError() {
        QVERIFY_THROWS_EXCEPTION(InputError, zooNetwork("resnet50", -3));
        QVERIFY_THROWS_EXCEPTION(InputError, zooNetwork("resnet50", int64_t{1} << 40));
    }

    void anUnknownIdIsNotAnError() {
        QVERIFY(!zooNetwork("resnet51").has_value());
        QCOMPARE(zooDefaultImage("resnet51"), int64_t{0});
    }

    void adaptivePoolingKeepsTheClassifierAtOddSizes() {
        // torchvision's AlexNet at 300: the features end at 8x8, pooled to 6x6.
        const auto net = zooNetwork("alexnet", 300);
        const NetworkAnalysis a = analyze(*net);
        QCOMPARE(a.total_params, int64_t{61100840});
        // At 100 the features end at 2x2, which PyTorch replicates up to 6x6.
        QCOMPARE(analyze(*zooNetwork("alexnet", 100)).total_params, int64_t{61100840});
    }

    void builderKeepsLayersInTopologicalOrder() {
        NetworkBuilder b("tiny", {3, 8, 8});
        LayerRef x = b.conv("c", b.input(), 4, Conv(3).pad(1));
        LayerRef y = b.relu("r", x);
        b.add("sum", x, y);
        const Network net = std::move(b).build();
        QCOMPARE(net.layers.size(), std::size_t{4});
        QCOMPARE(net.layers[3].inputs, (std::vector<std::size_t>{1, 2}));
        QCOMPARE(net.layers[1].conv.out_channels, int64_t{4});
        QCOMPARE(net.layers[1].conv.pad_left, int64_t{1});
    }

    void builderRejectsDuplicateNames() {
        NetworkBuilder b("dup", {3, 8, 8});
        b.relu("r", b.relu("r", b.input()));
        QVERIFY_THROWS_EXCEPTION(InputError, std::move(b).build());
    }
};

QTEST_APPLESS_MAIN(TestZoo)
#include "tst_zoo.moc"
