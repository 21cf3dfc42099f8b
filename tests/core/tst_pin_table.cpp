// The leave-one-GPU-in table (core/fitting/pin_table.h) on a tiny synthetic spec: a pin
// is made for each GPU of a source with two GPUs or more and enough rows, starts from that
// source's left-out fold, carries nothing to other GPUs with a share of 0 and the harness's
// own deviation with a share of 1, and the table is the same whatever the number of jobs.
#include "fitting/pin_table.h"

#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

ValidationRow row(const std::string& id, const std::string& source, const std::string& gpu,
                  const std::string& system, int64_t batch) {
    ValidationRow r;
    r.id = id;
    r.source = source;
    r.network = "resnet18";
    r.image = 224;
    r.batch_per_gpu = batch;
    r.gpu = gpu;
    r.system = system;
    r.precision = "fp32";
    r.software = "pytorch";
    r.sync = "none";
    r.metric = "images_per_second";
    r.measured = 1; // set from a known profile below
    return r;
}

FitSpec memorySpec() {
    FitSpec spec;
    FitParameter p;
    p.name = "memory";
    p.field = "memory_efficiency";
    p.profiles = {"pytorch"};
    p.prior = 0.9;
    p.min = 0.1;
    p.max = 1;
    spec.parameters.push_back(p);
    return spec;
}

// Harness "h" measures two GPUs at 4 rows each and a third at 2 (too few for a pin of its
// own); harness "g" one GPU only (nothing to carry a pin to). Each harness's rows are what
// the shipped pytorch profile predicts with its own memory efficiency: h's is lower than
// g's, a deviation every GPU of h shares.
FitProblem harnessProblem() {
    const std::string v100 = "v100-sxm2-16gb", a100 = "a100-sxm4-80gb", p100 = "p100-sxm2";
    std::vector<ValidationRow> rows{
        row("h1", "h", v100, "dgx1-v100", 16),  row("h2", "h", v100, "dgx1-v100", 32),
        row("h3", "h", v100, "dgx1-v100", 64),  row("h4", "h", v100, "dgx1-v100", 128),
        row("h5", "h", a100, "dgx-a100", 16),   row("h6", "h", a100, "dgx-a100", 32),
        row("h7", "h", a100, "dgx-a100", 64),   row("h8", "h", a100, "dgx-a100", 128),
        row("h9", "h", p100, "dgx1-p100", 32),  row("h10", "h", p100, "dgx1-p100", 64),
        row("g1", "g", v100, "dgx1-v100", 32),  row("g2", "g", v100, "dgx1-v100", 64),
        row("g3", "g", v100, "dgx1-v100", 128), row("g4", "g", v100, "dgx1-v100", 16)};
    FitProblem problem = makeFitProblem(rows, defaultResolver());
    std::vector<std::size_t> all(rows.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    for (const auto& [source, efficiency] : {std::pair{"h", 0.45}, std::pair{"g", 0.8}}) {
        auto truthful = problem.baseline;
        truthful.at("pytorch").memory_efficiency = efficiency;
        const auto measured = predictRows(problem, all, truthful);
        for (std::size_t i = 0; i < all.size(); ++i)
            if (problem.rows[i].source == source)
                problem.rows[i].measured = measured[i];
    }
    return problem;
}

} // namespace

class PinTableTest : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void eachGpuOfAHarnessIsPinnedFromItsSourcesFold() {
        const FitSpec spec = memorySpec();
        const FitProblem p = harnessProblem();
        const auto folds = fitFolds(spec, p, FoldKey::Source, 2);
        QCOMPARE(folds.size(), std::size_t(2));
        QCOMPARE(folds[0].key, std::string("h"));
        // The folds are crossValidate's: its held-out rows come from them.
        const auto held_out = heldOutPredictions(spec, p, folds);
        const auto again = crossValidate(spec, p, FoldKey::Source, 1);
        for (std::size_t i = 0; i < held_out.size(); ++i)
            QCOMPARE(held_out[i], again[i]);

