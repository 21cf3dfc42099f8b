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
