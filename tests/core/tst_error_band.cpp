// Error bands (core/validation/error_band.h): the conformal quantile of held-out errors,
// classes and their fallbacks, a band symmetric in log space that always holds its
// prediction, its floor, and its growth beyond the measured rows.
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
    b.floor_log = 0;
    b.growth_per_doubling_log = 0.1;
    b.largest_measured_gpus = 64;
    b.measured_networks = {"edr-ib"};
    return b;
}

Scenario scenario(const std::string& architecture, Precision precision, int gpus, int nodes = 1) {
    Scenario s;
    s.gpu.architecture = architecture;
    s.precision = precision;
    s.gpus_per_node = gpus;
    s.nodes = nodes;
    s.system.network = "edr-ib";
    return s;
}

std::vector<ErrorBandRow> sixAmpereRows() {
    std::vector<ErrorBandRow> rows;
    for (double v : {0.1, -0.2, 0.3, 0.05, -0.15, 0.25})
        rows.push_back({"Ampere", "half", BandScale::OneGpu, v});
    return rows;
}

} // namespace

class ErrorBandTest : public QObject {
    Q_OBJECT
  private slots:
    void theConformalQuantileIsAnOrderStatisticOfTheAbsoluteErrors() {
        // Six errors: the ceil(7 x 0.8) = 6th smallest absolute one.
        QCOMPARE(conformalHalfWidth({0.1, -0.2, 0.3, 0.05, -0.15, 0.25}, 0.8), 0.3);
        // Eleven: the ceil(12 x 0.8) = 10th.
        std::vector<double> eleven;
        for (int i = 1; i <= 11; ++i)
            eleven.push_back(i % 2 ? 0.01 * i : -0.01 * i);
        QVERIFY(qAbs(conformalHalfWidth(eleven, 0.8) - 0.10) < 1e-12);
        QCOMPARE(conformalHalfWidth({}, 0.8), 0.0);
    }

    void aBandIsSymmetricInLogSpaceAndHoldsItsPrediction() {
        const ErrorBands b = bandsOf(sixAmpereRows());
        const ErrorBand band = errorBandFor(b, scenario("Ampere", Precision::AMP, 1));
        QCOMPARE(band.rows, 6);
        QVERIFY(qAbs(band.high - std::exp(0.3)) < 1e-12);
        QVERIFY(qAbs(band.low * band.high - 1) < 1e-12);
        QVERIFY(band.low < 1 && band.high > 1);
        // In percent: -26 % / +35 %, not a "± 30 %" that would hide its shape.
        QVERIFY(qAbs(band.belowPercent() - (1 - std::exp(-0.3)) * 100) < 1e-9);
        QVERIFY(qAbs(band.abovePercent() - (std::exp(0.3) - 1) * 100) < 1e-9);
        // bf16 is judged with the 16-bit rows.
        QCOMPARE(errorBandFor(b, scenario("Ampere", Precision::BF16, 1)).rows, 6);
    }

    void thinClassesFallBackToWiderOnes() {
        std::vector<ErrorBandRow> rows;
        for (double v : {0.05, -0.05, 0.1, -0.1, 0.0, 0.02})
            rows.push_back({"Volta", "half", BandScale::OneNode, v});
        rows.push_back({"Ampere", "half", BandScale::OneNode, 0.5}); // too thin to stand alone
        const ErrorBands b = bandsOf(rows);
        const ErrorBand ampere = errorBandFor(b, scenario("Ampere", Precision::AMP, 8));
        QCOMPARE(ampere.rows, 7); // every architecture's 16-bit one-node rows
        // An architecture no row covers uses the unseen-architecture residuals.
        const ErrorBand hopper = errorBandFor(b, scenario("Hopper", Precision::AMP, 8));
        QCOMPARE(hopper.rows, 7);
        QVERIFY(QString::fromStdString(hopper.basis).contains("unseen"));
        // No class at all: no band.
        QCOMPARE(errorBandFor(ErrorBands{}, scenario("Hopper", Precision::AMP, 8)).rows, 0);
    }

    void theClassBehindABandIsTheOneItsRowsCountCameFrom() {
        std::vector<ErrorBandRow> rows = sixAmpereRows();
        rows.push_back({"Volta", "half", BandScale::OneGpu, 0.4});
        const ErrorBands b = bandsOf(rows);
        const Scenario s = scenario("Ampere", Precision::AMP, 1);
        const ErrorClass* c = errorClassFor(b, s);
        QVERIFY(c);
        QCOMPARE(c->architecture, std::string("Ampere"));
        QCOMPARE(c->rows, errorBandFor(b, s).rows);
        QVERIFY(c->rms_log > 0);
        // A profile's own band is the user's rows, not a published class.
        Scenario own = s;
        own.software.error_band.rows = 8;
        own.software.error_band.half_width_log = 0.03;
        own.software.error_band.architectures = {"Ampere"};
        QVERIFY(!errorClassFor(b, own));
        QVERIFY(!errorClassFor(ErrorBands{}, s));
    }

    void aBandIsNeverNarrowerThanTheRunToRunSpread() {
        std::vector<ErrorBandRow> rows;
        for (int i = 0; i < 8; ++i)
            rows.push_back({"Volta", "fp32", BandScale::OneGpu, 0.001});
        ErrorBands b = bandsOf(rows);
        b.floor_log = 0.04;
        QVERIFY(qAbs(errorBandFor(b, scenario("Volta", Precision::FP32, 1)).high - std::exp(0.04)) <
                1e-12);
    }

