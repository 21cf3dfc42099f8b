// The parallel strategies in the GUI (issue 13, items 3 and 4): the strategy, stages,
// micro-batches and schedule controls are enabled only where they apply and carry their
// values through settings, sessions and undo; the memory bar shows what sharding saves;
// the timeline has a block of rows per pipeline stage, fast enough for a slider.
#include "prediction/predictor.h"
#include "scenario/scenario_history.h"
#include "scenario/scenario_panel.h"
#include "summary/memory_bar.h"
#include "summary/summary_panel.h"
#include "timeline/timeline_view.h"
#include "window/main_window.h"

#include <QComboBox>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <set>

using namespace iterscope::ui;

namespace {
bool itemEnabled(QComboBox* combo, const QString& id) {
    const auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    const int i = combo->findData(id);
    return model && i >= 0 && model->item(i)->isEnabled();
}

QString itemTip(QComboBox* combo, const QString& id) {
    return combo->itemData(combo->findData(id), Qt::ToolTipRole).toString();
}

ScenarioSettings pipeline(int stages) {
    ScenarioSettings s;
    s.sync = QStringLiteral("allreduce-nccl");
    s.parallel = QStringLiteral("pipeline");
    s.pipeline_stages = stages;
    return s;
}

int64_t memoryOf(const MemoryBar* bar, const QString& part) {
    for (const auto& p : bar->parts())
        if (p.name == part)
            return p.bytes;
    return 0;
}
} // namespace

