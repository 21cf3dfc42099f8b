// The planner (issue 15 "Checks"): time, cost and energy follow their formulas, the Pareto
// front is undominated, constraints hold, a user's prices win, a batch that does not fit is
// never a candidate, and bad prices files are one clear error.
#include "hardware/compatibility.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "plan/plan.h"
#include "plan/plan_inputs.h"
#include "plan/prices.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace iterscope;

namespace {

// Small enough for the sanitizer build, varied enough to exercise every rule: two SXM
// systems with their own GPUs, a generic cluster and a workstation taking PCIe cards, one
// GPU without a price.
PlanRequest smallRequest(const std::string& network = "resnet18") {
    PlanRequest r;
    PlanHardwareChoice choice;
    choice.gpus = {"v100-sxm2-16gb", "a100-sxm4-80gb", "t4", "h100-pcie", "gtx1080"};
    choice.systems = {"dgx1-v100", "dgx-a100", "cluster-25gbe", "workstation-pcie4"};
    loadPlanHardware(choice, r);
    r.software = loadSoftwareProfile("pytorch");
    r.network = loadNetwork(network);
    r.constraints.max_gpus = 64;
    return r;
}

const GpuProfile& gpuOf(const PlanRequest& r, const PlanPoint& p) {
    return r.gpus[static_cast<std::size_t>(p.gpu)];
}

bool dominates(const PlanPoint& a, const PlanPoint& b) {
    return a.hours <= b.hours && *a.cost_usd <= *b.cost_usd &&
           (a.hours < b.hours || *a.cost_usd < *b.cost_usd);
}

void writeFile(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class Plan : public QObject {
    Q_OBJECT
    PlanRequest m_request;
    PlanResult m_result;

  private slots:
    void initTestCase() {
        qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
        m_request = smallRequest();
        m_result = plan(m_request);
        QVERIFY(m_result.candidates.size() > 100);
    }

    void hoursAreEpochsTimesImagesOverThroughput() {
        for (const PlanPoint& p : m_result.candidates) {
            const double expected = m_request.epochs *
                                    static_cast<double>(m_request.dataset_images) /
                                    p.images_per_second / 3600.0;
            QVERIFY(qFuzzyCompare(p.hours, expected));
        }
    }

    void costIsHoursTimesGpusTimesPrice() {
        int priced = 0, unpriced = 0;
        for (const PlanPoint& p : m_result.candidates) {
            const GpuProfile& gpu = gpuOf(m_request, p);
            QCOMPARE(p.cost_usd.has_value(), gpu.usd_per_gpu_hour.has_value());
            if (!p.cost_usd) {
                ++unpriced;
                continue;
            }
            ++priced;
            QVERIFY(qFuzzyCompare(*p.cost_usd, p.hours * p.totalGpus() * *gpu.usd_per_gpu_hour));
        }
        QVERIFY(priced > 0);
        QVERIFY(unpriced > 0); // gtx1080 ships without a price
    }

    void energyIsBusyBoardPowerPlusHostPower() {
        for (const PlanPoint& p : m_result.candidates) {
            const SystemProfile& system = m_request.systems[static_cast<std::size_t>(p.system)];
            const double watts = p.totalGpus() * gpuOf(m_request, p).tdp_watts * p.gpu_busy_share +
                                 p.nodes * system.host_watts_per_node;
            QVERIFY(qFuzzyCompare(p.energy_kwh, p.hours * watts / 1000.0));
            QVERIFY(p.gpu_busy_share > 0 && p.gpu_busy_share <= 1);
        }
    }

    void noParetoPointIsDominatedByAnyCandidate() {
        const PlanSelection& s = m_result.selection;
        QVERIFY(s.pareto.size() >= 2);
        for (const std::size_t i : s.pareto) {
            const PlanPoint& front = m_result.candidates[i];
            QVERIFY(front.cost_usd.has_value());
            for (const PlanPoint& c : m_result.candidates)
                if (c.cost_usd && meetsConstraints(c, m_request.constraints))
                    QVERIFY(!dominates(c, front));
        }
        // And it is complete: every priced candidate off the front is matched or beaten by
        // a front point.
        for (std::size_t i = 0; i < m_result.candidates.size(); ++i) {
            const PlanPoint& c = m_result.candidates[i];
            if (!c.cost_usd)
                continue;
            bool covered = false;
            for (const std::size_t f : s.pareto) {
                const PlanPoint& front = m_result.candidates[f];
                covered = covered || (front.hours <= c.hours && *front.cost_usd <= *c.cost_usd);
            }
            QVERIFY(covered);
        }
        for (std::size_t k = 1; k < s.pareto.size(); ++k) {
            QVERIFY(m_result.candidates[s.pareto[k]].hours >=
                    m_result.candidates[s.pareto[k - 1]].hours);
            QVERIFY(*m_result.candidates[s.pareto[k]].cost_usd <
                    *m_result.candidates[s.pareto[k - 1]].cost_usd);
        }
    }

    void fastestAndCheapestAreTheExtremes() {
        const PlanSelection& s = m_result.selection;
        QVERIFY(s.fastest && s.cheapest);
        for (const PlanPoint& c : m_result.candidates) {
            QVERIFY(c.hours >= m_result.candidates[*s.fastest].hours);
            if (c.cost_usd)
                QVERIFY(*c.cost_usd >= *m_result.candidates[*s.cheapest].cost_usd);
        }
    }

    void constraintsAreRespected() {
        PlanConstraints c;
        c.max_gpus = 16;
        c.max_global_batch = 2048;
        // A deadline and a budget that a middling candidate meets with room to spare.
        const auto reference = std::find_if(
            m_result.candidates.begin(), m_result.candidates.end(), [](const PlanPoint& p) {
                return p.cost_usd && p.totalGpus() == 8 && p.globalBatch() == 1024;
            });
        QVERIFY(reference != m_result.candidates.end());
        c.deadline_hours = reference->hours * 1.5;
        c.budget_usd = *reference->cost_usd * 1.5;
        const PlanSelection s = selectPlan(m_result.candidates, c);
        QVERIFY(s.meeting_constraints > 0);
        QVERIFY(s.meeting_constraints < m_result.candidates.size());
        std::vector<std::size_t> chosen = s.pareto;
        chosen.push_back(*s.fastest);
        chosen.push_back(*s.cheapest);
        for (const std::size_t i : chosen) {
            const PlanPoint& p = m_result.candidates[i];
            QVERIFY(p.totalGpus() <= 16);
            QVERIFY(p.globalBatch() <= 2048);
            QVERIFY(p.hours <= *c.deadline_hours);
            QVERIFY(p.cost_usd && *p.cost_usd <= *c.budget_usd);
        }
        // The fastest under constraints is the fastest of those that meet them.
        for (const PlanPoint& p : m_result.candidates)
            if (meetsConstraints(p, c))
                QVERIFY(p.hours >= m_result.candidates[*s.fastest].hours);
    }

    void aBatchThatDoesNotFitIsNeverACandidate() {
        bool saw_large_a100_batch = false;
        for (const PlanPoint& p : m_result.candidates) {
            Scenario s;
            s.network = m_request.network;
            s.gpu = gpuOf(m_request, p);
            s.system = m_request.systems[static_cast<std::size_t>(p.system)];
            s.software = m_request.software;
            s.batch_per_gpu = p.batch_per_gpu;
            s.precision = p.precision;
            s.nodes = p.nodes;
            s.gpus_per_node = p.gpus_per_node;
            s.sync = p.sync;
            s.parallel = p.parallel;
            s.pipeline_stages = p.pipeline_stages;
            if (p.gpu == 1 && p.batch_per_gpu == 512)
                saw_large_a100_batch = true;
            const Prediction pred = predict(s, PredictDetail::Totals);
            QVERIFY(pred.fits_in_memory);
            QVERIFY(p.batch_per_gpu <= pred.max_batch_that_fits);
        }
        QVERIFY(saw_large_a100_batch); // 80 GB holds batch 512 of ResNet-18
        // The 8 GB GTX 1080 does not hold 1024 images of ResNet-18 at FP32.
        for (const PlanPoint& p : m_result.candidates)
            QVERIFY(!(gpuOf(m_request, p).id == "gtx1080" && p.batch_per_gpu == 1024));
    }

    void otherStrategiesComeInWhereDataParallelismDoesNotFit() {
        int others = 0;
        for (const PlanPoint& p : m_result.candidates) {
            if (p.parallel == ParallelStrategy::Data)
                continue;
            ++others;
            Scenario s;
            s.network = m_request.network;
            s.gpu = gpuOf(m_request, p);
            s.software = m_request.software;
            s.batch_per_gpu = p.batch_per_gpu;
            s.precision = p.precision;
            QVERIFY2(!estimateMemory(s).fits,
                     qPrintable(QString::fromStdString(s.gpu.id) + " batch " +
                                QString::number(p.batch_per_gpu)));
        }
        QVERIFY(others > 0); // the largest batches fit only when split or sharded

        // Named strategies are tried wherever they apply, and only they on several GPUs.
        PlanRequest r;
        PlanHardwareChoice choice;
        choice.gpus = {"v100-sxm2-16gb"};
        choice.systems = {"dgx1-v100"};
        loadPlanHardware(choice, r);
        r.software = m_request.software;
        r.network = loadNetwork("alexnet");
        r.constraints.max_gpus = 8;
        r.parallels = {ParallelStrategy::Zero2};
        const PlanResult zero = plan(r);
        QVERIFY(!zero.candidates.empty());
        for (const PlanPoint& p : zero.candidates)
            QVERIFY(p.totalGpus() == 1 || p.parallel == ParallelStrategy::Zero2);
    }

    void gpusGoOnlyIntoSystemsThatTakeThem() {
        for (const PlanPoint& p : m_result.candidates) {
            const GpuProfile& gpu = gpuOf(m_request, p);
            const SystemProfile& system = m_request.systems[static_cast<std::size_t>(p.system)];
            QVERIFY(gpuFitsSystem(gpu, system));
            if (system.id == "dgx1-v100")
                QCOMPARE(gpu.id, std::string("v100-sxm2-16gb"));
            if (system.id == "cluster-25gbe")
                QCOMPARE(gpu.form_factor, std::string("pcie"));
        }
        const GpuProfile a100_40 = loadGpuProfile("a100-sxm4-40gb");
        QVERIFY(gpuFitsSystem(a100_40, loadSystemProfile("dgx-a100")));
        QVERIFY(!gpuFitsSystem(a100_40, loadSystemProfile("cluster-hdr-ib")));
        QVERIFY(gpuFitsSystem(loadGpuProfile("rtx4090"), loadSystemProfile("workstation-pcie4")));
        QVERIFY(!gpuFitsSystem(loadGpuProfile("h100-pcie"), loadSystemProfile("dgx-h100")));
    }

    void layoutsUseWholeNodesAcrossNodesAndExchangesThatApply() {
        const SystemProfile dgx = loadSystemProfile("dgx1-v100");
        const std::vector<Layout> layouts = planLayouts(dgx, 64, {});
        QVERIFY(!layouts.empty());
        for (const Layout& l : layouts) {
            if (l.nodes * l.gpus_per_node == 1)
                QCOMPARE(l.sync, SyncStrategy::None);
            else
                QVERIFY(l.sync != SyncStrategy::None);
            if (l.nodes > 1)
                QCOMPARE(l.gpus_per_node, dgx.gpus_per_node);
            if (l.sync == SyncStrategy::DistributedReplicated)
                QVERIFY(l.nodes > 1);
            QVERIFY(l.nodes * l.gpus_per_node <= 64);
        }
        QCOMPARE(planLayouts(loadSystemProfile("workstation-pcie3"), 1024, {}).back().nodes, 1);
        // Asked for one exchange, only that one is tried beyond one GPU.
        for (const Layout& l : planLayouts(dgx, 64, {SyncStrategy::PsCpu}))
            QVERIFY(l.sync == SyncStrategy::PsCpu || l.sync == SyncStrategy::None);
    }

    void precisionsNeedTheirHardware() {
        QCOMPARE(planPrecisions(loadGpuProfile("gtx1080"), {}).size(), std::size_t{1});
        QCOMPARE(planPrecisions(loadGpuProfile("v100-sxm2-16gb"), {}).size(), std::size_t{2});
        // Ampere: FP32, TF32, FP16 and BF16 mixed precision.
        QCOMPARE(planPrecisions(loadGpuProfile("a100-pcie"), {}).size(), std::size_t{4});
        // Volta has FP16 tensor cores, no BF16 ones: asked for bf16, it gets none.
        QVERIFY(planPrecisions(loadGpuProfile("v100-sxm2-16gb"), {Precision::BF16}).empty());
        QVERIFY(planPrecisions(loadGpuProfile("t4"), {Precision::TF32}).empty());
    }

    void theUsersPricesFileOverridesTheShippedOne() {
        QTemporaryDir dir;
        const QString path = dir.filePath("prices.json");
        writeFile(path, R"({"format": "iterscope-prices", "version": 1, "source": "contract",
            "date": "2026-12-01",
            "gpus": {"a100-sxm4-80gb": {"usd_per_gpu_hour": 1.25, "board_watts": 300},
                     "t4": {"usd_per_gpu_hour": 0.2}},
            "systems": {"dgx-a100": {"host_watts_per_node": 1000}}})");
        PlanRequest r = smallRequest();
        const double shipped = *r.gpus[1].usd_per_gpu_hour;
        QVERIFY(shipped != 1.25);
        applyPriceOverrides(loadPriceOverrides(path.toStdString()), r.gpus, r.systems);
        QCOMPARE(*r.gpus[1].usd_per_gpu_hour, 1.25);
        QCOMPARE(r.gpus[1].tdp_watts, 300.0);
        QVERIFY(r.gpus[1].price_source.find("contract") != std::string::npos);
        QCOMPARE(r.gpus[1].price_date, std::string("2026-12-01"));
        QCOMPARE(*r.gpus[2].usd_per_gpu_hour, 0.2); // a GPU without a shipped price gains one
        QCOMPARE(r.systems[1].host_watts_per_node, 1000.0);
        QVERIFY(!r.gpus[4].usd_per_gpu_hour); // gtx1080 untouched
        // And the plan uses them.
        PlanHardwareChoice choice;
        choice.gpus = {"a100-sxm4-80gb"};
        choice.systems = {"dgx-a100"};
        choice.prices_file = path.toStdString();
        PlanRequest one = smallRequest();
        loadPlanHardware(choice, one);
        const PlanResult result = plan(one);
        QVERIFY(!result.candidates.empty());
        for (const PlanPoint& p : result.candidates)
            QVERIFY(qFuzzyCompare(*p.cost_usd, p.hours * p.totalGpus() * 1.25));
    }

    void badPricesFilesAreOneClearError_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << QByteArray("{\"format\": ") << "not valid JSON";
        QTest::newRow("wrong format")
            << QByteArray(R"({"format": "iterscope-gpu", "version": 1, "gpus": {}})") << "format";
        QTest::newRow("negative price")
            << QByteArray(R"({"format": "iterscope-prices", "version": 1,
                              "gpus": {"t4": {"usd_per_gpu_hour": -1}}})")
            << "gpus.t4.usd_per_gpu_hour";
        QTest::newRow("price as text") << QByteArray(R"({"format": "iterscope-prices", "version": 1,
                              "gpus": {"t4": {"usd_per_gpu_hour": "0.3"}}})")
                                       << "must be a number";
        QTest::newRow("typo in a field")
            << QByteArray(R"({"format": "iterscope-prices", "version": 1,
                              "gpus": {"t4": {"usd_per_gpu_hr": 0.3}}})")
            << "usd_per_gpu_hr: unknown field";
        QTest::newRow("empty entry")
            << QByteArray(R"({"format": "iterscope-prices", "version": 1, "gpus": {"t4": {}}})")
            << "missing";
        QTest::newRow("nothing priced")
            << QByteArray(R"({"format": "iterscope-prices", "version": 1})") << "missing";
        QTest::newRow("unknown gpu") << QByteArray(R"({"format": "iterscope-prices", "version": 1,
                              "gpus": {"t5": {"usd_per_gpu_hour": 0.3}}})")
                                     << "gpus.t5: no GPU profile";
        QTest::newRow("bad date")
            << QByteArray(R"({"format": "iterscope-prices", "version": 1, "date": "Dec 2026",
                              "gpus": {"t4": {"usd_per_gpu_hour": 0.3}}})")
            << "date";
    }
    void badPricesFilesAreOneClearError() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("my-prices.json");
        writeFile(path, text);
        PlanRequest r = smallRequest();
        try {
            applyPriceOverrides(loadPriceOverrides(path.toStdString()), r.gpus, r.systems);
            QFAIL("accepted a bad prices file");
        } catch (const InputError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.contains("my-prices.json"), qPrintable(what));
            QVERIFY2(what.contains(expected), qPrintable(what));
            QVERIFY(!what.contains('\n'));
        }
    }

    void aPriceNeedsItsSourceAndDate() {
        const std::string base = R"({"format": "iterscope-gpu", "version": 1, "id": "x",
            "name": "X", "architecture": "Volta", "source": "s", "sm_count": 10,
            "fp32_lanes_per_sm": 64, "boost_clock_mhz": 1000, "fp32_tflops": 1.28,
            "tf32_tflops": 0, "fp16_tensor_tflops": 0, "fp16_tflops": 0, "memory_gib": 8,
            "memory_bandwidth_gbps": 300, "l2_mib": 1, "pcie_gen": 3, "pcie_lanes": 16,
            "nvlink_links": 0, "nvlink_gbps_per_link": 0, "tdp_watts": 100)";
        QVERIFY(parseGpuProfile(base + "}", "x.json").form_factor == "pcie");
        const GpuProfile priced = parseGpuProfile(
            base +
                R"(, "usd_per_gpu_hour": 0.5, "price_source": "a page", "price_date": "2026-01-02"})",
            "x.json");
        QCOMPARE(*priced.usd_per_gpu_hour, 0.5);
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 parseGpuProfile(base + R"(, "usd_per_gpu_hour": 0.5})", "x.json"));
        QVERIFY_THROWS_EXCEPTION(
            InputError, parseGpuProfile(base + R"(, "usd_per_gpu_hour": 0.5, "price_source": "p",
                                                 "price_date": "yesterday"})",
                                        "x.json"));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 parseGpuProfile(base + R"(, "form_factor": "oam"})", "x.json"));
    }

    void everyShippedPriceHasASourceAndADate() {
        for (const std::string& id : gpuIds()) {
            const GpuProfile g = loadGpuProfile(id);
            if (g.usd_per_gpu_hour) {
                QVERIFY2(!g.price_source.empty(), id.c_str());
                QCOMPARE(g.price_date.size(), std::size_t{10});
            }
        }
    }

    void tightConstraintsSayWhichToRelax() {
        PlanConstraints c;
        c.max_gpus = 64;
        c.deadline_hours = m_result.candidates[*m_result.selection.fastest].hours / 2;
        QCOMPARE(selectPlan(m_result.candidates, c).meeting_constraints, std::size_t{0});
        const std::string advice = relaxAdvice(m_result.candidates, c);
        QVERIFY2(advice.find("--deadline-hours to at least") != std::string::npos, advice.c_str());
        PlanConstraints budget;
        budget.budget_usd = 0.001;
        QVERIFY(relaxAdvice(m_result.candidates, budget).find("--budget-usd") != std::string::npos);
    }

    void theResultDoesNotDependOnTheThreadCount() {
        PlanRequest r = smallRequest("alexnet");
        r.threads = 1;
        const PlanResult one = plan(r);
        r.threads = 3;
        const PlanResult three = plan(r);
        QCOMPARE(one.candidates.size(), three.candidates.size());
        for (std::size_t i = 0; i < one.candidates.size(); ++i) {
            QCOMPARE(one.candidates[i].gpu, three.candidates[i].gpu);
            QCOMPARE(one.candidates[i].hours, three.candidates[i].hours);
        }
        QCOMPARE(one.selection.pareto, three.selection.pareto);
    }

    void badRequestsAreInputErrors() {
        PlanRequest r = smallRequest("alexnet");
        r.epochs = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, plan(r));
        r.epochs = 1;
        r.dataset_images = -5;
        QVERIFY_THROWS_EXCEPTION(InputError, plan(r));
        r.dataset_images = 10;
        r.gpus.clear();
        QVERIFY_THROWS_EXCEPTION(InputError, plan(r));
    }
};

QTEST_APPLESS_MAIN(Plan)
#include "tst_plan.moc"
