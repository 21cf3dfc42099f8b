// Fitting efficiencies through the model: on timings that the model itself produced with
// known efficiencies, the fit must find those efficiencies again; on impossible timings it
// must stop at the schema's bounds and say so.
#include "calibration/calibrated_profile.h"
#include "calibration/compare.h"
#include "calibration/measured_report.h"
#include "fitting/layer_fit.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

// What a perfect calibrator would measure if the model were exactly right.
NetworkRun runFromPrediction(const AnalyzedNetwork& net, const Prediction& p, int64_t batch,
                             Precision precision, double scale = 1.0) {
    NetworkRun run;
    run.network = net.source;
    run.batch = batch;
    run.precision = precisionName(precision);
    for (const LayerTiming& t : p.layers) {
        LayerMeasurement m;
        m.index = t.layer;
        m.name = net.network.layers[t.layer].name;
        m.kind = layerKindName(net.network.layers[t.layer].kind);
        m.measured = t.forward_ms + t.backward_ms > 0;
        m.forward_ms = t.forward_ms * scale;
        m.backward_ms = t.backward_ms * scale;
        m.backward_data_ms = m.backward_ms;
        run.forward_ms += m.forward_ms;
        run.backward_ms += m.backward_ms;
        run.layers.push_back(m);
    }
    return run;
}

const ClassFit& find(const SoftwareFit& fit, const std::string& precision,
                     const std::string& parameter) {
    for (const PrecisionFit& p : fit.fits)
        if (p.precision == precision)
            for (const ClassFit& c : p.classes)
                if (c.parameter == parameter)
                    return c;
    throw std::runtime_error("no fit for " + precision + " " + parameter);
}

} // namespace

class TestCalibrationFit : public QObject {
    Q_OBJECT

    std::shared_ptr<const AnalyzedNetwork> m_net;
    GpuProfile m_gpu;
    SoftwareProfile m_base;

  private slots:
    void initTestCase() {
        qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
        m_net = loadNetwork("resnet50");
        MeasuredPeaks peaks;
        peaks.memory_bandwidth_gbps = 4000;
        peaks.fp32_tflops = 50;
        peaks.tf32_tflops = 350;
        peaks.fp16_tensor_tflops = 650;
        peaks.launch_overhead_us = 2;
        m_gpu = withMeasuredPeaks(loadGpuProfile("h200"), peaks);
        m_base = loadSoftwareProfile("pytorch");
    }

    void theFitRecoversTheEfficienciesThatMadeTheTimings() {
        SoftwareProfile truth = m_base;
        truth.conv_efficiency = 0.42;
        truth.fc_efficiency = 0.55;
        truth.tensor_core_efficiency = 0.33;
        std::vector<NetworkRun> runs;
        for (Precision p : {Precision::FP32, Precision::AMP})
            runs.push_back(runFromPrediction(
                *m_net, predict(kernelScenario(m_net, m_gpu, truth, 64, p)), 64, p));

        const SoftwareFit fit = fitSoftwareProfile(m_net, m_gpu, m_base, runs);
        QVERIFY2(std::abs(fit.software.conv_efficiency - 0.42) < 1e-3,
                 qPrintable(QString::number(fit.software.conv_efficiency)));
        QVERIFY2(std::abs(fit.software.fc_efficiency - 0.55) < 1e-3,
                 qPrintable(QString::number(fit.software.fc_efficiency)));
        QVERIFY2(std::abs(fit.software.tensor_core_efficiency - 0.33) < 1e-3,
                 qPrintable(QString::number(fit.software.tensor_core_efficiency)));
        QCOMPARE(fit.software.id, m_base.id + "-calibrated");
        // Parameters the calibrator does not measure are kept.
        QCOMPARE(fit.software.per_layer_overhead_us, m_base.per_layer_overhead_us);
        QCOMPARE(fit.software.nccl_efficiency, m_base.nccl_efficiency);

        const ClassFit& conv = find(fit, "fp32", "conv_efficiency");
        QCOMPARE(conv.layers, 53); // ResNet-50: 49 convolutions + 4 projection shortcuts
        QVERIFY(!conv.clamped);
        QVERIFY(std::abs(conv.predicted_after_ms / conv.measured_ms - 1) < 1e-3);
        QCOMPARE(find(fit, "fp32", "fc_efficiency").layers, 1);
        QCOMPARE(find(fit, "amp", "tensor_core_efficiency").layers, 54);

        // With the fitted profile the model's forward + backward matches the "measurement".
        const Prediction after =
            predict(kernelScenario(m_net, m_gpu, fit.software, 64, Precision::FP32));
        const MeasurementComparison c = compareWithMeasurement(m_net->network, after, runs[0]);
        QVERIFY(c.total_error_pct.has_value());
        QVERIFY2(std::abs(*c.total_error_pct) < 0.1,
                 qPrintable(QString::number(*c.total_error_pct)));
        QVERIFY(describeFit(fit).find("fp32 conv_efficiency") != std::string::npos);
    }

