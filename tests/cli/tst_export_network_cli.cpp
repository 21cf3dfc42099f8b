// iterscope-cli export-network: writes the JSON network format, to stdout or atomically to
// a file, and what it writes reads back with the same figures.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

class ExportNetworkCliTest : public QObject {
    Q_OBJECT

    static QJsonObject layersJson(const QString& network, const QStringList& extra = {}) {
        const CliResult r = runCli(QStringList{"layers", network, "--format", "json"} + extra);
        if (r.exit_code != 0)
            qWarning("%s", r.err.constData());
        return QJsonDocument::fromJson(r.out).object();
    }

  private slots:
    void writesTheFormatToStandardOutput() {
        const CliResult r = runCli({"export-network", "googlenet"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.err.isEmpty());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o["format"].toString(), QStringLiteral("iterscope-network"));
        QCOMPARE(o["version"].toInt(), 1);
        QCOMPARE(o["name"].toString(), QStringLiteral("googlenet"));
        QCOMPARE(o["input"].toArray(), (QJsonArray{3, 224, 224}));
        QVERIFY(o["layers"].toArray().size() > 100);
    }

    void anExportedFileReadsBackWithTheSameFigures() {
        QTemporaryDir dir;
        const QString path = dir.filePath("r50.json");
        const CliResult r =
            runCli({"export-network", "resnet50-v1", "--image", "192", "--out", path});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFile::exists(path + ".tmp"));
        const QJsonObject original = layersJson("resnet50-v1", {"--image", "192", "--batch", "8"});
        const QJsonObject exported = layersJson(path, {"--batch", "8"});
        QVERIFY(!original.isEmpty());
        for (const char* key : {"params", "macs", "fwd_flops", "bwd_flops", "activation_bytes"})
            QCOMPARE(exported[key].toInteger(), original[key].toInteger());
        QCOMPARE(exported["layers"].toArray(), original["layers"].toArray());
    }

    void anImportedFileExportsToo() {
        QTemporaryDir dir;
        const QString path = dir.filePath("alexnet.json");
        const QString caffe =
            QStringLiteral(ITERSCOPE_TEST_DATA "/caffe/bvlc_alexnet.deploy.prototxt");
        QCOMPARE(runCli({"export-network", caffe, "--out", path}).exit_code, 0);
        QCOMPARE(layersJson(path)["params"].toInteger(), layersJson(caffe)["params"].toInteger());
    }

    void aFailedExportKeepsTheOldFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("keep.json");
        QCOMPARE(runCli({"export-network", "alexnet", "--out", path}).exit_code, 0);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        const CliResult r = runCli({"export-network", "vgg16", "--image", "16", "--out", path});
        QCOMPARE(r.exit_code, 1);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
    }

    void badInputIsOneLineAndExitOne_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown id") << QStringList{"export-network", "resnet51"} << "resnet51";
        QTest::newRow("image too small")
            << QStringList{"export-network", "vgg16", "--image", "16"} << "vgg16";
        QTest::newRow("image not a number")
            << QStringList{"export-network", "vgg16", "--image", "big"} << "--image";
        QTest::newRow("negative image")
            << QStringList{"export-network", "vgg16", "--image", "-4"} << "--image";
        QTest::newRow("unwritable output")
            << QStringList{"export-network", "alexnet", "--out", "/nonexistent-dir/x.json"}
            << "/nonexistent-dir/x.json";
        QTest::newRow("no network") << QStringList{"export-network"} << "network";
    }

    void badInputIsOneLineAndExitOne() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const CliResult r = runCli(args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(QString::fromUtf8(r.err).contains(mentions), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(ExportNetworkCliTest)
#include "tst_export_network_cli.moc"
