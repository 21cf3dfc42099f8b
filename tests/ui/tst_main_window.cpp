// The main window end to end with the real model: controls drive the summary, the newest
// request wins, sessions round-trip, every network file type opens, selection syncs and
// every export writes a valid file.
#include "charts/chart_legend.h"
#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "export/exporters.h"
#include "layers/layer_table_model.h"
#include "scenario/scenario_panel.h"
#include "summary/summary_panel.h"
#include "timeline/timeline_view.h"
#include "window/main_window.h"

#include "io/network_json.h"
#include "network/zoo.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QGraphicsRectItem>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPaintEvent>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QtCharts/QAbstractSeries>
#include <QtCharts/QChart>

using namespace iterscope::ui;

namespace {
QByteArray head(const QString& path, int n) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
}
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void theDefaultScenarioShowsAPrediction() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QVERIFY2(w.currentResult(), qPrintable(w.lastError()));
        const auto& s = w.currentResult()->settings;
        QCOMPARE(s.network, QStringLiteral("resnet50"));
        QCOMPARE(s.totalGpus(), 8);
        QVERIFY(w.currentResult()->prediction.iteration_ms > 0);
        QVERIFY(
            w.summaryPanel()->figure(QStringLiteral("iteration")).contains(QStringLiteral(" ms")));
        QVERIFY(w.layerModel()->layerCount() > 50);
        QVERIFY(w.timeline()->totalMs() > 0);
        QCOMPARE(w.currentResult()->curves.by_gpus.front().x, 1.0);
    }

    void movingTheGpuSliderUpdatesTheSummary() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QSignalSpy spy(w.summaryPanel(), &SummaryPanel::updated);
        const QString before = w.summaryPanel()->figure(QStringLiteral("throughput"));
        w.scenarioPanel()->gpuCountSlider()->setValue(0);
        QTRY_VERIFY(spy.count() >= 1);
        QCOMPARE(w.currentResult()->settings.totalGpus(), 1);
        QVERIFY(w.summaryPanel()
                    ->figure(QStringLiteral("efficiency"))
                    .contains(QStringLiteral("one GPU")));
        QVERIFY(w.summaryPanel()->figure(QStringLiteral("throughput")) != before);
        spy.clear();
        w.scenarioPanel()->gpuCountSlider()->setValue(5); // 32 GPUs: 4 DGX-1 nodes of 8
        QTRY_VERIFY(spy.count() >= 1);
        QCOMPARE(w.currentResult()->settings.nodes, 4);
        QCOMPARE(w.currentResult()->settings.gpus_per_node, 8);
    }

    void theBatchSliderReachesTheDoesNotFitState() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QSignalSpy spy(w.summaryPanel(), &SummaryPanel::updated);
        w.scenarioPanel()->batchSlider()->setValue(10);
        QTRY_VERIFY(spy.count() >= 1);
        QCOMPARE(w.currentResult()->settings.batch, 1024);
        QVERIFY(!w.currentResult()->prediction.fits_in_memory); // ResNet-50 at 1024 on 16 GB
        QVERIFY(w.summaryPanel()->figure(QStringLiteral("fits")).startsWith(QStringLiteral("no")));
    }

    void theNewestRequestWins() {
        MainWindow w(false);
        QSignalSpy finished(w.predictor(), &Predictor::finished);
        ScenarioSettings s;
        for (int batch = 1; batch <= 40; ++batch) {
            s.batch = batch;
            w.predictor()->request(s);
        }
        QVERIFY(w.waitForResult());
        // Every request was made before any answer could arrive, so only the last is shown.
        QCOMPARE(finished.count(), 1);
        QCOMPARE(w.currentResult()->settings.batch, 40);
    }

    void aSessionRestoresEveryControl() {
        ScenarioSettings s;
        s.gpu = QStringLiteral("v100-pcie");
        s.system = QStringLiteral("workstation-pcie3");
        s.nodes = 1;
        s.gpus_per_node = 4;
        s.batch = 48;
        s.precision = QStringLiteral("amp");
        s.sync = QStringLiteral("allreduce-nccl");
        s.allreduce = QStringLiteral("ring");
        s.overlap = false;
        s.bucket_mb = 12.5;
        s.image = 192;
        const QString path = m_dir.filePath(QStringLiteral("round.iterscope"));
        Session saved;
        {
            MainWindow w(false);
            w.setScenario(s);
            QVERIFY(w.waitForResult());
            QVERIFY2(w.currentResult(), qPrintable(w.lastError()));
            w.scalingCharts()->pinCurrent();
            w.layerFilter()->setText(QStringLiteral("res2"));
            saved = w.session();
            QString error;
            QVERIFY2(w.saveSessionTo(path, &error), qPrintable(error));
        }
        QCOMPARE(saved.current, s);
        MainWindow w(false);
        QString error;
        QVERIFY2(w.openSession(path, &error), qPrintable(error));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scenarioPanel()->settings(), s);
        QCOMPARE(w.session(), saved);
        QCOMPARE(w.scalingCharts()->pins().size(), 1);
        QCOMPARE(w.layerFilter()->text(), QStringLiteral("res2"));
    }

    void aBadSessionFileIsRefusedWithItsName_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << QByteArray("{{{") << QStringLiteral("not JSON");
        QTest::newRow("wrong format")
            << QByteArray("{\"format\":\"x\"}") << QStringLiteral("format");
        QTest::newRow("batch out of range")
            << QByteArray(
                   "{\"format\":\"iterscope-session\",\"version\":1,\"scenario\":{\"batch\":0}}")
            << QStringLiteral("scenario.batch");
        QTest::newRow("batch of the wrong type")
            << QByteArray("{\"format\":\"iterscope-session\",\"version\":1,\"scenario\":{\"batch\":"
                          "\"8\"}}")
            << QStringLiteral("scenario.batch");
        QTest::newRow("too many pins")
            << QByteArray("{\"format\":\"iterscope-session\",\"version\":1,\"scenario\":{},"
                          "\"pinned\":[{},{},{},{},{}]}")
            << QStringLiteral("pinned");
    }
    void aBadSessionFileIsRefusedWithItsName() {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString path = m_dir.filePath(QStringLiteral("bad.iterscope"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(content);
        f.close();
        QString error;
        QVERIFY(!loadSession(path, &error));
        QVERIFY2(error.startsWith(path) && error.contains(expected), qPrintable(error));
    }

    void everyNetworkFileTypeOpens_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("onnx") << QStringLiteral(ITERSCOPE_TEST_DATA
                                                "/onnx/resnet18.structure.onnx");
        QTest::newRow("prototxt") << QStringLiteral(ITERSCOPE_TEST_DATA
                                                    "/caffe/bvlc_alexnet.deploy.prototxt");
        const QString json = m_dir.filePath(QStringLiteral("vgg16.json"));
        QFile f(json);
        if (f.open(QIODevice::WriteOnly))
            f.write(QByteArray::fromStdString(
                iterscope::networkToJson(*iterscope::zooNetwork("vgg16"))));
        QTest::newRow("json") << json;
    }
    void everyNetworkFileTypeOpens() {
        QFETCH(QString, path);
        MainWindow w(false);
        w.openNetwork(path);
        QVERIFY(w.waitForResult());
        QVERIFY2(w.currentResult(), qPrintable(w.lastError()));
        QCOMPARE(w.currentResult()->settings.network, path);
        QVERIFY(w.layerModel()->rowCount() > 5);
        QVERIFY(w.currentResult()->prediction.iteration_ms > 0);
    }

    void aBrokenFileKeepsTheLastNetworkAndSaysWhy() {
        const QString bad = m_dir.filePath(QStringLiteral("broken.onnx"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a protobuf");
        f.close();
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        w.openNetwork(bad);
        QVERIFY(w.waitForResult());
        QTRY_VERIFY(!w.predictor()->isBusy());
        QCOMPARE(w.currentResult()->settings.network, QStringLiteral("resnet50"));
        QVERIFY2(w.lastError().contains(QStringLiteral("broken.onnx")), qPrintable(w.lastError()));
        QVERIFY(w.findChild<QLabel*>(QStringLiteral("errorBanner"))->isVisibleTo(&w));
    }

    void selectionFollowsBetweenTableAndTimeline() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        const auto& timings = w.currentResult()->prediction.layers;
        const long layer = long(timings[3].layer);
        const QModelIndex row = w.layerProxy()->mapFromSource(w.layerModel()->indexForLayer(layer));
        w.layerView()->setCurrentIndex(row);
        QCOMPARE(w.timeline()->selectedLayer(), layer);
        // A layer inside a module (layer2.0.conv1): its module opens to show it.
        const long other = long(timings[40].layer);
        emit w.timeline()->layerClicked(other);
        QVERIFY(w.layerView()->isExpanded(w.layerView()->currentIndex().parent()));
        QCOMPARE(long(w.layerView()
                          ->currentIndex()
                          .siblingAtColumn(0)
                          .data(LayerTableModel::LayerIndexRole)
                          .toLongLong()),
                 other);
    }

    void pinsStopAtFour() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        for (int i = 0; i < 6; ++i)
            QVERIFY(w.scalingCharts()->pinCurrent());
        QCOMPARE(w.scalingCharts()->pins().size(), ScalingChartsView::kMaxPins);
    }

    void theTimelineZoomsAndFits() {
        MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        const double span = w.timeline()->window().spanMs();
        w.timeline()->zoomIn();
        QVERIFY(std::abs(w.timeline()->window().spanMs() - span / 2) < span * 1e-9);
        w.timeline()->fitToView();
        QVERIFY(std::abs(w.timeline()->window().spanMs() - w.timeline()->totalMs()) < 1e-9);
    }

    void theDarkThemeKeepsPlaceholdersAndTextReadable() {
        MainWindow w(false);
        w.show();
        w.setDarkTheme(true);
        QApplication::processEvents(); // the palette reaches widgets as an event
        const QPalette p = w.layerFilter()->palette();
        const int base = p.color(QPalette::Base).lightness();
        // WCAG-style contrast is overkill here; a clear lightness gap is what the eye needs.
        QVERIFY2(p.color(QPalette::PlaceholderText).lightness() - base >= 100,
                 qPrintable(p.color(QPalette::PlaceholderText).name() + " on " +
                            p.color(QPalette::Base).name()));
        QVERIFY(p.color(QPalette::Text).lightness() - base >= 150);
        w.setDarkTheme(false);
        QVERIFY(QApplication::palette().color(QPalette::Base).lightness() > 128);
    }

    void theMarkerSitsOnTheCurrentScenario() {
        // The square is an item of its own (moving a series point repainted the whole
        // plot): it must still sit where the current scenario's point is, and follow it.
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        ScenarioSettings s;
        s.network = QStringLiteral("resnet50");
        s.batch = 64;
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        const auto markerValue = [&w](QChartView* view) -> std::optional<QPointF> {
            QApplication::processEvents();
            for (QGraphicsItem* item : view->chart()->childItems())
                if (auto* r = qgraphicsitem_cast<QGraphicsRectItem*>(item);
                    r && r->zValue() >= 1000 && r->isVisible())
                    return view->chart()->mapToValue(r->pos(), view->chart()->series().front());
            return std::nullopt;
        };
        // The GPU chart reaches 1024 GPUs, in thousands of images/s.
        const double ips = w.currentResult()->prediction.images_per_second / 1000;
        auto at = markerValue(w.scalingCharts()->gpuChart());
        QVERIFY(at);
        QVERIFY2(std::abs(at->x() / 8 - 1) < 0.03, qPrintable(QString::number(at->x())));
        QVERIFY2(std::abs(at->y() / ips - 1) < 0.03, qPrintable(QString::number(at->y())));
        at = markerValue(w.scalingCharts()->batchChart());
        QVERIFY(at);
        QVERIFY2(std::abs(at->x() / 64 - 1) < 0.03, qPrintable(QString::number(at->x())));
        s.batch = 128;
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        at = markerValue(w.scalingCharts()->batchChart());
        QVERIFY(at);
        QVERIFY2(std::abs(at->x() / 128 - 1) < 0.03, qPrintable(QString::number(at->x())));
        QVERIFY2(std::abs(at->y() / w.currentResult()->prediction.images_per_second - 1) < 0.03,
                 qPrintable(QString::number(at->y())));
    }

    void theLayerTableRepaintsWhatANewResultChanged() {
        // The view repaints its visible rows for a whole-result change instead of locating
        // each changed row: they must be repainted all the same, without a forced repaint.
        struct PaintWatch : QObject {
            QRegion painted;
            bool eventFilter(QObject*, QEvent* e) override {
                if (e->type() == QEvent::Paint)
                    painted += static_cast<QPaintEvent*>(e)->region();
                return false;
            }
        } watch;
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        ScenarioSettings s;
        s.network = QStringLiteral("resnet50");
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        QApplication::processEvents();
        QWidget* viewport = w.layerView()->viewport();
        viewport->installEventFilter(&watch);
        s.batch = 128;
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        QApplication::processEvents();
        const QRect rows = w.layerView()->visualRect(w.layerView()->model()->index(0, 0)) |
                           w.layerView()->visualRect(w.layerView()->model()->index(
                               w.layerView()->model()->rowCount() - 1, 0));
        QVERIFY2(watch.painted.contains(rows.intersected(viewport->rect()).center()) &&
                     watch.painted.boundingRect().contains(rows.intersected(viewport->rect())),
                 "the rows of the new result were not repainted");
        viewport->removeEventFilter(&watch);
    }

    void theChartLegendIsNeverCut_data() {
        QTest::addColumn<int>("width");
        QTest::newRow("the default window") << 1600;
        QTest::newRow("a narrow window, charts stacked") << 1100;
    }
    void theChartLegendIsNeverCut() {
        QFETCH(int, width);
        MainWindow w(false);
        w.resize(width, 1000);
        w.show();
        ScenarioSettings s;
        s.network = QStringLiteral("resnet152");
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        for (int i = 0; i < 2; ++i) // pins add lines to the legend
            QVERIFY(w.scalingCharts()->pinCurrent());
        QApplication::processEvents();
        const ChartLegend* legend = w.scalingCharts()->legend();
        QVERIFY(legend && legend->isVisible());
        // "All: ...", the current curve, two pins, and the key on one or two lines.
        QVERIFY2(legend->lineCount() >= 5, qPrintable(QString::number(legend->lineCount())));
        const QStringList lines = legend->shownLines();
        QCOMPARE(lines.size(), 5);
        QVERIFY2(lines[0].startsWith(QStringLiteral("All: ")), qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith(QStringLiteral("Current:")), qPrintable(lines[1]));
        QVERIFY2(lines[3].startsWith(QStringLiteral("Pin 2:")), qPrintable(lines[3]));
        // Every line whole in height: an elided line says so with "…", none is clipped.
        const int needed = legend->lineCount() * legend->fontMetrics().lineSpacing();
        QVERIFY2(
            legend->height() >= needed,
            qPrintable(QStringLiteral("%1 px high, needs %2").arg(legend->height()).arg(needed)));
        QVERIFY(!lines.last().contains(QChar(0x2026))); // the key always fits, wrapped
    }

    void exportsWriteValidFiles() {
        MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QString error;
        for (QWidget* view :
             {static_cast<QWidget*>(w.timeline()), static_cast<QWidget*>(w.scalingCharts()),
              static_cast<QWidget*>(w.layerChart())}) {
            const QString base = m_dir.filePath(view->metaObject()->className()).replace(':', '_');
            QVERIFY2(exportWidget(view, base + ".png", &error), qPrintable(error));
            QImage image(base + ".png");
            QCOMPARE(image.size(), view->size() * 2);
            QVERIFY2(exportWidget(view, base + ".svg", &error), qPrintable(error));
            const QByteArray svg = head(base + ".svg", 4096);
            QVERIFY(svg.startsWith("<?xml") && svg.contains("<svg"));
            QVERIFY2(exportWidget(view, base + ".pdf", &error), qPrintable(error));
            QVERIFY(head(base + ".pdf", 5) == "%PDF-");
        }
        QVERIFY(!exportWidget(w.timeline(), m_dir.filePath("x.bmp"), &error));
        QVERIFY(error.contains("x.bmp"));

        const QString trace = m_dir.filePath(QStringLiteral("trace.json"));
        QVERIFY2(exportTrace(*w.currentResult(), trace, &error), qPrintable(error));
        QFile f(trace);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto doc = QJsonDocument::fromJson(f.readAll());
        const auto events = doc.object().value("traceEvents").toArray();
        int complete = 0;
        for (const auto& e : events)
            complete += e.toObject().value("ph").toString() == "X";
        // One process per GPU, up to eight: the default scenario's eight GPUs run the same
        // events.
        QCOMPARE(complete, 8 * int(w.currentResult()->prediction.timeline.size()));
        QVERIFY(complete > 0);
    }

    void builtInNetworksAreGroupedByFamily() {
        MainWindow w(false);
        QMenu* zoo = nullptr;
        for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
            if (m->title().remove(QLatin1Char('&')) == QStringLiteral("Built-in Networks"))
                zoo = m;
        QVERIFY(zoo != nullptr);
        QStringList families, ids;
        for (QAction* a : zoo->actions()) {
            QVERIFY(a->menu() != nullptr); // one submenu a family
            families << a->text();
            for (QAction* n : a->menu()->actions())
                ids << n->text();
        }
        QVERIFY(families.contains(QStringLiteral("Vision Transformer")));
        QCOMPARE(families.removeDuplicates(), qsizetype{0});
        QCOMPARE(ids.size(), static_cast<qsizetype>(iterscope::zooIds().size()));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
