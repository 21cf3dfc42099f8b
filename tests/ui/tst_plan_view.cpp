// The Plan tab (issue 15): the chart shows every priced candidate, the constraints re-select
// without predicting again, the training length scales time and cost, hovering tells the
// energy, clicking a point makes it the scenario, and the tab exports like the other charts.
#include "export/exporters.h"
#include "planner/plan_points_item.h"
#include "planner/plan_view.h"
#include "scenario/scenario_panel.h"
#include "window/main_window.h"

#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "plan/plan_inputs.h"

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

using namespace iterscope;
using namespace iterscope::ui;

namespace {

// A small plan, made as computePlan() makes one but over a few GPUs and systems, so the
// test stays fast under the sanitizers.
PlanDataPtr smallPlan() {
    auto data = std::make_shared<PlanData>();
    data->inputs.network = QStringLiteral("resnet18");
    PlanRequest& r = data->request;
    PlanHardwareChoice choice;
    choice.gpus = {"v100-sxm2-16gb", "a100-sxm4-80gb", "rtx3090"};
    choice.systems = {"dgx1-v100", "dgx-a100", "workstation-pcie4"};
    loadPlanHardware(choice, r);
    r.software = loadSoftwareProfile("pytorch");
    r.network = loadNetwork("resnet18");
    r.constraints.max_gpus = 32;
    data->candidates = plan(r).candidates;
    return data;
}

std::size_t pointsOn(const PlanChart& chart) {
    std::size_t n = 0;
    for (const auto& s : chart.by_gpu)
        n += static_cast<std::size_t>(s.points.size());
    return n;
}

} // namespace

