// Error bands (core/validation/error_band.h): classes from residuals, the fallback from a
// thin class to a wider one, and the band's bounds.
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "validation/error_band.h"

#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

ErrorBands bandsOf(const std::vector<ErrorBandRow>& rows) {
    ErrorBands b;
    b.classes = errorClasses(rows);
    b.unseen_architecture = b.classes;
    return b;
}

Scenario scenario(const std::string& architecture, Precision precision, int gpus) {
    Scenario s;
    s.gpu.architecture = architecture;
    s.precision = precision;
    s.gpus_per_node = gpus;
    return s;
}

} // namespace

class ErrorBandTest : public QObject {
    Q_OBJECT
  private slots:
    void classesHoldMeanAndSpreadOfTheirRows() {
        std::vector<ErrorBandRow> rows;
        for (double v : {0.1, 0.2, 0.3, 0.4})
            rows.push_back({"Ampere", "amp", false, v});
        rows.push_back({"Volta", "amp", false, -0.1});
        const auto classes = errorClasses(rows);
        bool found = false;
        for (const ErrorClass& c : classes)
            if (c.architecture == "Ampere" && c.precision == "amp" && c.multi_gpu == 0) {
                found = true;
                QCOMPARE(c.rows, 4);
                QVERIFY(qAbs(c.mean_log_ratio - 0.25) < 1e-12);
                QVERIFY(qAbs(c.sd_log_ratio - std::sqrt(0.05 / 3)) < 1e-12);
            }
        QVERIFY(found);
    }

    void aBandCentresOnTheMeanErrorWithTheStatedCoverage() {
        std::vector<ErrorBandRow> rows;
        for (double v : {0.1, 0.2, 0.3, 0.4})
            rows.push_back({"Ampere", "amp", false, v});
        const ErrorBands b = bandsOf(rows);
        const ErrorBand band = errorBandFor(b, scenario("Ampere", Precision::AMP, 1));
        QCOMPARE(band.rows, 4);
        const double sd = std::sqrt(0.05 / 3);
        QVERIFY(qAbs(band.low - std::exp(0.25 - b.z * sd)) < 1e-12);
        QVERIFY(qAbs(band.high - std::exp(0.25 + b.z * sd)) < 1e-12);
        QVERIFY(band.low < band.high);
    }

    void thinClassesFallBackToWiderOnes() {
        std::vector<ErrorBandRow> rows;
        for (double v : {0.05, -0.05, 0.1, -0.1, 0.0})
            rows.push_back({"Volta", "amp", true, v});
        rows.push_back({"Ampere", "amp", true, 0.5}); // one row: too thin to stand alone
        const ErrorBands b = bandsOf(rows);
        const ErrorBand ampere = errorBandFor(b, scenario("Ampere", Precision::AMP, 8));
        QCOMPARE(ampere.rows, 6); // every architecture's amp multi-GPU rows
        // An architecture no row covers uses the unseen-architecture residuals.
        const ErrorBand hopper = errorBandFor(b, scenario("Hopper", Precision::AMP, 8));
        QCOMPARE(hopper.rows, 6);
        QVERIFY(QString::fromStdString(hopper.basis).contains("unseen"));
        // No class at all: no band.
        QCOMPARE(errorBandFor(ErrorBands{}, scenario("Hopper", Precision::AMP, 8)).rows, 0);
    }

    void bandsRoundTripThroughTheirFile() {
        std::vector<ErrorBandRow> rows;
        for (double v : {0.1, 0.2, 0.3, 0.4})
            rows.push_back({"Ampere", "tf32", true, v});
        const ErrorBands b = bandsOf(rows);
        const ErrorBands back = parseErrorBands(errorBandsToJson(b), "bands.json");
        QCOMPARE(back.classes.size(), b.classes.size());
        QCOMPARE(back.classes[0].rows, b.classes[0].rows);
        QVERIFY_THROWS_EXCEPTION(InputError, parseErrorBands("{}", "bands.json"));
    }

    void theShippedBandsCoverEveryPrecision() {
        qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
        const ErrorBands& b = shippedErrorBands();
        for (Precision p : {Precision::FP32, Precision::TF32, Precision::AMP})
            for (const char* arch : {"Volta", "Ampere", "Hopper", "Pascal"}) {
                const ErrorBand band = errorBandFor(b, scenario(arch, p, 8));
                QVERIFY2(band.rows >= kMinBandRows, arch);
                // A class's errors may all lean one way, so the band need not hold 1.
                QVERIFY(band.low > 0 && band.low < band.high);
            }
    }
};

QTEST_APPLESS_MAIN(ErrorBandTest)
#include "tst_error_band.moc"
