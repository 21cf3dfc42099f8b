// iterscope-cli networks / layers: output formats and exit codes (DESIGN.md interfaces).
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

class LayersCliTest : public QObject {
    Q_OBJECT
  private slots:
    void networksListsEveryZooIdOneALine() {
        const CliResult r = runCli({"networks"});
        QCOMPARE(r.exit_code, 0);
        const QStringList ids = QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(ids.size(), 32);
        for (const char* id : {"alexnet",
                               "alexnet-tf",
                               "alexnet-bvlc",
                               "vgg16",
                               "vgg19",
                               "googlenet",
                               "inception-v3",
                               "resnet18",
                               "resnet34",
                               "resnet50",
                               "resnet101",
                               "resnet152",
                               "resnet200",
                               "resnet50-v1",
                               "resnet101-v1",
                               "resnet152-v1",
                               "resnext50-32x4d",
                               "resnext101-32x4d",
                               "resnext101-32x8d",
                               "se-resnext101-32x4d",
                               "wide-resnet50-2",
                               "densenet121",
                               "squeezenet1.0",
                               "mobilenet-v2",
                               "mobilenet-v3-large",
                               "efficientnet-b0",
                               "efficientnet-b4",
                               "efficientnet-v2-s",
                               "regnet-y-1.6gf",
                               "convnext-tiny",
                               "vit-b-16",
                               "swin-t"})
            QVERIFY2(ids.contains(QString::fromLatin1(id)), id);
        for (const QString& line : ids)
            QVERIFY2(!line.contains(' '), qPrintable(line)); // nothing but the id
    }

