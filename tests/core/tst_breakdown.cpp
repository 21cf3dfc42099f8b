// The breakdown of an iteration (issue 20, item 5): its parts add up to the iteration time
// under every strategy and exchange, and for data parallelism they are the prediction's own
// figures.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/breakdown.h"
#include "model/model.h"
#include "util/error.h"

#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

Scenario base() {
    Scenario s;
    s.network = loadNetwork("resnet50");
    s.gpu = loadGpuProfile("v100-sxm2-16gb");
    s.system = loadSystemProfile("dgx1-v100");
    s.software = loadSoftwareProfile("pytorch");
    s.gpus_per_node = 8;
    s.batch_per_gpu = 64;
    return s;
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace

class TestBreakdown : public QObject {
    Q_OBJECT

  private slots:
    void thePartsAddUpToTheIteration_data() {
        QTest::addColumn<QString>("sync");
        QTest::addColumn<QString>("parallel");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<bool>("real");
        QTest::addColumn<bool>("overlap");
        const char* syncs[] = {"allreduce-nccl", "allreduce-copy", "ps-cpu", "ps-gpu", "ps-async"};
        for (const char* sync : syncs)
            QTest::addRow("data %s", sync) << sync << "data"
                                           << "1f1b" << 1 << false << true;
        QTest::addRow("distributed-replicated") << "distributed-replicated"
                                                << "data"
                                                << "1f1b" << 4 << false << true;
        for (const char* parallel : {"hybrid", "zero1", "zero2", "zero3"})
            QTest::addRow("%s", parallel)
                << "allreduce-nccl" << parallel << "1f1b" << 2 << false << true;
        QTest::addRow("pipeline 1f1b") << "allreduce-nccl"
                                       << "pipeline"
                                       << "1f1b" << 2 << false << true;
        QTest::addRow("pipeline gpipe") << "allreduce-nccl"
                                        << "pipeline"
                                        << "gpipe" << 1 << false << true;
        QTest::addRow("real data") << "allreduce-nccl"
                                   << "data"
                                   << "1f1b" << 1 << true << true;
        QTest::addRow("no overlap") << "allreduce-nccl"
                                    << "data"
                                    << "1f1b" << 4 << false << false;
    }
    void thePartsAddUpToTheIteration() {
        QFETCH(QString, sync);
        QFETCH(QString, parallel);
        QFETCH(QString, schedule);
        QFETCH(int, nodes);
        QFETCH(bool, real);
        QFETCH(bool, overlap);
        Scenario s = base();
        s.sync = requireSyncStrategy(sync.toStdString(), "sync");
        s.parallel = requireParallelStrategy(parallel.toStdString(), "parallel");
        s.schedule = requirePipelineSchedule(schedule.toStdString(), "schedule");
        s.pipeline_stages = 4;
        s.nodes = nodes;
        s.overlap = overlap;
        if (nodes > 1)
            s.system = loadSystemProfile("cluster-100gbe");
        if (nodes > 1)
            s.gpu = loadGpuProfile("v100-pcie");
        s.data = real ? DataSource::Real : DataSource::Synthetic;
        const Prediction p = predict(s);
        const IterationBreakdown b = iterationBreakdown(p);
        QVERIFY2(near(b.totalMs(), p.iteration_ms),
                 qPrintable(QStringLiteral("%1 of %2 ms").arg(b.totalMs()).arg(p.iteration_ms)));
        for (double part :
             {b.forward_ms, b.backward_ms, b.update_ms, b.input_ms, b.exposed_communication_ms,
              b.idle_ms, b.straggler_ms, b.input_wait_ms, b.server_wait_ms})
            QVERIFY(part >= 0);
        QVERIFY(b.forward_ms > 0 && b.backward_ms > 0);
        if (parallel == QLatin1String("pipeline"))
            QVERIFY2(b.idle_ms > 0, "a pipeline has a bubble");
        if (real)
            QVERIFY(b.input_wait_ms > 0 || b.input_ms > 0);
    }

    // Every strategy the model knows (scenario_choices.h), at several GPU counts: whatever
    // the timeline looks like, its parts are the iteration, and the named parts that
    // predict's JSON and table list (breakdownParts) are the same numbers.
    void everyStrategyAddsUpAtEveryGpuCount() {
        struct Count {
            int nodes, gpus_per_node;
        };
        struct Strategy {
            const char* sync;
            const char* parallel;
            const char* schedule;
            int stages;
            const char* allreduce;
        };
        const Count counts[] = {{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 8}, {8, 8}};
        const Strategy strategies[] = {
            {"allreduce-nccl", "data", "1f1b", 2, "auto"},
            {"allreduce-nccl", "data", "1f1b", 2, "ring"},
            {"allreduce-nccl", "data", "1f1b", 2, "tree"},
            {"allreduce-nccl", "data", "1f1b", 2, "hierarchical"},
            {"allreduce-copy", "data", "1f1b", 2, "auto"},
            {"ps-cpu", "data", "1f1b", 2, "auto"},
            {"ps-gpu", "data", "1f1b", 2, "auto"},
            {"distributed-replicated", "data", "1f1b", 2, "auto"},
            {"ps-async", "data", "1f1b", 2, "auto"},
            {"allreduce-nccl", "hybrid", "1f1b", 2, "auto"},
            {"allreduce-nccl", "zero1", "1f1b", 2, "auto"},
            {"allreduce-nccl", "zero2", "1f1b", 2, "auto"},
            {"allreduce-nccl", "zero3", "1f1b", 2, "auto"},
            {"allreduce-nccl", "pipeline", "1f1b", 2, "auto"},
            {"allreduce-nccl", "pipeline", "1f1b", 4, "auto"},
            {"allreduce-nccl", "pipeline", "gpipe", 2, "auto"},
            {"allreduce-nccl", "pipeline", "gpipe", 4, "auto"},
            {"ps-cpu", "pipeline", "1f1b", 4, "auto"},
        };
        int checked = 0;
        QStringList refused;
        for (const Count& count : counts)
            for (const Strategy& strategy : strategies)
                for (const bool overlap : {true, false}) {
                    Scenario s = base();
                    s.nodes = count.nodes;
                    s.gpus_per_node = count.gpus_per_node;
                    if (count.nodes > 1) {
                        s.system = loadSystemProfile("cluster-100gbe");
                        s.gpu = loadGpuProfile("v100-pcie");
                    }
                    s.sync = count.nodes * count.gpus_per_node == 1
                                 ? SyncStrategy::None
                                 : requireSyncStrategy(strategy.sync, "sync");
                    // One GPU has nothing to split, as the GUI and the CLI treat it.
                    s.parallel = count.nodes * count.gpus_per_node == 1
                                     ? ParallelStrategy::Data
                                     : requireParallelStrategy(strategy.parallel, "parallel");
                    s.schedule = requirePipelineSchedule(strategy.schedule, "schedule");
                    s.pipeline_stages = strategy.stages;
                    s.allreduce = requireAllreduceAlgorithm(strategy.allreduce, "allreduce");
                    s.overlap = overlap;
                    const QString what =
                        QStringLiteral("%1 %2 %3/%4 on %5x%6%7")
                            .arg(strategy.sync, strategy.parallel, strategy.schedule)
                            .arg(strategy.stages)
                            .arg(count.nodes)
                            .arg(count.gpus_per_node)
                            .arg(overlap ? "" : " no overlap");
                    Prediction p;
                    try {
                        validateScenario(s);
                        p = predict(s);
                    } catch (const InputError&) {
                        refused << what; // a combination the model refuses has no breakdown
                        continue;
                    }
                    const IterationBreakdown b = iterationBreakdown(p);
                    QVERIFY2(near(b.totalMs(), p.iteration_ms),
                             qPrintable(QStringLiteral("%1: %2 of %3 ms")
                                            .arg(what)
                                            .arg(b.totalMs())
                                            .arg(p.iteration_ms)));
                    double named = 0;
                    for (const BreakdownPart& part : breakdownParts(b)) {
                        QVERIFY2(part.ms >= 0, qPrintable(what + QLatin1Char(' ') + part.key));
                        named += part.ms;
                    }
                    QVERIFY2(near(named, p.iteration_ms), qPrintable(what));
                    // Without a timeline, from the totals alone: the same iteration.
                    const Prediction totals = predict(s, PredictDetail::Totals);
                    QVERIFY2(near(iterationBreakdown(totals).totalMs(), totals.iteration_ms),
                             qPrintable(what + QStringLiteral(" (totals)")));
                    ++checked;
                }
        // Most combinations are legal; the refused ones are the few that cannot be (four
        // stages on two GPUs, hybrid on one).
        QVERIFY2(checked > 150, qPrintable(refused.join(QStringLiteral("; "))));
    }

    void theNamedPartsAreTheBreakdownsFields() {
        IterationBreakdown b;
        b.forward_ms = 1;
        b.backward_ms = 2;
        b.update_ms = 4;
        b.input_ms = 8;
        b.exposed_communication_ms = 16;
        b.idle_ms = 32;
        b.straggler_ms = 64;
        b.input_wait_ms = 128;
        b.server_wait_ms = 256;
        double sum = 0;
        QStringList keys;
        for (const BreakdownPart& part : breakdownParts(b)) {
            sum += part.ms;
            keys << QLatin1String(part.key);
        }
        QCOMPARE(sum, b.totalMs());
        QCOMPARE(keys.size(), 9);
        QCOMPARE(keys.front(), QStringLiteral("forward_ms"));
        QVERIFY(keys.contains(QStringLiteral("idle_ms")));
    }

    void dataParallelPartsAreThePredictionsFigures() {
        Scenario s = base();
        const Prediction p = predict(s);
        const IterationBreakdown b = iterationBreakdown(p);
        QVERIFY(near(b.forward_ms, p.forward_ms));
        QVERIFY(near(b.backward_ms, p.backward_ms));
        QVERIFY(near(b.update_ms, p.update_ms));
        QVERIFY(near(b.exposed_communication_ms, p.exposed_communication_ms));
        QVERIFY(near(b.straggler_ms, p.straggler_ms));
        QVERIFY(p.straggler_ms > 0);
        QCOMPARE(b.idle_ms, 0.0);
    }

    void withoutATimelineTheTotalsStillAddUp() {
        const Prediction p = predict(base(), PredictDetail::Totals);
        QVERIFY(p.timeline.empty());
        QVERIFY(near(iterationBreakdown(p).totalMs(), p.iteration_ms));
    }
};

QTEST_MAIN(TestBreakdown)
#include "tst_breakdown.moc"
