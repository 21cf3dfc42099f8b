// Caveats for choices the model accepts but a person may not have meant (issue 14, item 8),
// on the shipped profiles.
#include "hardware/profile_loader.h"
#include "model/scenario_warnings.h"

#include <QtTest>

using namespace iterscope;

namespace {
Scenario make(const std::string& gpu, const std::string& system, Precision precision) {
    Scenario s;
    s.gpu = loadGpuProfile(gpu);
    s.system = loadSystemProfile(system);
    s.software = loadSoftwareProfile("pytorch");
    s.precision = precision;
    return s;
}

QStringList ids(const Scenario& s) {
    QStringList out;
    for (const auto& w : scenarioWarnings(s))
        out << QString::fromStdString(w.id);
    return out;
}
} // namespace

class ScenarioWarnings : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void doubtfulChoicesAreNamed_data() {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("system");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("TF32 on a V100") << "v100-sxm2-16gb"
                                        << "dgx1-v100"
                                        << "tf32" << QStringList{"tf32-without-tensor-cores"};
        QTest::newRow("TF32 on a K80") << "k80"
                                       << "aws-p2.8xlarge"
                                       << "tf32" << QStringList{"tf32-without-tensor-cores"};
        QTest::newRow("TF32 on an A100") << "a100-sxm4-80gb"
                                         << "dgx-a100"
                                         << "tf32" << QStringList{};
        QTest::newRow("AMP on a K80") << "k80"
                                      << "aws-p2.8xlarge"
                                      << "amp" << QStringList{"amp-without-fast-fp16"};
        QTest::newRow("AMP on a P100 (fast FP16)") << "p100-sxm2"
                                                   << "dgx1-p100"
                                                   << "amp" << QStringList{};
        QTest::newRow("H100 SXM5 in a PCIe workstation")
            << "h100-sxm"
            << "workstation-pcie3"
            << "tf32" << QStringList{"sxm-in-pcie-system"};
        QTest::newRow("H100 PCIe in a PCIe workstation") << "h100-pcie"
                                                         << "workstation-pcie4"
                                                         << "tf32" << QStringList{};
        QTest::newRow("a PCIe card in a DGX")
            << "t4"
            << "dgx1-v100"
            << "fp32" << QStringList{"pcie-card-in-nvlink-system"};
        QTest::newRow("a bridged PCIe card in a DGX")
            << "a100-pcie"
            << "dgx-a100"
            << "tf32" << QStringList{"pcie-card-in-nvlink-system"};
        QTest::newRow("an A100 SXM4 in a DGX-1") << "a100-sxm4-80gb"
                                                 << "dgx1-v100"
                                                 << "tf32" << QStringList{"gpu-not-in-system"};
        // Ampere and newer: the frameworks run FP32 convolutions on TF32 tensor cores unless
        // the script turns them off; a V100 has none to run them on.
        QTest::newRow("FP32 on an A100") << "a100-sxm4-80gb"
                                         << "dgx-a100"
                                         << "fp32" << QStringList{"fp32-runs-tf32-by-default"};
        QTest::newRow("FP32 on an RTX 4090") << "rtx4090"
                                             << "workstation-pcie4"
                                             << "fp32" << QStringList{"fp32-runs-tf32-by-default"};
        QTest::newRow("the DGX-1 as shipped") << "v100-sxm2-16gb"
                                              << "dgx1-v100"
                                              << "fp32" << QStringList{};
    }
    void doubtfulChoicesAreNamed() {
        QFETCH(QString, gpu);
        QFETCH(QString, system);
        QFETCH(QString, precision);
        QFETCH(QStringList, expected);
        const Scenario s =
            make(gpu.toStdString(), system.toStdString(), *parsePrecision(precision.toStdString()));
        QStringList cautions;
        for (const auto& w : scenarioWarnings(s))
            if (w.level == ScenarioWarning::Level::Caution) {
                cautions << QString::fromStdString(w.id);
                // One sentence naming the hardware it is about.
                QVERIFY(w.text.find(s.gpu.name) != std::string::npos);
                QVERIFY(w.text.back() == '.');
            }
        QCOMPARE(cautions, expected);
    }

    void fp32OnTf32TensorCoresDependsOnTheRelease() {
        // TensorFlow 1.1 (cuDNN 5.1) predates TF32: its FP32 is FP32 on any GPU.
        Scenario s = make("a100-sxm4-80gb", "dgx-a100", Precision::FP32);
        s.software = loadSoftwareProfile("tensorflow-1.1");
        QVERIFY(!ids(s).contains("fp32-runs-tf32-by-default"));
        s.software = loadSoftwareProfile("tensorflow-ngc20.06");
        QVERIFY(ids(s).contains("fp32-runs-tf32-by-default"));
        // A script that says so in the scenario: TF32 itself is no caution on an A100.
        s.precision = Precision::TF32;
        QVERIFY(!ids(s).contains("fp32-runs-tf32-by-default"));
    }

    void theOverlappedInputCopyIsCalledAPrefetch() {
        Scenario s = make("v100-sxm2-16gb", "dgx1-v100", Precision::FP32);
        s.software.overlap_input = true;
        QVERIFY(ids(s).contains("input-copy-is-prefetch"));
        s.software.overlap_input = false;
        QVERIFY(!ids(s).contains("input-copy-is-prefetch"));
    }

    void warningsDoNotDependOnCountOrBatch() {
        Scenario s = make("v100-sxm2-16gb", "workstation-pcie3", Precision::TF32);
        const QStringList first = ids(s);
        s.gpus_per_node = 4;
        s.batch_per_gpu = 1024;
        QCOMPARE(ids(s), first);
    }
};

QTEST_MAIN(ScenarioWarnings)
#include "tst_scenario_warnings.moc"
