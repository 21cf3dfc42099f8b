// What a report can rely on (issue 20, items 4 to 11): labels that name the whole scenario,
// a summary whose lines add up to the iteration, distinct layer names in the costliest-
// layers chart, exports that are the chart alone with its title and caption, and the
// polish around them (waits in the timeline, stale figures dimmed, a GPU its system cannot
// hold, the layer table's filter on a new network).
#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "export/exporters.h"
#include "layers/layer_names.h"
#include "layers/layer_table_model.h"
#include "planner/plan_view.h"
#include "scenario/scenario_label.h"
#include "scenario/scenario_panel.h"
#include "summary/memory_bar.h"
#include "summary/summary_panel.h"
#include "timeline/timeline_view.h"
#include "widgets/elided_label.h"
#include "widgets/format.h"
#include "window/main_window.h"

#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <QtCharts/QChart>

#include <cmath>

using namespace iterscope::ui;

namespace {
const QString kMobileNet = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/mobilenet_v2.structure.onnx");

bool show(MainWindow& w, const ScenarioSettings& s) {
    w.setScenario(s);
    if (!w.waitForResult() || !w.currentResult())
        return false;
    QApplication::processEvents();
    return true;
}
} // namespace

class TestReport : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void at1280x720EveryControlAndFigureIsInView() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        QVERIFY(show(w, ScenarioSettings{}));
        auto* scroll = w.findChild<QScrollArea*>(QStringLiteral("scenarioScroll"));
        QVERIFY(scroll);
        QCOMPARE(scroll->verticalScrollBar()->maximum(), 0); // nothing to scroll to
        const QRect viewport(scroll->viewport()->mapTo(&w, QPoint()), scroll->viewport()->size());
        for (QWidget* control : {static_cast<QWidget*>(w.scenarioPanel()->strategyCombo()),
                                 static_cast<QWidget*>(w.scenarioPanel()->batchSpin())}) {
            const QRect at(control->mapTo(&w, QPoint()), control->size());
            QVERIFY(viewport.contains(at));
        }
        QVERIFY(w.summaryPanel()->isVisible());
        QVERIFY(w.summaryPanel()->mapTo(&w, QPoint()).y() + w.summaryPanel()->height() < 720);
        // The software's whole name is said under its box.
        auto* note = w.scenarioPanel()->findChild<ElidedLabel*>(QStringLiteral("softwareNote"));
        QVERIFY(note && note->text().startsWith(QStringLiteral("PyTorch (cuDNN 8")));
    }

    void aPsCpuPinAndTheNcclCurveReadApart() {
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        ScenarioSettings s;
        s.sync = QStringLiteral("ps-cpu");
        QVERIFY(show(w, s));
        QVERIFY(w.scalingCharts()->pinCurrent());
        s.sync = QStringLiteral("allreduce-nccl");
        QVERIFY(show(w, s));
        QTRY_VERIFY(!w.currentResult()->curves.by_gpus.empty());
        const QStringList lines = w.scalingCharts()->legendLines();
        QCOMPARE(lines.size(), 3); // what both share, the current curve, the pin
        QVERIFY2(lines[0].startsWith(QStringLiteral("All:")) &&
                     lines[0].contains(QStringLiteral("resnet50")),
                 qPrintable(lines.join('\n')));
        const QString current = lines[1], pin = lines[2];
        QVERIFY2(current.contains(QStringLiteral("NCCL")) && pin.contains(QStringLiteral("CPU")),
                 qPrintable(lines.join('\n')));
        QVERIFY(current.mid(current.indexOf(':')) != pin.mid(pin.indexOf(':')));
        // The window's title names the scenario in full, by names, not ids.
        QVERIFY2(w.windowTitle().contains(QStringLiteral("NVIDIA DGX-1")) &&
                     w.windowTitle().contains(QStringLiteral("NCCL all-reduce")) &&
                     w.windowTitle().contains(QStringLiteral("25 MB buckets")),
                 qPrintable(w.windowTitle()));
    }

    void everyChoiceIsInTheLabel() {
        ComputeCache cache;
        ScenarioSettings a;
        a.gpus_per_node = 4;
        const ScenarioLabel base = computePrediction(a, cache)->label;
        // Each of these changes one choice; the label must change with it.
        const std::vector<std::function<void(ScenarioSettings&)>> changes = {
            [](ScenarioSettings& s) { s.sync = QStringLiteral("ps-gpu"); },
            [](ScenarioSettings& s) { s.allreduce = QStringLiteral("tree"); },
            [](ScenarioSettings& s) { s.overlap = false; },
            [](ScenarioSettings& s) { s.bucket_mb = 50; },
            [](ScenarioSettings& s) { s.software = QStringLiteral("tensorflow"); },
            [](ScenarioSettings& s) { s.precision = QStringLiteral("amp"); },
            [](ScenarioSettings& s) { s.parallel = QStringLiteral("zero2"); },
            [](ScenarioSettings& s) { s.image = 160; },
            [](ScenarioSettings& s) {
                s.nodes = 2;
                s.gpus_per_node = 2;
            },
        };
        for (std::size_t i = 0; i < changes.size(); ++i) {
            ScenarioSettings b = a;
            changes[i](b);
            std::shared_ptr<PredictionResult> r;
            try {
                r = computePrediction(b, cache);
            } catch (const std::exception&) {
                continue; // a profile this build has not got
            }
            QVERIFY2(labelText(r->label) != labelText(base),
                     qPrintable(QString::number(i) + ": " + labelText(base)));
        }
        const QString text = labelText(base);
        for (const char* word : {"NCHW", "data", "PyTorch", "FP32"})
            QVERIFY2(text.contains(QLatin1String(word)), qPrintable(text));
    }

    void theSummaryLinesAddUpToTheIteration_data() {
        QTest::addColumn<QString>("parallel");
        QTest::addColumn<QString>("sync");
        QTest::addColumn<int>("gpus");
        QTest::newRow("one GPU") << "data"
                                 << "allreduce-nccl" << 1;
        QTest::newRow("data, NCCL") << "data"
                                    << "allreduce-nccl" << 8;
        QTest::newRow("parameter server") << "data"
                                          << "ps-cpu" << 8;
        QTest::newRow("asynchronous servers") << "data"
                                              << "ps-async" << 8;
        QTest::newRow("pipeline") << "pipeline"
                                  << "allreduce-nccl" << 8;
        QTest::newRow("hybrid") << "hybrid"
                                << "allreduce-nccl" << 8;
        QTest::newRow("ZeRO-3") << "zero3"
                                << "allreduce-nccl" << 8;
    }
    void theSummaryLinesAddUpToTheIteration() {
        QFETCH(QString, parallel);
        QFETCH(QString, sync);
        QFETCH(int, gpus);
        MainWindow w(false);
        ScenarioSettings s;
        s.network = QStringLiteral("alexnet"); // has FC layers for hybrid
        s.parallel = parallel;
        s.sync = sync;
        s.gpus_per_node = gpus;
        s.pipeline_stages = 4;
        QVERIFY2(show(w, s), qPrintable(w.lastError()));
        const auto lines = w.summaryPanel()->breakdownLines();
        QCOMPARE(lines.size(), std::size_t(5)); // fwd/bwd/update, exposed, bubble, waits, input
        double sum = 0;
        for (const auto& [key, ms] : lines) {
            QVERIFY2(ms >= 0, qPrintable(key));
            QVERIFY(!w.summaryPanel()->figure(key).isEmpty());
            sum += ms;
        }
        const double iteration = w.currentResult()->prediction.iteration_ms;
        QVERIFY2(std::abs(sum - iteration) <= 1e-9 * iteration,
                 qPrintable(QStringLiteral("%1 of %2 ms").arg(sum).arg(iteration)));
    }

    void theErrorBandIsShownAsItIs() {
        MainWindow w(false);
        QVERIFY(show(w, ScenarioSettings{}));
        const auto& r = *w.currentResult();
        QVERIFY(r.band.rows > 0);
        const QString iteration = w.summaryPanel()->figure(QStringLiteral("iteration"));
        QVERIFY2(iteration.contains(QStringLiteral(" / +")) && !iteration.contains(QChar(0xb1)),
                 qPrintable(iteration));
        QVERIFY(iteration.contains(
            formatBand(r.prediction.iteration_ms, r.iteration_ms_low, r.iteration_ms_high)));
        QCOMPARE(formatBand(100, 92, 104), QStringLiteral("−8 % / +4 %"));
        QVERIFY(formatBand(100, 100, 100).isEmpty());
    }

    void efficiencyAbove100PercentSaysWhy() {
        MainWindow w(false);
        ScenarioSettings s;
        s.sync = QStringLiteral("allreduce-nccl");
        s.parallel = QStringLiteral("zero3");
        QVERIFY(show(w, s));
        const QString text = w.summaryPanel()->figure(QStringLiteral("efficiency"));
        if (w.currentResult()->scaling_efficiency > 1.0005)
            QVERIFY2(text.contains(QStringLiteral("shard")), qPrintable(text));
        else
            QVERIFY2(text.contains(QStringLiteral(" of 8 × ")), qPrintable(text));
    }

    void theCostliestLayersHaveDistinctNames() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        ScenarioSettings s;
        s.network = kMobileNet;
        QVERIFY(show(w, s));
        w.viewTabs()->setCurrentWidget(w.layerChart());
        QApplication::processEvents();
        const QStringList bars = w.layerChart()->categories();
        QCOMPARE(bars.size(), 15);
        QStringList trimmed;
        for (const QString& bar : bars) {
            QVERIFY2(!bar.contains(QStringLiteral("…/Conv")) || bar.size() > 8, qPrintable(bar));
            trimmed << bar.trimmed();
        }
        trimmed.removeDuplicates();
        QCOMPARE(trimmed.size(), bars.size()); // no two bars read alike
        QCOMPARE(distinctLayerLabels({"/a/a.1/b/b.0/Conv", "/a/a.2/b/b.0/Conv", "/c/Gemm"}, 40),
                 (QStringList{"a.1/b.0/Conv", "a.2/b.0/Conv", "c/Gemm"}));
    }

    void chartExportsHaveTheirTitlesAndThePlanIsTheChartAlone() {
        QTemporaryDir dir;
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        QVERIFY(show(w, ScenarioSettings{}));
        QTRY_VERIFY(!w.currentResult()->curves.by_gpus.empty());
        QVERIFY(w.scalingCharts()->isCompact()); // no titles on screen at this size
        QCOMPARE(w.scalingCharts()->gpuChart()->chart()->title(), QString());
        QString error;
        const QString scaling = dir.filePath(QStringLiteral("scaling.png"));
        QVERIFY2(w.exportViewTo(w.scalingCharts(), scaling, &error), qPrintable(error));
        // After the export the screen is as it was.
        QCOMPARE(w.scalingCharts()->gpuChart()->chart()->title(), QString());
        // The plan: the chart and its legend, not the tab's inputs.
        w.planView()->ensurePlan();
        QTRY_VERIFY_WITH_TIMEOUT(!w.planView()->isBusy() && w.planView()->plan(), 60000);
        const QString plan = dir.filePath(QStringLiteral("plan.png"));
        QVERIFY2(w.exportViewTo(w.planView(), plan, &error), qPrintable(error));
        const QImage image(plan);
        QWidget* box = w.planView()->exportTarget();
        QCOMPARE(image.width(), box->width() * 2);
        QVERIFY(box->findChildren<QAbstractSpinBox*>().isEmpty());
        const QString caption = w.planView()->exportCaption();
        // What the chart shows, and no local path (only the docs are named).
        QVERIFY2(caption.contains(QStringLiteral("global batch at most 8,192")),
                 qPrintable(caption));
        QVERIFY2(!caption.contains(dir.path()) && !caption.contains(QStringLiteral("/work")),
                 qPrintable(caption));
    }

    void waitsHaveTheirOwnLegendEntry() {
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(show(w, ScenarioSettings{})); // eight GPUs wait for the slowest
        QVERIFY(w.currentResult()->prediction.straggler_ms > 0);
        const QStringList rows = w.timeline()->rowLabels();
        QVERIFY2(rows.contains(QStringLiteral("Update, wait")), qPrintable(rows.join(", ")));
        QVERIFY(!rows.contains(QStringLiteral("Update")));
    }

    void aRefusedScenarioDimsTheFiguresItNoLongerHas() {
        MainWindow w(false);
        QVERIFY(show(w, ScenarioSettings{}));
        QVERIFY(!w.summaryPanel()->isStale());
        ScenarioSettings bad;
        bad.sync = QStringLiteral("allreduce-nccl");
        bad.parallel = QStringLiteral("pipeline");
        bad.pipeline_stages = 3; // 8 GPUs do not split into 3 stages
        w.setScenario(bad);
        QTRY_VERIFY(w.summaryPanel()->isStale());
        QVERIFY(w.summaryPanel()
                    ->findChild<QLabel*>(QStringLiteral("summaryWarnings"))
                    ->text()
                    .contains(QStringLiteral("Not computed")));
        QVERIFY(show(w, ScenarioSettings{}));
        QVERIFY(!w.summaryPanel()->isStale());
    }

    void theMemoryLegendNamesAllSixKinds() {
        MainWindow w(false);
        QVERIFY(show(w, ScenarioSettings{}));
        QStringList names;
        for (const auto& part : w.summaryPanel()->memoryBar()->parts())
            names << part.name;
        QCOMPARE(names, (QStringList{"weights", "gradients", "optimizer", "activations",
                                     "workspace", "reserved"}));
    }

    void aGpuItsSystemCannotHoldIsSaid() {
        MainWindow w(false);
        ScenarioSettings s;
        s.gpu = QStringLiteral("a100-sxm4-80gb"); // in a DGX-1, which holds V100s
        QVERIFY(show(w, s));
        QVERIFY2(w.summaryPanel()->warnings().join(' ').contains(QStringLiteral("does not fit")),
                 qPrintable(w.summaryPanel()->warnings().join('\n')));
    }

    void aNewNetworkClearsTheFilterAndNetworkOrderIsOneClickAway() {
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(show(w, ScenarioSettings{}));
        w.layerFilter()->setText(QStringLiteral("layer1"));
        QVERIFY(w.layerProxy()->shownLayers() < w.layerModel()->layerCount());
        ScenarioSettings other;
        other.network = QStringLiteral("vgg16");
        QVERIFY(show(w, other));
        QCOMPARE(w.layerFilter()->text(), QString());
        auto* order = w.findChild<QToolButton*>(QStringLiteral("networkOrder"));
        QVERIFY(order && !order->isEnabled());
        w.layerView()->sortByColumn(LayerTableModel::Forward, Qt::DescendingOrder);
        QVERIFY(order->isEnabled());
        order->click();
        QCOMPARE(w.layerView()->header()->sortIndicatorSection(), -1);
        QCOMPARE(w.layerProxy()->index(0, 0).data(LayerTableModel::FullNameRole).toString(),
                 w.layerModel()->index(0, 0).data(LayerTableModel::FullNameRole).toString());
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
