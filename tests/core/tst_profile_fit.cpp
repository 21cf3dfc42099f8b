// iterscope-fit's machinery (core/fitting/): the spec is read strictly, a
// fit recovers a parameter that generated the measurements, and cross-validation predicts
// each held-out fold from the others only.
#include "fitting/published_fit.h"
#include "fitting/published_outputs.h"
#include "hardware/profile_loader.h"
#include "util/error.h"

#include <QtTest>

using namespace iterscope;

namespace {

ValidationRow row(const std::string& id, const std::string& source, const std::string& precision,
                  int64_t batch) {
    ValidationRow r;
    r.id = id;
    r.source = source;
    r.network = "resnet18";
    r.image = 224;
    r.batch_per_gpu = batch;
    r.gpu = "v100-sxm2-16gb";
    r.system = "dgx1-v100";
    r.precision = precision;
    r.software = "pytorch";
    r.sync = "none";
    r.metric = "images_per_second";
    r.measured = 1; // set from a known profile below
    return r;
}

FitSpec oneParameter(double prior) {
    FitSpec spec;
    FitParameter p;
    p.name = "memory";
    p.field = "memory_efficiency";
    p.profiles = {"pytorch"};
    p.prior = prior;
    p.min = 0.1;
    p.max = 1;
    spec.parameters.push_back(p);
    return spec;
}

// Rows whose "measured" values the shipped pytorch profile makes with memory_efficiency
// `truth`.
FitProblem problemFrom(double truth) {
    std::vector<ValidationRow> rows{row("a1", "a", "fp32", 32), row("a2", "a", "amp", 64),
                                    row("b1", "b", "amp", 128), row("b2", "b", "fp32", 16)};
    FitProblem problem = makeFitProblem(rows, defaultResolver());
    auto truthful = problem.baseline;
    truthful.at("pytorch").memory_efficiency = truth;
    std::vector<std::size_t> all{0, 1, 2, 3};
    const auto measured = predictRows(problem, all, truthful);
    for (std::size_t i = 0; i < all.size(); ++i)
        problem.rows[i].measured = measured[i];
    return problem;
}

} // namespace

