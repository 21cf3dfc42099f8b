// iterscope-cli fit: the JSON fields DESIGN.md fixes, a written profile that --software
// loads, and one line with exit status 1 and nothing written for every bad input.
#include "cli_runner.h"
#include "gzip_bytes.h"
#include "training_trace.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace {

const QString kHeader = "id,source,network,image,batch_per_gpu,gpu,system,nodes,gpus_per_node,"
                        "precision,software,sync,ps_count,metric,measured\n";

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& bytes) {
    const QString path = dir.filePath(name);
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << bytes;
    return path;
}

// Two runs of one's own: ResNet-50 on one A100, TF32 and AMP.
QString twoRows(const QTemporaryDir& dir, const QString& amp_measured = "2470") {
    return writeFile(dir, "mine.csv",
                     (kHeader +
                      "r1,me,resnet50,224,256,a100-sxm4-80gb,dgx-a100,1,1,tf32,pytorch,none,,"
                      "images_per_second,938\n"
                      "r2,me,resnet50,224,256,a100-sxm4-80gb,dgx-a100,1,1,amp,pytorch,none,,"
                      "images_per_second," +
                      amp_measured + "\n")
                         .toStdString());
}

} // namespace

class FitCli : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void aFitWritesAProfileThatPredictLoads() {
        QTemporaryDir dir;
        const QString out = dir.filePath("my-pytorch.json");
        const CliResult r = runCli({"fit", "--measurements", twoRows(dir), "--software", "pytorch",
                                    "--out", out, "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        for (const char* key :
             {"rows", "mape_before", "mape_after", "mape_leave_one_out", "parameters", "out"})
            QVERIFY2(j.contains(key), key);
        QCOMPARE(j["rows"].toInt(), 2);
        QCOMPARE(j["out"].toString(), out);
        QVERIFY(j["mape_after"].toDouble() < j["mape_before"].toDouble());
        QVERIFY(j["parameters"].toObject().contains("tensor_core_efficiency"));

        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject profile = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(profile["id"].toString(), QString("my-pytorch"));
        QVERIFY(profile["source"].toString().startsWith("FITTED by iterscope-cli fit at "));
        QVERIFY(profile["source"].toString().contains("mine.csv"));
        QCOMPARE(profile["error_band"].toObject()["rows"].toInt(), 2);
        QCOMPARE(profile["tensor_core_efficiency"].toDouble(),
                 j["parameters"].toObject()["tensor_core_efficiency"].toDouble());

        // The fitted profile predicts the AMP row closer than the base did.
        const auto amp = [&](const QString& software) {
            const CliResult p =
                runCli({"predict", "--network", "resnet50", "--gpu", "a100-sxm4-80gb", "--system",
                        "dgx-a100", "--gpus-per-node", "1", "--batch", "256", "--precision", "amp",
                        "--software", software, "--format", "json"});
            return QJsonDocument::fromJson(p.out).object()["images_per_second"].toDouble();
        };
        QVERIFY(qAbs(amp(out) - 2470) < qAbs(amp("pytorch") - 2470));
    }

