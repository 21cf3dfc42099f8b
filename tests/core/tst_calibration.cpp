// The calibrator's CPU side: measurement JSON, bandwidth definitions, calibrated profiles
// that the strict loaders accept, and measured-versus-predicted comparison.
#include "calibration/calibrated_profile.h"
#include "calibration/compare.h"
#include "calibration/measurement.h"
#include "hardware/profile_loader.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

Measurement sampleMeasurement() {
    Measurement m;
    m.tool = "iterscope-calibrate test";
    m.created = "2026-01-02T03:04:05Z";
    m.profile_id = "h200-calibrated";
    m.device.name = "NVIDIA H200";
    m.device.compute_major = 9;
    m.device.compute_minor = 0;
    m.device.sm_count = 132;
    m.device.sm_clock_mhz = 1980;
    m.device.memory_clock_mhz = 3201;
    m.device.memory_bus_bits = 6144;
    m.device.memory_bytes = int64_t{150} << 30;
    m.device.l2_bytes = 50 << 20;
    m.device.pci_bus_id = "0000:1b:00.0";
    m.device.cudnn_version = 91900;
    m.device.visible_gpus = 1;
    m.peaks.memory_bandwidth_gbps = 4012.5;
    m.peaks.fp32_tflops = 51.25;
    m.peaks.tf32_tflops = 380;
    m.peaks.fp16_tensor_tflops = 700;
    m.peaks.bf16_tensor_tflops = 720;
    m.peaks.launch_overhead_us = 2.5;
    m.peaks.gemm.push_back(GemmPoint{"fp16", "cublaslt", 8192, 8192, 8192, 1.6, 687.2});
    NetworkRun run;
    run.network = "tiny";
    run.batch = 8;
    run.precision = "fp32";
    run.warmup = 5;
    run.repetitions = 20;
    run.workspace_limit_bytes = 1 << 30;
    LayerMeasurement conv;
    conv.index = 1;
    conv.name = "conv1";
    conv.kind = "Convolution";
    conv.measured = true;
    conv.forward_ms = 2.0;
    conv.backward_data_ms = 1.5;
    conv.backward_filter_ms = 2.5;
    conv.backward_ms = 4.0;
    conv.forward_algorithm = "implicit_precomp_gemm";
    conv.workspace_bytes = 4096;
    LayerMeasurement relu;
    relu.index = 2;
    relu.name = "relu1";
    relu.kind = "Activation";
    relu.measured = true;
    relu.forward_ms = 0.5;
    relu.backward_data_ms = 0.5;
    relu.backward_ms = 0.5;
    LayerMeasurement flat;
    flat.index = 3;
    flat.name = "flat";
    flat.kind = "Flatten";
    run.layers = {conv, relu, flat};
    run.forward_ms = 2.5;
    run.backward_ms = 4.5;
    m.runs.push_back(run);
    AllreduceRun ar;
    ar.ranks = 2;
    ar.points.push_back(allreducePoint(1 << 20, 1e-4, 2));
    ar.latency_us = ar.points.front().time_us;
    ar.peak_busbw_gbps = ar.points.front().busbw_gbps;
    m.allreduce = ar;
    return m;
}

// input -> conv1 -> relu1 -> flat: per-sample shapes are not needed by the comparison.
Network tinyNetwork() {
    Network net;
    net.name = "tiny";
    net.input = {3, 8, 8};
    Layer in;
    in.name = "data";
    in.kind = LayerKind::Input;
    Layer conv;
    conv.name = "conv1";
    conv.kind = LayerKind::Convolution;
    conv.inputs = {0};
    Layer relu;
    relu.name = "relu1";
    relu.kind = LayerKind::Activation;
    relu.inputs = {1};
    Layer flat;
    flat.name = "flat";
    flat.kind = LayerKind::Flatten;
    flat.inputs = {2};
    net.layers = {in, conv, relu, flat};
    return net;
}

Prediction tinyPrediction(double conv_fwd, double conv_bwd, double relu_fwd, double relu_bwd) {
    Prediction p;
    for (std::size_t i = 0; i < 4; ++i) {
        LayerTiming t;
        t.layer = i;
        if (i == 1) {
            t.forward_ms = conv_fwd;
            t.backward_ms = conv_bwd;
        } else if (i == 2) {
            t.forward_ms = relu_fwd;
            t.backward_ms = relu_bwd;
        }
        p.layers.push_back(t);
    }
    return p;
}

void expectInputError(const std::string& text, const char* fragment) {
    try {
        measurementFromJson(text, "m.json");
        QFAIL(qPrintable(QString("no error for: ") + QString::fromStdString(text)));
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(fragment) != std::string::npos, e.what());
        QVERIFY2(std::string(e.what()).rfind("m.json", 0) == 0, e.what());
    }
}

} // namespace