    void theFittedProfileLoadsWithTheStrictLoader() {
        SoftwareProfile truth = m_base;
        truth.conv_efficiency = 0.5;
        const std::vector<NetworkRun> runs{runFromPrediction(
            *m_net, predict(kernelScenario(m_net, m_gpu, truth, 32, Precision::FP32)), 32,
            Precision::FP32)};
        const SoftwareFit fit = fitSoftwareProfile(m_net, m_gpu, m_base, runs);
        QTemporaryDir dir;
        const std::string path = dir.filePath("fitted.json").toStdString();
        writeTextFile(path, softwareProfileToJson(fit.software, describeFit(fit)));
        const SoftwareProfile back = loadSoftwareProfile(path);
        QVERIFY(std::abs(back.conv_efficiency - 0.5) < 1e-3);
        QCOMPARE(back.id, fit.software.id);
    }

    void impossiblyFastTimingsStopAtTheBound() {
        const std::vector<NetworkRun> runs{runFromPrediction(
            *m_net, predict(kernelScenario(m_net, m_gpu, m_base, 64, Precision::FP32)), 64,
            Precision::FP32, 1e-4)};
        const SoftwareFit fit = fitSoftwareProfile(m_net, m_gpu, m_base, runs);
        const ClassFit& conv = find(fit, "fp32", "conv_efficiency");
        QVERIFY(conv.clamped);
        QCOMPARE(conv.after, kMaxEfficiency);
        QVERIFY(describeFit(fit).find("clamped") != std::string::npos);
    }

    void aRunOfAnotherNetworkIsRejected() {
        NetworkRun run;
        run.network = "other";
        run.batch = 8;
        run.precision = "fp32";
        LayerMeasurement m;
        m.name = "not-a-resnet-layer";
        m.measured = true;
        m.forward_ms = 1;
        run.layers.push_back(m);
        const std::vector<NetworkRun> runs{run};
        QVERIFY_THROWS_EXCEPTION(InputError, fitSoftwareProfile(m_net, m_gpu, m_base, runs));
    }

    void predictMeasuredComparesTheScenariosKernelsWithTheMatchingRun() {
        Measurement m;
        for (Precision p : {Precision::FP32, Precision::AMP})
            m.runs.push_back(runFromPrediction(
                *m_net, predict(kernelScenario(m_net, m_gpu, m_base, 64, p)), 64, p, 1.25));
        // A training scenario: several GPUs and framework overhead; the comparison still
        // predicts the kernels alone, so the 25% slower "measurement" shows as -20%.
        Scenario s = kernelScenario(m_net, m_gpu, m_base, 64, Precision::AMP);
        s.software.per_layer_overhead_us = 50;
        const MeasurementComparison c = compareScenarioWithMeasurement(s, m, "m.json");
        QCOMPARE(c.precision, std::string("amp"));
        QVERIFY(c.total_error_pct.has_value());
        QVERIFY2(std::abs(*c.total_error_pct + 20.0) < 1e-6,
                 qPrintable(QString::number(*c.total_error_pct)));
        QCOMPARE(c.unmatched_layers, 0);

        s.batch_per_gpu = 32;
        QVERIFY_THROWS_EXCEPTION(InputError, compareScenarioWithMeasurement(s, m, "m.json"));
        s.batch_per_gpu = 64;
        // Renamed layers of the same list still match by index and kind...
        for (NetworkRun& run : m.runs)
            for (LayerMeasurement& l : run.layers)
                l.name = "x" + l.name;
        QVERIFY(std::abs(*compareScenarioWithMeasurement(s, m, "m.json").total_error_pct + 20.0) <
                1e-6);
        // ... but not once the lists differ.
        for (NetworkRun& run : m.runs)
            run.layers.pop_back();
        try {
            compareScenarioWithMeasurement(s, m, "m.json");
            QFAIL("no error for a measurement of other layers");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("m.json: no measured layer") == 0, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 compareScenarioWithMeasurementFile(s, "/nonexistent/m.json"));
    }
};

QTEST_APPLESS_MAIN(TestCalibrationFit)
#include "tst_calibration_fit.moc"
