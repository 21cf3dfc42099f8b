// Fitting a software profile to a person's measurements (core/fitting/measurement_fit.h,
// core/fitting/trace_fit.h): a fit recovers the parameter that made the measurements, a
// profile fitted on one GPU's rows predicts another GPU's better than its base, the pull
// toward the base keeps few rows from running away, bad rows are refused, and the written
// profile loads back with its own error band.
#include "fitting/measurement_fit.h"
#include "fitting/trace_fit.h"
#include "fitting/variance_components.h"
#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "trace/kineto_trace.h"
#include "training_trace.h"
#include "util/error.h"
#include "util/text_file.h"
#include "validation/error_band.h"

#include "measured_rows.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace iterscope;

namespace {

using test::measuredRow;

// Sets each row's measurement to what `truth` predicts for it.
std::vector<ValidationRow> measuredBy(std::vector<ValidationRow> rows,
                                      const SoftwareProfile& truth) {
    ValidationResolver r = defaultResolver();
    r.software = [truth](const std::string&) { return truth; };
    for (ValidationRow& row : rows)
        row.measured =
            metricValue(predict(scenarioForRow(row, r), PredictDetail::Totals), row.metric);
    return rows;
}

double mape(const std::vector<ValidationRow>& rows, const SoftwareProfile& software) {
    ValidationResolver r = defaultResolver();
    r.software = [software](const std::string&) { return software; };
    return validate(rows, r).mape;
}

double fieldOf(const SoftwareFitReport& fit, const std::string& field) {
    for (const FittedField& f : fit.fields)
        if (f.field == field)
            return f.fitted;
    throw std::runtime_error("not fitted: " + field);
}

// AlexNet on an H100 with `software`: the scenario the trace tests fit to.
Scenario alexnetOnH100(const SoftwareProfile& software) {
    Scenario s;
    s.network = loadNetwork("alexnet");
    s.gpu = loadGpuProfile("h100-sxm");
    s.system = loadSystemProfile("dgx-h100");
    s.software = software;
    s.batch_per_gpu = 64;
    return s;
}

// The kernel times the model gives `truth`, written as a training step's trace.
TraceAnalysis traceMadeBy(const Scenario& truth) {
    const LayerPassTable table = layerPassTable(kernelTimeScenario(truth));
    TrainingTraceOptions o;
    for (const LayerPasses& p : table.passes) {
        o.forward_us.push_back(p.forward.ms * 1000);
        o.backward_us.push_back(p.backward.ms * 1000);
    }
    return analyzeTrace(parseKinetoTrace(alexnetTrainingTrace(o).json, "t.json"));
}

double carriedOf(const SoftwareFitReport& fit, const std::string& field) {
    for (const FittedField& f : fit.fields)
        if (f.field == field)
            return f.carried;
    throw std::runtime_error("not fitted: " + field);
}

// Every shared change carried to other GPUs (the pin's harness share at 1), for the tests
// about what the shared parameters learn.
SoftwareFitOptions carryingAll() {
    SoftwareFitOptions o;
    o.harness_share = 1;
    return o;
}

std::vector<ValidationRow> a100Rows() {
    return {measuredRow("a1", "resnet50", "a100-sxm4-80gb", "dgx-a100", "amp", 256),
            measuredRow("a2", "resnet50", "a100-sxm4-80gb", "dgx-a100", "tf32", 128),
            measuredRow("a3", "resnext101-32x4d", "a100-sxm4-80gb", "dgx-a100", "amp", 128)};
}

std::vector<ValidationRow> v100Rows() {
    return {measuredRow("v1", "resnet50", "v100-sxm2-16gb", "dgx1-v100", "amp", 256),
            measuredRow("v2", "resnet50", "v100-sxm2-16gb", "dgx1-v100", "amp", 128),
            measuredRow("v3", "resnext101-32x4d", "v100-sxm2-16gb", "dgx1-v100", "amp", 64),
            measuredRow("v4", "resnet50", "v100-sxm2-16gb", "dgx1-v100", "amp", 256, 8)};
}

} // namespace

