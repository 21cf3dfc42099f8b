// The variance components behind a pin's harness share (core/validation/
// variance_components.h): residuals drawn with known between-source, within-source and
// within-cell spreads, in unbalanced cells, give those spreads back; no between-source
// spread gives a share near 0; the share for n rows is the regression-optimal one; the
// shipped file reads back what was written.
#include "fitting/variance_components.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <random>

using namespace iterscope;

namespace {

// A normal deviate from the 64-bit Mersenne Twister by Box-Muller: the same numbers with
// every standard library (std::normal_distribution's algorithm is not specified).
class Normal {
  public:
    explicit Normal(std::uint64_t seed)
        : m_engine(seed) {}
    double operator()() {
        const double u1 = (static_cast<double>(m_engine() >> 11) + 0.5) / 9007199254740992.0;
        const double u2 = (static_cast<double>(m_engine() >> 11) + 0.5) / 9007199254740992.0;
        return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    }
    int uniform(int lo, int hi) { return lo + static_cast<int>(m_engine() % (hi - lo + 1)); }

  private:
    std::mt19937_64 m_engine;
};

// `sources` harnesses with 1 to 6 GPUs each and 1 to 8 rows a GPU.
std::vector<LabelledResidual> draw(int sources, double sigma_h, double sigma_g, double sigma_e,
                                   std::uint64_t seed, double mean = 0.05) {
    Normal normal(seed);
    std::vector<LabelledResidual> out;
    for (int s = 0; s < sources; ++s) {
        const double h = sigma_h * normal();
        const int gpus = normal.uniform(1, 6);
        for (int g = 0; g < gpus; ++g) {
            const double own = sigma_g * normal();
            const int rows = normal.uniform(1, 8);
            for (int k = 0; k < rows; ++k)
                out.push_back({"source" + std::to_string(s), "gpu" + std::to_string(g),
                               mean + h + own + sigma_e * normal(), ""});
        }
    }
    return out;
}

} // namespace

