// Daily use (issue 31, item 5): a start whose last network has moved asks where it is
// instead of waiting for a prediction that never comes; a session edited since it was
// saved says so in the title and asks before the window closes; Open Recent drops a file
// that is gone; Locate starts where the file was; disabled menu items look disabled in the
// dark theme.
#include "planner/plan_view.h"
#include "scenario/scenario_panel.h"
#include "session/session.h"
#include "summary/summary_panel.h"
#include "window/banner.h"
#include "window/main_window.h"
#include "window/recent_files.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QJsonDocument>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <functional>

using namespace iterscope::ui;

namespace {
const QString kResnet18 = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/resnet18.structure.onnx");

// Calls `act` on the next modal dialog of type T once it shows, then leaves it to `act`.
template <typename T> void onNextDialog(std::function<void(T*)> act) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, act] {
        auto* dialog = qobject_cast<T*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible())
            return;
        timer->stop();
        timer->deleteLater();
        act(dialog);
    });
    timer->start();
}

void answerUnsavedQuestion(QMessageBox::StandardButton answer) {
    onNextDialog<QMessageBox>([answer](QMessageBox* box) {
        QCOMPARE(box->objectName(), QStringLiteral("unsavedQuestion"));
        box->button(answer)->click();
    });
}

// The brightest grey in a band of rows of `image`: the text drawn there.
int brightestIn(const QImage& image, int top, int bottom) {
    int best = 0;
    for (int y = std::max(top, 0); y < std::min(bottom, image.height()); ++y)
        for (int x = 0; x < image.width(); ++x)
            best = std::max(best, qGray(image.pixel(x, y)));
    return best;
}
} // namespace

