// iterscope-calibrate as a program, on a machine without a GPU (CI): it must explain
// itself, reject bad flags before touching the GPU, and fail with one line when there is
// no GPU or driver. Skipped where the calibrator was not built (no CUDA Toolkit).
#include "calibration/measurement.h"
#include "fitting/layer_fit.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace iterscope;

namespace {

QString calibratorPath() {
    return QFileInfo(QStringLiteral(ITERSCOPE_CLI_PATH)).absolutePath() +
           QStringLiteral("/iterscope-calibrate");
}

struct Result {
    int exit_code = -1;
    QString out, err;
};

Result runCalibrator(const QStringList& args, const QString& directory = QDir::tempPath()) {
    QProcess p;
    p.setWorkingDirectory(directory);
    p.start(calibratorPath(), args);
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
    }
    return Result{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                  QString::fromUtf8(p.readAllStandardOutput()),
                  QString::fromUtf8(p.readAllStandardError())};
}

bool hasGpu() {
    // A machine with a GPU would start measuring; the no-GPU checks below only apply here.
    return QFileInfo::exists(QStringLiteral("/dev/nvidia0"));
}

// A ResNet-18 batch-16 fp32 measurement `factor` times slower than the spec-sheet model
// predicts its kernels, as if it came from a GPU.
Measurement slowerThanTheModel(double factor) {
    auto net = loadNetwork("resnet18");
    const GpuProfile spec = loadGpuProfile("h200");
    const SoftwareProfile sw = loadSoftwareProfile("pytorch");
    Measurement m;
    m.tool = "test";
    m.device.name = "NVIDIA H200";
    m.peaks.memory_bandwidth_gbps = 4000;
    m.peaks.fp32_tflops = 52;
    m.peaks.fp16_tensor_tflops = 700;
    const Prediction p = predict(kernelScenario(net, spec, sw, 16, Precision::FP32));
    NetworkRun run;
    run.network = "resnet18";
    run.batch = 16;
    run.precision = "fp32";
    for (const LayerTiming& t : p.layers) {
        LayerMeasurement l;
        l.index = t.layer;
        l.name = net->network.layers[t.layer].name;
        l.measured = t.forward_ms + t.backward_ms > 0;
        l.forward_ms = factor * t.forward_ms;
        l.backward_ms = factor * t.backward_ms;
        run.layers.push_back(l);
    }
    m.runs.push_back(run);
    return m;
}

} // namespace