    void theBandWidensBeyondWhatWasMeasured() {
        std::vector<ErrorBandRow> rows;
        for (double v : {0.05, -0.05, 0.1, -0.1, 0.0, 0.02})
            rows.push_back({"Volta", "fp32", BandScale::SeveralNodes, v});
        const ErrorBands b = bandsOf(rows);
        const double w = 0.1; // the class's own half-width
        const ErrorBand inside = errorBandFor(b, scenario("Volta", Precision::FP32, 8, 8));
        QVERIFY(!inside.extrapolated);
        QVERIFY(qAbs(std::log(inside.high) - w) < 1e-12);
        // 1024 GPUs are four doublings past the largest measured 64.
        const ErrorBand far = errorBandFor(b, scenario("Volta", Precision::FP32, 8, 128));
        QVERIFY(far.extrapolated);
        QVERIFY(qAbs(std::log(far.high) - (w + 4 * 0.1)) < 1e-12);
        // A fabric no row ran on is one step more; so is a strategy no row ran.
        Scenario ethernet = scenario("Volta", Precision::FP32, 8, 8);
        ethernet.system.network = "10gbe";
        QVERIFY(qAbs(std::log(errorBandFor(b, ethernet).high) - (w + 0.1)) < 1e-12);
        Scenario pipeline = scenario("Volta", Precision::FP32, 8, 8);
        pipeline.parallel = ParallelStrategy::Pipeline;
        QVERIFY(qAbs(std::log(errorBandFor(b, pipeline).high) - (w + 0.1)) < 1e-12);
    }

    void aFitToYourRunsNarrowsTheBandOnTheGpusItMeasuredOnly() {
        const ErrorBands b = bandsOf(sixAmpereRows());
        Scenario measured = scenario("Ampere", Precision::AMP, 1);
        measured.gpu.id = "a100-sxm4-80gb";
        measured.software.error_band.rows = 8;
        measured.software.error_band.half_width_log = 0.03;
        measured.software.error_band.architectures = {"Ampere"};
        const double shipped =
            std::log(errorBandFor(b, scenario("Ampere", Precision::AMP, 1)).high);
        // An older fitted profile (no per-GPU part) narrows every GPU of the architecture.
        QVERIFY(qAbs(std::log(errorBandFor(b, measured).high) - 0.03) < 1e-12);
        // One with a part kept for the GPU it measured narrows that GPU's band only: another
        // Ampere GPU carries the shrunk harness part and keeps the shipped band.
        measured.software.gpu_corrections["a100-sxm4-80gb"]["amp"] = 1.05;
        QVERIFY(qAbs(std::log(errorBandFor(b, measured).high) - 0.03) < 1e-12);
        Scenario other = measured;
        other.gpu.id = "a100-pcie";
        QVERIFY(qAbs(std::log(errorBandFor(b, other).high) - shipped) < 1e-12);
        QVERIFY(shipped > 0.03);
        // A fit that says what a pin does to the other GPUs' errors (the leave-one-GPU-in
        // table's factor) scales their band by it, and says so; the measured GPU keeps its own.
        measured.software.fitted_to.rows = 8;
        measured.software.fitted_to.other_gpus_band_scale = 0.9;
        other.software = measured.software;
        const ErrorBand scaled = errorBandFor(b, other);
        QVERIFY(qAbs(std::log(scaled.high) - 0.9 * shipped) < 1e-12);
        QVERIFY2(scaled.basis.find("x0.90 for a GPU the fit did not measure") != std::string::npos,
                 scaled.basis.c_str());
        QVERIFY(qAbs(std::log(errorBandFor(b, measured).high) - 0.03) < 1e-12);
    }

    void bandsRoundTripThroughTheirFile() {
        ErrorBands b = bandsOf(sixAmpereRows());
        b.measured_networks = {"edr-ib", "hdr-ib"};
        const ErrorBands back = parseErrorBands(errorBandsToJson(b), "bands.json");
        QCOMPARE(back.classes.size(), b.classes.size());
        QCOMPARE(back.classes[0].rows, b.classes[0].rows);
        QCOMPARE(back.measured_networks, b.measured_networks);
        QCOMPARE(back.largest_measured_gpus, 64);
        QVERIFY_THROWS_EXCEPTION(InputError, parseErrorBands("{}", "bands.json"));
    }

    void theShippedBandsCoverEveryPrecisionAndAlwaysHoldTheirPrediction() {
        qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
        const ErrorBands& b = shippedErrorBands();
        for (Precision p : kAllPrecisions)
            for (const char* arch : {"Volta", "Ampere", "Hopper", "Pascal", "Ada Lovelace"})
                for (int nodes : {1, 4, 512})
                    for (int gpus : {1, 8}) {
                        Scenario s = scenario(arch, p, gpus, gpus == 1 ? 1 : nodes);
                        s.system.network = "ndr-ib";
                        const ErrorBand band = errorBandFor(b, s);
                        QVERIFY2(band.rows >= kMinBandRows, arch);
                        QVERIFY(band.low < 1 && band.high > 1);
                        QVERIFY(qAbs(band.low * band.high - 1) < 1e-12);
                    }
    }
};

QTEST_APPLESS_MAIN(ErrorBandTest)
#include "tst_error_band.moc"
