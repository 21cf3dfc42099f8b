// iterscope-cli validate with the harness columns (layout, data) and profiles given as paths
// relative to the CSV (shared/validation/README.md), and bf16 on the command line: what a
// user's own measurement file looks like, and the one-line errors when it is wrong.
#include "cli_runner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

CliResult cli(const QStringList& args) {
    qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
    CliResult r = runCli(args);
    if (r.crashed)
        r.exit_code = -1;
    return r;
}

const char kHeader[] = "id,source,network,image,batch_per_gpu,gpu,system,nodes,gpus_per_node,"
                       "precision,software,sync,ps_count,layout,data,metric,measured\n";

QString writeCsv(const QTemporaryDir& dir, const QString& name, const QByteArray& rows) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(kHeader);
    f.write(rows);
    return path;
}

double predictedOf(const CliResult& r, int row) {
    return QJsonDocument::fromJson(r.out)
        .object()["rows"]
        .toArray()[row]
        .toObject()["predicted"]
        .toDouble();
}

} // namespace

class ValidateCli : public QObject {
    Q_OBJECT
  private slots:
    void theMultiNodeFileFindsItsSystemBesideIt() {
        // published-scale.csv names systems/dlperf-dgx1v100-1xedr.json relative to itself;
        // run from elsewhere, it must still be found there.
        QTemporaryDir elsewhere;
        QProcess p;
        p.setWorkingDirectory(elsewhere.path());
        p.start(QStringLiteral(ITERSCOPE_CLI_PATH),
                {"validate", QString(ITERSCOPE_TEST_DATA) + "/published-scale.csv", "--format",
                 "json"});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(o["rows"].toArray().size(), 88);
        QVERIFY(o["mape"].toDouble() > 0);
    }

    void harnessColumnsChangeThePrediction() {
        QTemporaryDir dir;
        // The same PyTorch AMP run, NCHW or channels-last, real or synthetic images.
        const QByteArray base = "r,test,resnet50,224,256,a100-sxm4-80gb,dgx-a100,1,8,amp,pytorch,"
                                "allreduce-nccl,,";
        const QString csv = writeCsv(dir, "harness.csv",
                                     base + "nchw,synthetic,images_per_second,2000\n" + base +
                                         "nhwc,synthetic,images_per_second,2000\n" + base +
                                         ",synthetic,images_per_second,2000\n" + base +
                                         "nchw,real,images_per_second,2000\n");
        const CliResult r = cli({"validate", csv, "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        // Channels-last spares cuDNN its transposes; the default layout is PyTorch's own,
        // NCHW; decoding real images on the host never makes a run faster.
        QVERIFY(predictedOf(r, 1) > predictedOf(r, 0));
        QCOMPARE(predictedOf(r, 2), predictedOf(r, 0));
        QVERIFY(predictedOf(r, 3) <= predictedOf(r, 0));
    }

    void aProfilePathIsTakenBesideTheCsv() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("profiles"));
        QVERIFY(QFile::copy(QString(ITERSCOPE_PROFILES_DIR) + "/gpus/a100-sxm4-80gb.json",
                            dir.filePath("profiles/my-gpu.json")));
        const QString csv =
            writeCsv(dir, "mine.csv",
                     "r,test,resnet50,224,64,profiles/my-gpu.json,dgx-a100,1,1,bf16,pytorch,none,,"
                     ",synthetic,images_per_second,2000\n");
        const CliResult r = cli({"validate", csv, "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(predictedOf(r, 0) > 0);
    }

    void badHarnessFactsAreOneLineAndExitOne_data() {
        QTest::addColumn<QByteArray>("row");
        QTest::addColumn<QString>("says");
        const QByteArray base = "r,test,resnet50,224,64,a100-sxm4-80gb,";
        QTest::newRow("bad layout")
            << base + "dgx-a100,1,1,amp,pytorch,none,,chw,,images_per_second,1\n"
            << "layout";
        QTest::newRow("bad data")
            << base + "dgx-a100,1,1,amp,pytorch,none,,,imagenet,images_per_second,1\n"
            << "data";
        QTest::newRow("missing system path")
            << base + "systems/nowhere.json,1,1,amp,pytorch,none,,,,images_per_second,1\n"
            << "nowhere.json";
        QTest::newRow("bad precision")
            << base + "dgx-a100,1,1,fp8,pytorch,none,,,,images_per_second,1\n"
            << "precision";
    }
    void badHarnessFactsAreOneLineAndExitOne() {
        QFETCH(QByteArray, row);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const QString csv = writeCsv(dir, "bad.csv", row);
        const CliResult r = cli({"validate", csv});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(r.err.contains("bad.csv"), r.err.constData());
        QVERIFY2(r.err.contains(says.toUtf8()), r.err.constData());
    }

    void everyBadRowIsReportedOnALineOfItsOwn() {
        // A person adding many GPUs at once fixes every row in one pass: three bad rows, three
        // lines naming file and line, a count, exit 1.
        QTemporaryDir dir;
        const QByteArray base = "r,test,resnet50,224,64,a100-sxm4-80gb,";
        const QString csv =
            writeCsv(dir, "many.csv",
                     base + "dgx-a100,1,1,fp8,pytorch,none,,,,images_per_second,1\n" + base +
                         "dgx-a100,1,1,amp,pytorch,none,,,,images_per_second,1\n" + base +
                         "dgx-a100,1,1,amp,pytorch,none,,chw,,images_per_second,1\n" + base +
                         "dgx-a100,1,1,amp,pytorch,none,,,,furlongs,1\n");
        const CliResult r = cli({"validate", csv});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 4);
        for (const char* says :
             {"line 2: precision", "line 4: layout", "line 5: metric", "3 bad rows"})
            QVERIFY2(r.err.contains(says), r.err.constData());
    }

    void aRowOnHardwareThatMakesNoSenseCarriesItsWarning() {
        // TF32 on a Turing card: predicted (at the FP32 rate), and the row says why.
        QTemporaryDir dir;
        const QString csv = writeCsv(dir, "t4.csv",
                                     "r,test,resnet50,224,64,t4,workstation-pcie3,1,1,tf32,pytorch,"
                                     "none,,,,images_per_second,"
                                     "100\n");
        const CliResult r = cli({"validate", csv, "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonArray warnings = QJsonDocument::fromJson(r.out)
                                        .object()["rows"]
                                        .toArray()[0]
                                        .toObject()["warnings"]
                                        .toArray();
        QCOMPARE(warnings.size(), 1);
        QVERIFY(warnings[0].toString().contains("TF32"));
    }

    void bf16IsAPrecisionOfPredict() {
        const QStringList scenario{"predict",  "--network", "resnet50", "--gpu",
                                   "h100-sxm", "--system",  "dgx-h100", "--gpus-per-node",
                                   "8",        "--batch",   "128",      "--format",
                                   "json",     "--layout",  "nhwc",     "--precision"};
        const CliResult bf16 = cli(scenario + QStringList{"bf16"});
        const CliResult amp = cli(scenario + QStringList{"amp"});
        QCOMPARE(bf16.exit_code, 0);
        QCOMPARE(amp.exit_code, 0);
        const double t_bf16 = QJsonDocument::fromJson(bf16.out).object()["iteration_ms"].toDouble();
        const double t_amp = QJsonDocument::fromJson(amp.out).object()["iteration_ms"].toDouble();
        // The same tensor-core rate, no loss scaler waiting on the host.
        QVERIFY(t_bf16 > 0 && t_bf16 <= t_amp);
    }
};

QTEST_GUILESS_MAIN(ValidateCli)
#include "tst_validate_cli.moc"