class TestParallelGui : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void pipelineControlsAreEnabledOnlyForPipelines() {
        ComputeCache cache;
        ScenarioPanel panel(cache);
        ScenarioSettings s;
        s.sync = QStringLiteral("allreduce-nccl");
        panel.setSettings(s);
        QCOMPARE(panel.parallelCombo()->currentData().toString(), QStringLiteral("data"));
        QVERIFY(!panel.pipelineStagesSpin()->isEnabled());
        QVERIFY(!panel.microBatchesSpin()->isEnabled());
        QVERIFY(!panel.scheduleCombo()->isEnabled());
        panel.parallelCombo()->setCurrentIndex(
            panel.parallelCombo()->findData(QStringLiteral("pipeline")));
        QVERIFY(panel.pipelineStagesSpin()->isEnabled());
        QVERIFY(panel.microBatchesSpin()->isEnabled());
        QVERIFY(panel.scheduleCombo()->isEnabled());
        QVERIFY2(panel.parallelNote().contains(QStringLiteral("4 pipelines of 2 stages")),
                 qPrintable(panel.parallelNote()));
        // A stage count the GPUs do not split into is said, not refused.
        panel.pipelineStagesSpin()->setValue(3);
        QVERIFY2(panel.parallelNote().contains(QStringLiteral("do not split")),
                 qPrintable(panel.parallelNote()));
        QVERIFY(itemEnabled(panel.parallelCombo(), QStringLiteral("pipeline")));
        // Asynchronous parameter servers are for data parallelism only.
        QVERIFY(!itemEnabled(panel.strategyCombo(), QStringLiteral("ps-async")));
    }

    void choicesThatCannotApplyAreDisabledWithTheReason() {
        ComputeCache cache;
        ScenarioPanel panel(cache);
        ScenarioSettings one;
        one.nodes = 1;
        one.gpus_per_node = 1;
        panel.setSettings(one);
        for (const char* id : {"hybrid", "pipeline", "zero1", "zero2", "zero3"}) {
            QVERIFY2(!itemEnabled(panel.parallelCombo(), QLatin1String(id)), id);
            QVERIFY2(itemTip(panel.parallelCombo(), QLatin1String(id))
                         .contains(QStringLiteral("at least 2 GPUs")),
                     id);
        }
        QVERIFY(itemEnabled(panel.parallelCombo(), QStringLiteral("data")));
        // ZeRO shards by collectives: not with a parameter server on the CPU.
        ScenarioSettings ps;
        ps.sync = QStringLiteral("ps-cpu");
        panel.setSettings(ps);
        QVERIFY(!itemEnabled(panel.parallelCombo(), QStringLiteral("zero3")));
        QVERIFY(itemTip(panel.parallelCombo(), QStringLiteral("zero3"))
                    .contains(QStringLiteral("collectives")));
        ps.sync = QStringLiteral("allreduce-nccl");
        panel.setSettings(ps);
        QVERIFY(itemEnabled(panel.parallelCombo(), QStringLiteral("zero3")));
        QVERIFY(itemEnabled(panel.strategyCombo(), QStringLiteral("ps-async")));
    }

    void aStrategyThatCannotApplyIsExplainedNotCrashed() {
        MainWindow w(false);
        ScenarioSettings s;
        s.nodes = 1;
        s.gpus_per_node = 1;
        s.parallel = QStringLiteral("zero3");
        w.setScenario(s);
        // One GPU trains data-parallel whatever the choice, and the panel says why.
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scenarioPanel()->settings().parallel, QStringLiteral("zero3"));
        QVERIFY2(w.scenarioPanel()->parallelNote().contains(QStringLiteral("at least 2 GPUs")),
                 qPrintable(w.scenarioPanel()->parallelNote()));
        // A pipeline the GPUs do not split into is the model's one-line refusal.
        ScenarioSettings bad = pipeline(3);
        w.setScenario(bad);
        QVERIFY(!w.waitForResult(30000) || w.currentResult()->settings != bad);
        QCOMPARE(w.scenarioPanel()->settings(), bad);
    }

    void strategyChoicesRoundTrip() {
        ComputeCache cache;
        ScenarioPanel panel(cache);
        QList<ScenarioSettings> all;
        for (const char* parallel : {"data", "hybrid", "zero1", "zero2", "zero3"}) {
            ScenarioSettings s;
            s.sync = QStringLiteral("allreduce-nccl");
            s.parallel = QLatin1String(parallel);
            all << s;
        }
        ScenarioSettings p = pipeline(4);
        p.micro_batches = 32;
        p.schedule = QStringLiteral("gpipe");
        all << p;
        // Values of a strategy not chosen are kept as they were, not reset.
        ScenarioSettings kept;
        kept.pipeline_stages = 8;
        kept.micro_batches = 16;
        kept.schedule = QStringLiteral("gpipe");
        all << kept;
        for (const auto& s : all) {
            panel.setSettings(s);
            QCOMPARE(panel.settings(), s);
            QString error;
            const auto back = ScenarioSettings::fromJson(s.toJson(), &error);
            QVERIFY2(back.has_value(), qPrintable(error));
            QCOMPARE(*back, s);
        }
        // Through a session file.
        QTemporaryDir dir;
        Session session;
        session.current = p;
        session.pinned = {all.front()};
        const QString path = dir.filePath(QStringLiteral("pipeline.iterscope"));
        QString error;
        QVERIFY2(saveSession(path, session, &error), qPrintable(error));
        const auto loaded = loadSession(path, &error);
        QVERIFY2(loaded.has_value(), qPrintable(error));
        QCOMPARE(*loaded, session);
    }

    void strategyChangesAreUndoSteps() {
        MainWindow w(false);
        ScenarioSettings s;
        s.sync = QStringLiteral("allreduce-nccl");
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        QComboBox* parallel = w.scenarioPanel()->parallelCombo();
        parallel->setCurrentIndex(parallel->findData(QStringLiteral("pipeline")));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.history()->stack()->undoText(), QStringLiteral("parallel data → pipeline"));
        w.scenarioPanel()->pipelineStagesSpin()->setValue(4);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->prediction.pipeline_stages, 4);
        QCOMPARE(w.history()->stack()->undoText(), QStringLiteral("stages 2 → 4"));
        w.history()->undoAction()->trigger();
        w.history()->undoAction()->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scenarioPanel()->settings(), s);
        QVERIFY(!w.scenarioPanel()->pipelineStagesSpin()->isEnabled());
        w.history()->redoAction()->trigger();
        w.history()->redoAction()->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scenarioPanel()->settings().pipeline_stages, 4);
        QCOMPARE(w.scenarioPanel()->settings().parallel, QStringLiteral("pipeline"));
    }

    void theMemoryBarShowsWhatShardingSaves() {
        MainWindow w(false);
        ScenarioSettings s;
        s.sync = QStringLiteral("allreduce-nccl");
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        const MemoryBar* bar = w.summaryPanel()->memoryBar();
        QVERIFY(bar);
        const int64_t data_total = bar->totalBytes();
        const int64_t data_optimizer = memoryOf(bar, QStringLiteral("optimizer"));
        const int64_t data_weights = memoryOf(bar, QStringLiteral("weights"));
        QCOMPARE(data_total, w.currentResult()->prediction.memory_per_gpu_bytes);
        QCOMPARE(bar->capacityBytes(), w.currentResult()->gpu.memory_bytes);
        QVERIFY(data_weights > 0);
        s.parallel = QStringLiteral("zero3");
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.parallel, QStringLiteral("zero3"));
        QVERIFY(bar->totalBytes() < data_total);
        QVERIFY(memoryOf(bar, QStringLiteral("optimizer")) < data_optimizer);
        QVERIFY(memoryOf(bar, QStringLiteral("weights")) < data_weights);
        QVERIFY(bar->toolTip().contains(QStringLiteral("optimizer")));
    }

    void aPipelineHasABlockOfRowsPerStage_data() {
        QTest::addColumn<int>("stages");
        QTest::newRow("2 stages") << 2;
        QTest::newRow("4 stages") << 4;
        QTest::newRow("8 stages") << 8;
    }
    void aPipelineHasABlockOfRowsPerStage() {
        QFETCH(int, stages);
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        w.setScenario(pipeline(stages));
        QVERIFY(w.waitForResult());
        TimelineView* timeline = w.timeline();
        QCOMPARE(timeline->groupCount(), stages);
        const QStringList labels = timeline->rowLabels();
        std::set<int> groups;
        for (int row = 0; row < labels.size(); ++row)
            groups.insert(timeline->groupOfRow(row));
        QCOMPARE(static_cast<int>(groups.size()), stages);
        // Forward and backward share a stage's compute row, one per stage.
        QCOMPARE(labels.count(QStringLiteral("Compute")), stages);
        QVERIFY(!labels.contains(QStringLiteral("Forward")));
        // Every stage's events sit in its own block.
        const auto& events = w.currentResult()->prediction.timeline;
        QVERIFY(std::any_of(events.begin(), events.end(),
                            [&](const auto& e) { return e.group == stages - 1; }));
        // 8 GPUs: 8 / stages replicas of each stage, drawn once and said so.
        if (stages < 8)
            QVERIFY2(timeline->representativeText().contains(QString::number(8 / stages)),
                     qPrintable(timeline->representativeText()));
    }

    void dataParallelKeepsOneRowGroupAndSaysItStandsForAll() {
        MainWindow w(false);
        ScenarioSettings s;
        s.nodes = 128;
        s.gpus_per_node = 8;
        s.system = QStringLiteral("dgx-h100");
        s.gpu = QStringLiteral("h100-sxm");
        w.setScenario(s);
        if (!w.waitForResult())
            QSKIP("no DGX H100 profile here");
        QCOMPARE(w.timeline()->groupCount(), 1);
        QVERIFY(w.timeline()->rowLabels().contains(QStringLiteral("Forward")));
        QCOMPARE(w.timeline()->representativeText(),
                 QStringLiteral("1 GPU of 1024 shown (all alike)"));
    }
};

QTEST_MAIN(TestParallelGui)
#include "tst_parallel_gui.moc"
