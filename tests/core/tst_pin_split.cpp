// A pin that knows what it pins (core/fitting/measurement_fit.h, docs/calibrating.md):
// a fit to one GPU's rows keeps that GPU's own part (a kernel-rate factor per precision,
// keyed by its id) and carries to other GPUs only the harness share of the shared change.
// With a share of 0 another GPU predicts as with the base; with 1 the shared change carries
// whole; the measured GPU's TF32 and AMP rows are both right after the fit; a profile
// without the new key loads as before, and a bad one is refused.
#include "fitting/measurement_fit.h"
#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "model/model.h"
#include "util/error.h"
#include "util/text_file.h"

#include "measured_rows.h"

#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

using test::measuredRow;

double predicted(const ValidationRow& r, const SoftwareProfile& software) {
    ValidationResolver resolver = defaultResolver();
    resolver.software = [software](const std::string&) { return software; };
    return metricValue(predict(scenarioForRow(r, resolver), PredictDetail::Totals), r.metric);
}

// Each row measured at what `software` predicts times its precision's factor.
std::vector<ValidationRow> measured(std::vector<ValidationRow> rows,
                                    const SoftwareProfile& software, double tf32, double amp) {
    for (ValidationRow& r : rows)
        r.measured = predicted(r, software) * (r.precision == "tf32" ? tf32 : amp);
    return rows;
}

std::vector<ValidationRow> a100Rows() {
    return {measuredRow("a1", "resnet50", "a100-sxm4-80gb", "dgx-a100", "amp", 256),
            measuredRow("a2", "resnet50", "a100-sxm4-80gb", "dgx-a100", "amp", 128),
            measuredRow("a3", "resnext101-32x4d", "a100-sxm4-80gb", "dgx-a100", "amp", 128),
            measuredRow("a4", "resnet50", "a100-sxm4-80gb", "dgx-a100", "tf32", 128),
            measuredRow("a5", "resnet50", "a100-sxm4-80gb", "dgx-a100", "tf32", 256),
            measuredRow("a6", "resnext101-32x4d", "a100-sxm4-80gb", "dgx-a100", "tf32", 64)};
}

std::vector<ValidationRow> v100Rows() {
    return {measuredRow("v1", "resnet50", "v100-sxm2-16gb", "dgx1-v100", "amp", 256),
            measuredRow("v2", "resnext101-32x4d", "v100-sxm2-16gb", "dgx1-v100", "amp", 64),
            measuredRow("v3", "resnet50", "v100-sxm2-16gb", "dgx1-v100", "amp", 256, 8),
            measuredRow("v4", "resnet50", "v100-sxm2-16gb", "dgx1-v100", "fp32", 128)};
}

SoftwareFitOptions withShare(double share) {
    SoftwareFitOptions o;
    o.harness_share = share;
    return o;
}

double worstError(const std::vector<ValidationRow>& rows, const SoftwareProfile& software) {
    double worst = 0;
    for (const ValidationRow& r : rows)
        worst = std::max(worst, std::abs(predicted(r, software) / r.measured - 1) * 100);
    return worst;
}

} // namespace