    void theJsonSaysWhichGpusItMeasuredAndWhatOthersCarry() {
        QTemporaryDir dir;
        const QString out = dir.filePath("mine-a100.json");
        const CliResult r = runCli({"fit", "--measurements", twoRows(dir), "--harness-share", "0",
                                    "--out", out, "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["gpus"].toArray().size(), 1);
        QCOMPARE(j["gpus"].toArray()[0].toString(), QString("a100-sxm4-80gb"));
        QCOMPARE(j["harness_share"].toDouble(), 0.0);
        // Nothing carried: the profile's shared values are the base's, the A100 keeps its own.
        const QJsonObject carried = j["parameters"].toObject();
        const QJsonObject base = j["base_parameters"].toObject();
        for (const QString& field : carried.keys())
            QCOMPARE(carried[field].toDouble(), base[field].toDouble());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject written = QJsonDocument::fromJson(file.readAll()).object();
        const QJsonObject own = written["gpu_corrections"].toObject()["a100-sxm4-80gb"].toObject();
        QVERIFY(own.contains("tf32") && own.contains("amp"));
        // It says what it was fitted to, for the GUI's note and its comparison with the base.
        const QJsonObject fitted_to = written["fitted_to"].toObject();
        QCOMPARE(fitted_to["base"].toString(), QString("pytorch"));
        QCOMPARE(fitted_to["rows"].toInt(), 2);
        QCOMPARE(fitted_to["gpus"].toArray()[0].toString(), QString("a100-sxm4-80gb"));
        QCOMPARE(fitted_to["harness_share"].toDouble(), 0.0);
        // Another GPU predicts exactly as with the base.
        const auto v100 = [&](const QString& software) {
            return runCli({"predict", "--network", "resnet50", "--gpu", "v100-sxm2-16gb",
                           "--system", "dgx1-v100", "--gpus-per-node", "1", "--batch", "128",
                           "--precision", "amp", "--software", software, "--format", "json"})
                .out;
        };
        QCOMPARE(QJsonDocument::fromJson(v100(out)).object()["images_per_second"].toDouble(),
                 QJsonDocument::fromJson(v100("pytorch")).object()["images_per_second"].toDouble());
        // The table says what it carries; a share outside 0..1 is refused.
        const CliResult table = runCli({"fit", "--measurements", twoRows(dir), "--harness-share",
                                        "0.25", "--out", dir.filePath("t.json")});
        QCOMPARE(table.exit_code, 0);
        QVERIFY2(table.out.contains("carried to every GPU: 25%"), table.out.constData());
        QVERIFY(table.out.contains("kept for this GPU only"));
        QCOMPARE(runCli({"fit", "--measurements", twoRows(dir), "--harness-share", "1.5", "--out",
                         dir.filePath("u.json")})
                     .exit_code,
                 1);
    }

    void theTableNamesWhatWasWritten() {
        QTemporaryDir dir;
        const QString out = dir.filePath("fitted.json");
        const CliResult r = runCli({"fit", "--measurements", twoRows(dir), "--out", out});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.out.contains("wrote " + out.toUtf8()));
        QVERIFY(r.out.contains("leaving one row out"));
    }

    void badInputIsOneLineAndWritesNothing_data() {
        QTest::addColumn<QString>("rows");
        QTest::addColumn<QString>("problem");
        QTest::newRow("unknown GPU") << "r1,me,resnet50,224,64,no-such-gpu,dgx-a100,1,1,amp,"
                                        "pytorch,none,,images_per_second,900\n"
                                     << "no-such-gpu";
        QTest::newRow("unknown network") << "r1,me,no-such-net,224,64,a100-sxm4-80gb,dgx-a100,1,1,"
                                            "amp,pytorch,none,,images_per_second,900\n"
                                         << "no-such-net";
        QTest::newRow("out of memory") << "r1,me,resnet50,224,40000,a100-sxm4-80gb,dgx-a100,1,1,"
                                          "amp,pytorch,none,,images_per_second,900\n"
                                       << "does not fit";
        QTest::newRow("past a bound") << "r1,me,resnet50,224,256,a100-sxm4-80gb,dgx-a100,1,1,amp,"
                                         "pytorch,none,,images_per_second,90000\n"
                                      << "past the bound";
        QTest::newRow("no rows") << ""
                                 << "no measurement rows";
    }
    void badInputIsOneLineAndWritesNothing() {
        QFETCH(QString, rows);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString csv = writeFile(dir, "bad.csv", (kHeader + rows).toStdString());
        const QString out = dir.filePath("out.json");
        const CliResult r = runCli({"fit", "--measurements", csv, "--out", out});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(r.err.contains(csv.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(problem.toUtf8()), r.err.constData());
        QVERIFY(!QFile::exists(out));
        QVERIFY(!QFile::exists(out + ".tmp"));
    }

    void anInferenceTraceCannotFitAndWritesNothing() {
        QTemporaryDir dir;
        const QString trace = ITERSCOPE_TEST_DATA "/traces/a100-alexnet-forward.pt.trace.json.gz";
        const QString out = dir.filePath("out.json");
        const CliResult r = runCli(
            {"fit", "--trace", trace, "--network", "alexnet", "--batch", "128", "--out", out});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(r.err.contains(trace.toUtf8()) && r.err.contains("forward-only"),
                 r.err.constData());
        QVERIFY(!QFile::exists(out));
    }

    void aTrainingTraceFitsAndItsProfileLoads() {
        QTemporaryDir dir;
        const QString trace =
            writeFile(dir, "train.json.gz", gzipBytes(alexnetTrainingTrace({}).json));
        const QString out = dir.filePath("from-trace.json");
        const CliResult r = runCli(
            {"fit", "--trace", trace, "--network", "alexnet", "--out", out, "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QVERIFY(j["rows"].toInt() >= 16); // a forward and a backward item per matched layer
        QVERIFY(j["mape_after"].toDouble() <= j["mape_before"].toDouble());
        const CliResult p = runCli({"predict", "--network", "alexnet", "--gpu", "h100-sxm",
                                    "--system", "dgx-h100", "--software", out, "--format", "json"});
        QCOMPARE(p.exit_code, 0);
    }

    void theModesAndTheirFlagsAreChecked() {
        QTemporaryDir dir;
        const QString out = dir.filePath("o.json");
        CliResult r = runCli({"fit", "--out", out});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        r = runCli({"fit", "--measurements", twoRows(dir), "--gpu", "h100-sxm", "--out", out});
        QCOMPARE(r.exit_code, 1);
        QVERIFY(r.err.contains("--gpu applies to --trace"));
        r = runCli(
            {"fit", "--measurements", twoRows(dir), "--parameters", "sm_count", "--out", out});
        QCOMPARE(r.exit_code, 1);
        QVERIFY(r.err.contains("--parameters"));
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_APPLESS_MAIN(FitCli)
#include "tst_fit_cli.moc"
