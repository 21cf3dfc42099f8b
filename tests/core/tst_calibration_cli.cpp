// iterscope-calibrate as a program, on a machine without a GPU (CI): it must explain
// itself, reject bad flags before touching the GPU, and fail with one line when there is
// no GPU or driver. Skipped where the calibrator was not built (no CUDA Toolkit).
#include <QFileInfo>
#include <QProcess>
#include <QtTest>

namespace {

QString calibratorPath() {
    return QFileInfo(QStringLiteral(ITERSCOPE_CLI_PATH)).absolutePath() +
           QStringLiteral("/iterscope-calibrate");
}

struct Result {
    int exit_code = -1;
    QString out, err;
};

Result runCalibrator(const QStringList& args) {
    QProcess p;
    p.setWorkingDirectory(QDir::tempPath());
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

} // namespace

class TestCalibrationCli : public QObject {
    Q_OBJECT

  private slots:
    void init() {
        if (!QFileInfo::exists(calibratorPath()))
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
            {{"--precision", "int8"}, "--precision: 'int8' is not fp32, tf32 or amp"},
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
};

QTEST_GUILESS_MAIN(TestCalibrationCli)
#include "tst_calibration_cli.moc"