class TestCalibration : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void aMeasurementSurvivesItsJson() {
        const Measurement m = sampleMeasurement();
        const Measurement back = measurementFromJson(measurementToJson(m), "m.json");
        QCOMPARE(back.tool, m.tool);
        QCOMPARE(back.profile_id, m.profile_id);
        QCOMPARE(back.device.name, m.device.name);
        QCOMPARE(back.device.compute_major, 9);
        QCOMPARE(back.device.memory_bytes, m.device.memory_bytes);
        QCOMPARE(back.device.pci_bus_id, m.device.pci_bus_id);
        QCOMPARE(back.peaks.memory_bandwidth_gbps, 4012.5);
        QCOMPARE(back.peaks.bf16_tensor_tflops, 720.0);
        QCOMPARE(back.peaks.gemm.size(), std::size_t{1});
        QCOMPARE(back.peaks.gemm[0].k, int64_t{8192});
        QCOMPARE(back.runs.size(), std::size_t{1});
        const NetworkRun& run = back.runs[0];
        QCOMPARE(run.batch, int64_t{8});
        QCOMPARE(run.layers.size(), std::size_t{3});
        QCOMPARE(run.layers[0].name, std::string("conv1"));
        QCOMPARE(run.layers[0].backward_filter_ms, 2.5);
        QCOMPARE(run.layers[0].forward_algorithm, std::string("implicit_precomp_gemm"));
        QCOMPARE(run.layers[0].workspace_bytes, int64_t{4096});
        QVERIFY(!run.layers[2].measured);
        QVERIFY(back.allreduce.has_value());
        QCOMPARE(back.allreduce->ranks, 2);
        QCOMPARE(back.allreduce->points[0].bytes, int64_t{1} << 20);
    }

    void aMeasurementFileRoundTripsThroughDisk() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("m.json").toStdString();
        writeTextFile(path, measurementToJson(sampleMeasurement()));
        QCOMPARE(readMeasurementFile(path).runs[0].layers[1].name, std::string("relu1"));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 readMeasurementFile(dir.filePath("none.json").toStdString()));
        QVERIFY_THROWS_EXCEPTION(
            InputError, writeTextFile(dir.filePath("no/such/dir.json").toStdString(), "x"));
    }

    void malformedMeasurementsNameTheField() {
        expectInputError("{", "not valid JSON");
        expectInputError("[]", "must be an object");
        expectInputError(R"({"format":"iterscope-gpu","version":1})", "format");
        expectInputError(R"({"format":"iterscope-measurement","version":7})",
                         "unsupported version 7");
        expectInputError(
            R"({"format":"iterscope-measurement","version":1,"peaks":{"fp32_tflops":-3}})",
            "m.json.peaks.fp32_tflops: must be a finite non-negative number");
        expectInputError(
            R"({"format":"iterscope-measurement","version":1,"runs":[{"network":"x","batch":0}]})",
            "runs[0].batch: must be at least 1");
        expectInputError(
            R"({"format":"iterscope-measurement","version":1,"runs":[{"network":"x","batch":2,"precision":"int8"}]})",
            "precision: must be fp32, tf32, amp or bf16");
        expectInputError(
            R"({"format":"iterscope-measurement","version":1,"runs":[{"network":"x","batch":2,"layers":[{"index":0,"name":"a","forward_ms":"fast"}]}]})",
            "runs[0].layers[0].forward_ms: must be a number");
        expectInputError(R"({"format":"iterscope-measurement","version":1,"runs":{}})",
                         "runs: must be an array");
        expectInputError(
            R"({"format":"iterscope-measurement","version":1,"allreduce":{"ranks":0}})",
            "allreduce.ranks: must be at least 1");
        expectInputError(
            R"({"format":"iterscope-measurement","version":1,"device":{"name":"g","compute_capability":"nine"}})",
            "compute_capability");
    }

    void layerBackwardDefaultsToTheSumOfItsParts() {
        const Measurement m = measurementFromJson(
            R"({"format":"iterscope-measurement","version":1,"runs":[{"network":"x","batch":2,
               "layers":[{"index":1,"name":"c","backward_data_ms":1.25,"backward_filter_ms":2}]}]})",
            "m.json");
        QCOMPARE(m.runs[0].layers[0].backward_ms, 3.25);
        QVERIFY(m.runs[0].layers[0].measured);
        QCOMPARE(m.runs[0].backward_ms, 3.25);
    }

    void busBandwidthFollowsNcclTests() {
        // 1 GB in 0.1 s over 4 ranks: algbw 10 GB/s, busbw 10 x 2 x 3 / 4 = 15 GB/s.
        const AllreducePoint p = allreducePoint(1000000000, 0.1, 4);
        QCOMPARE(p.algbw_gbps, 10.0);
        QCOMPARE(p.busbw_gbps, 15.0);
        QCOMPARE(p.time_us, 100000.0);
        QCOMPARE(allreducePoint(1000, 1e-6, 1).busbw_gbps, 0.0);
        QCOMPARE(allreduceBusFactor(8), 1.75);
        QCOMPARE(allreducePoint(1000, 0, 2).algbw_gbps, 0.0);
    }

    void theMedianIgnoresOneSlowRepetition() {
        QCOMPARE(medianOf({}), 0.0);
        QCOMPARE(medianOf({3.0}), 3.0);
        QCOMPARE(medianOf({1.0, 9.0, 2.0}), 2.0);
        QCOMPARE(medianOf({4.0, 1.0, 100.0, 2.0}), 3.0);
    }

    void profileIdsAreValidLoaderIds() {
        QCOMPARE(profileIdFromName("NVIDIA H200"), std::string("nvidia-h200"));
        QCOMPARE(profileIdFromName("  Tesla V100-SXM2-16GB "), std::string("tesla-v100-sxm2-16gb"));
        QCOMPARE(profileIdFromName("***"), std::string("gpu"));
        QCOMPARE(fp32LanesPerSm(8, 0), 64);
        QCOMPARE(fp32LanesPerSm(8, 6), 128);
        QCOMPARE(fp32LanesPerSm(7, 0), 64);
        QCOMPARE(fp32LanesPerSm(9, 0), 128);
    }

    void aProfileFromDeviceFactsLoadsBack() {
        const Measurement m = sampleMeasurement();
        GpuProfile g = withMeasuredPeaks(gpuProfileFromDevice(m.device), m.peaks);
        QCOMPARE(g.id, std::string("nvidia-h200"));
        QCOMPARE(g.architecture, std::string("Hopper"));
        // 2 x 128 x 132 x 1980 MHz = 66.9 TFLOP/s; 2 x 3201 MHz x 768 bytes = 4917 GB/s.
        QVERIFY(std::abs(g.fp32_tflops - 66.91) < 0.01);
        QVERIFY(std::abs(g.memory_bandwidth_gbps - 4916.7) < 0.1);
        QVERIFY(g.calibrated);
        QCOMPARE(g.measured_fp16_tensor_tflops, 720.0); // the better of fp16 and bf16

        QTemporaryDir dir;
        const std::string path = dir.filePath("nvidia-h200.json").toStdString();
        writeTextFile(path, gpuProfileToJson(g, &m));
        const GpuProfile back = loadGpuProfile(path);
        QCOMPARE(back.id, g.id);
        QVERIFY(back.calibrated);
        QCOMPARE(back.sm_count, 132);
        QCOMPARE(back.measured_memory_bandwidth_gbps, 4012.5);
        QCOMPARE(back.measured_fp32_tflops, 51.25);
        QCOMPARE(back.measured_tf32_tflops, 380.0);
        QCOMPARE(back.measured_launch_overhead_us, 2.5);
        QVERIFY(std::abs(static_cast<double>(back.memory_bytes - g.memory_bytes)) < 2e6);
    }

    void aCalibratedSpecProfileKeepsTheSpecFigures() {
        GpuProfile base = loadGpuProfile("h200");
        GpuProfile g = withMeasuredPeaks(base, sampleMeasurement().peaks);
        g.id = "h200-calibrated";
        QTemporaryDir dir;
        const std::string path = dir.filePath("h200-calibrated.json").toStdString();
        writeTextFile(path, gpuProfileToJson(g, nullptr));
        const GpuProfile back = loadGpuProfile(path);
        QCOMPARE(back.fp16_tensor_tflops, base.fp16_tensor_tflops);
        QCOMPARE(back.memory_bandwidth_gbps, base.memory_bandwidth_gbps);
        QCOMPARE(back.nvlink_links, base.nvlink_links);
        QCOMPARE(back.measured_fp16_tensor_tflops, 720.0);
        // Uncalibrated profiles have no "measured" block and stay uncalibrated.
        writeTextFile(path, gpuProfileToJson(base, nullptr));
        QVERIFY(!loadGpuProfile(path).calibrated);
    }

    void aWrittenSoftwareProfileLoadsBack() {
        SoftwareProfile s;
        s.id = "pytorch-calibrated";
        s.name = "PyTorch (calibrated)";
        s.source = "test";
        s.conv_efficiency = 0.61;
        s.tensor_core_efficiency = 0.47;
        s.extra.emplace_back("alpha", 1.5);
        QTemporaryDir dir;
        const std::string path = dir.filePath("s.json").toStdString();
        writeTextFile(path, softwareProfileToJson(s, "fp32 conv_efficiency: 0.7 -> 0.61"));
        const SoftwareProfile back = loadSoftwareProfile(path);
        QCOMPARE(back.id, s.id);
        QCOMPARE(back.conv_efficiency, 0.61);
        QCOMPARE(back.tensor_core_efficiency, 0.47);
        QCOMPARE(back.extra.size(), std::size_t{1});
    }

    void comparisonGivesSignedErrorsPerLayerAndInTotal() {
        const Measurement m = sampleMeasurement();
        // conv: predicted 2.2 / 3.0 against 2.0 / 4.0; relu: 0.5 / 0.5 exactly.
        const MeasurementComparison c =
            compareWithMeasurement(tinyNetwork(), tinyPrediction(2.2, 3.0, 0.5, 0.5), m.runs[0]);
        QCOMPARE(c.layers.size(), std::size_t{4});
        const LayerComparison& conv = c.layers[1];
        QVERIFY(conv.matched);
        QVERIFY(std::abs(*conv.forward_error_pct - 10.0) < 1e-9);
        QVERIFY(std::abs(*conv.backward_error_pct + 25.0) < 1e-9);
        QVERIFY(std::abs(*conv.total_error_pct - (5.2 - 6.0) / 6.0 * 100) < 1e-9);
        QVERIFY(!c.layers[0].matched);
        QVERIFY(!c.layers[3].matched); // Flatten ran no kernel
        QCOMPARE(c.measured_forward_ms, 2.5);
        QCOMPARE(c.measured_backward_ms, 4.5);
        QVERIFY(std::abs(*c.total_error_pct - (6.2 - 7.0) / 7.0 * 100) < 1e-9);
        QCOMPARE(c.layers_in_mape, 2);
        QVERIFY(std::abs(c.layer_mape_pct - (std::abs(-0.8 / 6.0 * 100) + 0) / 2) < 1e-9);
        QCOMPARE(c.unmatched_layers, 0);

        const std::string table = formatComparisonTable(c);
        QVERIFY(table.find("conv1") != std::string::npos);
        QVERIFY(table.find("+10.0%") != std::string::npos);
        QVERIFY(table.find("-25.0%") != std::string::npos);
        QVERIFY(table.find("flat") == std::string::npos);
        const std::string json = comparisonToJson(c);
        QVERIFY(json.find("\"total_error_pct\"") != std::string::npos);
    }

    void layersPredictedButNotMeasuredAreCounted() {
        Measurement m = sampleMeasurement();
        m.runs[0].layers.erase(m.runs[0].layers.begin() + 1); // drop relu1
        const MeasurementComparison c =
            compareWithMeasurement(tinyNetwork(), tinyPrediction(2, 4, 0.5, 0.5), m.runs[0]);
        QCOMPARE(c.unmatched_layers, 1);
        QVERIFY(!c.layers[2].matched);
        QVERIFY(!c.layers[2].total_error_pct);
        QVERIFY(std::abs(*c.total_error_pct) < 1e-9); // sums cover matched layers only
    }

    void aRunIsSelectedByBatchAndPrecision() {
        Measurement m = sampleMeasurement();
        NetworkRun amp = m.runs[0];
        amp.precision = "amp";
        amp.layers[0].forward_ms = 1;
        m.runs.push_back(amp);
        QCOMPARE(selectRun(m, "m.json", "tiny", 8, Precision::AMP).layers[0].forward_ms, 1.0);
        QCOMPARE(selectRun(m, "m.json", "other", 8, Precision::FP32).layers[0].forward_ms, 2.0);
        try {
            selectRun(m, "m.json", "tiny", 64, Precision::FP32);
            QFAIL("no error for a batch that was not measured");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("m.json: no measured run at batch 64 fp32") == 0, e.what());
            QVERIFY2(what.find("tiny batch 8 amp") != std::string::npos, e.what());
        }
    }

    void theMeasuredTimelineRunsForwardThenBackwardInReverse() {
        const auto events = measuredTimeline(sampleMeasurement().runs[0]);
        QCOMPARE(events.size(), std::size_t{4});
        const auto run = sampleMeasurement().runs[0];
        const long conv1 = static_cast<long>(run.layers[0].index);
        const long relu1 = static_cast<long>(run.layers[1].index);
        QCOMPARE(run.layers[0].name, std::string("conv1"));
        QCOMPARE(run.layers[1].name, std::string("relu1"));
        const std::pair<EventKind, long> expected[] = {{EventKind::Forward, conv1},
                                                       {EventKind::Forward, relu1},
                                                       {EventKind::Backward, relu1},
                                                       {EventKind::Backward, conv1}};
        for (std::size_t i = 0; i < 4; ++i) {
            QVERIFY(events[i].kind == expected[i].first);
            QCOMPARE(events[i].layer, expected[i].second);
        }
        QCOMPARE(events[3].start_ms, 3.0);
        QCOMPARE(events[3].duration_ms, 4.0);
        QCOMPARE(events[0].layer, 1L);
    }
};

QTEST_APPLESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