        PinTableOptions options;
        options.harness_shares = {0.5, 0.0, 1.0};
        options.jobs = 2;
        const PinTable table = leaveOneGpuIn(spec, p, folds, defaultResolver(), options);
        // h's V100 and A100; not h's P100 (2 rows), not g's V100 (g has one GPU).
        QCOMPARE(table.rows.size(), std::size_t(2));
        QCOMPARE(table.rows[0].gpu, std::string("v100-sxm2-16gb"));
        QCOMPARE(table.rows[1].gpu, std::string("a100-sxm4-80gb"));
        for (const PinTableRow& r : table.rows) {
            QVERIFY2(r.skipped.empty(), r.skipped.c_str());
            QCOMPARE(r.rows, 4);
            QCOMPARE(r.other_rows, 6); // the other 4-row GPU and the P100's 2
            QCOMPARE(r.outcomes.size(), std::size_t(3));
            // The base is h's fold: fitted on g alone, it misses h's lower efficiency.
            QVERIFY2(r.others_unpinned > 3, qPrintable(QString::number(r.others_unpinned)));
            // Share 0 carries nothing: the other GPUs predict as unpinned.
            QVERIFY(std::abs(r.outcomes[1].others_pinned - r.others_unpinned) < 0.05);
            // Share 1 carries the harness's deviation whole, which here is all there is.
            QVERIFY2(r.outcomes[2].others_pinned < r.others_unpinned / 2,
                     qPrintable(QString::number(r.outcomes[2].others_pinned)));
            // Half of it helps too (not necessarily half as much: the fit trades the
            // parameters it has for the one that made the rows).
            QVERIFY(r.outcomes[0].others_pinned < r.others_unpinned);
            QVERIFY(r.outcomes[0].own_held_out < 5);
        }
        QCOMPARE(table.summaries.size(), std::size_t(3));
        QCOMPARE(table.summaries[0].pins, 2);
        QVERIFY(table.summaries[2].mean_relative_change < -0.5);
        QVERIFY(std::abs(table.summaries[1].mean_relative_change) < 0.01);
        // The bands: share 0 leaves the other GPUs' as they were, share 1 narrows it to
        // what is left once the harness's deviation is known; the pinned GPU's own rows,
        // made by the profile the fit recovers, need almost none.
        for (const PinTableSummary& s : table.summaries)
            QVERIFY(s.others_band_unpinned_log > 0.03);
        QVERIFY(std::abs(table.summaries[1].others_band_pinned_log -
                         table.summaries[1].others_band_unpinned_log) < 0.005);
        QVERIFY2(table.summaries[2].others_band_pinned_log <
                     table.summaries[2].others_band_unpinned_log / 2,
                 qPrintable(QString::number(table.summaries[2].others_band_pinned_log)));
        QVERIFY(table.summaries[0].own_band_log < 0.05);
        for (const PinTableRow& r : table.rows)
            QCOMPARE(r.others_log_unpinned.size(), std::size_t(r.other_rows));

        // The same table on one job.
        options.jobs = 1;
        const PinTable serial = leaveOneGpuIn(spec, p, folds, defaultResolver(), options);
        for (std::size_t k = 0; k < table.rows.size(); ++k)
            for (std::size_t s = 0; s < 3; ++s) {
                QCOMPARE(serial.rows[k].outcomes[s].others_pinned,
                         table.rows[k].outcomes[s].others_pinned);
                QCOMPARE(serial.rows[k].outcomes[s].own_held_out,
                         table.rows[k].outcomes[s].own_held_out);
            }

        const std::string md = pinTableMarkdown(table);
        QVERIFY(md.find("| h | v100-sxm2-16gb | 4 |") != std::string::npos);
        QVERIFY(md.find("- harness share 0.5: 2 pins;") != std::string::npos);
        QVERIFY(md.find("- harness share 1, 80% bands") != std::string::npos);
    }

    void aSourceWithoutAFoldIsRefused() {
        const FitProblem p = harnessProblem();
        QVERIFY_THROWS_EXCEPTION(std::exception,
                                 leaveOneGpuIn(memorySpec(), p, {}, defaultResolver(), {}));
    }
};

QTEST_APPLESS_MAIN(PinTableTest)
#include "tst_pin_table.moc"