class TestDailyUse : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        // A persistent window reads and writes these settings: the test's own, never the
        // user's.
        QCoreApplication::setOrganizationName(QStringLiteral("IterscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("DailyUse"));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }

    void init() { QSettings().clear(); }

    void aStartWhoseLastNetworkMovedAsksWhereItIs() {
        QTemporaryDir dir;
        const QString gone = dir.filePath(QStringLiteral("models/net.onnx"));
        Session last;
        last.current.network = gone;
        last.current.batch = 48;
        QSettings().setValue(QStringLiteral("lastSession"),
                             QJsonDocument(last.toJson()).toJson(QJsonDocument::Compact));
        MainWindow w(true);
        QVERIFY(w.restoreLastSession());
        // The banner asks, and the window is not empty meanwhile: it shows the default
        // network, computed.
        QVERIFY(w.isWaiting());
        QVERIFY(w.banner()->isVisibleTo(&w));
        QVERIFY2(w.banner()->text().contains(QStringLiteral("net.onnx")),
                 qPrintable(w.banner()->text()));
        QVERIFY(w.banner()->text().contains(QStringLiteral("last session")));
        QCOMPARE(w.banner()->buttons().size(), std::size_t(3)); // locate, choose, close
        QVERIFY(w.waitForResult());
        QVERIFY(w.currentResult());
        QCOMPARE(w.currentResult()->settings.network, ScenarioSettings{}.network);
        QVERIFY(w.sessionPath().isEmpty());
        // Located, the last session opens whole with the file where it is now.
        const QString moved = dir.filePath(QStringLiteral("net.onnx"));
        QVERIFY(QFile::copy(kResnet18, moved));
        w.locateWaitingNetwork(moved);
        QVERIFY(w.waitForResult());
        QTRY_COMPARE(w.currentResult()->settings.network, moved);
        QCOMPARE(w.currentResult()->settings.batch, 48);
        QVERIFY(!w.isWaiting());
        QVERIFY(w.banner()->isHidden());
        QVERIFY(w.sessionPath().isEmpty()); // the last session is no file's
        QVERIFY(!w.isWindowModified());
    }

    void aStartWhoseLastNetworkDoesNotOpenAsksToo() {
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken.onnx"));
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a protobuf");
        f.close();
        Session last;
        last.current.network = broken;
        QSettings().setValue(QStringLiteral("lastSession"),
                             QJsonDocument(last.toJson()).toJson(QJsonDocument::Compact));
        MainWindow w(true);
        QVERIFY(w.restoreLastSession());
        QTRY_VERIFY(w.isWaiting());
        QVERIFY(w.banner()->text().contains(QStringLiteral("broken.onnx")));
        QVERIFY(w.waitForResult());
        QTRY_VERIFY(w.currentResult());
        QCOMPARE(w.currentResult()->settings.network, ScenarioSettings{}.network);
    }

    void theLocateDialogStartsWhereTheFileWas() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("data")));
        // The session in one folder, the network in another that is still there, and a
        // network whose folder went too: the nearest folder above it that is left.
        const QString session_dir = dir.filePath(QStringLiteral("sessions"));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("sessions")));
        for (const auto& [network, expected] :
             {std::pair{dir.filePath(QStringLiteral("data/net.onnx")),
                        dir.filePath(QStringLiteral("data"))},
              std::pair{dir.filePath(QStringLiteral("data/gone/deeper/net.onnx")),
                        dir.filePath(QStringLiteral("data"))}}) {
            Session s;
            s.current.network = network;
            const QString path = QDir(session_dir).filePath(QStringLiteral("s.iterscope"));
            QString error;
            QVERIFY(saveSession(path, s, &error));
            MainWindow w(false);
            QVERIFY(w.openSession(path, &error));
            QVERIFY(w.isWaiting());
            QString shown;
            onNextDialog<QFileDialog>([&shown](QFileDialog* dialog) {
                shown = dialog->directory().absolutePath();
                dialog->reject();
            });
            w.banner()->buttons().front()->click();
            QCOMPARE(QDir(shown).canonicalPath(), QDir(expected).canonicalPath());
            QVERIFY(w.isWaiting()); // not located: still asks
        }
    }

    void aLongFileNameDoesNotWidenTheWindow() {
        QTemporaryDir dir;
        const QString name = QStringLiteral(
            "my_resnet_with_a_rather_long_descriptive_file_name_for_the_banner.onnx");
        Session s;
        s.current.network = dir.filePath(QStringLiteral("models/") + name);
        const QString path = dir.filePath(QStringLiteral("long.iterscope"));
        QString error;
        QVERIFY(saveSession(path, s, &error));
        MainWindow w(false);
        w.resize(MainWindow::kSmallestScreen);
        w.show();
        QVERIFY(w.openSession(path, &error));
        QVERIFY(w.isWaiting());
        QCoreApplication::processEvents();
        QVERIFY2(w.minimumSizeHint().width() <= MainWindow::kSmallestScreen.width(),
                 qPrintable(QString::number(w.minimumSizeHint().width())));
        // Nor taller: the banner's text and buttons must not raise the window's minimum
        // height past a 720-pixel screen.
        QVERIFY2(w.minimumSizeHint().height() <= MainWindow::kSmallestScreen.height(),
                 qPrintable(QString::number(w.minimumSizeHint().height())));
        QPushButton* locate = w.banner()->buttons().front();
        QVERIFY(locate->toolTip().contains(name)); // the whole name, where it was shortened
    }

    void openRecentDropsAFileThatIsGone() {
        QTemporaryDir dir;
        const QString gone = dir.filePath(QStringLiteral("gone.onnx"));
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        w.recentFiles()->add(gone); // opened once, deleted since
        w.openFile(gone);
        QVERIFY(w.waitForResult());
        QVERIFY(!w.recentFiles()->paths().contains(gone));
        QVERIFY(w.banner()->isVisibleTo(&w));
        QVERIFY(w.banner()->text().contains(QStringLiteral("gone.onnx")));
        QCOMPARE(w.currentResult()->settings.network, ScenarioSettings{}.network);
    }

    void anEditedSessionIsMarkedAndAsksBeforeClosing() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("study.iterscope"));
        Session s;
        s.current.batch = 32;
        QString error;
        QVERIFY(saveSession(path, s, &error));
        MainWindow w(false);
        w.show();
        QVERIFY(w.openSession(path, &error));
        QVERIFY(w.waitForResult());
        QTRY_COMPARE(w.sessionPath(), path);
        QVERIFY(w.windowTitle().contains(QStringLiteral("[*]")));
        QVERIFY(!w.isWindowModified());
        QVERIFY(w.close()); // nothing to lose: no question
        w.show();

        ScenarioSettings edited = w.scenarioPanel()->settings();
        edited.batch = 96;
        w.setScenario(edited);
        QVERIFY(w.waitForResult());
        QVERIFY(w.isWindowModified());
        // Cancel keeps the window; Save writes the file and closes.
        answerUnsavedQuestion(QMessageBox::Cancel);
        QVERIFY(!w.close());
        QVERIFY(w.isVisible());
        answerUnsavedQuestion(QMessageBox::Save);
        QVERIFY(w.close());
        auto saved = loadSession(path, &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->current.batch, 96);
        QVERIFY(!w.isWindowModified());

        // Undone back to what the file holds, the mark goes; a filter is an edit too, and
        // Discard leaves the file as it was.
        w.show();
        w.setScenario(s.current);
        QVERIFY(w.waitForResult());
        QVERIFY(w.isWindowModified()); // the file now holds 96
        edited.batch = 96;
        w.setScenario(edited);
        QVERIFY(w.waitForResult());
        QVERIFY(!w.isWindowModified());
        w.layerFilter()->setText(QStringLiteral("conv"));
        QVERIFY(w.isWindowModified());
        answerUnsavedQuestion(QMessageBox::Discard);
        QVERIFY(w.close());
        QCOMPARE(loadSession(path, &error)->layer_filter, QString());
    }

    void disabledMenuItemsLookDisabledInTheDarkTheme() {
        MainWindow w(false);
        w.setDarkTheme(true);
        QMenu menu;
        menu.addAction(QStringLiteral("Enabled item"));
        menu.addAction(QStringLiteral("Disabled item"))->setEnabled(false);
        menu.ensurePolished();
        menu.adjustSize();
        const QImage image = menu.grab().toImage();
        const int row = menu.actionGeometry(menu.actions().front()).height();
        const int enabled = brightestIn(image, 0, row);
        const int disabled = brightestIn(image, row, 2 * row + 4);
        w.setDarkTheme(false);
        // Text on the dark menu: light when enabled, about half as bright when not (the
        // 0x90 grey the theme had, and a white etched shadow, read as enabled).
        QVERIFY2(enabled > 200, qPrintable(QString::number(enabled)));
        QVERIFY2(disabled * 100 <= enabled * 55,
                 qPrintable(QStringLiteral("%1 against %2").arg(enabled).arg(disabled)));
    }

  private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestDailyUse)
#include "tst_daily_use.moc"
