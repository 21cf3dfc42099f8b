// iterscope-cli compare-trace: the JSON fields DESIGN.md fixes, on the real fixture and a
// synthetic training trace, and one line on stderr with exit status 1 for every bad trace.
#include "cli_runner.h"
#include "gzip_bytes.h"
#include "training_trace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace {

const QString kFixture = ITERSCOPE_TEST_DATA "/traces/a100-alexnet-forward.pt.trace.json.gz";

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& bytes) {
    const QString path = dir.filePath(name);
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << bytes;
    return path;
}

} // namespace

class CompareTraceCli : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void theFixtureComparesWithTheFixedJsonFields() {
        const CliResult r = runCli({"compare-trace", kFixture, "--network", "alexnet", "--batch",
                                    "128", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData()); // the batch was given: nothing assumed
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        for (const char* key : {"gpu", "steps", "measured_step_ms", "predicted_step_ms",
                                "layers_matched", "layers", "unmatched_ops"})
            QVERIFY2(j.contains(key), key);
        const QJsonObject fixture =
            QJsonDocument::fromJson(QByteArray::fromStdString(gunzipFile(kFixture.toStdString())))
                .object();
        QCOMPARE(j["gpu"].toString(),
                 fixture["deviceProperties"].toArray()[0].toObject()["name"].toString());
        QCOMPARE(j["gpu_profile"].toString(), QString("a100-sxm4-40gb"));
        QCOMPARE(j["steps"].toInt(), 1);
        QVERIFY(j["measured_step_ms"].toDouble() > 0);
        QVERIFY(j["predicted_step_ms"].toDouble() > 0);
        int convs = 0, linears = 0;
        for (const QJsonValue& v : j["layers"].toArray()) {
            const QJsonObject l = v.toObject();
            for (const char* key : {"name", "kind", "measured_ms", "predicted_ms"})
                QVERIFY2(l.contains(key), key);
            if (l["kind"] == "conv" || l["kind"] == "linear") {
                QCOMPARE(l["match"].toString(), QString("one-to-one"));
                QVERIFY(l["measured_ms"].toDouble() > 0);
                (l["kind"] == "conv" ? convs : linears) += 1;
            }
        }
        QCOMPARE(convs, 5);
        QCOMPARE(linears, 3);
        QVERIFY(j["layers_matched"].toInt() >= 8);
    }

    void theTableSaysWhatWasAssumed() {
        const CliResult r = runCli({"compare-trace", kFixture, "--network", "alexnet"});
        QCOMPARE(r.exit_code, 0);
        // The fixture recorded no shapes and made its input on the GPU: the batch is a guess.
        QCOMPARE(r.errLines(), 1);
        QVERIFY(r.err.contains("pass --batch"));
        QVERIFY(r.out.contains("Per layer"));
        QVERIFY(r.out.contains("assumed"));
    }

    void aTrainingTraceNamesItsGpuBatchAndPasses() {
        QTemporaryDir dir;
        TrainingTraceOptions o;
        o.steps = 2;
        o.batch = 32;
        const QString path =
            writeFile(dir, "train.pt.trace.json.gz", gzipBytes(alexnetTrainingTrace(o).json));
        const CliResult r =
            runCli({"compare-trace", path, "--network", "alexnet", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["gpu"].toString(), QString::fromStdString(o.gpu_name));
        QCOMPARE(j["gpu_profile"].toString(), QString("h100-sxm"));
        QCOMPARE(j["steps"].toInt(), 2);
        QVERIFY(j["training"].toBool());
        QCOMPARE(j["scenario"].toObject()["batch_per_gpu"].toInt(), 32);
        QCOMPARE(j["scenario"].toObject()["gpus_per_node"].toInt(), 2);
        QStringList passes;
        for (const QJsonValue& p : j["passes"].toArray())
            passes << p.toObject()["pass"].toString();
        for (const char* p : {"forward", "backward", "communication", "optimizer", "input"})
            QVERIFY2(passes.contains(p), p);
    }

    void badTracesAreOneLineAndExitOne_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("problem");
        const std::string good = alexnetTrainingTrace({}).json;
        const std::string gz = gzipBytes(good);
        QTest::newRow("not JSON") << "a.json" << QByteArray("<html>no</html>")
                                  << "not a JSON trace";
        QTest::newRow("no kernels")
            << "b.json"
            << QByteArray(
                   R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})")
            << "no GPU kernels";
        QTest::newRow("truncated gz")
            << "c.json.gz" << QByteArray::fromStdString(gz.substr(0, gz.size() / 2))
            << "truncated gzip";
        QTest::newRow("unknown GPU") << "d.json" << QByteArray::fromStdString([&] {
            TrainingTraceOptions o;
            o.gpu_name = "Imaginary GPU";
            o.sms = 3;
            return alexnetTrainingTrace(o).json;
        }()) << "matches no GPU profile";
    }
    void badTracesAreOneLineAndExitOne() {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString path = writeFile(dir, name, bytes.toStdString());
        const CliResult r = runCli({"compare-trace", path, "--network", "alexnet"});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(r.err.contains(path.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(problem.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void aMissingFileOrNetworkIsOneLine() {
        CliResult r = runCli({"compare-trace", "/nonexistent.json", "--network", "alexnet"});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY(r.err.contains("/nonexistent.json"));
        r = runCli({"compare-trace", kFixture});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY(r.err.contains("--network"));
    }

    void aGivenGpuWinsOverTheTrace() {
        const CliResult r = runCli({"compare-trace", kFixture, "--network", "alexnet", "--batch",
                                    "128", "--gpu", "h100-sxm", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["gpu_profile"].toString(),
                 QString("h100-sxm"));
    }
};

QTEST_APPLESS_MAIN(CompareTraceCli)
#include "tst_compare_trace_cli.moc"
