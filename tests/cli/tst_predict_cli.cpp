// iterscope-cli predict / sweep / validate / trace as outside checks run them (DESIGN.md
// "Interfaces"): JSON field names, one row per sweep combination, one-line errors.
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace {

// Every child process reads the test's own profiles.
CliResult cli(const QStringList& args) {
    qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
    CliResult r = runCli(args);
    if (r.crashed)
        r.exit_code = -1; // never taken for a clean exit, whatever the signal
    return r;
}

const QStringList kScenario{"--network", "resnet50",        "--gpu", "v100-sxm2-16gb", "--system",
                            "dgx1-v100", "--gpus-per-node", "8",     "--batch",        "64"};

} // namespace

class PredictCli : public QObject {
    Q_OBJECT
  private slots:
    void predictJsonHasTheDocumentedFields() {
        const CliResult r =
            cli(QStringList{"predict"} + kScenario + QStringList{"--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char* key :
             {"iteration_ms", "images_per_second", "forward_ms", "backward_ms", "update_ms",
              "communication_ms", "exposed_communication_ms", "memory_per_gpu_bytes",
              "fits_in_memory", "layers", "timeline", "max_batch_that_fits", "allreduce_algorithm"})
            QVERIFY2(o.contains(key), key);
        QVERIFY(o["iteration_ms"].toDouble() > 0);
        QVERIFY(o["layers"].toArray().size() > 50);
        QVERIFY(o["timeline"].toArray().size() > 50);
        QCOMPARE(o["allreduce_algorithm"].toString(), QString("ring"));
    }

    void withoutGpusPerNodeANodeIsUsedWhole() {
        // A 4-GPU workstation used to fail ("holds 4 GPU(s) per node, not 8"): the default is
        // now the system's own node.
        auto gpus = [](const QString& system) {
            const CliResult r = cli({"predict", "--network", "resnet50", "--gpu", "a100-pcie",
                                     "--system", system, "--batch", "32", "--format", "json"});
            if (r.exit_code != 0)
                return -1;
            return QJsonDocument::fromJson(r.out)
                .object()["scenario"]
                .toObject()["gpus_per_node"]
                .toInt();
        };
        QCOMPARE(gpus("workstation-pcie4"), 4);
        QCOMPARE(gpus("cluster-100gbe"), 8);
    }

    void aCardWithoutNvlinkInAnNvlinkSystemTalksOverPcieAndSaysSo() {
        // RTX 3090s in a DGX-1: the all-reduce once took 0.12 ms over links the card does
        // not have, against 16 ms in a PCIe workstation.
        auto run = [](const QString& system) {
            return cli({"predict", "--network", "resnet50", "--gpu", "rtx3090", "--system", system,
                        "--gpus-per-node", "4", "--batch", "64", "--format", "json"});
        };
        const CliResult dgx = run("dgx1-v100");
        const CliResult ws = run("workstation-pcie3");
        QCOMPARE(dgx.exit_code, 0);
        QCOMPARE(ws.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(dgx.out).object();
        const double comm = o["communication_ms"].toDouble();
        const double ws_comm =
            QJsonDocument::fromJson(ws.out).object()["communication_ms"].toDouble();
        QVERIFY2(comm > 0.25 * ws_comm,
                 qPrintable(QStringLiteral("%1 vs %2").arg(comm).arg(ws_comm)));
        bool said = false;
        for (const QJsonValue& w : o["warnings"].toArray())
            said = said || w.toString().contains("PCIe");
        QVERIFY(said);
        QVERIFY2(dgx.err.contains("warning"), dgx.err.constData());
        // A scenario with nothing odd has no warnings.
        const CliResult plain =
            cli(QStringList{"predict"} + kScenario + QStringList{"--format", "json"});
        QCOMPARE(QJsonDocument::fromJson(plain.out).object()["warnings"].toArray().size(), 0);
    }

    void predictJsonCarriesItsErrorBand() {
        const CliResult r =
            cli(QStringList{"predict"} + kScenario + QStringList{"--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const double t = o["iteration_ms"].toDouble(), ips = o["images_per_second"].toDouble();
        const double t_low = o["iteration_ms_low"].toDouble(),
                     t_high = o["iteration_ms_high"].toDouble();
        const double i_low = o["images_per_second_low"].toDouble(),
                     i_high = o["images_per_second_high"].toDouble();
        QVERIFY(t_low > 0 && t_low < t_high);
        QVERIFY(i_low > 0 && i_low < i_high);
        // The same band both ways: time x throughput is the images of one iteration.
        QVERIFY(qAbs(t_low * i_high - t * ips) < 1e-6 * t * ips);
        QVERIFY(qAbs(t_high * i_low - t * ips) < 1e-6 * t * ips);
        QVERIFY(o["error_band"].toObject()["rows"].toInt() >= 6);
        // Symmetric in log space: it holds the prediction, as far below as above in ratio.
        QVERIFY(t_low < t && t < t_high);
        QVERIFY(qAbs(t_low * t_high - t * t) < 1e-6 * t * t);
        QVERIFY(o["error_band"].toObject().contains("extrapolated"));
        QVERIFY(o.contains("input_bound"));
        QVERIFY(o.contains("straggler_ms"));
    }

    void layoutAndDataChoicesReachThePrediction() {
        auto ms = [&](const QStringList& extra) {
            const CliResult r = cli(QStringList{"predict"} + kScenario +
                                    QStringList{"--precision", "amp", "--format", "json"} + extra);
            const QJsonObject o = QJsonDocument::fromJson(r.out).object();
            return o["iteration_ms"].toDouble();
        };
        // NCHW half-precision convolutions pay for transposes; real data can only add waiting.
        QVERIFY(ms({"--layout", "nchw"}) > ms({"--layout", "nhwc"}));
        QVERIFY(ms({"--data", "real"}) >= ms({"--data", "synthetic"}));
        const CliResult bad =
            cli(QStringList{"predict"} + kScenario + QStringList{"--layout", "nwhc"});
        QCOMPARE(bad.exit_code, 1);
        QVERIFY(bad.err.contains("--layout"));
    }

    void sweepGivesOneRowPerCombination() {
        const CliResult r = cli({"sweep", "--network", "resnet50", "--gpu", "v100-sxm2-16gb",
                                 "--system", "cluster-25gbe", "--nodes", "1,2", "--gpus-per-node",
                                 "1,4,8", "--batch", "32,64", "--format", "csv"});
        QCOMPARE(r.exit_code, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + 12);
        QVERIFY(lines[0].startsWith("nodes,gpus_per_node"));
        const CliResult j = cli(
            {"sweep", "--network", "resnet50", "--gpus-per-node", "1,2,4,8", "--format", "json"});
        QCOMPARE(j.exit_code, 0);
        QCOMPARE(QJsonDocument::fromJson(j.out).object()["rows"].toArray().size(), 4);
    }

    void validateReportsRowsAndMape() {
        const CliResult r =
            cli({"validate", QString(ITERSCOPE_TEST_DATA) + "/published.csv", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonArray rows = o["rows"].toArray();
        QVERIFY(rows.size() > 100);
        for (const char* key : {"id", "predicted", "measured", "ape", "fits_in_memory"})
            QVERIFY2(rows[0].toObject().contains(key), key);
        QVERIFY(o["mape"].toDouble() > 0);
        QVERIFY(!o["groups"].toArray().isEmpty());
    }

    void traceWritesChromeTraceEvents() {
        QTemporaryDir dir;
        const QString path = dir.filePath("t.json");
        const CliResult r = cli(QStringList{"trace"} + kScenario + QStringList{"--out", path});
        QCOMPARE(r.exit_code, 0);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonArray events = o["traceEvents"].toArray();
        QVERIFY(events.size() > 100);
        bool complete = false;
        for (const auto& e : events)
            complete = complete || e.toObject()["ph"].toString() == "X";
        QVERIFY(complete);
    }

    void parallelStrategiesReportTheirFields() {
        const QStringList pipeline{"--parallel",      "pipeline", "--pipeline-stages", "4",
                                   "--micro-batches", "8",        "--schedule",        "gpipe"};
        const CliResult r =
            cli(QStringList{"predict"} + kScenario + pipeline + QStringList{"--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o["parallel"].toString(), QString("pipeline"));
        QCOMPARE(o["pipeline_stages"].toInt(), 4);
        QCOMPARE(o["micro_batches"].toInt(), 8);
        // GPipe's ideal bubble is (P - 1) / (M + P - 1) of the iteration; transfers and
        // unequal stages only add to the busiest stage's idle time.
        const double iteration = o["iteration_ms"].toDouble();
        QVERIFY(o["pipeline_bubble_ms"].toDouble() >= 0.9 * iteration * 3.0 / 11.0);
        QVERIFY(o["pipeline_bubble_ms"].toDouble() < iteration);
        QVERIFY(o["exchanged_bytes_per_gpu"].toDouble() > 0);
        for (const char* key :
             {"memory_per_gpu_bytes", "fits_in_memory", "iteration_ms", "images_per_second"})
            QVERIFY2(o.contains(key), key);
        QCOMPARE(o["gpu_groups"].toArray().size(), 4);

        // Data parallelism on the same GPUs: no bubble, and ZeRO-3 holds less per GPU.
        const auto json = [&](const QStringList& extra) {
            const CliResult run =
                cli(QStringList{"predict"} + kScenario + extra + QStringList{"--format", "json"});
            return QJsonDocument::fromJson(run.out).object();
        };
        const QJsonObject data = json({"--parallel", "data"});
        const QJsonObject zero3 = json({"--parallel", "zero3"});
        QCOMPARE(data["pipeline_bubble_ms"].toDouble(), 0.0);
        QVERIFY(zero3["memory_per_gpu_bytes"].toDouble() < data["memory_per_gpu_bytes"].toDouble());
        QCOMPARE(json({})["iteration_ms"].toDouble(), data["iteration_ms"].toDouble());
    }

    // Issue 31: the table's lines added up to 280.2 ms against its own 275.05 ms for a
    // four-stage 1F1B pipeline. The JSON's breakdown and the table's lines are the parts
    // the GUI's summary shows (core/model/breakdown.h): they sum to the iteration.
    void theBreakdownAddsUpToTheIteration_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::newRow("data") << QStringList{};
        QTest::newRow("pipeline 1f1b") << QStringList{
            "--parallel", "pipeline", "--pipeline-stages", "4", "--schedule", "1f1b"};
        QTest::newRow("pipeline gpipe") << QStringList{
            "--parallel", "pipeline", "--pipeline-stages", "2", "--schedule", "gpipe"};
        QTest::newRow("zero3") << QStringList{"--parallel", "zero3"};
        QTest::newRow("hybrid") << QStringList{"--parallel", "hybrid"};
        QTest::newRow("ps-cpu") << QStringList{"--sync", "ps-cpu"};
        QTest::newRow("ps-async") << QStringList{"--sync", "ps-async"};
        QTest::newRow("no overlap") << QStringList{"--overlap", "off"};
    }
    void theBreakdownAddsUpToTheIteration() {
        QFETCH(QStringList, flags);
        const CliResult json =
            cli(QStringList{"predict"} + kScenario + flags + QStringList{"--format", "json"});
        QCOMPARE(json.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        const double iteration = o["iteration_ms"].toDouble();
        QVERIFY(iteration > 0);
        const QJsonObject breakdown = o["breakdown"].toObject();
        QVERIFY(breakdown.contains("forward_ms") && breakdown.contains("idle_ms"));
        double sum = 0;
        for (auto it = breakdown.begin(); it != breakdown.end(); ++it) {
            QVERIFY2(it.value().toDouble() >= 0, qPrintable(it.key()));
            sum += it.value().toDouble();
        }
        QVERIFY2(std::abs(sum - iteration) <= 1e-9 * iteration,
                 qPrintable(QStringLiteral("%1 of %2 ms").arg(sum).arg(iteration)));
        // The stable fields keep their meaning beside it.
        for (const char* key : {"forward_ms", "backward_ms", "pipeline_bubble_ms"})
            QVERIFY2(o.contains(key), key);

        // The table: every line above the iteration's is a part, in ms.
        const CliResult table = cli(QStringList{"predict"} + kScenario + flags);
        QCOMPARE(table.exit_code, 0);
        const QStringList lines = QString::fromUtf8(table.out).split(QLatin1Char('\n'));
        const qsizetype header =
            lines.indexOf(QRegularExpression(QStringLiteral("\\s+value\\s+unit")));
        QVERIFY(header >= 0);
        double parts = 0, shown = -1;
        int rows = 0;
        for (qsizetype i = header + 2; i < lines.size(); ++i) {
            if (lines[i].startsWith(QLatin1Char('-')))
                continue;
            const QStringList cells = lines[i].split(QLatin1Char(' '), Qt::SkipEmptyParts);
            if (cells.size() < 3)
                break;
            const double ms = cells[cells.size() - 2].toDouble();
            if (cells.front() == QLatin1String("iteration")) {
                shown = cells[1].toDouble();
                break;
            }
            QCOMPARE(cells.back(), QStringLiteral("ms"));
            parts += ms;
            ++rows;
        }
        QVERIFY2(std::abs(shown - iteration) <= 0.0051, qPrintable(QString::number(shown)));
        // Each line is rounded to 0.01 ms.
        QVERIFY2(std::abs(parts - shown) <= 0.005 * (rows + 1),
                 qPrintable(QStringLiteral("%1 of %2 ms").arg(parts).arg(shown)));
    }

    // The CLI names what the numbers leave out: an ONNX file with ops it does not know.
    void unknownOpsAreAWarningOfPredict() {
        const QString path = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/unknown-op.onnx");
        const CliResult r = cli({"predict", "--network", path, "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const QJsonArray warnings = QJsonDocument::fromJson(r.out).object()["warnings"].toArray();
        QVERIFY(!warnings.isEmpty());
        QVERIFY2(warnings[0].toString().contains("unknown ops imported as zero-cost") &&
                     warnings[0].toString().contains("FancyNorm (x2)"),
                 qPrintable(warnings[0].toString()));
        QVERIFY(r.err.contains("unknown ops imported as zero-cost"));
    }

    void strategiesReachSweepAndTrace() {
        const CliResult sweep = cli({"sweep", "--network", "resnet50", "--gpus-per-node", "2,8",
                                     "--parallel", "zero2", "--format", "csv"});
        QCOMPARE(sweep.exit_code, 0);
        QCOMPARE(sweep.out.trimmed().split('\n').size(), 3);
        QVERIFY(sweep.out.startsWith("nodes,"));
        QVERIFY(sweep.out.split('\n')[0].contains("exchanged_bytes_per_gpu"));

        // One Chrome-trace process per GPU, so every stage of a pipeline has its own lanes.
        QTemporaryDir dir;
        const QString path = dir.filePath("t.json");
        const CliResult trace =
            cli(QStringList{"trace"} + kScenario +
                QStringList{"--parallel", "pipeline", "--pipeline-stages", "4", "--out", path});
        QCOMPARE(trace.exit_code, 0);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QSet<int> pids;
        for (const auto& e : QJsonDocument::fromJson(f.readAll()).object()["traceEvents"].toArray())
            pids.insert(e.toObject()["pid"].toInt());
        QCOMPARE(pids.size(), 8);
    }

    void badInputIsOneLineAndExitOne_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown gpu") << QStringList{"predict", "--gpu", "no-such-gpu"};
        QTest::newRow("unknown network") << QStringList{"predict", "--network", "no-such-net"};
        QTest::newRow("zero gpus") << QStringList{"predict", "--gpus-per-node", "0"};
        QTest::newRow("1e9 nodes") << QStringList{"predict", "--nodes", "1000000000"};
        QTest::newRow("batch 1e12") << QStringList{"predict", "--batch", "1000000000000"};
        QTest::newRow("non-numeric") << QStringList{"predict", "--batch", "lots"};
        QTest::newRow("bad sync") << QStringList{"predict", "--sync", "carrier-pigeon"};
        QTest::newRow("unknown strategy") << QStringList{"predict", "--parallel", "tensor"};
        QTest::newRow("more stages than layers") << QStringList{
            "predict",  "--network",         "alexnet", "--gpus-per-node", "8", "--parallel",
            "pipeline", "--pipeline-stages", "512"};
        QTest::newRow("stages not dividing the GPUs") << QStringList{
            "predict", "--gpus-per-node", "8", "--parallel", "pipeline", "--pipeline-stages", "3"};
        QTest::newRow("hybrid without FC layers")
            << QStringList{"predict",         "--network", "squeezenet1.0", "--system", "dgx1-v100",
                           "--gpus-per-node", "8",         "--parallel",    "hybrid"};
        QTest::newRow("zero on one GPU")
            << QStringList{"predict", "--gpus-per-node", "1", "--parallel", "zero1"};
        QTest::newRow("bad schedule")
            << QStringList{"predict", "--parallel", "pipeline", "--schedule", "zigzag"};
        QTest::newRow("negative micro-batches")
            << QStringList{"predict", "--parallel", "pipeline", "--micro-batches", "-2"};
        QTest::newRow("bad list") << QStringList{"sweep", "--batch", "1,,2"};
        QTest::newRow("missing csv") << QStringList{"validate", "/nonexistent.csv"};
        QTest::newRow("profile path not json")
            << QStringList{"predict", "--gpu", QString(ITERSCOPE_TEST_DATA) + "/published.csv"};
    }
    void badInputIsOneLineAndExitOne() {
        QFETCH(QStringList, args);
        const CliResult r = cli(args);
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(!r.err.trimmed().isEmpty());
    }

    void malformedProfileByPathNamesTheFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken-gpu.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"iterscope-gpu\", \"version\": 1, \"id\": \"x\", \"sm_count\": "
                "\"many\"}");
        f.close();
        const CliResult r = cli({"predict", "--gpu", path});
        QCOMPARE(r.exit_code, 1);
        QVERIFY(r.err.contains("broken-gpu.json"));
    }
};

QTEST_GUILESS_MAIN(PredictCli)
#include "tst_predict_cli.moc"