class PinSplit : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void aPinOnGpuALeavesGpuBUnchangedWhenTheShareIsZero() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        const auto rows = measured(a100Rows(), base, 1.10, 0.97);
        const SoftwareFitReport fit =
            fitToMeasurements(rows, defaultResolver(), base, withShare(0), "a100.csv");
        QCOMPARE(fit.harness_share, 0.0);
        QCOMPARE(fit.gpus, std::vector<std::string>{"a100-sxm4-80gb"});
        for (const FittedField& f : fit.fields)
            QCOMPARE(f.carried, f.base);
        for (const ValidationRow& r : v100Rows())
            QCOMPARE(predicted(r, fit.fitted), predicted(r, base));
        // The GPU it measured still gets what its rows said.
        QVERIFY2(worstError(rows, fit.fitted) < 2, qPrintable(QString::number(fit.error_after)));
    }

    void withShareOneTheSharedPartCarriesWhole() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        SoftwareProfile truth = base;
        truth.tensor_core_efficiency *= 0.8;
        truth.per_layer_overhead_us *= 3;
        const auto rows = measured(a100Rows(), truth, 1, 1);
        const SoftwareFitReport whole =
            fitToMeasurements(rows, defaultResolver(), base, withShare(1), "a100.csv");
        SoftwareFitOptions shared_only = withShare(1);
        shared_only.gpu_part = false;
        const SoftwareFitReport before_split =
            fitToMeasurements(rows, defaultResolver(), base, shared_only, "a100.csv");
        QCOMPARE(whole.fields.size(), before_split.fields.size());
        for (std::size_t i = 0; i < whole.fields.size(); ++i) {
            QCOMPARE(whole.fields[i].carried, whole.fields[i].fitted);
            QCOMPARE(whole.fields[i].fitted, before_split.fields[i].fitted);
        }
        QVERIFY(before_split.fitted.gpu_corrections.empty());
        // Other GPUs see the whole shared change: exactly the shared-only fit's profile.
        for (const ValidationRow& r : v100Rows())
            QCOMPARE(predicted(r, whole.fitted), predicted(r, before_split.fitted));
        // A share in between carries that share of each change.
        const SoftwareFitReport half =
            fitToMeasurements(rows, defaultResolver(), base, withShare(0.5), "a100.csv");
        for (const FittedField& f : half.fields)
            QVERIFY(std::abs(f.carried - (f.base + 0.5 * (f.fitted - f.base))) <
                    1e-5 * std::abs(f.base));
    }

    void tf32AndAmpRowsOfOneGpuAreBothRightAfterTheFit() {
        // The issue's A100 case: TF32 measured 10% faster than predicted, AMP 3% slower.
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        const auto rows = measured(a100Rows(), base, 1.10, 0.97);
        for (const double share : {0.0, 0.5, 1.0}) {
            const SoftwareFitReport fit =
                fitToMeasurements(rows, defaultResolver(), base, withShare(share), "a100.csv");
            const double worst = worstError(rows, fit.fitted);
            QVERIFY2(worst < 2, qPrintable(QString("share %1: worst %2%").arg(share).arg(worst)));
            QCOMPARE(fit.gpu_corrections.size(), std::size_t(2)); // amp and tf32
            for (const GpuCorrectionFit& g : fit.gpu_corrections) {
                QCOMPARE(g.gpu, std::string("a100-sxm4-80gb"));
                QCOMPARE(g.rows, 3);
            }
        }
    }

    void aCorrectionTouchesOnlyItsGpuAndPrecision() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        SoftwareProfile own = base;
        own.gpu_corrections["a100-sxm4-80gb"]["tf32"] = 1.5;
        const auto a = a100Rows();
        QVERIFY(predicted(a[3], own) > predicted(a[3], base) * 1.05); // a100 tf32
        QCOMPARE(predicted(a[0], own), predicted(a[0], base));        // a100 amp
        for (const ValidationRow& r : v100Rows())
            QCOMPARE(predicted(r, own), predicted(r, base));
    }

    void theWrittenProfileKeepsTheGpuPartAndOldProfilesStillLoad() {
        const std::string base_file = profile_json::resolve("pytorch", "software", "software");
        const std::string base_text = readBoundedFile(base_file, 1 << 20, "a profile");
        // A profile fitted before the split has no gpu_corrections: it loads, with none.
        QVERIFY(parseSoftwareProfile(base_text, base_file).gpu_corrections.empty());
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        const SoftwareFitReport fit =
            fitToMeasurements(measured(a100Rows(), base, 1.10, 0.97), defaultResolver(), base,
                              withShare(0.4), "a100.csv");
        const std::string text =
            fittedProfileJson(base_text, base_file, fit, "my-a100", "Mine", "FITTED in a test");
        const SoftwareProfile back = parseSoftwareProfile(text, "my-a100.json");
        QCOMPARE(back.gpu_corrections, fit.fitted.gpu_corrections);
        QCOMPARE(back.gpu_corrections.at("a100-sxm4-80gb").size(), std::size_t(2));
        for (const FittedField& f : fit.fields) {
            double value = 0;
            QVERIFY(getFitParameterField(back, f.field, value));
            QVERIFY(std::abs(value - f.carried) < 1e-5 * std::abs(f.carried));
        }
    }

    void aBadCorrectionIsRefusedNamingTheField_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("corrections");
        QTest::addColumn<QString>("problem");
        // A trace's memory-bound factors (gpu_memory_corrections) are held to the same rules.
        for (const char* key : {"gpu_corrections", "gpu_memory_corrections"}) {
            const QString k = key;
            QTest::newRow(qPrintable(k + " precision"))
                << k << R"({"a100-sxm4-80gb": {"fp64": 1.1}})" << k + ".a100-sxm4-80gb.fp64";
            QTest::newRow(qPrintable(k + " range")) << k << R"({"a100-sxm4-80gb": {"tf32": 9}})"
                                                    << "from 0.25 to 4";
            QTest::newRow(qPrintable(k + " id")) << k << R"({"A100 SXM": {"tf32": 1}})"
                                                 << "GPU profile id";
            QTest::newRow(qPrintable(k + " empty")) << k << R"({"a100-sxm4-80gb": {}})"
                                                    << "map precisions";
        }
    }

    void aBadCorrectionIsRefusedNamingTheField() {
        QFETCH(QString, key);
        QFETCH(QString, corrections);
        QFETCH(QString, problem);
        const std::string base_file = profile_json::resolve("pytorch", "software", "software");
        nlohmann::json doc =
            nlohmann::json::parse(readBoundedFile(base_file, 1 << 20, "a profile"));
        doc[key.toStdString()] = nlohmann::json::parse(corrections.toStdString());
        try {
            parseSoftwareProfile(doc.dump(), "bad.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(problem), e.what());
        }
    }

    void aShareAboveOneIsTakenAsOne() {
        const SoftwareProfile base = loadSoftwareProfile("pytorch");
        const auto rows = measured({a100Rows()[0], a100Rows()[3]}, base, 1.05, 1.0);
        const SoftwareFitReport fit =
            fitToMeasurements(rows, defaultResolver(), base, withShare(7), "a100.csv");
        QCOMPARE(fit.harness_share, 1.0);
    }

    void aGpuFactorIsThePosteriorModeUnderTheVarianceComponents() {
        // Rows that move one for one with the factor: the mode is the measured offset shrunk
        // by n/sigma_e^2 against 1/sigma_g^2, the normal-normal posterior.
        const GpuFactorPrior prior{0.07, 0.05};
        const double offset = 0.10;
        const int n = 3;
        const double factor = fitGpuRateFactor(
            [&](double f) { return std::vector<double>(n, offset - std::log(f)); }, prior);
        const double data = n / (0.05 * 0.05), belief = 1 / (0.07 * 0.07);
        const double expected = std::exp(offset * data / (data + belief));
        QVERIFY2(std::abs(factor / expected - 1) < 1e-3,
                 qPrintable(QString("%1 vs %2").arg(factor).arg(expected)));
        // Without a prior the factor is the plain root: the whole offset.
        const double plain =
            fitGpuRateFactor([&](double f) { return std::vector<double>(n, offset - std::log(f)); },
                             GpuFactorPrior{});
        QVERIFY(std::abs(plain / std::exp(offset) - 1) < 1e-3);
    }

    void rowsThatHardlyMoveWithTheFactorLeaveItNearOne() {
        // A run bound by its communication: 40% faster than predicted, but its throughput
        // moves a hundredth as fast as the kernels. The root runs to the 4x bound, which a
        // compute-bound scenario of the same GPU would pay in full; the mode stays near 1.
        const auto insensitive = [](double f) {
            return std::vector<double>{std::log(1.4) - 0.01 * std::log(f)};
        };
        QCOMPARE(fitGpuRateFactor(insensitive, GpuFactorPrior{}), 4.0);
        const double factor = fitGpuRateFactor(insensitive, GpuFactorPrior{0.07, 0.12});
        QVERIFY2(std::abs(std::log(factor)) < 0.01, qPrintable(QString::number(factor)));
    }
};

QTEST_GUILESS_MAIN(PinSplit)
#include "tst_pin_split.moc"
