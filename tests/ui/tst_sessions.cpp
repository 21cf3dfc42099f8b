// What a session keeps, and that it is never lost (issue 20, items 1 and 2): a session whose
// network has moved leaves the window and the file as they were until the user chooses
// (locate the network, or open without it), one opened without it is never written back
// over the file, and the Plan tab's training length and constraints travel with it.
#include "charts/charts.h"
#include "file_dialog_driver.h"
#include "planner/plan_view.h"
#include "scenario/scenario_panel.h"
#include "session/session.h"
#include "window/banner.h"
#include "window/main_window.h"

#include <QAction>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace iterscope::ui;

namespace {
const QString kResnet18 = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/resnet18.structure.onnx");

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A session of an ONNX file (with a pin of it), its plan bounded, saved beside a copy of
// the network; the copy is then moved away.
struct MovedNetwork {
    QString session, network, moved_to;
};
MovedNetwork makeMovedNetworkSession(const QTemporaryDir& dir) {
    MovedNetwork m;
    m.network = dir.filePath(QStringLiteral("net.onnx"));
    m.moved_to = dir.filePath(QStringLiteral("moved/net.onnx"));
    m.session = dir.filePath(QStringLiteral("study.iterscope"));
    QFile::copy(kResnet18, m.network);
    QDir(dir.path()).mkpath(QStringLiteral("moved"));
    Session s;
    s.current.network = m.network;
    s.current.batch = 48;
    s.pinned = {s.current};
    s.pinned.front().gpus_per_node = 4;
    s.layer_filter = QStringLiteral("layer1");
    s.plan.constraints.deadline_hours = 3;
    QString error;
    saveSession(m.session, s, &error);
    QFile::rename(m.network, m.moved_to);
    return m;
}
// File › Save Session answered with `typed`: written there, `kept` left as `before`.
void saveAsksAndLeaves(MainWindow& w, const QString& typed, const QString& kept,
                       const QByteArray& before) {
    answerNextFileDialog(typed);
    w.action(QStringLiteral("actionSaveSession"))->trigger();
    QCOMPARE(contents(kept), before);
    QVERIFY(QFile::exists(typed + QStringLiteral(".iterscope")));
}
} // namespace