class ProfileFit : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void aSpecIsReadStrictly_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        const QString head =
            R"({"format": "iterscope-fit-spec", "version": 1, "measurements": ["x.csv"], )";
        QTest::newRow("unknown field")
            << head +
                   R"("parameters": [{"field": "nope", "profiles": ["pytorch"], "prior": 1, "min": 0, "max": 2}]})"
            << "not a fittable software field";
        QTest::newRow("fitted twice")
            << head +
                   R"("parameters": [{"field": "kernel_gap_us", "profiles": ["pytorch"], "prior": 1, "min": 0, "max": 2}, {"field": "kernel_gap_us", "profiles": ["pytorch"], "prior": 1, "min": 0, "max": 2}]})"
            << "already fits kernel_gap_us";
        QTest::newRow("prior out of bounds")
            << head +
                   R"("parameters": [{"field": "kernel_gap_us", "profiles": ["pytorch"], "prior": 5, "min": 0, "max": 2}]})"
            << "prior";
        QTest::newRow("no measurements")
            << R"({"format": "iterscope-fit-spec", "version": 1, "measurements": [], "parameters": []})"
            << "names no file";
        QTest::newRow("unknown loss") << head + R"("loss": "mse", "parameters": []})"
                                      << "\"ape\" or \"log_ratio\"";
    }
    void aSpecIsReadStrictly() {
        QFETCH(QString, text);
        QFETCH(QString, error);
        try {
            parseFitSpec(text.toStdString(), "spec.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith("spec.json: "), qPrintable(what));
            QVERIFY2(what.contains(error), qPrintable(what));
        }
    }

    void theShippedSpecNamesRealFieldsAndFiles() {
        const FitSpec spec = readFitSpec(ITERSCOPE_TEST_DATA "/fit-spec.json");
        QCOMPARE(spec.measurements.size(), std::size_t(4));
        QVERIFY(spec.parameters.size() >= 10);
        QVERIFY(spec.loss == FitLoss::LogRatio);
        for (const FitParameter& p : spec.parameters)
            for (const std::string& id : p.profiles)
                QVERIFY2(!loadSoftwareProfile(id).id.empty(), id.c_str());
    }

    // The log ratio charges a prediction twice too fast as much as one twice too slow; APE
    // charges the fast one 100% and the slow one 50%, which is what pulls an APE fit slow.
    // The reported MAPE is the same whatever the loss.
    void theLogRatioLossChargesFastAndSlowAlike() {
        FitProblem problem = problemFrom(0.62);
        problem.rows[0].measured = 100;
        problem.rows[1].measured = 100;
        const std::vector<std::size_t> both{0, 1};
        const std::vector<double> fast_and_slow{200, 50};
        const FitScore ape = scoreRows(problem, {0}, {200}, 1e9, FitLoss::Ape);
        QCOMPARE(ape.objective, 100.0);
        QCOMPARE(scoreRows(problem, {1}, {50}, 1e9, FitLoss::Ape).objective, 50.0);
        const double fast = scoreRows(problem, {0}, {200}, 1e9, FitLoss::LogRatio).objective;
        const double slow = scoreRows(problem, {1}, {50}, 1e9, FitLoss::LogRatio).objective;
        QVERIFY(qAbs(fast - 100 * std::log(2.0)) < 1e-9);
        QVERIFY(qAbs(fast - slow) < 1e-9);
        const FitScore log = scoreRows(problem, both, fast_and_slow, 1e9, FitLoss::LogRatio);
        QCOMPARE(log.mape, scoreRows(problem, both, fast_and_slow, 1e9, FitLoss::Ape).mape);
        QCOMPARE(log.mape, 75.0);
    }

    void aFitRecoversTheParameterThatMadeTheMeasurements() {
        const FitProblem problem = problemFrom(0.62);
        const FitResult fit = fitParameters(oneParameter(0.9), problem, {0, 1, 2, 3});
        QVERIFY2(qAbs(fit.values[0] - 0.62) < 0.62 * 0.01,
                 qPrintable(QString::number(fit.values[0])));
        QVERIFY(fit.score.mape < 0.5);
    }

    void aParameterWithoutRowsKeepsItsPrior() {
        FitProblem problem = problemFrom(0.62);
        FitSpec spec = oneParameter(0.9);
        spec.parameters[0].profiles = {"mxnet-22.10"}; // no row runs it
        const FitResult fit = fitParameters(spec, problem, {0, 1, 2, 3});
        QCOMPARE(fit.values[0], 0.9);
    }

    void crossValidationPredictsEachFoldFromTheOthers() {
        const FitProblem problem = problemFrom(0.62);
        const auto held_out = crossValidate(oneParameter(0.9), problem, FoldKey::Source, 2);
        QCOMPARE(held_out.size(), std::size_t(4));
        // Each source alone pins the same parameter, so every held-out row is predicted well.
        for (std::size_t i = 0; i < held_out.size(); ++i)
            QVERIFY2(qAbs(held_out[i] / problem.rows[i].measured - 1) < 0.01,
                     problem.rows[i].id.c_str());
        QCOMPARE(foldKeyOf(problem, 2, FoldKey::Source), std::string("b"));
        QCOMPARE(foldKeyOf(problem, 2, FoldKey::Architecture), std::string("Volta"));
    }

    // The band floor is the run-to-run spread of the profiles that ship with the bands: a
    // refit that moves sync_jitter moves the floor, whatever the profiles the fit started from.
    void theBandFloorFollowsTheFittedProfiles() {
        const FitProblem problem = problemFrom(0.62);
        std::vector<double> predicted;
        for (const ValidationRow& r : problem.rows)
            predicted.push_back(r.measured);
        auto fitted = problem.baseline;
        fitted.at("pytorch").sync_jitter = 0.05;
        QVERIFY(problem.baseline.at("pytorch").sync_jitter != 0.05);
        const ErrorBands bands = errorBandsFromHeldOut(problem, predicted, predicted, fitted);
        QVERIFY(qAbs(bands.floor_log - 1.2816 * 0.05) < 1e-12);
    }
};

QTEST_APPLESS_MAIN(ProfileFit)
#include "tst_profile_fit.moc"