class TestPlanView : public QObject {
    Q_OBJECT
    PlanDataPtr m_plan;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        m_plan = smallPlan();
        QVERIFY(m_plan->candidates.size() > 100);
    }

    void theChartShowsPricedCandidatesMeetingTheConstraints() {
        PlanChoices choices;
        const PlanChart chart = planChart(*m_plan, choices, QSize(800, 500));
        QVERIFY(pointsOn(chart) > 0);
        QVERIFY(pointsOn(chart) <= m_plan->candidates.size());
        QVERIFY(chart.unpriced_candidates > 0); // the RTX 3090 ships without a price
        QCOMPARE(chart.unpriced_gpus.size(), std::size_t{1});
        for (const auto& series : chart.by_gpu) {
            QCOMPARE(static_cast<std::size_t>(series.points.size()), series.candidates.size());
            for (std::size_t k = 0; k < series.candidates.size(); ++k) {
                const PlanPoint& p = m_plan->candidates[series.candidates[k]];
                QCOMPARE(p.gpu, series.gpu);
                QVERIFY(p.cost_usd.has_value());
                QCOMPARE(series.points[static_cast<qsizetype>(k)].x(), p.hours);
            }
        }
        QCOMPARE(static_cast<std::size_t>(chart.pareto.size()), chart.selection.pareto.size());
        // Finer cells keep more points, never fewer.
        QVERIFY(pointsOn(planChart(*m_plan, choices, QSize(800, 500), 1)) >= pointsOn(chart));
    }

    void constraintsReselectWithoutPredicting() {
        PlanChoices choices;
        const PlanChart all = planChart(*m_plan, choices, QSize(800, 500));
        const PlanPoint& fastest = m_plan->candidates[*all.selection.fastest];
        choices.constraints.deadline_hours = fastest.hours * 8;
        choices.constraints.max_gpus = 8;
        const PlanChart some = planChart(*m_plan, choices, QSize(800, 500));
        QVERIFY(some.selection.meeting_constraints < all.selection.meeting_constraints);
        QVERIFY(!some.excluded.isEmpty());
        for (const auto& series : some.by_gpu)
            for (const std::size_t i : series.candidates) {
                QVERIFY(m_plan->candidates[i].hours <= *choices.constraints.deadline_hours);
                QVERIFY(m_plan->candidates[i].totalGpus() <= 8);
            }
    }

    void theTrainingLengthScalesTimeAndCost() {
        PlanChoices choices;
        const PlanChart base = planChart(*m_plan, choices, QSize(800, 500));
        choices.epochs *= 2;
        const PlanChart twice = planChart(*m_plan, choices, QSize(800, 500));
        QCOMPARE(twice.scale, 2.0);
        QCOMPARE(twice.pareto.size(), base.pareto.size());
        for (qsizetype i = 0; i < base.pareto.size(); ++i) {
            QVERIFY(qFuzzyCompare(twice.pareto[i].x(), 2 * base.pareto[i].x()));
            QVERIFY(qFuzzyCompare(twice.pareto[i].y(), 2 * base.pareto[i].y()));
        }
        // A deadline scales with it: twice the epochs, twice the deadline, the same choice.
        PlanChoices tight;
        tight.constraints.deadline_hours = m_plan->candidates[*base.selection.fastest].hours * 3;
        const PlanChart a = planChart(*m_plan, tight, QSize(800, 500));
        tight.epochs *= 2;
        *tight.constraints.deadline_hours *= 2;
        const PlanChart b = planChart(*m_plan, tight, QSize(800, 500));
        QCOMPARE(a.selection.pareto, b.selection.pareto);
    }

    void hoverTellsTheEnergy() {
        const QString text = describeCandidate(*m_plan, m_plan->candidates.front());
        QVERIFY(text.contains(QStringLiteral("kWh")));
        QVERIFY(text.contains(QStringLiteral("images/s")));
    }

    void candidatesAreNamedAsTheScenarioPanelNamesThem() {
        // "Tesla V100 SXM2 16GB on NVIDIA DGX-1 (V100)", not the CLI's ids.
        for (const PlanPoint& p : m_plan->candidates) {
            const auto& gpu = m_plan->request.gpus[static_cast<std::size_t>(p.gpu)];
            const auto& system = m_plan->request.systems[static_cast<std::size_t>(p.system)];
            QVERIFY(!gpu.name.empty() && gpu.name != gpu.id);
            for (const QString& text :
                 {describeCandidate(*m_plan, p), shortCandidate(*m_plan, p)}) {
                QVERIFY2(text.contains(QString::fromStdString(gpu.name).toHtmlEscaped()) &&
                             text.contains(QString::fromStdString(system.name).toHtmlEscaped()),
                         qPrintable(text));
                QVERIFY2(!text.contains(QString::fromStdString(gpu.id)), qPrintable(text));
            }
        }
        // The legend's names leave a long aside out, and keep one that tells parts apart.
        GpuProfile gpu;
        gpu.id = "gb200";
        gpu.name = "NVIDIA GB200 (Blackwell GPU of a GB200 superchip, 186GB)";
        QCOMPARE(planProfileName(gpu), QStringLiteral("NVIDIA GB200"));
        gpu.name = "NVIDIA Titan X (Pascal)";
        QCOMPARE(planProfileName(gpu), QStringLiteral("NVIDIA Titan X (Pascal)"));
        gpu.name.clear();
        QCOMPARE(planProfileName(gpu), QStringLiteral("gb200"));
    }

    void aCandidateRoundTripsThroughTheScenario() {
        ScenarioSettings current;
        for (std::size_t i = 0; i < m_plan->candidates.size(); i += 37) {
            const ScenarioSettings s = scenarioFor(*m_plan, m_plan->candidates[i], current);
            QCOMPARE(s.network, QStringLiteral("resnet18"));
            const auto back = candidateFor(*m_plan, s);
            QVERIFY(back.has_value());
            QCOMPARE(*back, i);
        }
    }

    void clickingAPointMakesItTheScenario() {
        MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        PlanView* view = w.planView();
        QVERIFY(view);
        view->setPlan(m_plan);
        // The cheapest point, as a click on it would choose it.
        const std::size_t cheapest = *view->chartData().selection.cheapest;
        QSignalSpy shown(&w, &MainWindow::resultShown);
        emit view->scenarioChosen(view->scenarioForCandidate(cheapest));
        QVERIFY(w.waitForResult());
        QVERIFY(shown.count() > 0 || shown.wait(10000));
        const PlanPoint& p = m_plan->candidates[cheapest];
        const ScenarioSettings s = w.currentResult()->settings;
        QCOMPARE(s.network, QStringLiteral("resnet18"));
        QCOMPARE(s.gpu.toStdString(), m_plan->request.gpus[static_cast<std::size_t>(p.gpu)].id);
        QCOMPARE(s.nodes, p.nodes);
        QCOMPARE(s.gpus_per_node, p.gpus_per_node);
        QCOMPARE(s.batch, static_cast<int>(p.batch_per_gpu));
        QCOMPARE(w.scenarioPanel()->settings(), s);
        // The other views follow: the prediction is the candidate's.
        QVERIFY(qAbs(w.currentResult()->prediction.images_per_second - p.images_per_second) <
                1e-6 * p.images_per_second);
        // And the tab marks it as the current scenario.
        QCOMPARE(candidateFor(*m_plan, s), std::optional<std::size_t>(cheapest));
    }

    void aMouseClickOnAPointMakesItTheScenario() {
        MainWindow w(false);
        w.resize(1600, 1000);
        w.show();
        ScenarioSettings settings;
        settings.network =
            QStringLiteral("resnet18"); // the plan's, so showing it recomputes nothing
        w.setScenario(settings);
        QVERIFY(w.waitForResult());
        PlanView* view = w.planView();
        view->setPlan(m_plan);
        // The plan sits in a scrolling page of the view tabs.
        QTabWidget* tabs = nullptr;
        QWidget* page = nullptr;
        for (QTabWidget* t : w.findChildren<QTabWidget*>())
            for (QWidget* p = view; p; p = p->parentWidget())
                if (t->indexOf(p) >= 0) {
                    tabs = t;
                    page = p;
                }
        QVERIFY(tabs);
        tabs->setCurrentWidget(page);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!view->isBusy());
        QApplication::processEvents();

        // A point of the first GPU's layer, clicked where the chart draws it.
        const PlanChart& chart = view->chartData();
        QVERIFY(!chart.by_gpu.empty());
        QChart* qchart = view->chartView()->chart();
        PlanPointsItem* points = view->points();
        const QPointF data = chart.by_gpu.front().points.back();
        const auto place = [&](const QPointF& value) {
            return view->chartView()->mapFromScene(points->mapToScene(points->positionOf(value)));
        };
        const QPoint at = place(data);
        QVERIFY(qchart->plotArea().contains(points->positionOf(data)));
        // Hovering shows what the point is, energy included.
        QWidget* viewport = view->chartView()->viewport();
        QMouseEvent move(QEvent::MouseMove, QPointF(at), viewport->mapToGlobal(QPointF(at)),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(viewport, &move);
        QTRY_VERIFY(QToolTip::text().contains(QStringLiteral("kWh")));
        QSignalSpy chosen(view, &PlanView::scenarioChosen);
        QTest::mouseClick(view->chartView()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(chosen.count(), 1);
        // The chosen scenario is a candidate drawn where the click was...
        const auto picked = chosen.first().first().value<ScenarioSettings>();
        const auto i = candidateFor(*m_plan, picked);
        QVERIFY(i.has_value());
        const PlanPoint& p = m_plan->candidates[*i];
        const QPoint drawn = place(QPointF(p.hours, *p.cost_usd));
        QVERIFY((drawn - at).manhattanLength() <= 8);
        // ...and it became the window's scenario.
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scenarioPanel()->settings(), picked);
        QCOMPARE(w.currentResult()->settings, picked);
    }

    void theTabExportsLikeTheOtherCharts() {
        PlanView view;
        view.setPlan(m_plan);
        view.resize(1000, 700);
        QTemporaryDir dir;
        for (const char* name : {"plan.png", "plan.svg", "plan.pdf"}) {
            const QString path = dir.filePath(QString::fromLatin1(name));
            QString error;
            QVERIFY2(exportWidget(&view, path, &error, 1.0), qPrintable(error));
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY(f.size() > 1000);
        }
        QVERIFY(view.summary()->text().contains(QStringLiteral("Fastest")));
        // The legend names the fastest's GPU, by its name.
        const auto* legend = view.findChild<QLabel*>(QStringLiteral("planLegend"));
        QVERIFY(legend);
        const auto& plan = *m_plan;
        const PlanChart chart = planChart(plan, view.choices(), QSize(800, 500));
        QVERIFY(chart.selection.fastest);
        const auto& fastest =
            plan.request
                .gpus[static_cast<std::size_t>(plan.candidates[*chart.selection.fastest].gpu)];
        QVERIFY2(legend->text().contains(planProfileName(fastest).toHtmlEscaped()),
                 qPrintable(legend->text()));
    }

    void aBadPricesFileShowsAnErrorAndKeepsThePlan() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad-prices.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"iterscope-prices\"");
        f.close();
        PlanView view;
        view.setPlan(m_plan);
        view.setPricesFile(path);
        view.ensurePlan();
        QTRY_VERIFY_WITH_TIMEOUT(!view.isBusy(), 60000);
        QVERIFY(view.summary()->text().contains(QStringLiteral("bad-prices.json")));
        QCOMPARE(view.plan(), m_plan);
    }
};

QTEST_MAIN(TestPlanView)
#include "tst_plan_view.moc"