class TestVarianceComponents : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void knownComponentsAreRecoveredFromUnbalancedCells() {
        const double sh = 0.08, sg = 0.05, se = 0.03;
        // Averaged over a few seeds so that the tolerance speaks for the estimator, not
        // for one draw.
        double h2 = 0, g2 = 0, e2 = 0, share = 0;
        const int seeds = 5;
        for (int seed = 1; seed <= seeds; ++seed) {
            const VarianceComponents v = estimateVarianceComponents(draw(400, sh, sg, se, seed));
            h2 += v.sigma_h2 / seeds;
            g2 += v.sigma_g2 / seeds;
            e2 += v.sigma_e2 / seeds;
            share += v.harness_share / seeds;
            QCOMPARE(v.sources, 400);
            QVERIFY(v.cells > v.sources);
        }
        QVERIFY2(std::abs(h2 / (sh * sh) - 1) < 0.10, qPrintable(QString::number(h2)));
        QVERIFY2(std::abs(g2 / (sg * sg) - 1) < 0.10, qPrintable(QString::number(g2)));
        QVERIFY2(std::abs(e2 / (se * se) - 1) < 0.05, qPrintable(QString::number(e2)));
        const double truth = sh * sh / (sh * sh + sg * sg);
        QVERIFY2(std::abs(share - truth) < 0.04, qPrintable(QString::number(share)));
    }

    void theGrandMeanIsNotAHarnessComponent() {
        const VarianceComponents v =
            estimateVarianceComponents(draw(200, 0.05, 0.05, 0.02, 7, 0.3));
        QVERIFY(std::abs(v.mean - 0.3) < 0.02);
        QVERIFY(v.sigma_h2 < 0.005);
    }

    void noSpreadBetweenSourcesGivesAShareNearZero() {
        const VarianceComponents v = estimateVarianceComponents(draw(300, 0.0, 0.06, 0.03, 11));
        QVERIFY2(v.harness_share < 0.08, qPrintable(QString::number(v.harness_share)));
        QVERIFY(std::abs(v.sigma_g2 / (0.06 * 0.06) - 1) < 0.15);
    }

    void noSpreadWithinSourcesGivesAShareNearOne() {
        const VarianceComponents v = estimateVarianceComponents(draw(300, 0.07, 0.0, 0.03, 13));
        QVERIFY2(v.harness_share > 0.9, qPrintable(QString::number(v.harness_share)));
    }

    void aNegativeMomentEstimateIsTruncatedAtZero() {
        // Two sources whose means agree exactly, GPUs within them apart: the between-source
        // sum of squares is 0, below what the GPUs alone would give.
        std::vector<LabelledResidual> r{
            {"a", "x", 0.1, ""}, {"a", "y", -0.1, ""}, {"b", "x", 0.1, ""}, {"b", "y", -0.1, ""}};
        const VarianceComponents v = estimateVarianceComponents(r);
        QVERIFY(v.raw_sigma_h2 < 0);
        QCOMPARE(v.sigma_h2, 0.0);
        QCOMPARE(v.harness_share, 0.0);
        QVERIFY(v.sigma_g2 > 0);
    }

    void theShareForNRowsIsTheOneThatPredictsAnotherGpuBest() {
        // A user measures n rows on one GPU of a harness: their mean error is h + g + mean e.
        // Carrying s x that mean to another GPU of the harness (whose level is h + g') is best,
        // in squared error, at s = cov(h + g', mean) / var(mean): the formula's share. Found
        // by regression over many simulated users, for several n and both GPU counts.
        const double sh = 0.065, sg = 0.069, se = 0.118;
        VarianceComponents v;
        v.sigma_h2 = sh * sh;
        v.sigma_g2 = sg * sg;
        v.sigma_e2 = se * se;
        for (const int gpus : {1, 3})
            for (const int n : {1, 4, 8, 36}) {
                Normal normal(static_cast<std::uint64_t>(100 * gpus + n));
                double cross = 0, square = 0;
                for (int t = 0; t < 40000; ++t) {
                    const double h = sh * normal();
                    double mean = 0;
                    // n rows spread over the GPUs as evenly as they go.
                    for (int k = 0; k < n; ++k)
                        mean += se * normal() / n;
                    for (int g = 0; g < gpus; ++g)
                        mean += sg * normal() / gpus;
                    mean += h;
                    const double other = h + sg * normal();
                    cross += other * mean;
                    square += mean * mean;
                }
                const double best = cross / square;
                const double share = harnessShareFor(v, n, gpus);
                QVERIFY2(std::abs(best - share) < 0.03,
                         qPrintable(QString("n %1, gpus %2: best %3, formula %4")
                                        .arg(n)
                                        .arg(gpus)
                                        .arg(best)
                                        .arg(share)));
            }
        // Many rows on one GPU: the limit the file ships; fewer rows carry less.
        v.harness_share = v.sigma_h2 / (v.sigma_h2 + v.sigma_g2);
        QVERIFY(std::abs(harnessShareFor(v, 100000, 1) - v.harness_share) < 1e-3);
        QVERIFY(harnessShareFor(v, 4, 1) < harnessShareFor(v, 8, 1));
        QCOMPARE(harnessShareFor(v, 0, 0), harnessShareFor(v, 1, 1));
        QCOMPARE(harnessShareFor(VarianceComponents{}, 4, 1), 0.0);
    }

    void noResidualsOrANonFiniteOneIsRefused() {
        QVERIFY_THROWS_EXCEPTION(InputError, estimateVarianceComponents({}));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 estimateVarianceComponents({{"a", "x", std::nan(""), ""}}));
    }

    void theShippedFileReadsBackWhatWasWritten() {
        PinVariance pin;
        pin.components = estimateVarianceComponents(draw(50, 0.08, 0.05, 0.03, 3));
        pin.basis = "synthetic";
        const PinVariance back = parsePinVariance(pinVarianceToJson(pin), "pin.json");
        QCOMPARE(back.basis, pin.basis);
        QCOMPARE(back.components.rows, pin.components.rows);
        QVERIFY(std::abs(back.components.harness_share - pin.components.harness_share) < 1e-6);
        QVERIFY(std::abs(std::sqrt(back.components.sigma_h2) - std::sqrt(pin.components.sigma_h2)) <
                1e-6);
        // Without a measured band factor the file has none, and reads back as 1.
        QCOMPARE(back.other_gpus_band_scale, 1.0);
        pin.other_gpus_band_scale = 0.875;
        pin.other_gpus_band_basis = "the table";
        const PinVariance banded = parsePinVariance(pinVarianceToJson(pin), "pin.json");
        QVERIFY(std::abs(banded.other_gpus_band_scale - 0.875) < 1e-6);
        QCOMPARE(banded.other_gpus_band_basis, std::string("the table"));
        QVERIFY_THROWS_EXCEPTION(InputError, parsePinVariance("{\"format\": \"x\"}", "bad.json"));
    }

    void theSpreadWithinAPrecisionIsPooledOverItsGroups() {
        // One cell, two precisions a constant apart: the rows' spread within the cell holds
        // that gap, the spread within each precision only the rows' own.
        std::vector<LabelledResidual> r{{"a", "x", 0.20, "amp"},   {"a", "x", 0.22, "amp"},
                                        {"a", "x", -0.20, "tf32"}, {"a", "x", -0.22, "tf32"},
                                        {"b", "y", 0.01, "amp"},   {"b", "y", -0.01, "amp"}};
        const VarianceComponents v = estimateVarianceComponents(r);
        // Pooled: squared deviations 4 x 0.01^2 + 2 x 0.01^2 over 6 rows - 3 groups.
        QVERIFY2(std::abs(v.sigma_w2 - 6e-4 / 3) < 1e-9, qPrintable(QString::number(v.sigma_w2)));
        QVERIFY(v.sigma_e2 > 10 * v.sigma_w2);
        // A file written before sigma_w reads it as sigma_e.
        PinVariance pin;
        pin.components = v;
        nlohmann::json doc = nlohmann::json::parse(pinVarianceToJson(pin));
        QVERIFY(doc.contains("sigma_w"));
        doc.erase("sigma_w");
        const PinVariance old = parsePinVariance(doc.dump(), "old.json");
        QVERIFY(std::abs(old.components.sigma_w2 - old.components.sigma_e2) < 1e-12);
    }

    void theShippedEstimateIsAShare() {
        const PinVariance* shipped = shippedPinVariance();
        if (!shipped)
            QSKIP("no profiles/pin-variance.json");
        QVERIFY(shipped->components.harness_share >= 0 && shipped->components.harness_share <= 1);
        QVERIFY(shipped->components.sources >= 2);
    }
};

QTEST_GUILESS_MAIN(TestVarianceComponents)
#include "tst_variance_components.moc"