    void networksTableGroupsByFamily() {
        const CliResult r = runCli({"networks", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonArray all = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(all.size(), 32);
        QStringList families;
        for (const QJsonValue& v : all) {
            const QString family = v["family"].toString();
            QVERIFY(!family.isEmpty());
            if (families.isEmpty() || families.back() != family) {
                QVERIFY2(!families.contains(family), qPrintable(family)); // adjacent
                families << family;
            }
            if (v["id"].toString() == "vit-b-16") {
                QCOMPARE(v["params"].toInteger(), qint64{86567656});
                QCOMPARE(v["image"].toInteger(), qint64{224});
            }
        }
        QVERIFY(families.contains("Swin Transformer"));
        const CliResult table = runCli({"networks", "--format", "table"});
        QCOMPARE(table.exit_code, 0);
        QVERIFY(table.out.contains("Vision Transformer"));
        QVERIFY(table.out.contains("efficientnet-v2-s"));
    }

    void layersJsonHasParamsMacsAndLayers() {
        const CliResult r = runCli({"layers", "resnet50", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o["params"].toInteger(), qint64{25557032});
        const double macs = static_cast<double>(o["macs"].toInteger());
        QVERIFY(std::abs(macs / 4089184256.0 - 1) < 0.005);
        QVERIFY(o["layers"].toArray().size() > 100);
        const QJsonObject first = o["layers"].toArray().at(1).toObject();
        QVERIFY(first.contains("output_shape"));
        QVERIFY(first.contains("fwd_flops"));
    }

    void batchScalesMacsButNotParams() {
        const auto one =
            QJsonDocument::fromJson(runCli({"layers", "resnet18", "--format", "json"}).out)
                .object();
        const auto four =
            QJsonDocument::fromJson(
                runCli({"layers", "resnet18", "--batch", "4", "--format", "json"}).out)
                .object();
        QCOMPARE(four["macs"].toInteger(), 4 * one["macs"].toInteger());
        QCOMPARE(four["params"].toInteger(), one["params"].toInteger());
        const auto fp16 =
            QJsonDocument::fromJson(
                runCli({"layers", "resnet18", "--precision", "fp16", "--format", "json"}).out)
                .object();
        QCOMPARE(fp16["activation_bytes"].toInteger() * 2, one["activation_bytes"].toInteger());
    }

    void tableReadsLikeASummaryWithTotals() {
        const CliResult r = runCli({"layers", "vgg16"});
        QCOMPARE(r.exit_code, 0);
        const QString text = QString::fromUtf8(r.out);
        QVERIFY(text.contains("Output shape"));
        QVERIFY(text.contains("Total"));
        QVERIFY(text.contains("138,357,544"));
        // Columns are aligned: every data row is as long as or shorter than the rule.
        const QStringList lines = text.split('\n');
        const auto rule = std::find_if(lines.begin(), lines.end(),
                                       [](const QString& l) { return l.startsWith("-----"); });
        QVERIFY(rule != lines.end());
    }

    void csvHasAHeaderAndARowPerLayer() {
        const CliResult r = runCli({"layers", "alexnet", "--format", "csv"});
        QCOMPARE(r.exit_code, 0);
        const QStringList lines = QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.first().startsWith("index,name,type"));
        const auto json =
            QJsonDocument::fromJson(runCli({"layers", "alexnet", "--format", "json"}).out).object();
        QCOMPARE(lines.size() - 1, json["layers"].toArray().size());
    }

    void imageChangesTheShapes() {
        const auto small =
            QJsonDocument::fromJson(
                runCli({"layers", "resnet50", "--image", "112", "--format", "json"}).out)
                .object();
        QVERIFY(small["macs"].toInteger() < 4089184256 / 3);
        QCOMPARE(small["params"].toInteger(), qint64{25557032});
    }

    void badInputExitsOneWithOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown network") << QStringList{"layers", "no-such-net"};
        QTest::newRow("batch 0") << QStringList{"layers", "resnet50", "--batch", "0"};
        QTest::newRow("negative batch") << QStringList{"layers", "resnet50", "--batch", "-3"};
        QTest::newRow("non-numeric batch") << QStringList{"layers", "resnet50", "--batch", "abc"};
        QTest::newRow("image too small") << QStringList{"layers", "vgg16", "--image", "16"};
        QTest::newRow("image negative") << QStringList{"layers", "resnet50", "--image", "-224"};
        QTest::newRow("unknown format") << QStringList{"layers", "resnet50", "--format", "xml"};
        QTest::newRow("missing file") << QStringList{"layers", "/nonexistent/net.onnx"};
        QTest::newRow("no command") << QStringList{};
        QTest::newRow("unknown command") << QStringList{"frobnicate"};
    }
    void badInputExitsOneWithOneLine() {
        QFETCH(QStringList, args);
        const CliResult r = runCli(args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY(r.err.startsWith("iterscope-cli: "));
    }

    void aFileWithTheWrongContentSaysSo() {
        QTemporaryDir dir;
        const QString path = dir.filePath("net.onnx");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"iterscope-network\"}");
        f.close();
        const CliResult r = runCli({"layers", path});
        QCOMPARE(r.exit_code, 1);
        QVERIFY(r.err.contains("net.onnx"));
        QVERIFY(r.err.contains("JSON"));
    }

    void bytesOfABinaryFileAreEscapedInTheErrorLine() {
        // The JSON parser quotes what it last read; raw, a 0x85 byte (a C1 control in
        // Latin-1 terminals) and a NUL would reach the terminal.
        QTemporaryDir dir;
        const QString path = dir.filePath("binary.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        static constexpr char kBytes[] = "{\"format\": \x85\x01\x00\x7f}";
        f.write(QByteArray(kBytes, sizeof kBytes - 1)); // the NUL inside is data
        f.close();
        const CliResult r = runCli({"layers", path});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(r.err.contains("\\x85"), r.err.constData());
        for (char c : r.err.chopped(1)) // all but the final newline: printable ASCII
            QVERIFY2(c >= 0x20 && c < 0x7f, r.err.constData());
    }
};

QTEST_GUILESS_MAIN(LayersCliTest)
#include "tst_layers_cli.moc"
