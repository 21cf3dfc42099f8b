// The "What helps" view (issue 32 "Checks"): it shows the advisor's diagnosis and
// suggestions for the current scenario, applying one is one undo step that changes the
// scenario as the suggestion said, and the pins are compared as ratios with a band (issue 31
// item 3).
#include "charts/charts.h"
#include "scenario/scenario_history.h"
#include "scenario/scenario_panel.h"
#include "what_helps/advisor_view.h"
#include "what_helps/suggestion_settings.h"
#include "window/main_window.h"

#include <QAction>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>

using namespace iterscope;
using namespace iterscope::ui;

class TestAdvisorView : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void flagsBecomeSettings() {
        ScenarioSettings s;
        const auto amp = settingsWithFlags(s, {"--precision", "amp", "--batch", "128"});
        QVERIFY(amp);
        QCOMPARE(amp->precision, QStringLiteral("amp"));
        QCOMPARE(amp->batch, 128);
        QString missing;
        QVERIFY(!settingsWithFlags(s, {"--nic-gbps", "12.5"}, &missing));
        QCOMPARE(missing, QStringLiteral("--nic-gbps"));
    }

    void applyingASuggestionIsOneUndoStep() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        ScenarioSettings fp32;
        fp32.precision = QStringLiteral("fp32");
        w.setScenario(fp32);
        QVERIFY(w.waitForResult());
        AdvisorView* view = w.advisorView();
        QVERIFY(view);
        w.viewTabs()->setCurrentWidget(view);
        QVERIFY(view->waitForAdvice(60000));
        QVERIFY(view->advice());
        QVERIFY(!view->advice()->suggestions.empty());
        QVERIFY(view->list()->topLevelItemCount() > 0);
        const Suggestion first = view->advice()->suggestions.front();
        QCOMPARE(first.kind, std::string("precision"));
        // What is not suggested is listed apart, under its heading, and applies nothing.
        const Advice& advice = *view->advice();
        QVERIFY(!advice.not_suggested.empty());
        const int shown = static_cast<int>(advice.suggestions.size() + advice.combinations.size());
        QCOMPARE(view->list()->topLevelItemCount(),
                 shown + 1 + static_cast<int>(advice.not_suggested.size()));
        QVERIFY(
            view->list()->topLevelItem(shown)->text(1).startsWith(QStringLiteral("Not suggested")));
        QCOMPARE(view->list()->topLevelItem(shown + 1)->text(1),
                 QString::fromStdString(advice.not_suggested.front().change));
        QVERIFY(!view->applySuggestion(shown));
        QVERIFY(!view->applySuggestion(shown + 1));

        const ScenarioSettings before = w.currentResult()->settings;
        QVERIFY(view->applySuggestion(0));
        QVERIFY(w.waitForResult());
        const ScenarioSettings after = w.currentResult()->settings;
        QCOMPARE(after, *settingsWithFlags(before, first.flags));
        QCOMPARE(after.precision, QString::fromStdString(first.flags[1]));
        // Its prediction is the one the suggestion promised.
        QVERIFY(qAbs(w.currentResult()->prediction.iteration_ms / first.iteration_ms - 1) < 1e-3);

        // One undo step takes it back whole.
        QAction* undo = w.history()->undoAction();
        QVERIFY(undo->isEnabled());
        undo->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings, before);
    }

    void pinsAreComparedAsRatiosWithABand() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        ScenarioSettings fp32;
        fp32.precision = QStringLiteral("fp32");
        w.setScenario(fp32);
        QVERIFY(w.waitForResult());
        // The pin carries its curves, which come after the prediction.
        QTRY_VERIFY_WITH_TIMEOUT(!w.currentResult()->curves.by_gpus.empty(), 30000);
        QVERIFY(w.scalingCharts()->pinCurrent());
        ScenarioSettings amp = fp32;
        amp.precision = QStringLiteral("amp");
        w.setScenario(amp);
        QVERIFY(w.waitForResult());
        const QStringList lines = w.advisorView()->comparisonLines();
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines[0].contains(QStringLiteral("the images/s of Pin 1")), qPrintable(lines[0]));
        QVERIFY2(lines[0].contains(QStringLiteral("band")), qPrintable(lines[0]));
        // AMP on a V100 is faster beyond doubt: no "not a clear win".
        QVERIFY2(!lines[0].contains(QStringLiteral("not a clear win")), qPrintable(lines[0]));
        bool ok = false;
        const double ratio = lines[0].section(QLatin1Char('x'), 0, 0).toDouble(&ok);
        QVERIFY(ok);
        QVERIFY2(ratio > 1.3, qPrintable(lines[0]));
    }
};

QTEST_MAIN(TestAdvisorView)
#include "tst_advisor_view.moc"