class TestCalibrationCli : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void init() {
        if (!QByteArray(QTest::currentTestFunction()).startsWith("predict") &&
            !QFileInfo::exists(calibratorPath()))
            QSKIP("iterscope-calibrate not built (no CUDA Toolkit, cuDNN or NCCL)");
    }

    void helpSaysWhatItMeasuresAndHowLong() {
        const Result r = runCalibrator({"--help"});
        QCOMPARE(r.exit_code, 0);
        for (const char* word : {"memory bandwidth", "GEMM", "launch overhead", "cuDNN", "cuBLAS",
                                 "NCCL", "busbw", "How long", "median"})
            QVERIFY2(r.out.contains(QLatin1String(word)), word);
    }

    void withoutAGpuItFailsWithOneLine() {
        if (hasGpu())
            QSKIP("this machine has a GPU");
        const Result r = runCalibrator({"--quick", "--no-layers"});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY2(r.err.startsWith("iterscope-calibrate: no CUDA GPU or driver found"),
                 qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void badFlagsFailBeforeTheGpuIsTouched() {
        struct Case {
            QStringList args;
            const char* fragment;
        };
        const QList<Case> cases{
            {{"--precision", "int8"}, "--precision: 'int8' is not fp32, tf32, amp or bf16"},
            {{"--network", "no-such-net"}, "unknown network 'no-such-net'"},
            {{"--batch", "0"}, "--batch: must be between"},
            {{"--algorithm", "guess"}, "--algorithm: must be find or heuristic"},
            {{"--network", "/nonexistent/net.prototxt"}, "/nonexistent/net.prototxt"},
            {{"--gpu", "no-such-gpu"}, "no-such-gpu"},
            {{"--repetitions", "0"}, "--repetitions"},
            {{"--frobnicate"}, "--frobnicate"},
        };
        for (const Case& c : cases) {
            const Result r = runCalibrator(c.args);
            QVERIFY2(r.exit_code == 1, qPrintable(c.args.join(' ')));
            QVERIFY2(r.err.trimmed().count('\n') == 0, qPrintable(r.err));
            QVERIFY2(r.err.contains(QLatin1String(c.fragment)), qPrintable(r.err));
        }
    }

    void fromAMeasurementItFitsAndComparesWithoutAGpu() {
        const Measurement m = slowerThanTheModel(1.1);
        QTemporaryDir dir;
        const QString in = dir.filePath("m.json");
        writeTextFile(in.toStdString(), measurementToJson(m));

        const Result r = runCalibrator(
            {"--from", in, "--network", "resnet18", "--batch", "16", "--gpu", "h200", "--software",
             "pytorch", "--profile-out", dir.filePath("g.json"), "--software-out",
             dir.filePath("s.json"), "--report-out", dir.filePath("r.json"), "--quiet"},
            dir.path());
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        // --from measures nothing, so it writes no measurement unless --out asks for one.
        QVERIFY(!QFileInfo::exists(dir.filePath("calibration-measurement.json")));
        const GpuProfile g = loadGpuProfile(dir.filePath("g.json").toStdString());
        QCOMPARE(g.id, std::string("h200-calibrated"));
        QVERIFY(g.calibrated);
        QCOMPARE(g.measured_fp32_tflops, 52.0);
        const SoftwareProfile fitted = loadSoftwareProfile(dir.filePath("s.json").toStdString());
        QCOMPARE(fitted.id, std::string("pytorch-calibrated"));
        QVERIFY(r.out.contains("spec-sheet profile"));
        QVERIFY(r.out.contains("calibrated profile"));
        QVERIFY(r.out.contains("fp32 conv_efficiency"));

        std::ifstream report(dir.filePath("r.json").toStdString());
        const nlohmann::json j = nlohmann::json::parse(report);
        QCOMPARE(j["comparisons"].size(), std::size_t{3});
        QCOMPARE(j["comparisons"][0]["profile"].get<std::string>(), std::string("spec-sheet"));
        // The spec-sheet model is 10% fast on every layer: -9.1% in total.
        const double spec_error =
            j["comparisons"][0]["comparison"]["total_error_pct"].get<double>();
        QVERIFY2(std::abs(spec_error + 100.0 / 11.0) < 0.01,
                 qPrintable(QString::number(spec_error)));
        const double cal_error = j["comparisons"][2]["comparison"]["total_error_pct"].get<double>();
        QVERIFY2(std::abs(cal_error) < std::abs(spec_error),
                 qPrintable(QString::number(cal_error)));
    }

    void predictMeasuredPrintsErrorsPerLayerAndInTotal() {
        QTemporaryDir dir;
        const QString file = dir.filePath("m.json");
        writeTextFile(file.toStdString(), measurementToJson(slowerThanTheModel(1.25)));
        const QString cli = QStringLiteral(ITERSCOPE_CLI_PATH);
        const QStringList scenario{"predict", "--network",  "resnet18", "--gpu",
                                   "h200",    "--system",   "dgx-h100", "--gpus-per-node",
                                   "8",       "--batch",    "16",       "--software",
                                   "pytorch", "--measured", file};
        QProcess p;
        p.start(cli, scenario);
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(out.contains("Measured kernels against predicted"), qPrintable(out));
        QVERIFY2(out.contains("conv1"), qPrintable(out));
        QVERIFY2(out.contains("error -20.0%"), qPrintable(out)); // 1/1.25 - 1

        p.start(cli, QStringList(scenario) << "--format"
                                           << "json");
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        QVERIFY(j.contains("iteration_ms"));
        QVERIFY(std::abs(j["measured"]["total_error_pct"].get<double>() + 20.0) < 1e-6);
        QVERIFY(j["measured"]["layers"].size() > 10);

        // A batch the file does not hold: one line naming the file, exit 1.
        QStringList other = scenario;
        other[other.indexOf("16")] = "32";
        p.start(cli, other);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        QCOMPARE(err.count('\n'), 0);
        QVERIFY2(err.contains(file + ": no measured run at batch 32 fp32"), qPrintable(err));
        QVERIFY(p.readAllStandardOutput().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCalibrationCli)
#include "tst_calibration_cli.moc"