class TestSessions : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void planConstraintsRoundTripThroughASessionFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("plan.iterscope"));
        {
            MainWindow w(false);
            w.setScenario(ScenarioSettings{});
            QVERIFY(w.waitForResult());
            PlanChoices c;
            c.epochs = 30;
            c.dataset_images = 500000;
            c.constraints.max_gpus = 64;
            c.constraints.max_global_batch.reset(); // lifted
            c.constraints.deadline_hours = 2.5;
            c.constraints.budget_usd = 400;
            w.planView()->setChoices(c);
            QString error;
            QVERIFY2(w.saveSessionTo(path, &error), qPrintable(error));
        }
        QString error;
        const auto loaded = loadSession(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->plan.epochs, 30);
        QCOMPARE(loaded->plan.dataset_images, int64_t{500000});
        QCOMPARE(loaded->plan.constraints.max_gpus, 64);
        QVERIFY(!loaded->plan.constraints.max_global_batch);
        QCOMPARE(*loaded->plan.constraints.deadline_hours, 2.5);
        QCOMPARE(*loaded->plan.constraints.budget_usd, 400.0);
        MainWindow w(false);
        QVERIFY2(w.openSession(path, &error), qPrintable(error));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.planView()->choices(), loaded->plan);
        // A session from before plans were kept has the tab's defaults, the bounded batch.
        QVERIFY(Session{}.plan.constraints.max_global_batch == iterscope::kDefaultMaxGlobalBatch);
    }

    void aBadPlanInASessionIsRefusedWithItsField() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.iterscope"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format":"iterscope-session","version":1,"scenario":{},)"
                R"("plan":{"deadline_hours":-1}})");
        f.close();
        QString error;
        QVERIFY(!loadSession(path, &error));
        QVERIFY2(error.contains(QStringLiteral("plan.deadline_hours")), qPrintable(error));
    }

    void aSessionWhoseNetworkMovedIsNotOverwritten() {
        QTemporaryDir dir;
        const MovedNetwork m = makeMovedNetworkSession(dir);
        const QByteArray before = contents(m.session);
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        const QString title = w.windowTitle();
        QString error;
        QVERIFY(w.openSession(m.session, &error));
        // Nothing changed: the scenario, the pins, the title; the banner asks.
        QCOMPARE(w.waitingSession(), m.session);
        QVERIFY(w.banner()->isVisibleTo(&w));
        QVERIFY(w.banner()->text().contains(QStringLiteral("net.onnx")));
        QCOMPARE(w.banner()->buttons().size(), std::size_t(3)); // locate, without, close
        QCOMPARE(w.scenarioPanel()->settings().network, QStringLiteral("resnet50"));
        QVERIFY(w.scalingCharts()->pins().isEmpty());
        QCOMPARE(w.windowTitle(), title);
        QVERIFY(w.sessionPath().isEmpty());
        // Ctrl+S asks for a name (the window is no session's file), and the session stays.
        saveAsksAndLeaves(w, dir.filePath(QStringLiteral("other")), m.session, before);
    }

    void openingWithoutTheNetworkNeverWritesBack() {
        QTemporaryDir dir;
        const MovedNetwork m = makeMovedNetworkSession(dir);
        const QByteArray before = contents(m.session);
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QString error;
        QVERIFY(w.openSession(m.session, &error));
        w.openWaitingWithoutNetwork();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.batch, 48); // the rest of the session
        QCOMPARE(w.currentResult()->settings.network, QStringLiteral("resnet50"));
        QCOMPARE(*w.planView()->choices().constraints.deadline_hours, 3.0);
        QVERIFY(w.sessionPath().isEmpty());
        QVERIFY(w.windowTitle().contains(QStringLiteral("not saved")));
        // Save suggests a new name beside it; the user's file is left as it was.
        saveAsksAndLeaves(w, dir.filePath(QStringLiteral("study-2")), m.session, before);
    }

    void locatingTheNetworkOpensTheSessionWhole() {
        QTemporaryDir dir;
        const MovedNetwork m = makeMovedNetworkSession(dir);
        MainWindow w(false);
        QString error;
        QVERIFY(w.openSession(m.session, &error));
        QCOMPARE(w.waitingSession(), m.session);
        w.locateWaitingNetwork(m.moved_to);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.network, m.moved_to);
        QCOMPARE(w.scalingCharts()->pins().size(), 1); // the pin found its network too
        QCOMPARE(w.scalingCharts()->pins().front().settings.network, m.moved_to);
        QCOMPARE(w.layerFilter()->text(), QStringLiteral("layer1"));
        QCOMPARE(w.sessionPath(), m.session); // whole: Save writes it, with the new place
        QVERIFY(w.waitingSession().isEmpty());
    }

    void aSessionWhoseNetworkDoesNotOpenLeavesTheWindowAsItWas() {
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken.onnx"));
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a protobuf");
        f.close();
        Session s;
        s.current.network = broken;
        s.current.batch = 16;
        const QString path = dir.filePath(QStringLiteral("broken.iterscope"));
        QString error;
        QVERIFY(saveSession(path, s, &error));
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QVERIFY(w.openSession(path, &error));
        QVERIFY(w.waitForResult());
        QTRY_COMPARE(w.waitingSession(), path);
        QCOMPARE(w.scenarioPanel()->settings().batch, 64); // not the session's 16
        QCOMPARE(w.currentResult()->settings.network, QStringLiteral("resnet50"));
        QVERIFY(w.sessionPath().isEmpty());
        QVERIFY(w.banner()->text().contains(QStringLiteral("broken.onnx")));
    }
};

QTEST_MAIN(TestSessions)
#include "tst_sessions.moc"