class MeasurementFit : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void everyFittableFieldHasBoundsAroundTheShippedValues() {
        for (const std::string& field : fitParameterFields()) {
            const FitFieldBounds b = fitFieldBounds(field);
            QVERIFY2(b.min < b.max && b.floor > 0, field.c_str());
        }
        for (const auto* list : {&defaultMeasurementFitFields(), &defaultTraceFitFields()})
            for (const std::string& field : *list)
                QVERIFY(std::find(fitParameterFields().begin(), fitParameterFields().end(),
                                  field) != fitParameterFields().end());
        QVERIFY_THROWS_EXCEPTION(InputError, fitFieldBounds("sm_count"));
    }

    void aFitRecoversTheParameterThatMadeTheMeasurements() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        SoftwareProfile truth = base;
        truth.tensor_core_efficiency = base.tensor_core_efficiency * 0.8;
        const auto rows = measuredBy(a100Rows(), truth);
        SoftwareFitOptions one;
        one.fields = {"tensor_core_efficiency"};
        const SoftwareFitReport fit =
            fitToMeasurements(rows, defaultResolver(), base, one, "m.csv");
        QVERIFY2(std::abs(fieldOf(fit, "tensor_core_efficiency") - truth.tensor_core_efficiency) <
                     0.01 * truth.tensor_core_efficiency,
                 qPrintable(QString::number(fieldOf(fit, "tensor_core_efficiency"))));
        QVERIFY(fit.error_before > 5);
        // Under 1%, not 0: the shared change is shrunk for three rows (share ~0.31) and the
        // GPU's own factor, under its prior, takes back all but a fraction of the rest.
        QVERIFY2(fit.error_after < 1.0, qPrintable(QString::number(fit.error_after)));
        // With the default fields the change is shared out, but the error still goes.
        const SoftwareFitReport wide =
            fitToMeasurements(rows, defaultResolver(), base, {}, "m.csv");
        QVERIFY(wide.error_after < fit.error_before / 5);
        QVERIFY(fieldOf(wide, "tensor_core_efficiency") < base.tensor_core_efficiency);
    }

    void aProfileFittedOnOneGpuPredictsAnotherBetterThanItsBase() {
        // The same stack measured on A100s; its V100 rows are held out of the fit entirely.
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        SoftwareProfile truth = base;
        truth.tensor_core_efficiency *= 0.8;
        truth.per_layer_overhead_us *= 3;
        truth.memory_efficiency *= 0.85;
        const SoftwareFitReport fit = fitToMeasurements(
            measuredBy(a100Rows(), truth), defaultResolver(), base, carryingAll(), "a100.csv");
        const auto held_out = measuredBy(v100Rows(), truth);
        const double before = mape(held_out, base), after = mape(held_out, fit.fitted);
        QVERIFY2(after < before * 0.7, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
    }

    void publishedRowsOfOneGpuImproveAnotherGpuOverAWrongBase() {
        // Real measurements: NVIDIA's PyTorch ResNet-50 runs. A base that is off (tensor cores
        // at 0.45 instead of what the shipped fit found) fitted on the A100 rows must predict
        // the same harness's V100 rows better than it did.
        std::vector<ValidationRow> a100, v100;
        for (const ValidationRow& r :
             readValidationCsv(ITERSCOPE_TEST_DATA "/published-modern.csv"))
            if (r.source == "nvidia-dle-pyt-rn50v1.5-21.03")
                (r.gpu == "a100-sxm4-80gb" ? a100 : v100).push_back(r);
        QVERIFY(a100.size() >= 2 && v100.size() >= 4);
        SoftwareProfile wrong = loadSoftwareProfile("pytorch");
        wrong.tensor_core_efficiency = 0.45;
        wrong.per_layer_overhead_us = 8;
        const SoftwareFitReport fit =
            fitToMeasurements(a100, defaultResolver(), wrong, carryingAll(), "p.csv");
        const double before = mape(v100, wrong), after = mape(v100, fit.fitted);
        QVERIFY2(after < before, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
        QVERIFY(fit.error_after < fit.error_before);
    }

    void oneRowIsEnoughAndItsHeldOutErrorIsTheBases() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        SoftwareProfile truth = base;
        truth.tensor_core_efficiency *= 0.9;
        const auto rows = measuredBy({a100Rows()[0]}, truth);
        const SoftwareFitReport fit =
            fitToMeasurements(rows, defaultResolver(), base, {}, "one.csv");
        QCOMPARE(fit.rows.size(), std::size_t(1));
        QVERIFY(fit.error_after < fit.error_before);
        QCOMPARE(fit.error_held_out, fit.error_before); // a fit on no rows is the base
        QCOMPARE(fit.band.rows, 1);
        QCOMPARE(fit.band.architectures, std::vector<std::string>{"Ampere"});
    }

    void thePullTowardTheBaseKeepsTwoRowsFromRunningAway() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        std::vector<ValidationRow> rows = {a100Rows()[0], a100Rows()[1]};
        rows[0].measured = 2600; // measured by someone, noise and all
        rows[1].measured = 1010;
        const auto spread = [&](const SoftwareFitReport& fit) {
            double sum = 0;
            for (const FittedField& f : fit.fields)
                sum += std::pow(std::log(std::max(f.fitted, 1e-6) / std::max(f.base, 1e-6)), 2);
            return sum;
        };
        SoftwareFitOptions free;
        free.prior_weight = 0;
        const SoftwareFitReport pulled =
            fitToMeasurements(rows, defaultResolver(), base, {}, "t.csv");
        const SoftwareFitReport loose =
            fitToMeasurements(rows, defaultResolver(), base, free, "t.csv");
        QVERIFY(pulled.error_after < pulled.error_before);
        QVERIFY2(spread(pulled) <= spread(loose),
                 qPrintable(QString("%1 vs %2").arg(spread(pulled)).arg(spread(loose))));
    }

    void thePullIsPerRowSoTheSameEvidenceTwiceMovesFurther() {
        // Two rows that disagree, then the same two measured again: the mean error is the
        // same, but twice the rows say it with twice the weight against the prior.
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        std::vector<ValidationRow> rows = {a100Rows()[0], a100Rows()[1]};
        rows[0].measured = 2600;
        rows[1].measured = 1010;
        std::vector<ValidationRow> twice = rows;
        for (ValidationRow r : rows) {
            r.id += "-again";
            twice.push_back(r);
        }
        const auto moved = [&](const SoftwareFitReport& fit) {
            double sum = 0;
            for (const FittedField& f : fit.fields)
                sum += std::pow(std::log(std::max(f.fitted, 1e-6) / std::max(f.base, 1e-6)), 2);
            return sum;
        };
        const SoftwareFitReport once =
            fitToMeasurements(rows, defaultResolver(), base, {}, "once.csv");
        const SoftwareFitReport again =
            fitToMeasurements(twice, defaultResolver(), base, {}, "twice.csv");
        QVERIFY2(moved(again) > moved(once) * 1.05,
                 qPrintable(QString("%1 vs %2").arg(moved(again)).arg(moved(once))));
        // Given per row, the same weight over four rows is the mean error's weight over two
        // at half of it: the two fits then agree.
        SoftwareFitOptions half;
        half.prior_weight = kDefaultPriorWeightPerRow / 2;
        const SoftwareFitReport halved =
            fitToMeasurements(rows, defaultResolver(), base, half, "once.csv");
        QVERIFY2(std::abs(moved(halved) - moved(again)) < 0.02 * moved(again),
                 qPrintable(QString("%1 vs %2").arg(moved(halved)).arg(moved(again))));
    }

    void badRowsAreRefusedNamingTheFile_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("problem");
        QTest::newRow("unknown GPU") << "gpu"
                                     << "row a1";
        QTest::newRow("does not fit") << "memory"
                                      << "does not fit in the memory";
        QTest::newRow("past a bound") << "bound"
                                      << "past the bound";
    }
    void badRowsAreRefusedNamingTheFile() {
        QFETCH(QString, what);
        QFETCH(QString, problem);
        std::vector<ValidationRow> rows = a100Rows();
        for (ValidationRow& r : rows)
            r.measured = 1000;
        if (what == "gpu")
            rows[0].gpu = "no-such-gpu";
        else if (what == "memory")
            rows[0].batch_per_gpu = 100000;
        else
            for (ValidationRow& r : rows)
                r.measured = 1e6; // a thousand times what any efficiency reaches
        try {
            fitToMeasurements(rows, defaultResolver(), loadSoftwareProfile("pytorch"), {},
                              "bad.csv");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("bad.csv: "), e.what());
            QVERIFY2(QString(e.what()).contains(problem), e.what());
        }
    }

    void theWrittenProfileLoadsBackWithItsOwnBand() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        SoftwareProfile truth = base;
        truth.tensor_core_efficiency *= 0.85;
        const auto rows = measuredBy(a100Rows(), truth);
        const SoftwareFitReport fit = fitToMeasurements(rows, defaultResolver(), base, {}, "m.csv");
        const std::string base_file = profile_json::resolve("pytorch", "software", "software");
        const std::string text =
            fittedProfileJson(readBoundedFile(base_file, 1 << 20, "a profile"), base_file, fit,
                              "my-stack", "My stack", "FITTED in a test");
        const SoftwareProfile back = parseSoftwareProfile(text, "my-stack.json");
        QCOMPARE(back.id, std::string("my-stack"));
        QCOMPARE(back.source, std::string("FITTED in a test"));
        QVERIFY(std::abs(back.tensor_core_efficiency - carriedOf(fit, "tensor_core_efficiency")) <
                1e-5);
        QCOMPARE(back.gpu_corrections, fit.fitted.gpu_corrections);
        QCOMPARE(back.amp_host_sync, base.amp_host_sync); // untouched fields survive
        QCOMPARE(back.error_band.rows, 3);
        // What a pin does to the band of a GPU it did not measure: measured for pins of four
        // rows or more, so three rows keep the shipped band and four take the measurement.
        QCOMPARE(back.fitted_to.other_gpus_band_scale, 1.0);
        const PinVariance* pin = shippedPinVariance();
        const SoftwareFitReport four =
            fitToMeasurements(measuredBy(v100Rows(), truth), defaultResolver(), base, {}, "v.csv");
        QVERIFY(std::abs(four.other_gpus_band_scale - (pin ? pin->other_gpus_band_scale : 1.0)) <
                1e-9);
        // Only a pin fitted as the table's were takes the measurement: other fields, or no
        // GPU part, move the other GPUs differently. The default fields in another order do not.
        SoftwareFitOptions other_fields;
        other_fields.fields = {"tensor_core_efficiency", "per_layer_overhead_us"};
        SoftwareFitOptions no_gpu_part;
        no_gpu_part.gpu_part = false;
        SoftwareFitOptions reordered;
        reordered.fields = defaultMeasurementFitFields();
        std::reverse(reordered.fields.begin(), reordered.fields.end());
        const std::vector<std::pair<SoftwareFitOptions, double>> cases{
            {other_fields, 1.0}, {no_gpu_part, 1.0}, {reordered, four.other_gpus_band_scale}};
        for (const auto& [options, expected] : cases) {
            const SoftwareFitReport f = fitToMeasurements(
                measuredBy(v100Rows(), truth), defaultResolver(), base, options, "v.csv");
            QVERIFY(std::abs(f.other_gpus_band_scale - expected) < 1e-9);
        }
        QCOMPARE(back.error_band.architectures, std::vector<std::string>{"Ampere"});

        // The profile's band speaks for Ampere; a Volta prediction keeps the shipped one.
        Scenario s;
        s.network = loadNetwork("resnet50");
        s.gpu = loadGpuProfile("a100-sxm4-80gb");
        s.system = loadSystemProfile("dgx-a100");
        s.software = back;
        s.batch_per_gpu = 64;
        s.precision = Precision::AMP;
        const ErrorBand own = errorBandFor(shippedErrorBands(), s);
        QVERIFY2(own.basis.find("fitted to") != std::string::npos, own.basis.c_str());
        Scenario shipped = s;
        shipped.software = base;
        const ErrorBand reference = errorBandFor(shippedErrorBands(), shipped);
        // Three rows may not narrow the shipped band.
        QVERIFY(std::log(own.high / own.low) >= std::log(reference.high / reference.low) - 1e-9);
        s.gpu = loadGpuProfile("v100-sxm2-16gb");
        s.system = loadSystemProfile("dgx1-v100");
        shipped.gpu = s.gpu;
        shipped.system = s.system;
        // A GPU the fit did not measure: the shipped band, scaled by what a pin does to the
        // other GPUs' errors (never below the bands' floor).
        const ErrorBand other = errorBandFor(shippedErrorBands(), s);
        const ErrorBand volta = errorBandFor(shippedErrorBands(), shipped);
        QVERIFY2(other.basis.rfind(volta.basis, 0) == 0, other.basis.c_str());
        const double scale = back.fitted_to.other_gpus_band_scale;
        QVERIFY(std::abs(std::log(other.high) - std::max(scale * std::log(volta.high),
                                                         shippedErrorBands().floor_log)) < 1e-9);
    }

    void aTracesLayerTimesRecoverTheEfficiencyThatMadeThem() {
        // Kernel times made by the model with conv_efficiency 0.6, written as a trace.
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        Scenario truth = alexnetOnH100(base);
        truth.software.conv_efficiency = 0.6;
        truth.gpus_per_node = 2;
        truth.sync = SyncStrategy::AllreduceNccl;
        const TraceAnalysis trace = traceMadeBy(truth);
        Scenario s = truth;
        s.software = base;
        SoftwareFitOptions one;
        one.fields = {"conv_efficiency"};
        const SoftwareFitReport fit = fitToTrace(trace, compareTrace(trace, s), s, one);
        QVERIFY2(std::abs(fieldOf(fit, "conv_efficiency") - 0.6) < 0.006,
                 qPrintable(QString::number(fieldOf(fit, "conv_efficiency"))));
        QVERIFY(fit.error_after < fit.error_before);
        QCOMPARE(fit.band.rows, 0);
    }

    void aTracePinKeepsTheGpusMemoryBoundKernelsApart() {
        // This GPU's memory-bound kernels run 30% slower than the shared parameters say and its
        // arithmetic ones as they say: one factor on every kernel could only average the two.
        // With nothing carried to other GPUs (share 0) the GPU part must hold all of it.
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        Scenario truth = alexnetOnH100(base);
        truth.software.gpu_memory_corrections["h100-sxm"]["fp32"] = 0.7;
        const TraceAnalysis trace = traceMadeBy(truth);
        Scenario s = truth;
        s.software = base;
        SoftwareFitOptions options;
        options.harness_share = 0;
        const SoftwareFitReport fit = fitToTrace(trace, compareTrace(trace, s), s, options);
        const double memory = gpuMemoryCorrection(fit.fitted, "h100-sxm", "fp32");
        QVERIFY2(std::abs(memory - 0.7) < 0.05, qPrintable(QString::number(memory)));
        QVERIFY2(fit.error_after < 1.0, qPrintable(QString::number(fit.error_after)));
        QVERIFY(std::any_of(fit.gpu_corrections.begin(), fit.gpu_corrections.end(),
                            [](const GpuCorrectionFit& g) { return g.memory_bound_only; }));
        // Other GPUs, and this one at another precision, are untouched.
        QCOMPARE(gpuMemoryCorrection(fit.fitted, "a100-sxm4-80gb", "fp32"), 1.0);
        QCOMPARE(gpuMemoryCorrection(fit.fitted, "h100-sxm", "amp"), 1.0);
        // What is written loads back with it.
        const std::string file = profile_json::resolve("pytorch", "software", "software");
        const SoftwareProfile back = parseSoftwareProfile(
            fittedProfileJson(readBoundedFile(file, 1 << 20, "a profile"), file, fit,
                              "pytorch-trace", "PyTorch (trace)", "FITTED by a test"),
            "pytorch-trace.json");
        QCOMPARE(back.gpu_memory_corrections, fit.fitted.gpu_memory_corrections);
    }

    void anInferenceTraceCannotFitATrainingProfile() {
        TrainingTraceOptions o;
        o.backward = false;
        const TraceAnalysis trace =
            analyzeTrace(parseKinetoTrace(alexnetTrainingTrace(o).json, "inference.json"));
        const Scenario s = alexnetOnH100(loadSoftwareProfile("pytorch"));
        try {
            fitToTrace(trace, compareTrace(trace, s), s, {});
            QFAIL("fitted an inference trace");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("inference.json: a forward-only"), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(MeasurementFit)
#include "tst_measurement_fit.moc"
