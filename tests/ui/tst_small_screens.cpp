// The window on a laptop screen (issue 14, items 2 and 4): it fits 1280×720, the table
// keeps the columns that matter in view, small charts shed labels, and nothing in the
// scenario column moves while a slider is dragged.
#include "charts/chart_legend.h"
#include "charts/charts.h"
#include "layers/layer_table_model.h"
#include "scenario/scenario_panel.h"
#include "summary/summary_panel.h"
#include "window/main_window.h"

#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QScrollArea>
#include <QSlider>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <functional>

using namespace iterscope::ui;

namespace {
// Every visible widget of the scenario column and where it sits in the window.
QList<QPair<QString, QRect>> columnGeometry(MainWindow& w) {
    QList<QPair<QString, QRect>> out;
    const auto children = w.scenarioDock()->findChildren<QWidget*>();
    for (QWidget* c : children)
        if (c->isVisibleTo(&w))
            out.append({QString::fromLatin1(c->metaObject()->className()) + " " + c->objectName(),
                        QRect(c->mapTo(&w, QPoint()), c->size())});
    return out;
}

QString firstDifference(const QList<QPair<QString, QRect>>& a,
                        const QList<QPair<QString, QRect>>& b) {
    if (a.size() != b.size())
        return QStringLiteral("%1 visible widgets, then %2").arg(a.size()).arg(b.size());
    for (qsizetype i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) {
            const QRect& r = a[i].second;
            const QRect& s = b[i].second;
            return QStringLiteral("%1 moved from %2,%3 %4×%5 to %6,%7 %8×%9")
                .arg(a[i].first)
                .arg(r.x())
                .arg(r.y())
                .arg(r.width())
                .arg(r.height())
                .arg(s.x())
                .arg(s.y())
                .arg(s.width())
                .arg(s.height());
        }
    return {};
}

void settle(MainWindow& w) {
    QVERIFY(w.waitForResult());
    QApplication::processEvents(); // layouts follow label changes on the next turn
}
} // namespace

