// Reading the window (issue 14, items 3, 5, 7, 8 and 9): short layer names, words instead
// of ids, caveats beside the answer, sorting and filtering that say what they do, point
// tooltips on the charts, help that works offline, and a timeline click that stays put.
#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "layers/layer_names.h"
#include "layers/layer_table_model.h"
#include "scenario/scenario_panel.h"
#include "summary/summary_panel.h"
#include "timeline/timeline_view.h"
#include "window/help_viewer.h"
#include "window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <QtCharts/QValueAxis>
#include <QtCharts/QXYSeries>
#include <algorithm>

using namespace iterscope::ui;

namespace {
const QString kMobileNet = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/mobilenet_v2.structure.onnx");

void open(MainWindow& w, const QString& network) {
    ScenarioSettings s;
    s.network = network;
    w.setScenario(s);
    QVERIFY(w.waitForResult());
    QVERIFY2(w.currentResult(), qPrintable(w.lastError()));
    QApplication::processEvents();
}
} // namespace

class TestReadability : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void moduleParentsAreDroppedFromLayerNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("compact");
        QTest::newRow("pytorch module path")
            << "/features/features.2/features.2.0/block/block.0/block.0.0/Conv"
            << "features.2.0/block.0.0/Conv";
        QTest::newRow("op at the top") << "/features/features.3/Add"
                                       << "features.3/Add";
        QTest::newRow("no path") << "layer1.0.conv1"
                                 << "layer1.0.conv1";
        QTest::newRow("siblings kept") << "/inception3a/branch4/branch4.0/MaxPool"
                                       << "inception3a/branch4.0/MaxPool";
        QTest::newRow("only slashes") << "///"
                                      << "///";
    }
    void moduleParentsAreDroppedFromLayerNames() {
        QFETCH(QString, name);
        QFETCH(QString, compact);
        QCOMPARE(compactLayerName(name), compact);
    }

    void theSharedPrefixIsStripped() {
        QCOMPARE(displayLayerNames({"/net/stem/Conv", "/net/body/Conv", "/net/head/Gemm"}),
                 (QStringList{"stem/Conv", "body/Conv", "head/Gemm"}));
        // Never a name emptied, and no cut inside a segment.
        QCOMPARE(displayLayerNames({"/net/a", "/net/a/b"}), (QStringList{"a", "a/b"}));
        QCOMPARE(displayLayerNames({"/net/a/b", "/net/a"}), (QStringList{"a/b", "a"}));
        QCOMPARE(displayLayerNames({"/net/ab/x", "/net/ac/y"}), (QStringList{"ab/x", "ac/y"}));
        QCOMPARE(displayLayerNames({"/block1/x", "/block2/y"}),
                 (QStringList{"block1/x", "block2/y"}));
        QCOMPARE(displayLayerNames({"conv1"}), QStringList{"conv1"});
        QCOMPARE(elideMiddle(QStringLiteral("features.2/conv.0.0/Conv"), 12),
                 QStringLiteral("features…onv"));
        QCOMPARE(elideMiddle(QStringLiteral("short"), 12), QStringLiteral("short"));
    }

    void theBreakdownShowsShortNamesAndFindsFullOnes() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        open(w, kMobileNet);
        const long layer = long(w.currentResult()->prediction.layers[1].layer);
        const QModelIndex first =
            w.layerProxy()->mapFromSource(w.layerModel()->indexForLayer(layer));
        const QString shown = first.data().toString();
        const QString full = first.data(LayerTableModel::FullNameRole).toString();
        QVERIFY2(full.startsWith(QLatin1Char('/')) && !shown.startsWith(QLatin1Char('/')),
                 qPrintable(shown + " for " + full));
        QVERIFY(shown.size() < full.size());
        QCOMPARE(w.layerView()->textElideMode(), Qt::ElideMiddle);
        // The costliest-layers chart: short names, none longer than its budget.
        w.layerChart()->show();
        const QStringList bars = w.layerChart()->categories();
        QCOMPARE(bars.size(), 15);
        for (const QString& bar : bars)
            QVERIFY2(!bar.startsWith(QLatin1Char('/')) && bar.trimmed().size() <= 40,
                     qPrintable(bar));
        // A segment the short name leaves out still filters.
        w.layerFilter()->setText(QStringLiteral("features.10/conv/"));
        QVERIFY(w.layerProxy()->rowCount() > 1);
        QVERIFY2(w.layerCount()->text().contains(QStringLiteral(" of 154 layers")),
                 qPrintable(w.layerCount()->text()));
        w.layerFilter()->clear();
        QCOMPARE(w.layerCount()->text(), QStringLiteral("154 layers"));
    }

    void aFirstClickOnATimeSortsTheCostliestFirst() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        open(w, QStringLiteral("resnet18"));
        QHeaderView* header = w.layerView()->header();
        const int x = header->sectionViewportPosition(LayerTableModel::Forward) + 10;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), int(LayerTableModel::Forward));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        const double top = w.layerProxy()
                               ->index(0, LayerTableModel::Forward)
                               .data(LayerTableModel::SortRole)
                               .toDouble();
        const double next = w.layerProxy()
                                ->index(1, LayerTableModel::Forward)
                                .data(LayerTableModel::SortRole)
                                .toDouble();
        QVERIFY(top >= next);
        // Names sort A to Z first.
        QCOMPARE(w.layerModel()
                     ->headerData(LayerTableModel::Name, Qt::Horizontal, Qt::InitialSortOrderRole)
                     .toInt(),
                 int(Qt::AscendingOrder));
    }

    void controlsShowNamesNotIds() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QComboBox* strategy = w.scenarioPanel()->strategyCombo();
        QStringList texts;
        for (int i = 0; i < strategy->count(); ++i)
            texts << strategy->itemText(i);
        QVERIFY2(texts.contains(QStringLiteral("Parameter server on the CPU")),
                 qPrintable(texts.join(", ")));
        QVERIFY(!texts.contains(QStringLiteral("ps-cpu")));
        QCOMPARE(
            strategy->itemData(int(texts.indexOf(QStringLiteral("Parameter server on the CPU"))))
                .toString(),
            QStringLiteral("ps-cpu"));
        QCOMPARE(strategy->itemText(0), QStringLiteral("Platform default (NCCL all-reduce)"));
        // GPUs in the order of their names.
        QComboBox* gpus = w.scenarioPanel()->gpuCombo();
        QStringList names;
        for (int i = 0; i < gpus->count(); ++i)
            names << gpus->itemText(i);
        QStringList sorted = names;
        std::sort(sorted.begin(), sorted.end(), [](const QString& a, const QString& b) {
            return QString::localeAwareCompare(a, b) < 0;
        });
        QCOMPARE(names, sorted);
        QVERIFY(gpus->count() > 10);
    }

    void theGpuCountReadsAsASentence() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        w.scenarioPanel()->gpuCountSlider()->setValue(5);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scenarioPanel()->gpuCountLabel(), QStringLiteral("32 GPUs = 4 nodes × 8 GPUs"));
        w.scenarioPanel()->gpuCountSlider()->setValue(0);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scenarioPanel()->gpuCountLabel(), QStringLiteral("1 GPU in one node"));
        ScenarioSettings s;
        s.system = QStringLiteral("cluster-10gbe");
        s.nodes = 4;
        s.gpus_per_node = 1;
        w.setScenario(s);
        QCOMPARE(w.scenarioPanel()->gpuCountLabel(), QStringLiteral("4 GPUs = 4 nodes × 1 GPU"));
    }

    void doubtfulChoicesAreSaidBesideTheAnswer() {
        MainWindow w(false);
        ScenarioSettings s;
        s.precision = QStringLiteral("tf32"); // a V100 has no TF32 tensor cores
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        QVERIFY(w.summaryPanel()->warnings().join(' ').contains(QStringLiteral("TF32")));
        s.precision = QStringLiteral("fp32");
        s.gpu = QStringLiteral("h100-sxm");
        s.system = QStringLiteral("workstation-pcie3");
        s.gpus_per_node = 4;
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        const QString said = w.summaryPanel()->warnings().join(' ');
        QVERIFY2(said.contains(QStringLiteral("SXM")) &&
                     !said.contains(QStringLiteral("no TF32 tensor cores")),
                 qPrintable(said));
        // FP32 on a GPU with TF32 tensor cores: what a default PyTorch script runs instead.
        QVERIFY2(said.contains(QStringLiteral("torch.backends.cudnn.allow_tf32")),
                 qPrintable(said));
        // The answer is given all the same.
        QVERIFY(w.currentResult()->prediction.iteration_ms > 0);
    }

    void chartPointsTellTheirValues() {
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        open(w, QStringLiteral("resnet50"));
        QTRY_VERIFY(!w.currentResult()->curves.by_gpus.empty());
        QApplication::processEvents();
        ScalingChartsView* charts = w.scalingCharts();
        QChart* chart = charts->gpuChart()->chart();
        const auto& point = w.currentResult()->curves.by_gpus[3]; // 8 GPUs
        const auto series = chart->series();
        // The current scenario's throughput line is drawn last of the lines, over the pins.
        QAbstractSeries* top_line = nullptr;
        for (auto* s : series)
            if (s->type() == QAbstractSeries::SeriesTypeLine)
                top_line = s;
        QVERIFY(top_line && top_line->isVisible());
        const QPointF at = chart->mapToScene(chart->mapToPosition(
            {point.x, point.efficiency * 100}, static_cast<QXYSeries*>(top_line)));
        const QString tip = charts->pointTip(true, at);
        QVERIFY2(tip.contains(QStringLiteral("Current")) && tip.contains(QStringLiteral("8 GPUs")),
                 qPrintable(tip));
        QVERIFY(charts->pointTip(true, QPointF(-500, -500)).isEmpty());
        // Efficiency ticks at round tens.
        const auto* efficiency = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).last());
        QVERIFY(efficiency);
        QCOMPARE(efficiency->max(), 120.0);
        QCOMPARE(efficiency->tickCount(), 7);
    }

    void aClickOnABackwardBarKeepsTheView() {
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        open(w, QStringLiteral("resnet18"));
        TimelineView* timeline = w.timeline();
        // Zoom on the last fifth of backward: backward bars only, their forward bars out of
        // view (what follows backward, the update and waits, is cut off too).
        double backward_end = 0;
        for (const auto& e : w.currentResult()->prediction.timeline)
            if (e.kind == iterscope::EventKind::Backward)
                backward_end = std::max(backward_end, e.start_ms + e.duration_ms);
        const double total = backward_end;
        timeline->setWindow(TimeWindow{total * 0.8, total, timeline->window().width_px});
        const TimeWindow before = timeline->window();
        QPoint bar;
        for (int y = 0; y < timeline->height() && bar.isNull(); y += 2)
            for (int x = timeline->width() / 2; x < timeline->width() && bar.isNull(); x += 3) {
                const int i = timeline->eventAt({x, y});
                if (i >= 0 && w.currentResult()->prediction.timeline[std::size_t(i)].kind ==
                                  iterscope::EventKind::Backward)
                    bar = {x, y};
            }
        QVERIFY(!bar.isNull());
        QTest::mouseClick(timeline, Qt::LeftButton, {}, bar);
        QVERIFY(timeline->selectedLayer() >= 0);
        QCOMPARE(timeline->window(), before);
        // And the table follows.
        QCOMPARE(long(w.layerView()
                          ->currentIndex()
                          .siblingAtColumn(0)
                          .data(LayerTableModel::LayerIndexRole)
                          .toLongLong()),
                 timeline->selectedLayer());
    }

    void helpWorksOffline() {
        const QString guide = HelpViewer::pageMarkdown(QStringLiteral("user-guide.md"));
        QVERIFY(guide.startsWith(QStringLiteral("# Iterscope user guide")));
        QVERIFY(!guide.contains(QStringLiteral("![")));
        QVERIFY(HelpViewer::pageMarkdown(QStringLiteral("glossary.md"))
                    .contains(QStringLiteral("**TF32.**")));
        QVERIFY(HelpViewer::pageMarkdown(QStringLiteral("missing.md")).isEmpty());
        MainWindow w(false);
        w.action(QStringLiteral("actionGlossary"))->trigger();
        auto* viewer = w.findChild<HelpViewer*>();
        QVERIFY(viewer && viewer->isVisible());
        QVERIFY(viewer->browser()->toPlainText().contains(QStringLiteral("Scaling efficiency")));
        w.action(QStringLiteral("actionUserGuide"))->trigger();
        QVERIFY(viewer->browser()->toPlainText().contains(QStringLiteral("Read the breakdown")));
        QCOMPARE(w.findChildren<HelpViewer*>().size(), 1);
    }
};

QTEST_MAIN(TestReadability)
#include "tst_readability.moc"