class TestSmallScreens : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void theWindowFitsALaptopScreen() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        w.show();
        settle(w);
        const QSize minimum = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(
            minimum.width() <= 1280 && minimum.height() <= 720,
            qPrintable(QStringLiteral("minimum %1×%2").arg(minimum.width()).arg(minimum.height())));
        for (const QSize size : {QSize(1280, 720), QSize(1366, 768)}) {
            w.resize(size);
            QApplication::processEvents();
            QCOMPARE(w.size(), size);
        }
    }

    void aNarrowTableKeepsLayerTimesAndShareInView() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        ScenarioSettings s;
        s.network = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/mobilenet_v2.structure.onnx");
        w.setScenario(s);
        settle(w);
        QHeaderView* header = w.layerView()->header();
        const int width = w.layerView()->viewport()->width();
        for (int column : {LayerTableModel::Name, LayerTableModel::Forward,
                           LayerTableModel::Backward, LayerTableModel::Share}) {
            const int right = header->sectionViewportPosition(column) + header->sectionSize(column);
            QVERIFY2(right <= width, qPrintable(QStringLiteral("column %1 ends at %2 of %3 px")
                                                    .arg(column)
                                                    .arg(right)
                                                    .arg(width)));
        }
    }

    void openingModulesWidensTheNameColumnToTheirNames() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        ScenarioSettings s;
        s.network = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/mobilenet_v2.structure.onnx");
        w.setScenario(s);
        settle(w);
        QTreeView* view = w.layerView();
        const QAbstractItemModel* model = view->model();
        const int closed = view->columnWidth(LayerTableModel::Name);
        // The deepest layer, its modules opened one by one as a user would.
        std::function<QModelIndex(const QModelIndex&, int&)> deepest =
            [&](const QModelIndex& parent, int& depth) {
                QModelIndex best;
                int best_depth = -1;
                for (int r = 0; r < model->rowCount(parent); ++r) {
                    int d = depth + 1;
                    const QModelIndex child = model->index(r, 0, parent);
                    const QModelIndex leaf = model->hasChildren(child) ? deepest(child, d) : child;
                    if (d > best_depth) {
                        best = leaf;
                        best_depth = d;
                    }
                }
                depth = best_depth;
                return best;
            };
        int depth = 0;
        const QModelIndex at = deepest({}, depth);
        for (QModelIndex up = at.parent(); up.isValid(); up = up.parent())
            view->expand(up);
        QVERIFY2(depth >= 3, qPrintable(QString::number(depth)));
        QCoreApplication::processEvents();
        // Wider by what the levels indent, up to what leaves Forward, Backward and Share in
        // view (aNarrowTableKeepsLayerTimesAndShareInView); at 1280×720 the deepest names
        // are still shortened in the middle, their whole name in the tooltip.
        const int open = view->columnWidth(LayerTableModel::Name);
        QVERIFY2(open > closed, qPrintable(QStringLiteral("%1 -> %2 px").arg(closed).arg(open)));
        QHeaderView* header = view->header();
        const int share_right = header->sectionViewportPosition(LayerTableModel::Share) +
                                header->sectionSize(LayerTableModel::Share);
        QVERIFY(share_right <= view->viewport()->width());
    }

    void smallChartsDropSecondaryLabels() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        w.setScenario(ScenarioSettings{});
        settle(w);
        QVERIFY(w.scalingCharts()->isCompact());
        // GPU counts every power of 4: "1024" has room, and no label is cut to "1…".
        const auto* axis = qobject_cast<QLogValueAxis*>(
            w.scalingCharts()->gpuChart()->chart()->axes(Qt::Horizontal).first());
        QVERIFY(axis);
        QCOMPARE(axis->base(), 4.0);
        // Too short for a vertical title (Qt would draw "k i…" and "eff…"): the ticks carry
        // the units, "%" on the efficiency axis.
        const auto verticalTitles = [&] {
            int shown = 0, percent_ticks = 0;
            for (QAbstractAxis* a : w.scalingCharts()->gpuChart()->chart()->axes(Qt::Vertical)) {
                shown += a->isTitleVisible() ? 1 : 0;
                if (auto* v = qobject_cast<QValueAxis*>(a))
                    percent_ticks += v->labelFormat().contains(QLatin1String("%%")) ? 1 : 0;
            }
            return std::make_pair(shown, percent_ticks);
        };
        QCOMPARE(verticalTitles(), std::make_pair(0, 1));
        // Nor for the x axis' title, and both charts run from 1 to 1024: the key under them
        // says which is which, whole (no "…").
        const auto key = [&] {
            const auto* legend =
                w.scalingCharts()->findChild<ChartLegend*>(QStringLiteral("chartLegend"));
            return legend ? legend->shownLines().last() : QString();
        };
        QVERIFY2(key().startsWith(QStringLiteral("Upper: by GPU count · lower: by batch per GPU")),
                 qPrintable(key()));
        QVERIFY2(key().endsWith(QStringLiteral("out of memory")), qPrintable(key()));
        w.resize(1920, 1080);
        QApplication::processEvents();
        QVERIFY(!w.scalingCharts()->isCompact());
        QCOMPARE(verticalTitles(), std::make_pair(2, 0));
        QVERIFY2(key().startsWith(QStringLiteral("Solid:")), qPrintable(key()));
    }

    void theScenarioColumnStaysPutWhileSlidersAreDragged_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void theScenarioColumnStaysPutWhileSlidersAreDragged() {
        QFETCH(QSize, size);
        MainWindow w(false);
        w.resize(size);
        w.show();
        w.setScenario(ScenarioSettings{});
        settle(w);
        const auto before = columnGeometry(w);
        QVERIFY(before.size() > 20);
        // Every GPU count (1 GPU: no exchange, "one GPU" efficiency; 1024: many nodes) and
        // every batch (1024 does not fit: the answer turns red) along one drag each.
        for (QSlider* slider :
             {w.scenarioPanel()->gpuCountSlider(), w.scenarioPanel()->batchSlider()}) {
            const int start = slider->value();
            slider->setSliderDown(true);
            for (int v = slider->minimum(); v <= slider->maximum(); ++v) {
                slider->setValue(v);
                settle(w);
                const QString moved = firstDifference(before, columnGeometry(w));
                QVERIFY2(moved.isEmpty(),
                         qPrintable(QStringLiteral("at %1 = %2: %3")
                                        .arg(slider == w.scenarioPanel()->gpuCountSlider()
                                                 ? QStringLiteral("GPUs")
                                                 : QStringLiteral("batch"))
                                        .arg(v)
                                        .arg(moved)));
            }
            slider->setValue(start);
            slider->setSliderDown(false);
            settle(w);
        }
        QVERIFY(w.summaryPanel()->figure(QStringLiteral("fits")).startsWith(QStringLiteral("yes")));
    }

    void theScenarioPanelCanBeClosedAndBroughtBack() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        QApplication::processEvents();
        QAction* toggle = w.action(QStringLiteral("actionScenarioPanel"));
        QVERIFY(toggle);
        QCOMPARE(toggle->shortcut(), QKeySequence(QStringLiteral("F9")));
        const int central = w.centralWidget()->width();
        toggle->trigger();
        QApplication::processEvents();
        QVERIFY(!w.scenarioDock()->isVisible());
        QVERIFY(w.centralWidget()->width() > central + 200);
        toggle->trigger();
        QApplication::processEvents();
        QVERIFY(w.scenarioDock()->isVisible());
    }
};

QTEST_MAIN(TestSmallScreens)
#include "tst_small_screens.moc"
